import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { goBuild } from './go-builds';

describe('goBuild (the index a Go build of the test set-up writes)', () => {
  let cache: string;
  const saved = process.env.KIC_CACHE_DIR;
  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-go-builds-'));
    process.env.KIC_CACHE_DIR = cache;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.KIC_CACHE_DIR;
    else process.env.KIC_CACHE_DIR = saved;
    fs.rmSync(cache, { recursive: true, force: true });
  });
  const index = (content: object) => fs.writeFileSync(path.join(cache, 'tool.json'), JSON.stringify(content));

  test('the binaries and what the set-up added, when every binary asked for is there', () => {
    const binary = path.join(cache, 'tool');
    fs.writeFileSync(binary, '');
    index({ dir: cache, binaries: { tool: binary }, goVersion: 'go1.26.8', version: '1.2.3' });
    expect(goBuild('tool', ['tool'], 'node setup.mjs')).toEqual({ binaries: { tool: binary }, info: { dir: cache, goVersion: 'go1.26.8', version: '1.2.3' } });
  });

  test('why not: no index, a build the set-up skipped, a binary missing', () => {
    expect(goBuild('tool', ['tool'], 'node setup.mjs')).toEqual({ reason: expect.stringMatching(/^no index at .*tool\.json \(ENOENT.*\); run node setup\.mjs \(npm test runs it before jest\)$/) });
    index({ skipped: 'test/tool could not be built: no Go' });
    expect(goBuild('tool', ['tool'], 'node setup.mjs')).toEqual({ reason: 'test/tool could not be built: no Go' });
    index({ binaries: { tool: path.join(cache, 'gone') } });
    expect(goBuild('tool', ['tool', 'other'], 'node setup.mjs')).toEqual({ reason: expect.stringMatching(/^tool, other not where .*tool\.json says; run node setup\.mjs/) });
  });
});
