import * as fs from 'node:fs';
import * as path from 'node:path';
import { bundleCli, runNode } from '../run-config/cli-process';
import { hostileDocuments } from '../run-config/fuzz-inputs';
import { provider, readFixture, removeTempDirs, tempDir, writeMetadataDir } from '../run-config/helpers';

/**
 * The bundled CLI, as the merge image runs it, on hostile inputs in a separate process with a 64 MiB
 * heap: every case must end in exit 1 with a clear error, no crash (a crash is a signal or another
 * exit code), no partial output, and bounded memory.
 */
const HEAP_MB = 64;
const MAX_RSS_KB = 200 * 1024;

let work: string;
let cli: string;
beforeAll(() => {
  work = tempDir('merge-config-fuzz-');
  cli = bundleCli(work);
});
afterAll(removeTempDirs);

function pod(name: string) {
  const root = path.join(work, name.replace(/\W+/g, '-'));
  const metadata = path.join(root, 'metadata');
  const output = path.join(root, 'out');
  fs.mkdirSync(metadata, { recursive: true });
  fs.writeFileSync(path.join(root, 'config.yaml'), readFixture('odh-distribution-config.yaml'));
  const args = ['merge-config', '--metadata-dir', metadata, '--base-config', path.join(root, 'config.yaml'), '--output-dir', output, '--server-version', '0.7'];
  return { root, metadata, output, args };
}

/** Exit 1 with a clear error and nothing written, within the memory bound. */
function expectCleanFailure(result: ReturnType<typeof runNode>, output: string): void {
  expect(result.signal).toBeNull();
  expect({ code: result.code, stderr: result.stderr.slice(0, 400) }).toMatchObject({ code: 1 });
  expect(result.stderr).toMatch(/^ERROR: /);
  expect(result.stderr).toContain('\nResolution: ');
  expect(result.stderr).not.toContain('unexpectedly');
  expect(fs.existsSync(output) ? fs.readdirSync(output) : []).toEqual([]);
  expect(result.maxRssKb).toBeLessThan(MAX_RSS_KB);
}

test('a valid merge runs within the same memory bound', () => {
  const p = pod('valid');
  writeMetadataDir(p.metadata, [provider('a'), provider('b', { api: 'safety', providerType: 'inline::b' })]);
  const result = runNode(cli, p.args, { maxOldSpaceMb: HEAP_MB, workDir: work });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.maxRssKb).toBeLessThan(MAX_RSS_KB);
});

describe.each(Object.entries(hostileDocuments()).filter(([name]) => !['byte order mark', 'only a document marker'].includes(name)))('%s', (name, text) => {
  test('as a provider\'s lls-provider-spec.yaml', () => {
    const p = pod(`meta ${name}`);
    writeMetadataDir(p.metadata, [{ ...provider('p'), metadataText: text }]);
    expectCleanFailure(runNode(cli, p.args, { maxOldSpaceMb: HEAP_MB, workDir: work }), p.output);
  });

  test('as a provider\'s crd-config.yaml', () => {
    const p = pod(`crd ${name}`);
    writeMetadataDir(p.metadata, [provider('p')]);
    fs.writeFileSync(path.join(p.metadata, 'p', 'crd-config.yaml'), text);
    expectCleanFailure(runNode(cli, p.args, { maxOldSpaceMb: HEAP_MB, workDir: work }), p.output);
  });

  test('as the base config', () => {
    const p = pod(`base ${name}`);
    writeMetadataDir(p.metadata, [provider('p')]);
    fs.writeFileSync(path.join(p.root, 'config.yaml'), text);
    const result = runNode(cli, p.args, { maxOldSpaceMb: HEAP_MB, workDir: work });
    if (result.code === 0) {
      // Some of these are odd but valid configs (many keys, an unknown tag): then all outputs are written.
      expect(fs.readdirSync(p.output).sort()).toEqual(['config.yaml', 'extra-providers.yaml', 'merge-log.txt']);
      expect(result.maxRssKb).toBeLessThan(MAX_RSS_KB);
    } else {
      expectCleanFailure(result, p.output);
    }
  });
});

/** The largest documents the limits let through, in the shapes that cost the most memory per byte. */
const LARGEST_ACCEPTED: Record<string, string> = {
  'many small keys': `providers:\n  inference: []\n${Array.from({ length: 16600 }, (_, i) => `k${i}: v\n`).join('')}`,
  'many provider entries': `providers:\n  inference:\n${Array.from({ length: 6000 }, (_, i) => `  - provider_id: p${i}\n    provider_type: remote::x\n`).join('')}`,
  'a long flow list': `providers:\n  inference: []\nbig: [${Array.from({ length: 49000 }, (_, i) => i).join(',')}]\n`,
};

test.each(Object.entries(LARGEST_ACCEPTED))('the largest accepted base config (%s) merges within the memory bound', (name, text) => {
  const p = pod(`largest ${name}`);
  writeMetadataDir(p.metadata, [provider('p')]);
  fs.writeFileSync(path.join(p.root, 'config.yaml'), text);
  const result = runNode(cli, p.args, { maxOldSpaceMb: HEAP_MB, workDir: work });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.maxRssKb).toBeLessThan(MAX_RSS_KB);
});

test('a huge file is refused without being read whole', () => {
  const p = pod('huge base');
  writeMetadataDir(p.metadata, [provider('p')]);
  const fd = fs.openSync(path.join(p.root, 'config.yaml'), 'w');
  fs.ftruncateSync(fd, 2 * 1024 * 1024 * 1024); // 2 GiB, sparse
  fs.closeSync(fd);
  const result = runNode(cli, p.args, { maxOldSpaceMb: HEAP_MB, workDir: work });
  expectCleanFailure(result, p.output);
  expect(result.stderr).toContain('is larger than the limit of 1048576 bytes (1024 KiB); it was not read further.');
});
