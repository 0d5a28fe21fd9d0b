/**
 * The package's `bin` (src/cli/launcher.ts) loads the bundled CLI with V8's code cache, kept per command in
 * a directory of the user's own. The cache may only save compile time: the output is the same with it,
 * without it, with a broken one, and when the directory is not the user's alone (never read then).
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runBuiltCli } from './built-cli';

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
});
