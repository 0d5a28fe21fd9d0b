import * as fs from 'node:fs';
import * as path from 'node:path';
import { runConfigError } from './helpers';
import { CRD_SECTION_BY_API, LlamaStackApi } from '../../src/run-config/apis';
import {
  DEFAULT_LLAMA_STACK_VERSION, findRelease, LLAMA_STACK_RELEASES, missingApiFix, releaseOfImageTag, requireRelease,
} from '../../src/run-config/releases';

/**
 * What each installed upstream release accepts, printed by scripts/llama-stack-apis.py from the
 * released wheels (llama-stack, llama-stack-api; ogx, ogx-api for 0.8).
 */
interface UpstreamApis {
  readonly package: string;
  readonly apis: string[];
  readonly providerApis: string[];
  readonly starterFiles: string[];
}
const UPSTREAM_DIR = path.join(__dirname, '..', 'fixtures', 'llama-stack-apis');
const upstream = (version: string): UpstreamApis => JSON.parse(fs.readFileSync(path.join(UPSTREAM_DIR, `${version}.json`), 'utf8'));
const union = (lists: string[][]) => [...new Set(lists.flat())].sort();

describe.each(LLAMA_STACK_RELEASES.map((r) => [r.version, r] as const))('release %s', (_version, release) => {
  const read = release.verifiedWith.map(upstream);

  test('takes providers for exactly the APIs providable_apis() returns in its patch releases', () => {
    expect([...release.providerApis].sort()).toEqual(union(read.map((u) => u.providerApis)));
  });

  test('lists exactly the values of the Api enum of its patch releases', () => {
    expect([...release.apis].sort()).toEqual(union(read.map((u) => u.apis)));
  });

  test('names the config file its distributions ship, and the package', () => {
    for (const u of read.filter((r) => r.starterFiles.length > 0)) {
      expect(u.starterFiles).toContain(release.configFileName);
    }
    expect(read.map((u) => u.package)).toEqual(read.map(() => release.pythonPackage));
  });

  test('lists its provider APIs in processing order', () => {
    const order = Object.keys(CRD_SECTION_BY_API);
    expect(release.providerApis).toEqual([...release.providerApis].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
  });
});

test('every fixture read from upstream belongs to a release line', () => {
  const verified = LLAMA_STACK_RELEASES.flatMap((r) => r.verifiedWith).sort();
  expect(fs.readdirSync(UPSTREAM_DIR).map((f) => f.replace(/\.json$/, '')).sort()).toEqual(verified);
});

test('the 0.7 and 0.8 changes of upstream, as the table has them', () => {
  const apis = (v: string) => findRelease(v)!.providerApis as readonly string[];
  expect(apis('0.6')).toEqual(expect.arrayContaining(['agents', 'post_training']));
  expect(apis('0.7')).not.toEqual(expect.arrayContaining(['agents']));
  expect(apis('0.7')).toEqual(expect.arrayContaining(['responses', 'files', 'batches', 'file_processors']));
  expect(apis('0.7')).not.toContain('post_training');
  for (const gone of ['datasetio', 'scoring', 'eval']) expect(apis('0.8')).not.toContain(gone);
  expect(findRelease('0.8')!.pythonPackage).toBe('ogx');
  expect(findRelease('0.3')!.configFileName).toBe('run.yaml');
  expect(findRelease('0.4')!.configFileName).toBe('config.yaml');
  expect(DEFAULT_LLAMA_STACK_VERSION).toBe('0.7');
});

test.each([
  ['0.7', '0.7'], ['0.7.3', '0.7'], ['v0.6.1', '0.6'], ['0.2.23', '0.2'], ['0.3.0-rc1', '0.3'],
  ['0.9', undefined], ['1.0.0', undefined], ['latest', undefined], ['0.07', undefined], ['', undefined],
])('version %j names release %j', (version, line) => {
  expect(findRelease(version)?.version).toBe(line);
});

test.each([
  ['docker.io/llamastack/distribution-starter:0.2.23', '0.2'],
  ['llamastack/distribution-starter:0.7.3@sha256:0123', '0.7'],
  ['registry:5000/llamastack/distribution-starter', undefined],
  ['docker.io/llamastack/distribution-starter:latest', undefined],
  ['quay.io/acme/llama-stack@sha256:0123', undefined],
])('the tag of %s names release %j', (image, line) => {
  expect(releaseOfImageTag(image)?.version).toBe(line);
});

test('an unknown release is a clear error listing the known ones', () => {
  const message = runConfigError(() => requireRelease('0.9')).message;
  expect(message).toContain("'0.9' names no llama-stack release this version knows: 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8.");
  expect(message).toContain('Resolution: Give the release line the distribution runs');
});

test.each<[LlamaStackApi, string, string]>([
  ['agents', '0.7', 'agents was renamed responses in llama-stack 0.7: move the provider to externalProviders.responses (with an image whose metadata declares api: responses), or set llamaStackVersion to 0.6 or older'],
  ['agents', '0.8', 'agents was renamed responses in llama-stack 0.7: move the provider to externalProviders.responses (with an image whose metadata declares api: responses), or set llamaStackVersion to 0.6 or older'],
  ['responses', '0.6', 'responses is the llama-stack 0.7 name of agents: move the provider to externalProviders.agents (with an image whose metadata declares api: agents), or set llamaStackVersion to 0.7 or newer'],
  ['post_training', '0.7', 'llama-stack 0.7 removed the post_training API: set llamaStackVersion to 0.6 or older, or remove the provider'],
  ['datasetio', '0.8', 'llama-stack 0.8 removed the datasetio API: set llamaStackVersion to 0.7 or older, or remove the provider'],
  ['telemetry', '0.5', 'llama-stack 0.3 removed the telemetry API: set llamaStackVersion to 0.2 or older, or remove the provider'],
  ['file_processors', '0.3', 'file_processors is an API of llama-stack 0.4 and newer: set llamaStackVersion to 0.4 or newer, or remove the provider'],
])('the fix for %s on %s says where the API went', (api, version, fix) => {
  expect(missingApiFix(api, findRelease(version)!)).toBe(fix);
});
