#!/usr/bin/env node
// Builds test/upstream-admission (a Go program running the operators' own admission validation on
// rendered objects, from their Go modules) before jest starts (`npm test`), and writes the index the
// tests read (<cache>/upstream-admission.json, read by test/upstream/admission.ts).
//
// Cached and idempotent: the binary lives in <cache>/upstream-admission/<hash of go.mod, go.sum, the
// sources and the build flags>, marked `ready` once built; a second run does nothing. Built with -mod=readonly: go.sum is
// committed, and the build never rewrites it. Go: $KIC_GO, else `go` on PATH, else /usr/local/go/bin/go.
//
// When it cannot be built (no Go, or the module proxy cannot be reached), locally the index says why and
// the tests that need it skip loudly; under CI=true that is an error.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CI, cacheRoot, cachedOrBuilt, hash8, removeOlder, writeAtomically } from './cache.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE = path.join(ROOT, 'test', 'upstream-admission');
/**
 * `go build` flags: go.sum is never rewritten; no paths of this machine and no VCS stamp in the binary (it
 * depends on the sources and these flags, which name its cache directory, not on the checkout).
 */
const BUILD_FLAGS = ['-mod=readonly', '-trimpath', '-buildvcs=false'];

function main() {
  const cache = cacheRoot();
  const indexFile = path.join(cache, 'upstream-admission.json');
  const started = Date.now();
  try {
    const { value, cached } = build(cache);
    writeAtomically(indexFile, JSON.stringify(value, null, 2) + '\n');
    const how = cached ? 'cached' : `built in ${Math.round((Date.now() - started) / 1000)} s`;
    process.stdout.write(`upstream admission: ${how} (${value.binary})\n`);
  } catch (e) {
    const reason = `test/upstream-admission could not be built: ${e.message}`;
    writeAtomically(indexFile, JSON.stringify({ skipped: reason }, null, 2) + '\n');
    if (CI) {
      process.stderr.write(`upstream-admission: required in CI (CI=true): ${reason}\n`);
      process.exit(1);
    }
    process.stdout.write(`SKIPPED upstream admission: ${reason}\n`
      + 'Rendered objects are not checked by the operators\' own validation in this run (in CI, CI=true, this is an error).\n');
  }
}

function build(cache) {
  const files = fs.readdirSync(SOURCE).filter((f) => f === 'go.mod' || f === 'go.sum' || f.endsWith('.go')).sort();
  const key = hash8([BUILD_FLAGS.join(' '), ...files.map((f) => `${f}\n${fs.readFileSync(path.join(SOURCE, f), 'utf8')}`)].join('\n'));
  const parent = path.join(cache, 'upstream-admission');
  const dir = path.join(parent, key);
  const go = findGo();
  const result = cachedOrBuilt(dir, () => {
    if (typeof go !== 'object') throw new Error(go);
  }, () => {
    const binary = path.join(dir, 'upstream-admission');
    run(go.executable, ['build', ...BUILD_FLAGS, '-o', binary, '.']);
    return { binary, dir, goVersion: go.version, sources: files };
  });
  removeOlder(parent, dir, /^[0-9a-f]{8}$/);
  return result;
}

/** Go as {executable, version}, or why there is none. */
function findGo() {
  const candidates = process.env.KIC_GO ? [process.env.KIC_GO] : ['go', '/usr/local/go/bin/go'];
  for (const c of candidates) {
    const r = spawnSync(c, ['env', 'GOVERSION'], { encoding: 'utf8' });
    if (r.status === 0) return { executable: c, version: r.stdout.trim() };
  }
  return `no Go toolchain found (tried ${candidates.join(', ')}); install Go or set KIC_GO`;
}

/** Runs a command in the Go module without a shell; throws with the end of its output on failure. */
function run(command, args) {
  const r = spawnSync(command, args, { cwd: SOURCE, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`${command}: ${r.error.message}`);
  if (r.status !== 0) {
    const output = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited ${r.status}:\n${output}`);
  }
  return r.stdout;
}

main();
