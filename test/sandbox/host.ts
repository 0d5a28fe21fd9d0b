import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';

/** The host's Python, which plays the "image's" Python in the sandboxed pods. */
export interface HostPython {
  /** The interpreter (`sys.executable`). */
  readonly executable: string;
  /** Its installation prefix (`sys.prefix`); bound read-only into every overlay image. */
  readonly prefix: string;
  /** The directory holding `python3` and `pip`, put first on the images' PATH. */
  readonly binDir: string;
  /** `major.minor`. */
  readonly version: string;
}

let python: HostPython | undefined;

/** Finds the host's `python3` (the one on PATH, as a user of this repository would run it). */
export function hostPython(): HostPython {
  if (!python) {
    const out = execFileSync('python3', ['-c', 'import sys; print(sys.executable); print(sys.prefix); print("%d.%d" % sys.version_info[:2])'], {
      encoding: 'utf8',
    }).trim().split('\n');
    python = { executable: out[0], prefix: out[1], binDir: path.dirname(out[0]), version: out[2] };
  }
  return python;
}

/** Whether bubblewrap can create the sandboxes here, and why not when it cannot. */
export interface SandboxSupport {
  readonly ok: boolean;
  readonly reason?: string;
}

let support: SandboxSupport | undefined;

/**
 * Probes bubblewrap once: present, and able to unshare the user and network namespaces with a tmpfs
 * root (what every container run needs).
 */
export function sandboxSupport(): SandboxSupport {
  if (!support) {
    const probe = spawnSync('bwrap', [
      '--unshare-user', '--unshare-net', '--unshare-pid', '--die-with-parent',
      '--tmpfs', '/', '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib',
      '--symlink', 'usr/lib64', '/lib64', '--proc', '/proc', '--dev', '/dev', '/bin/sh', '-c', 'exit 0',
    ], { encoding: 'utf8', timeout: 20_000 });
    if (probe.error) {
      support = { ok: false, reason: `bubblewrap (bwrap) is not usable: ${probe.error.message}. Install it: apt-get install bubblewrap` };
    } else if (probe.status !== 0) {
      support = { ok: false, reason: `bubblewrap cannot create a sandbox here (exit ${probe.status}): ${probe.stderr.trim()}` };
    } else {
      support = { ok: true };
    }
  }
  return support;
}

/** The first of `needs` that is missing (each probed only while the ones before it are there), or ok. */
export function firstUnsupported(...needs: ReadonlyArray<() => SandboxSupport>): SandboxSupport {
  for (const need of needs) {
    const s = need();
    if (!s.ok) return s;
  }
  return { ok: true };
}

/** Whether this is a CI run (`CI=true`), where a missing real component fails instead of skipping. */
export function inCi(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/**
 * `describe` for tests that need real sandboxes: runs them when bubblewrap works; otherwise fails
 * loudly in CI (`CI=true`) and skips with the reason locally.
 */
export function describeWithSandbox(name: string, fn: () => void): void {
  describeWhen(name, sandboxSupport(), 'bubblewrap', fn);
}

/**
 * How long a test (or hook) of the real components may take before jest ends it: a guard against a
 * hang only. Whether a component came up is the component's own signal (a probe, an exit, the pod
 * runner's deadlines), which a loaded shared machine delays well beyond jest's default of 120 s for a
 * whole test (seen: 265 s for a suite whose tests take 30 s each on a quiet machine).
 */
export const REAL_COMPONENT_GUARD_MS = 600_000;

/**
 * `describe` for tests that need a system tool (`what`, e.g. bubblewrap or buildah): runs them when
 * `support.ok`, with every test of the file guarded by {@link REAL_COMPONENT_GUARD_MS} instead of
 * jest's default; otherwise fails loudly in CI (`CI=true`) and skips with the reason locally.
 */
export function describeWhen(name: string, s: SandboxSupport, what: string, fn: () => void): void {
  if (s.ok) {
    describe(name, () => {
      jest.setTimeout(REAL_COMPONENT_GUARD_MS);
      fn();
    });
  } else if (inCi()) {
    describe(name, () => {
      test(`${what} is available (required in CI)`, () => {
        throw new Error(`${s.reason}\n.ci/run installs ${what}; these tests cannot run without it.`);
      });
    });
  } else {
    // eslint-disable-next-line no-console
    console.warn(`SKIPPED '${name}': ${s.reason}. These tests run in CI (CI=true), where a missing ${what} is a failure.`);
    describe.skip(name, fn);
  }
}

/** A TCP port free on the loopback interface right now (a serving main container shares the host's network). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
