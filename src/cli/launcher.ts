// The `kube-inference` command as the package's `bin` runs it: loads the bundled CLI beside it
// (kube-inference.bundle.cjs, scripts/bundle-cli.mjs) with V8's code cache, so that a run does not compile
// the bundle's 1.2 MB of JavaScript again — that compile was a third of a `render` of one document. On Node
// 22.1 and later Node's own compile cache does it (module.enableCompileCache); on Node 20 the launcher keeps
// the cache the same way, as V8 code cache data (vm.Script's cachedData). V8 checks cached data against the
// engine and the source's length and ignores what does not match; the cache file is named after a hash of
// the source and the engine, so that another bundle never reads it. The cache only saves compile time: when
// it cannot be read or written the CLI runs as without it, with the same output.
//
// The cache lives in a directory of the user's own (`$XDG_CACHE_HOME/kube-inference` or
// `~/.cache/kube-inference`, mode 0700; KUBE_INFERENCE_COMPILE_CACHE names another, `off` none): V8 trusts
// cached data as compiled code, so one another user could write to is never read. A directory of root's
// is trusted too (the merge image ships one, written at image build and read-only to the user its
// containers run as). NODE_DEBUG=kube-inference says on standard error what became of the cache.
import { createHash } from 'crypto';
import * as fs from 'fs';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the Module class itself (constructed below), not a namespace
import Module = require('module');
import * as os from 'os';
import * as path from 'path';
import { debuglog } from 'util';
import * as vm from 'vm';

const BUNDLE = path.join(__dirname, 'kube-inference.bundle.cjs');
const debug = debuglog('kube-inference');

/**
 * The cache directory, made if need be; undefined when off, or when others than its owner may write to it
 * or its owner is neither the user nor root.
 */
function cacheDirectory(): string | undefined {
  const given = process.env.KUBE_INFERENCE_COMPILE_CACHE;
  if (given === 'off') return undefined;
  const dir = given || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kube-inference');
  try {
    // An existing directory is not made again (EEXIST, on a read-only file system too).
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.statSync(dir);
    // Root's directory is as safe as the user's own: root can write any file, the user's cache included, so
    // trusting it lets no one else plant code. Either way no group or other user may write to it.
    const owner = typeof process.getuid !== 'function' || stat.uid === process.getuid() || stat.uid === 0;
    // eslint-disable-next-line no-bitwise -- permission bits
    if (stat.isDirectory() && owner && (stat.mode & 0o022) === 0) return dir;
    debug('compile cache %s not used: owned by uid %d, mode %s', dir, stat.uid, (stat.mode & 0o7777).toString(8)); // eslint-disable-line no-bitwise -- permission bits
  } catch (e) {
    debug('compile cache %s not used: %s', dir, (e as Error).message);
  }
  return undefined;
}

/** The bundle's exports, compiled with the cache of `dir` (written when it had none that fits). */
function loadWithCodeCache(dir: string | undefined): BundleExports {
  // The file's bytes are hashed as read: hashing the decoded text would encode its 1.2 MB again.
  const bytes = fs.readFileSync(BUNDLE);
  const key = createHash('sha256').update(process.version).update(process.arch).update(bytes).digest('hex').slice(0, 32);
  let source = bytes.toString('utf8');
  // A shebang line is a comment to Node's loader only.
  if (source.startsWith('#!')) source = `//${source.slice(2)}`;
  // One cache per command: each holds what its command's first run compiled (a run compiles the functions it calls).
  const command = /^[a-z][a-z-]{0,30}$/.test(process.argv[2] ?? '') ? process.argv[2] : 'other';
  const cacheFile = dir === undefined ? undefined : path.join(dir, `${key}-${command}.v8cache`);
  let cachedData: Buffer | undefined;
  try {
    if (cacheFile !== undefined) cachedData = fs.readFileSync(cacheFile);
  } catch {
    // No cache yet.
  }
  const script = new vm.Script(Module.wrap(source), { filename: BUNDLE, cachedData });
  if (cacheFile !== undefined) debug('code cache %s: %s', cacheFile, cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted');
  // A module as Node's loader makes one, in its cache as a loaded file is.
  const bundle = new Module(BUNDLE, module);
  bundle.filename = BUNDLE;
  bundle.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(__dirname);
  require.cache[BUNDLE] = bundle;
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    // Taken at exit, so that it holds the functions this run compiled too.
    process.once('exit', () => writeCache(cacheFile, key, script));
  }
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(bundle.exports, bundle.exports, Module.createRequire(BUNDLE), bundle, BUNDLE, __dirname);
  bundle.loaded = true;
  return bundle.exports as BundleExports;
}

/**
 * Writes the cache by renaming a new file over it, so that a concurrent run reads a whole one or none; the
 * caches of other bundles (an earlier release) are removed.
 */
function writeCache(file: string, key: string, script: vm.Script): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, script.createCachedData(), { flag: 'wx', mode: 0o600 });
    fs.renameSync(temporary, file);
    debug('code cache %s: written', file);
    const dir = path.dirname(file);
    for (const old of fs.readdirSync(dir)) if (old.endsWith('.v8cache') && !old.startsWith(key)) fs.rmSync(path.join(dir, old), { force: true });
  } catch (e) {
    // A directory the user may not write to (the merge image's, read-only): the run stays as it was.
    debug('code cache %s: not written: %s', file, (e as Error).message);
    fs.rmSync(temporary, { force: true });
  }
}

/** What the bundle's entry (main.ts) exports. */
interface BundleExports {
  main(): void;
}

const enableCompileCache = (Module as unknown as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
if (enableCompileCache !== undefined) {
  const dir = cacheDirectory();
  if (dir !== undefined) debug('compile cache %s: %j', dir, enableCompileCache(dir));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node's loader reads and writes the compile cache itself
  (require(BUNDLE) as BundleExports).main();
} else {
  loadWithCodeCache(cacheDirectory()).main();
}
