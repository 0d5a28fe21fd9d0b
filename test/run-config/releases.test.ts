import * as fs from 'node:fs';
import * as path from 'node:path';
import { runConfigError } from './helpers';
import { CRD_SECTION_BY_API, LlamaStackApi } from '../../src/run-config/apis';
import {
  DEFAULT_SERVER_VERSION, distributionImageOf, findRelease, missingApiFix, releaseName, releaseOfImageTag, requireRelease, SERVER_RELEASES,
} from '../../src/run-config/releases';

/**
 * What each installed upstream release accepts, printed by scripts/llama-stack-apis.py from the
 * released wheels (llama-stack, llama-stack-api; ogx, ogx-api from 0.8).
 */
interface UpstreamApis {
  readonly package: string;
  readonly apis: string[];
  readonly providerApis: string[];
  readonly starterFiles: string[];
  /** The distributions the wheel ships a config of (read for the ogx releases). */
  readonly distributions?: string[];
}
const UPSTREAM_DIR = path.join(__dirname, '..', 'fixtures', 'llama-stack-apis');
const upstream = (version: string): UpstreamApis => JSON.parse(fs.readFileSync(path.join(UPSTREAM_DIR, `${version}.json`), 'utf8'));
const union = (lists: string[][]) => [...new Set(lists.flat())].sort();

describe.each(SERVER_RELEASES.map((r) => [r.version, r] as const))('release %s', (_version, release) => {
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

  test('names as distributions those its wheels ship a config of (each ogx image runs one of them)', () => {
    for (const u of read.filter((r) => r.distributions !== undefined)) {
      expect([...release.images.distributions].sort()).toEqual(u.distributions);
    }
    if (release.project === 'ogx') expect(read.every((u) => u.distributions !== undefined)).toBe(true);
  });

  test('lists its provider APIs in processing order', () => {
    const order = Object.keys(CRD_SECTION_BY_API);
    expect(release.providerApis).toEqual([...release.providerApis].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
  });
});

test('every fixture read from upstream belongs to a release line', () => {
  const verified = SERVER_RELEASES.flatMap((r) => r.verifiedWith).sort();
  expect(fs.readdirSync(UPSTREAM_DIR).map((f) => f.replace(/\.json$/, '')).sort()).toEqual(verified);
});

test('the 0.7, 0.8 and ogx 1.x changes of upstream, as the table has them', () => {
  const apis = (v: string) => findRelease(v)!.providerApis as readonly string[];
  expect(apis('0.6')).toEqual(expect.arrayContaining(['agents', 'post_training']));
  expect(apis('0.7')).not.toEqual(expect.arrayContaining(['agents']));
  expect(apis('0.7')).toEqual(expect.arrayContaining(['responses', 'files', 'batches', 'file_processors']));
  expect(apis('0.7')).not.toContain('post_training');
  for (const gone of ['datasetio', 'scoring', 'eval']) expect(apis('0.8')).not.toContain(gone);
  expect(apis('0.8')).toContain('safety');
  expect(apis('1.0')).not.toContain('safety');
  expect(apis('1.0')).not.toContain('skills');
  expect(apis('1.1')).toContain('skills');
  expect(apis('1.1')).not.toContain('container_runtime');
  expect(apis('1.2')).toContain('container_runtime');
  expect(findRelease('0.8')!.pythonPackage).toBe('ogx');
  expect(findRelease('0.3')!.configFileName).toBe('run.yaml');
  expect(findRelease('0.4')!.configFileName).toBe('config.yaml');
  expect(DEFAULT_SERVER_VERSION).toBe('1.5');
});

test('how each line starts its server, as its wheels have it', () => {
  const start = (v: string) => {
    const r = findRelease(v)!;
    return [r.runCommand.join(' '), r.appFactory, r.env.config, r.env.port, r.env.workers, r.stateDir, r.tls, r.workers];
  };
  expect(start('0.2')).toEqual(['llama stack run', undefined, 'LLAMA_STACK_CONFIG', 'LLAMA_STACK_PORT', undefined, '/.llama', 'optional', 'none']);
  expect(start('0.7')).toEqual(['llama stack run', 'llama_stack.core.server.server:create_app', 'LLAMA_STACK_CONFIG', 'LLAMA_STACK_PORT', undefined, '/.llama', 'optional', 'uvicorn']);
  expect(start('0.8')).toEqual(['ogx stack run', 'ogx.core.server.server:create_app', 'OGX_CONFIG', 'OGX_PORT', undefined, '/.ogx', 'optional', 'uvicorn']);
  expect(start('1.1')).toEqual(['ogx run', 'ogx.core.server.server:create_app', 'OGX_CONFIG', 'OGX_PORT', undefined, '/.ogx', 'optional', 'uvicorn']);
  expect(start('1.2')).toEqual(['ogx run', 'ogx.core.server.server:create_app', 'OGX_CONFIG', 'OGX_PORT', 'OGX_WORKERS', '/.ogx', 'required', 'env']);
  expect(start('1.5')).toEqual(['ogx run', 'ogx.core.server.server:create_app', 'OGX_CONFIG', 'OGX_PORT', 'OGX_WORKERS', '/.ogx', 'required', 'env']);
  expect(findRelease('0.8')!.removedServerKeys).toEqual([]);
  expect(findRelease('1.0')!.removedServerKeys).toEqual(['quota', 'cors']);
  expect(SERVER_RELEASES.filter((r) => r.emptyApisServesNone).map((r) => r.version)).toEqual(['1.5']);
  expect(findRelease('0.8')!.providerSpecModule).toBe('ogx_api');
  expect(findRelease('1.0')!.providerSpecModule).toBe('ogx_api.provider');
});

test.each([
  ['1.5', 'starter', 'docker.io/ogxai/distribution-starter:1.5.0'],
  ['1.1', 'watsonx', 'docker.io/ogxai/distribution-watsonx:1.1.3'],
  ['1.5', 'remote-vllm', undefined],
  ['0.7', 'starter', 'docker.io/llamastack/distribution-starter:0.7.3'],
  ['0.7', 'remote-vllm', 'docker.io/llamastack/distribution-remote-vllm:0.7.3'],
  ['0.7', 'constructor', undefined],
])('release %s publishes distribution %s as %j', (version, name, image) => {
  expect(distributionImageOf(findRelease(version)!, name)).toBe(image);
});

test.each([
  ['0.7', '0.7'], ['0.7.3', '0.7'], ['v0.6.1', '0.6'], ['0.2.23', '0.2'], ['0.3.0-rc1', '0.3'], ['1.0.0', '1.0'], ['1.5.0', '1.5'],
  ['0.9', undefined], ['1.6.0', undefined], ['2.0', undefined], ['latest', undefined], ['0.07', undefined], ['', undefined],
])('version %j names release %j', (version, line) => {
  expect(findRelease(version)?.version).toBe(line);
});

test.each([
  ['docker.io/llamastack/distribution-starter:0.2.23', '0.2'],
  ['llamastack/distribution-starter:0.7.3@sha256:0123', '0.7'],
  ['docker.io/ogxai/distribution-starter:1.5.0', '1.5'],
  ['registry:5000/llamastack/distribution-starter', undefined],
  ['docker.io/llamastack/distribution-starter:latest', undefined],
  ['quay.io/acme/llama-stack@sha256:0123', undefined],
])('the tag of %s names release %j', (image, line) => {
  expect(releaseOfImageTag(image)?.version).toBe(line);
});

test('an unknown release is a clear error listing the known ones', () => {
  const message = runConfigError(() => requireRelease('0.9')).message;
  expect(message).toContain("'0.9' names no llama-stack or ogx release this version knows: 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5.");
  expect(message).toContain('Resolution: Give the release line the distribution runs');
});

test('a release is named with its project', () => {
  expect(SERVER_RELEASES.map(releaseName)).toEqual([
    'llama-stack 0.2', 'llama-stack 0.3', 'llama-stack 0.4', 'llama-stack 0.5', 'llama-stack 0.6', 'llama-stack 0.7',
    'ogx 0.8', 'ogx 1.0', 'ogx 1.1', 'ogx 1.2', 'ogx 1.3', 'ogx 1.4', 'ogx 1.5',
  ]);
});

test.each<[LlamaStackApi, string, string]>([
  ['agents', '0.7', 'agents was renamed responses in llama-stack 0.7: move the provider to externalProviders.responses (with an image whose metadata declares api: responses), or set serverVersion to 0.6 or older'],
  ['agents', '0.8', 'agents was renamed responses in llama-stack 0.7: move the provider to externalProviders.responses (with an image whose metadata declares api: responses), or set serverVersion to 0.6 or older'],
  ['responses', '0.6', 'responses is the llama-stack 0.7 name of agents: move the provider to externalProviders.agents (with an image whose metadata declares api: agents), or set serverVersion to 0.7 or newer'],
  ['post_training', '0.7', 'llama-stack 0.7 removed the post_training API: set serverVersion to 0.6 or older, or remove the provider'],
  ['datasetio', '0.8', 'ogx 0.8 removed the datasetio API: set serverVersion to 0.7 or older, or remove the provider'],
  ['safety', '1.5', 'ogx 1.0 removed the safety API: set serverVersion to 0.8 or older, or remove the provider'],
  ['skills', '1.0', 'skills is an API of ogx 1.1 and newer: set serverVersion to 1.1 or newer, or remove the provider'],
  ['container_runtime', '0.7', 'container_runtime is an API of ogx 1.2 and newer: set serverVersion to 1.2 or newer, or remove the provider'],
  ['telemetry', '0.5', 'llama-stack 0.3 removed the telemetry API: set serverVersion to 0.2 or older, or remove the provider'],
  ['file_processors', '0.3', 'file_processors is an API of llama-stack 0.4 and newer: set serverVersion to 0.4 or newer, or remove the provider'],
])('the fix for %s on %s says where the API went', (api, version, fix) => {
  expect(missingApiFix(api, findRelease(version)!)).toBe(fix);
});
