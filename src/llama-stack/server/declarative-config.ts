import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { isRecord } from '../../checks';
import { ProblemCollector } from '../../errors';
import { describeIssue, RunConfigError } from '../../run-config/errors';
import { droppedKeysWarning, generateOgxConfig, secretEnvOf } from '../../run-config/ogx-configgen';
import { releaseName, ServerRelease } from '../../run-config/releases';
import { renderYaml } from '../../run-config/render';
import { checkAgainstCrd } from '../../schema/ogx-server-crd';
import { closest } from '../../suggest';

/** The OGX operator's declarative config, as the construct plans it. */
export interface PlannedDeclarativeConfig {
  /** The config generated at synth time (over an inline user config), as YAML text. */
  readonly configText?: string;
  /** The spec, when the config is generated in the pod (over a ConfigMap's or the image's own config). */
  readonly inPod?: { [key: string]: unknown };
  /** The Secret-backed variables the generated config references, for the server container. */
  readonly secretEnv: readonly IEnvVar[];
  /** True when the spec gives `storage`, whose SQLite databases `SQLITE_STORE_DIR` places. */
  readonly generatesStorage: boolean;
}

/**
 * The OGXServer spec fields the operator's config generator reads (pkg/config/generator.go):
 * `distribution` names the config (`distro_name`), `network` gives `server.port`.
 */
const GENERATOR_FIELDS = ['distribution', 'providers', 'resources', 'storage', 'disabledAPIs', 'network'] as const;

/** Where `declarativeConfig` and its base config stand, for the plan and its messages. */
export interface DeclarativeConfigContext {
  readonly release?: ServerRelease;
  /** The inline user config, the generator's base at synth time; undefined when only the pod sees it. */
  readonly inlineConfigText?: string;
  /** The port the server listens on (`port`), which `network.port` must not contradict. */
  readonly serverPort: number;
}

/**
 * Plans `declarativeConfig`: the OGX operator's config generator (src/run-config/ogx-configgen.ts)
 * runs now over an inline user config, or in the pod's merge step over a config only the pod sees.
 * Either way the spec is checked now, as the API server and the generator would check it: against the
 * OGXServer CRD's schema, and by the generator's checks of the spec alone. The variables of the Secrets
 * the config references depend on the spec alone and are known now. Problems name `declarativeConfig`,
 * or `userConfig.config` for a base config the generator refuses.
 */
export function planDeclarativeConfig(
  spec: { [key: string]: unknown } | undefined, context: DeclarativeConfigContext, problems: ProblemCollector, warn: (message: string) => void,
): PlannedDeclarativeConfig | undefined {
  const release = context.release;
  if (spec === undefined || release === undefined) return undefined;
  if (release.project !== 'ogx') {
    problems.add('declarativeConfig', `is the OGX operator's config, generated for ogx releases; the server runs ${releaseName(release)}. `
      + 'Set serverVersion to an ogx release (1.5), or write the config itself in userConfig.');
    return undefined;
  }
  if (!checkFields(spec, context.serverPort, problems, warn)) return undefined;
  const secretEnv = attempt(problems, () => secretEnvOf(spec));
  if (secretEnv === undefined) return undefined;
  const env: IEnvVar[] = secretEnv.map((e) => ({ name: e.name, valueFrom: { secretKeyRef: { name: e.secretName, key: e.secretKey } } }));
  const generatesStorage = spec.storage !== undefined && spec.storage !== null;
  if (context.inlineConfigText === undefined) return { inPod: spec, secretEnv: env, generatesStorage };
  const text = context.inlineConfigText;
  const generated = attempt(problems, () => generateOgxConfig(spec, text, { baseConfigSource: 'userConfig.config (the base config)' }));
  if (generated === undefined) return undefined;
  if (generated.droppedBaseKeys.length > 0) warn(droppedKeysWarning(generated.droppedBaseKeys));
  return { configText: renderYaml(generated.config), secretEnv: env, generatesStorage };
}

/**
 * The spec's fields: those the generator reads (a field of another OGXServer part would be ignored
 * without a word), `network.port` only and the server's own, then the CRD's schema for their shapes
 * (unknown fields, types, enums, its CEL rules), as the API server checks an OGXServer.
 */
function checkFields(spec: { [key: string]: unknown }, serverPort: number, problems: ProblemCollector, warn: (message: string) => void): boolean {
  const before = problems.problems.length;
  for (const key of Object.keys(spec)) {
    if (!(GENERATOR_FIELDS as readonly string[]).includes(key)) {
      const near = closest(key, GENERATOR_FIELDS);
      problems.add(`declarativeConfig.${key}`, `is not a field the operator's config generator reads: ${near !== undefined ? `did you mean '${near}'? ` : ''}`
        + `expected ${GENERATOR_FIELDS.join(', ')} (the other OGXServer fields are the construct's props: workload is replicas, resources, storage; network.policy is network).`);
    }
  }
  const network = spec.network;
  if (isRecord(network)) {
    for (const key of Object.keys(network).filter((k) => k !== 'port')) {
      problems.add(`declarativeConfig.network.${key}`, 'is not read by the config generator, which reads network.port only: use the construct\'s network and tls props instead.');
    }
    // The CRD defaults network.port to 8321 whenever network is given; the generator writes it as server.port.
    const port = network.port ?? 8321;
    if (port !== serverPort) {
      problems.add('declarativeConfig.network.port', `is ${JSON.stringify(port)}, but the server listens on port ${serverPort} (port${serverPort === 8321 ? ', by default' : ''}), `
        + `which the pod's OGX_PORT gives and wins over the config's server.port: set port to ${JSON.stringify(port)} too, or remove network from declarativeConfig.`);
    }
  }
  if (problems.problems.length > before) return false;
  // Checked as an OGXServer holding these fields; its problems are renamed to the prop's fields.
  const crdProblems = new ProblemCollector();
  const distribution = spec.distribution ?? { name: 'starter' };
  checkAgainstCrd({ apiVersion: 'ogx.io/v1beta1', kind: 'OGXServer', metadata: { name: 'declarative-config' }, spec: { ...spec, distribution } },
    crdProblems, (m) => warn(`declarativeConfig: ${m}`));
  for (const p of crdProblems.problems) problems.add(p.field.replace(/^spec\b/, 'declarativeConfig'), p.message);
  return problems.problems.length === before;
}

/** Runs `fn`, turning a RunConfigError into one problem per issue: the base config's at `userConfig.config`, the rest at `declarativeConfig`. */
function attempt<T>(problems: ProblemCollector, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof RunConfigError)) throw e;
    e.issues.forEach((issue) => problems.add(/base config/i.test(issue.title) ? 'userConfig.config' : 'declarativeConfig', describeIssue(issue)));
    return undefined;
  }
}
