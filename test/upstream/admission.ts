/**
 * The operators' own admission validation, run on rendered objects by the Go program in
 * test/upstream-admission (built by scripts/test-setup/upstream-admission.mjs before jest runs).
 * Today that is KubeRay's RayService validation, and for Deployments the Pod Security admission
 * controller's checks of the `restricted` profile (k8s.io/pod-security-admission); KAITO's and Dynamo's Go
 * modules cannot be had here, so their objects come back as not validated (`accepted: null`).
 */
import { execFileSync } from 'node:child_process';
import { goBuild } from '../sandbox/go-builds';
import { inCi, SandboxSupport } from '../sandbox/host';

/** What upstream said about one object. */
export interface AdmissionResult {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** The upstream Go module whose code judged the object; absent when none is available here. */
  readonly validator?: string;
  /** `null` when no upstream validation is available for the kind. */
  readonly accepted: boolean | null;
  /** Upstream's messages, each prefixed with the stage that refused (strict decoding, admission webhook, controller). */
  readonly errors: readonly string[];
  /** Why the object was not validated. */
  readonly note?: string;
  /** What upstream derives from the object, e.g. `serveConfigV2`: the JSON KubeRay sends to Ray's dashboard. */
  readonly derived?: Readonly<Record<string, unknown>>;
}

let found: { binary: string } | { reason: string } | undefined;

/** The checker's binary (scripts/test-setup/upstream-admission.mjs), or why there is none. */
function checker(): { binary: string } | { reason: string } {
  if (found) return found;
  const b = goBuild('upstream-admission', ['upstream-admission'], 'node scripts/test-setup/upstream-admission.mjs');
  return (found = 'reason' in b ? b : { binary: b.binaries['upstream-admission'] });
}

/** For `describeWhen`: whether upstream admission can run here. */
export function upstreamAdmissionSupport(): SandboxSupport {
  const c = checker();
  return 'binary' in c ? { ok: true } : { ok: false, reason: `upstream admission: ${c.reason}` };
}

/** Runs upstream admission on `objects` (one process for the batch); throws when it cannot run. */
export function upstreamAdmission(objects: readonly unknown[]): AdmissionResult[] {
  const c = checker();
  if (!('binary' in c)) throw new Error(`upstream admission cannot run: ${c.reason}`);
  const out = execFileSync(c.binary, [], { input: JSON.stringify(objects), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(out) as AdmissionResult[];
}

let warned = false;

/**
 * Fails (with upstream's messages) when upstream refuses any of `objects`. Where the checker could not be
 * built: an error in CI (`CI=true`); locally a loud warning, once per test file, and no check.
 */
export function expectUpstreamAdmits(objects: readonly unknown[]): void {
  const support = upstreamAdmissionSupport();
  if (!support.ok) {
    if (inCi()) throw new Error(`${support.reason}\nIn CI the rendered objects must pass upstream admission.`);
    if (!warned) {
      // eslint-disable-next-line no-console
      console.warn(`SKIPPED upstream admission of rendered objects: ${support.reason}. In CI (CI=true) this is a failure.`);
      warned = true;
    }
    return;
  }
  const refused = upstreamAdmission(objects).filter((r) => r.accepted === false);
  expect(refused.map((r) => ({ object: `${r.kind}/${r.name}`, errors: r.errors }))).toEqual([]);
}
