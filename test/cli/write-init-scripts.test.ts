// `kube-inference write-init-scripts`: the merge image fills the scripts volume, only with the scripts the manifest was rendered for.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cli } from './run';
import { initScripts, initScriptsDigest } from '../../src/llama-stack/scripts';
import { removeTempDirs, tempDir } from '../run-config/helpers';

afterAll(removeTempDirs);

const contents = (dir: string) => Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));

test('the digest the manifest carries: every script written, whole, as the ConfigMap would hold it', async () => {
  const dir = tempDir('init-scripts-');
  const result = await cli(['write-init-scripts', '--sha256', initScriptsDigest(), '--dir', dir]);
  expect(result).toEqual({ code: 0, stdout: `wrote 12 init scripts (SHA-256 ${initScriptsDigest()}) into ${dir}\n`, stderr: '' });
  expect(contents(dir)).toEqual(initScripts());
  // A restarted init container finds the emptyDir filled and writes it again.
  fs.writeFileSync(path.join(dir, 'preflight.py'), 'tampered');
  expect((await cli(['write-init-scripts', '--sha256', initScriptsDigest(), '--dir', dir])).code).toBe(0);
  expect(contents(dir)).toEqual(initScripts());
});

test('another digest: exit 1, both digests and the fix named, nothing written', async () => {
  const dir = tempDir('init-scripts-');
  const other = '0'.repeat(64);
  const result = await cli(['write-init-scripts', '--sha256', other, '--dir', dir]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`carries init scripts with SHA-256 ${initScriptsDigest()}, but the manifest was rendered for scripts with SHA-256 ${other}`);
  expect(result.stderr).toContain('Nothing was written.');
  expect(fs.readdirSync(dir)).toEqual([]);
});

test.each([
  [[], "--sha256 needs the 64 lower-case hexadecimal digits of the manifest's init-scripts hash; found none"],
  [['--sha256', 'ABC'], "found 'ABC'"],
  [['--sha256', '0'.repeat(64), 'extra'], "unexpected argument 'extra': write-init-scripts takes options only"],
  [['--sha265', '0'.repeat(64)], "unknown option '--sha265'; did you mean '--sha256'?"],
])('bad usage %j: exit 2 with the usage', async (args, message) => {
  const result = await cli(['write-init-scripts', ...args]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(message);
  expect(result.stderr).toContain('Usage: kube-inference write-init-scripts --sha256 DIGEST [--dir DIR]');
});

test('a directory it cannot write (a read-only mount, a file in the way): exit 1 naming it, no stack trace', async () => {
  const file = path.join(tempDir('init-scripts-'), 'not-a-directory');
  fs.writeFileSync(file, '');
  const result = await cli(['write-init-scripts', '--sha256', initScriptsDigest(), '--dir', file]);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(new RegExp(`^error: cannot write the init scripts into ${file}: .+ Mount the scripts volume read-write in this container\\. No script was left half-written\\.\\n$`));
  expect(result.stderr).not.toContain('    at ');
});
