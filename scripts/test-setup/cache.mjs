// What the test set-up scripts share: whether this is CI, the cache root, and directories built once under a lock and
// marked ready (other test runs on the machine share the cache).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Whether this is a CI run (`CI=true`): what cannot be set up is then an error, not a skip. */
export const CI = process.env.CI === 'true' || process.env.CI === '1';

/** How long a build lock of another process is waited for before it is taken as abandoned. */
const LOCK_STALE_MS = 60 * 60 * 1000;

/**
 * The entry of a directory built once: read back when its `ready` marker exists, otherwise built in place
 * under a lock directory (other test runs on the machine share the cache) and marked ready last. Built in
 * place, not in a temporary directory renamed at the end: a virtual environment's scripts carry its
 * absolute path. `beforeBuild` runs only when something has to be built (and may throw to say why it cannot be).
 */
export function cachedOrBuilt(dir, beforeBuild, build) {
  const ready = path.join(dir, 'ready');
  if (fs.existsSync(ready)) return { value: JSON.parse(fs.readFileSync(ready, 'utf8')), cached: true };
  beforeBuild();
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const lockDir = `${dir}.lock`;
  while (!tryMkdir(lockDir)) {
    if (fs.existsSync(ready)) return { value: JSON.parse(fs.readFileSync(ready, 'utf8')), cached: true };
    if (Date.now() - mtime(lockDir) > LOCK_STALE_MS) fs.rmSync(lockDir, { recursive: true, force: true });
    else sleep(2000);
  }
  try {
    if (fs.existsSync(ready)) return { value: JSON.parse(fs.readFileSync(ready, 'utf8')), cached: true };
    fs.rmSync(dir, { recursive: true, force: true }); // what a build that died left behind
    fs.mkdirSync(dir);
    const value = build();
    writeAtomically(ready, JSON.stringify(value, null, 2) + '\n');
    return { value, cached: false };
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Removes the directories of `parent` matching `pattern` other than `keep`: builds of older locks. */
export function removeOlder(parent, keep, pattern) {
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (dir !== keep && pattern.test(name) && !fs.existsSync(`${dir}.lock`)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function cacheRoot() {
  if (process.env.KIC_CACHE_DIR) return path.resolve(process.env.KIC_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'kube-inference-constructs');
}

export function writeAtomically(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

function tryMkdir(dir) {
  try {
    fs.mkdirSync(dir);
    return true;
  } catch (e) {
    if (e.code === 'EEXIST') return false;
    throw e;
  }
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function hash8(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

export function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
