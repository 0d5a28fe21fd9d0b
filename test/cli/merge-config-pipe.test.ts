import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mergeRunConfig } from '../../src/run-config/merge';
import { bundleCli } from '../run-config/cli-process';
import { provider, readFixture, removeTempDirs, tempDir, writeMetadataDir } from '../run-config/helpers';

/**
 * The bundled CLI, as the merge image runs it, reading its base config from a pipe
 * (`--base-config /dev/stdin`): the file system reports a pipe's size as 0, and the whole input must
 * still be read, up to the size limit.
 */
let work: string;
let cli: string;
beforeAll(() => {
  work = tempDir('merge-config-pipe-');
  cli = bundleCli(work);
});
afterAll(removeTempDirs);

const PROVIDERS = [provider('piped', { config: { url: 'http://vllm:8000/v1' } })];

/**
 * Runs merge-config with its base config on standard input: through a real pipe (a shell's `|`), or
 * through the socket Node gives a child process's standard input.
 */
function mergeFromStdin(input: string, via: 'pipe' | 'socket' = 'pipe') {
  const root = fs.mkdtempSync(path.join(work, 'pod-'));
  const metadata = path.join(root, 'metadata');
  const output = path.join(root, 'out');
  writeMetadataDir(metadata, PROVIDERS);
  const command = [cli, 'merge-config', '--metadata-dir', metadata, '--base-config', '/dev/stdin', '--output-dir', output, '--server-version', '0.7'];
  const options = { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 } as const;
  let result;
  if (via === 'pipe') {
    const inputFile = path.join(root, 'input.yaml');
    fs.writeFileSync(inputFile, input);
    result = spawnSync('sh', ['-c', 'cat "$0" | "$@"', inputFile, process.execPath, ...command], options);
  } else {
    result = spawnSync(process.execPath, command, { ...options, input });
  }
  const written = fs.existsSync(output) ? fs.readdirSync(output).sort() : [];
  return { ...result, output, written };
}

test.each(['pipe', 'socket'] as const)('a base config larger than a pipe\'s buffer is read whole from standard input (a %s)', (via) => {
  // About 300 KiB: several reads from the pipe, with a multi-byte character across their boundaries.
  const base = `${readFixture('starter-config-v0.7.1.yaml')}${'# é — padding to exceed the pipe buffer\n'.repeat(7500)}`;
  expect(Buffer.byteLength(base)).toBeGreaterThan(256 * 1024);
  const result = mergeFromStdin(base, via);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.written).toEqual(['config.yaml', 'extra-providers.yaml', 'merge-log.txt']);
  expect(fs.readFileSync(path.join(result.output, 'config.yaml'), 'utf8')).toBe(mergeRunConfig(base, PROVIDERS, { serverVersion: '0.7' }).configText);
});

test('a short base config from a pipe', () => {
  const result = mergeFromStdin('version: 2\nproviders:\n  inference: []\n');
  expect(result.status).toBe(0);
  expect(fs.readFileSync(path.join(result.output, 'config.yaml'), 'utf8')).toBe(
    'version: 2\nproviders:\n  inference:\n  - provider_id: piped\n    provider_type: remote::custom-vllm\n    module: acme_custom.vllm\n'
    + '    config:\n      url: http://vllm:8000/v1\n');
});

test('a piped base config beyond the size limit is refused with the limit, and nothing is written', () => {
  const result = mergeFromStdin(`a: ${'x'.repeat(2 * 1024 * 1024)}\n`);
  expect(result.status).toBe(1);
  expect(result.written).toEqual([]);
  expect(result.stderr).toBe(`ERROR: Cannot read the base config

File: /dev/stdin
/dev/stdin is larger than the limit of 1048576 bytes (1024 KiB); it was not read further.

Resolution: Give a user config (a ConfigMap with key config.yaml) or let the config-extraction init container copy the distribution's config to this path; distributions older than llama-stack 0.4 name it run.yaml (--config-file-name run.yaml).
`);
});

test('an empty pipe is an empty base config', () => {
  const result = mergeFromStdin('');
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(fs.readFileSync(path.join(result.output, 'config.yaml'), 'utf8')).toContain('provider_id: piped');
});
