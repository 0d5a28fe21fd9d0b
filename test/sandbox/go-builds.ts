/**
 * The Go programs the test set-up builds (scripts/test-setup/go-build.mjs): each build writes
 * `<cache>/<name>.json`, `{ dir, binaries: { file → path }, goVersion, buildSeconds, ...info }`, or
 * `{ skipped }` with the reason it could not be built. Read here, once, for every suite that runs one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { testEnvsCacheDir } from './test-envs';

/** A build's index: its binaries and the `info` its set-up script adds (a version, say). */
export interface GoBuild {
  readonly binaries: Readonly<Record<string, string>>;
  readonly info: Readonly<Record<string, unknown>>;
}

/**
 * The build `name` when every binary of `binaries` is where its index says; otherwise why not, ending
 * with how to build it (`setup`, e.g. `node scripts/test-setup/pulumi-cli.mjs`).
 */
export function goBuild(name: string, binaries: readonly string[], setup: string): GoBuild | { reason: string } {
  const file = path.join(testEnvsCacheDir(), `${name}.json`);
  let index: { binaries?: Record<string, string>; skipped?: string; [info: string]: unknown };
  try {
    index = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    return { reason: `no index at ${file} (${(e as Error).message}); run ${setup} (npm test runs it before jest)` };
  }
  if (index.skipped !== undefined) return { reason: index.skipped };
  const missing = binaries.filter((b) => index.binaries?.[b] === undefined || !fs.existsSync(index.binaries[b]));
  if (missing.length > 0) return { reason: `${missing.join(', ')} not where ${file} says; run ${setup} (npm test runs it before jest)` };
  const { binaries: built, skipped: _skipped, ...info } = index;
  return { binaries: built!, info };
}
