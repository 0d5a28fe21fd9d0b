/**
 * The package's `bin` (src/cli/launcher.ts) loads the bundled CLI with V8's code cache, kept per command in
 * a directory of the user's own (or root's: the merge image's). The cache may only save compile time: the
 * output is the same with it, without it, with a broken one, and when others than its owner may write to the
 * directory (never read then).
 */
import { spawnSync } from 'child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { BUILT_CLI, runBuiltCli } from './built-cli';

const LLSD = join(__dirname, '..', 'fixtures', 'llsd', 'two-stacks.yaml');

function render(cache: string): { code: number | null; stdout: string; stderr: string } {
  const { code, stdout, stderr } = runBuiltCli(['render', LLSD], { env: { KUBE_INFERENCE_COMPILE_CACHE: cache } });
  return { code, stdout, stderr };
}

describe('the launcher\'s code cache', () => {
  const dirs: string[] = [];
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'kic-compile-cache-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const uncached = render('off');

  test('is written by a command\'s first run, the user\'s alone, and read by the next: the same output each time', () => {
    expect(uncached).toMatchObject({ code: 0, stderr: '' });
    const dir = join(newDir(), 'cache');
    expect(render(dir)).toEqual(uncached);
    const files = readdirSync(dir);
    expect(files).toEqual([expect.stringMatching(/^[0-9a-f]{32}-render\.v8cache$/)]);
    // eslint-disable-next-line no-bitwise -- permission bits
    expect([statSync(dir).mode & 0o777, statSync(join(dir, files[0])).mode & 0o777]).toEqual([0o700, 0o600]);
    const written = statSync(join(dir, files[0])).mtimeMs;
    expect(render(dir)).toEqual(uncached);
    // Read, not written again.
    expect(statSync(join(dir, files[0])).mtimeMs).toBe(written);
  });

  test('a broken cache is rejected by V8, the run is the same, and the cache is written anew', () => {
    const dir = newDir();
    chmodSync(dir, 0o700);
    render(dir);
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file), Buffer.from('not V8 code cache data'));
    expect(render(dir)).toEqual(uncached);
    expect(readFileSync(join(dir, file)).length).toBeGreaterThan(1000);
  });

  test('a directory others may write to is neither read nor written; off writes nothing', () => {
    const shared = join(newDir(), 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    expect(render(shared)).toEqual(uncached);
    expect(readdirSync(shared)).toEqual([]);
    expect(uncached.stdout.length).toBeGreaterThan(1000);
  });

  // As another user than root (uid 1000, the merge image's), which only root can switch to.
  const asRoot = process.getuid?.() === 0;
  const asUser = (cache: string, env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [BUILT_CLI, 'render', LLSD], {
      uid: 1000, gid: 1000, encoding: 'utf8', env: { ...process.env, HOME: '/nonexistent', KUBE_INFERENCE_COMPILE_CACHE: cache, ...env },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  /** A directory of root's holding the cache root's run wrote, readable by all (as the merge image's build leaves it). */
  const rootCache = (mode: number) => {
    const parent = newDir();
    chmodSync(parent, 0o755);
    const dir = join(parent, 'cache');
    mkdirSync(dir);
    render(dir);
    for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
    chmodSync(dir, mode);
    return dir;
  };
  const debugLines = (stderr: string) => stderr.split('\n').filter(Boolean).map((l) => l.replace(/^KUBE-INFERENCE \d+: /, ''));

  (asRoot ? test : test.skip)('another user reads a cache in a directory of root\'s that only root may write to, and cannot write it: the same output', () => {
    const dir = rootCache(0o755);
    const [file] = readdirSync(dir);
    const written = statSync(join(dir, file)).mtimeMs;
    const run = asUser(dir, { NODE_DEBUG: 'kube-inference' });
    expect([run.code, run.stdout]).toEqual([0, uncached.stdout]);
    expect(debugLines(run.stderr)).toEqual([`code cache ${join(dir, file)}: accepted`]);
    expect(statSync(join(dir, file)).mtimeMs).toBe(written);
    // The same when V8 rejects it (other flags): the write fails, silently.
    const rejected = asUser(dir, { NODE_OPTIONS: '--max-old-space-size=256' });
    expect(rejected).toEqual({ code: 0, stdout: uncached.stdout, stderr: '' });
    expect(readdirSync(dir)).toEqual([file]);
  });

  (asRoot ? test : test.skip)('a directory of root\'s that its group may write to, or another user\'s, is not read', () => {
    const groupWritable = rootCache(0o775);
    const run = asUser(groupWritable, { NODE_DEBUG: 'kube-inference' });
    expect([run.code, run.stdout]).toEqual([0, uncached.stdout]);
    expect(debugLines(run.stderr)).toEqual([`compile cache ${groupWritable} not used: owned by uid 0, mode 775`]);
    const others = rootCache(0o755);
    chownSync(others, 1001, 1001);
    expect(debugLines(asUser(others, { NODE_DEBUG: 'kube-inference' }).stderr)).toEqual([`compile cache ${others} not used: owned by uid 1001, mode 755`]);
  });
});
