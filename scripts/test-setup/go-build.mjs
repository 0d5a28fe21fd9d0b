// Builds Go programs of this repository's test modules (test/<module>: go.mod, go.sum, sources) from the
// Go module proxy, cached and idempotent, and writes the index the tests read (<cache>/<name>.json).
//
// The binaries live in <cache>/<name>/<hash of go.mod, go.sum, the sources and the build flags>, marked
// `ready` once built; a second run does nothing. Built with -mod=readonly: go.sum is committed, and the
// build never rewrites it. Go: $KIC_GO, else `go` on PATH, else /usr/local/go/bin/go.
//
// When a program cannot be built (no Go, or the module proxy cannot be reached), locally the index says
// why and the tests that need it skip loudly; under CI=true that is an error.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CI, cacheRoot, cachedOrBuilt, hash8, removeOlder, writeAtomically } from './cache.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * `go build` flags: go.sum is never rewritten; no paths of this machine and no VCS stamp in the binary (it
 * depends on the sources and these flags, which name its cache directory, not on the checkout).
 */
const BUILD_FLAGS = ['-mod=readonly', '-trimpath', '-buildvcs=false'];

/**
 * Builds `binaries` (file name → package path, `.` for the module's own main package; or
 * `{ pkg, ldflags, tags, generate }`) of the module
 * test/<module> and writes <cache>/<name>.json: `{ dir, binaries: {file → path}, goVersion, buildSeconds }`
 * and `info`, or `{ skipped }` with the reason. `what` says in words what the tests lose without it.
 *
 * `generate` (environment variables) is for a command whose sources are completed by `go generate` before
 * its build (e.g. files it embeds that its module zip lacks): its package directory is copied from the module
 * cache, with go.mod and go.sum, into <dir>/<file>.src, `go generate` runs there with these variables, then
 * `go build .` (the copy is removed once built).
 */
export function setUpGoPrograms({ name, module, binaries, what, info = {} }) {
  const cache = cacheRoot();
  const indexFile = path.join(cache, `${name}.json`);
  const started = Date.now();
  try {
    const { value, cached } = build(cache, name, path.join(ROOT, 'test', module), binaries);
    writeAtomically(indexFile, JSON.stringify({ ...value, ...info }, null, 2) + '\n');
    const how = cached ? 'cached' : `built in ${Math.round((Date.now() - started) / 1000)} s`;
    process.stdout.write(`${name}: ${how} (${value.dir})\n`);
  } catch (e) {
    const reason = `test/${module} could not be built: ${e.message}`;
    writeAtomically(indexFile, JSON.stringify({ skipped: reason }, null, 2) + '\n');
    if (CI) {
      process.stderr.write(`${name}: required in CI (CI=true): ${reason}\n`);
      process.exit(1);
    }
    process.stdout.write(`SKIPPED ${name}: ${reason}\n${what} (in CI, CI=true, this is an error).\n`);
  }
}

function build(cache, name, source, binaries) {
  const files = fs.readdirSync(source).filter((f) => f === 'go.mod' || f === 'go.sum' || f.endsWith('.go')).sort();
  const key = hash8([BUILD_FLAGS.join(' '), JSON.stringify(binaries), ...files.map((f) => `${f}\n${fs.readFileSync(path.join(source, f), 'utf8')}`)].join('\n'));
  const parent = path.join(cache, name);
  const dir = path.join(parent, key);
  const go = findGo();
  const result = cachedOrBuilt(dir, () => {
    if (typeof go !== 'object') throw new Error(go);
  }, () => {
    const started = Date.now();
    const built = {};
    for (const [file, target] of Object.entries(binaries)) {
      const { pkg, ldflags, tags, generate } = typeof target === 'string' ? { pkg: target } : target;
      built[file] = path.join(dir, file);
      const flags = [...BUILD_FLAGS, ...(ldflags ? [`-ldflags=${ldflags}`] : []), ...(tags ? [`-tags=${tags}`] : [])];
      if (generate) {
        const copy = generatedCopy(go.executable, source, pkg, `${built[file]}.src`, generate);
        run(go.executable, ['build', ...flags, '-o', built[file], '.'], copy);
        fs.rmSync(copy, { recursive: true, force: true });
      } else {
        run(go.executable, ['build', ...flags, '-o', built[file], pkg], source);
      }
    }
    return { dir, binaries: built, goVersion: go.version, sources: files, buildSeconds: Math.round((Date.now() - started) / 1000) };
  });
  removeOlder(parent, dir, /^[0-9a-f]{8}$/);
  return result;
}

/**
 * A module of its own in `copy` (the module's go.mod and go.sum, the files of the package `pkg` from the module
 * cache) after `go generate` with the variables `env` (and -mod=readonly for the Go commands it runs).
 */
function generatedCopy(go, source, pkg, copy, env) {
  // -e: the package may not load before it is generated (a missing embedded file).
  const packageDir = run(go, ['list', '-mod=readonly', '-e', '-f', '{{.Dir}}', pkg], source).trim();
  fs.mkdirSync(copy);
  for (const f of ['go.mod', 'go.sum']) fs.copyFileSync(path.join(source, f), path.join(copy, f));
  for (const entry of fs.readdirSync(packageDir, { withFileTypes: true }).filter((e) => e.isFile())) {
    fs.writeFileSync(path.join(copy, entry.name), fs.readFileSync(path.join(packageDir, entry.name)));
  }
  // Through GOFLAGS: -mod=readonly reaches the Go commands the directives run too.
  const goFlags = [process.env.GOFLAGS, '-mod=readonly'].filter(Boolean).join(' ');
  run(go, ['generate', '.'], copy, { ...process.env, ...env, GOFLAGS: goFlags });
  return copy;
}

/** Go as {executable, version}, or why there is none. */
export function findGo() {
  const candidates = process.env.KIC_GO ? [process.env.KIC_GO] : ['go', '/usr/local/go/bin/go'];
  for (const c of candidates) {
    const r = spawnSync(c, ['env', 'GOVERSION'], { encoding: 'utf8' });
    if (r.status === 0) return { executable: c, version: r.stdout.trim() };
  }
  return `no Go toolchain found (tried ${candidates.join(', ')}); install Go or set KIC_GO`;
}

/** Runs a command in the Go module without a shell; throws with the end of its output on failure. */
function run(command, args, cwd, env = process.env) {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`${command}: ${r.error.message}`);
  if (r.status !== 0) {
    const output = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited ${r.status}:\n${output}`);
  }
  return r.stdout;
}
