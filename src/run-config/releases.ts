import { CRD_SECTION_BY_API, LLAMA_STACK_APIS, LlamaStackApi } from './apis';
import { RunConfigError } from './errors';
import { clip } from './fields';
import { imageTag } from '../image-reference';

/**
 * What one llama-stack release line accepts in a config, read from the released wheels
 * (`pip install --no-deps llama-stack==X llama-stack-api==X`; `ogx==0.8.0 ogx-api==0.8.0` for 0.8):
 *
 * - `apis`: the values of the `Api` enum — `llama_stack/apis/datatypes.py` (0.2, 0.3),
 *   `llama_stack_api/datatypes.py` (0.4 to 0.7), `ogx_api/datatypes.py` (0.8). The server reads
 *   every entry of the config's `apis:` list and every key of its `providers:` with `Api(name)`,
 *   which refuses any other name (`core/server/server.py`, `core/resolver.py`).
 * - `providerApis`: `providable_apis()` of `core/distribution.py` (`distribution/distribution.py`
 *   before 0.2.17): the `Api` values minus the routing tables of `builtin_automatically_routed_apis()`
 *   (models, shields, …: "automatically provided and cannot be overridden", `core/resolver.py`) and
 *   minus `INTERNAL_APIS`. Only these have a provider registry, so only these may carry a
 *   `providers:` section, and a module-based external provider can only be registered for them
 *   (`get_external_providers_from_module` indexes the registry by the section's API).
 * - `configFileName`: the file each distribution ships, `llama_stack/distributions/<name>/run.yaml`
 *   up to 0.3, `config.yaml` from 0.4.
 *
 * A line accepts what any of its patch releases accepts: `batches` arrived in 0.2.18, and the 0.2 row
 * is that of 0.2.18 to 0.2.24. The other lines were read at their first and last patch releases,
 * which agree.
 */
export interface LlamaStackRelease {
  /** The release line, e.g. `0.7`. */
  readonly version: string;
  /** The Python package of the server: `llama_stack`, or `ogx` from 0.8, when the project was renamed. */
  readonly pythonPackage: 'llama_stack' | 'ogx';
  /** The APIs a config may list providers for, in processing order. */
  readonly providerApis: readonly LlamaStackApi[];
  /** Every API name the config's `apis:` list may hold (the `Api` enum). */
  readonly apis: readonly string[];
  /** The name of the distribution's config file. */
  readonly configFileName: 'run.yaml' | 'config.yaml';
  /** The patch releases this row was read from. */
  readonly verifiedWith: readonly string[];
}

const ROUTING_TABLES_0_2 = ['models', 'shields', 'vector_dbs', 'datasets', 'scoring_functions', 'benchmarks', 'tool_groups'];
const ROUTING_TABLES_0_3 = ['models', 'shields', 'vector_stores', 'datasets', 'scoring_functions', 'benchmarks', 'tool_groups'];
const PROVIDERS_0_3: readonly LlamaStackApi[] = [
  'inference', 'safety', 'agents', 'vector_io', 'datasetio', 'scoring', 'eval', 'tool_runtime', 'post_training', 'files', 'batches',
];
const PROVIDERS_0_4: readonly LlamaStackApi[] = [
  'inference', 'safety', 'agents', 'vector_io', 'datasetio', 'scoring', 'eval', 'tool_runtime', 'post_training', 'files',
  'file_processors', 'batches',
];
const PROVIDERS_0_7: readonly LlamaStackApi[] = [
  'inference', 'safety', 'responses', 'vector_io', 'datasetio', 'scoring', 'eval', 'tool_runtime', 'files', 'file_processors', 'batches',
];
const INTERNAL_0_4 = ['prompts', 'conversations', 'connectors', 'inspect', 'admin', 'providers'];

/** 0.4, 0.5 and 0.6 accept the same APIs. */
function release04(version: string, verifiedWith: readonly string[]): LlamaStackRelease {
  return {
    version,
    pythonPackage: 'llama_stack',
    providerApis: PROVIDERS_0_4,
    apis: [...PROVIDERS_0_4, ...ROUTING_TABLES_0_3, ...INTERNAL_0_4],
    configFileName: 'config.yaml',
    verifiedWith,
  };
}

/** The release lines, oldest first. */
export const LLAMA_STACK_RELEASES: readonly LlamaStackRelease[] = [
  {
    version: '0.2',
    pythonPackage: 'llama_stack',
    providerApis: [...PROVIDERS_0_3, 'telemetry'],
    apis: [...PROVIDERS_0_3, 'telemetry', ...ROUTING_TABLES_0_2, 'prompts', 'inspect', 'providers'],
    configFileName: 'run.yaml',
    verifiedWith: ['0.2.0', '0.2.12', '0.2.17', '0.2.18', '0.2.23', '0.2.24'],
  },
  {
    version: '0.3',
    pythonPackage: 'llama_stack',
    providerApis: PROVIDERS_0_3,
    apis: [...PROVIDERS_0_3, 'telemetry', ...ROUTING_TABLES_0_3, 'prompts', 'conversations', 'inspect', 'providers'],
    configFileName: 'run.yaml',
    verifiedWith: ['0.3.0', '0.3.5'],
  },
  release04('0.4', ['0.4.0', '0.4.7']),
  release04('0.5', ['0.5.0', '0.5.4']),
  release04('0.6', ['0.6.0', '0.6.1']),
  {
    version: '0.7',
    pythonPackage: 'llama_stack',
    providerApis: PROVIDERS_0_7,
    apis: [...PROVIDERS_0_7, ...ROUTING_TABLES_0_3, ...INTERNAL_0_4],
    configFileName: 'config.yaml',
    verifiedWith: ['0.7.0', '0.7.3'],
  },
  {
    version: '0.8',
    pythonPackage: 'ogx',
    providerApis: ['inference', 'safety', 'responses', 'vector_io', 'tool_runtime', 'files', 'file_processors', 'batches', 'messages', 'interactions'],
    apis: [
      'inference', 'safety', 'responses', 'vector_io', 'tool_runtime', 'files', 'file_processors', 'batches', 'messages', 'interactions',
      'models', 'shields', 'vector_stores', 'tool_groups', ...INTERNAL_0_4,
    ],
    configFileName: 'config.yaml',
    verifiedWith: ['0.8.0'],
  },
];

/** The release assumed when none is given: the newest line tested (0.7.3). */
export const DEFAULT_LLAMA_STACK_VERSION = '0.7';

/** APIs renamed between releases: the old name, the new one, and the release that renamed it. */
const RENAMES: ReadonlyArray<{ readonly from: LlamaStackApi; readonly to: LlamaStackApi; readonly in: string }> = [
  // 0.7 replaced the `agents` API by `responses` (llama_stack_api/datatypes.py, 0.6.1 → 0.7.0).
  { from: 'agents', to: 'responses', in: '0.7' },
];

// `0.7`, `0.7.3`, `v0.7.3`, `0.7.3-suffix`: the major and minor numbers name the line.
const VERSION = /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:\.(?:0|[1-9][0-9]*)(?:[-+][0-9A-Za-z.-]+)?)?$/;

/** The release line a version string (`0.7`, `0.7.3`, `v0.7.3`) names, or undefined when it names none this library knows. */
export function findRelease(version: string): LlamaStackRelease | undefined {
  const m = VERSION.exec(version);
  return m ? LLAMA_STACK_RELEASES.find((r) => r.version === `${m[1]}.${m[2]}`) : undefined;
}

/**
 * The release line a version string names.
 *
 * @throws RunConfigError when it names none this library knows
 */
export function requireRelease(version: string): LlamaStackRelease {
  const release = findRelease(version);
  if (release === undefined) {
    throw new RunConfigError([{
      title: 'Unknown llama-stack release',
      details: [`'${clip(version)}' names no llama-stack release this version knows: ${knownReleasesText()}.`],
      resolution: 'Give the release line the distribution runs, such as 0.7 (or a full version such as 0.7.3).',
    }]);
  }
  return release;
}

/** The known release lines as one list for messages: `0.2, 0.3, …`. */
export function knownReleasesText(releases: readonly LlamaStackRelease[] = LLAMA_STACK_RELEASES): string {
  return releases.map((r) => r.version).join(', ');
}

/**
 * The release a distribution image's tag names, when the tag is a version of a known line
 * (`llamastack/distribution-starter:0.2.23` → 0.2); undefined for `latest`, digests and other tags.
 */
export function releaseOfImageTag(image: string): LlamaStackRelease | undefined {
  const tag = imageTag(image);
  return tag === undefined ? undefined : findRelease(tag);
}

/** `llama-stack 0.7`, or `llama-stack 0.8 (published as ogx)`. */
export function releaseName(release: LlamaStackRelease): string {
  return release.pythonPackage === 'ogx' ? `llama-stack ${release.version} (published as ogx)` : `llama-stack ${release.version}`;
}

/** The `externalProviders` sections a release accepts, in processing order, as one list for messages. */
export function acceptedSectionsText(release: LlamaStackRelease): string {
  return release.providerApis.map((api) => CRD_SECTION_BY_API[api]).join(', ');
}

/** The APIs a release accepts providers for, as one list for messages. */
export function acceptedApisText(release: LlamaStackRelease): string {
  return release.providerApis.join(', ');
}

/** Every API name any known release accepts providers for, as one list for messages. */
export function allApisText(): string {
  return LLAMA_STACK_APIS.join(', ');
}

/** Why a release has no `api`, and which releases have it. */
export interface MissingApi {
  /** Where the API went or when it came, e.g. `agents was renamed responses in llama-stack 0.7`. */
  readonly fact: string;
  /** The releases that have it, e.g. `0.6 or older`. */
  readonly otherReleases: string;
  /** The API's name in the targeted release, when it was renamed. */
  readonly renamedTo?: LlamaStackApi;
}

/** Why `release` has no `api` (renamed, removed, not yet added), from the release table. */
export function whyMissing(api: LlamaStackApi, release: LlamaStackRelease): MissingApi {
  const renamed = RENAMES.find((r) => r.from === api && compareVersions(release.version, r.in) >= 0);
  if (renamed) {
    return { fact: `${api} was renamed ${renamed.to} in llama-stack ${renamed.in}`, otherReleases: `${previous(renamed.in)} or older`, renamedTo: renamed.to };
  }
  const renamedFrom = RENAMES.find((r) => r.to === api && compareVersions(release.version, r.in) < 0);
  if (renamedFrom) {
    return { fact: `${api} is the llama-stack ${renamedFrom.in} name of ${renamedFrom.from}`, otherReleases: `${renamedFrom.in} or newer`, renamedTo: renamedFrom.from };
  }
  const having = LLAMA_STACK_RELEASES.filter((r) => r.providerApis.includes(api));
  const older = having.filter((r) => compareVersions(r.version, release.version) < 0);
  const newer = having.filter((r) => compareVersions(r.version, release.version) > 0);
  if (newer.length > 0 && older.length === 0) {
    return { fact: `${api} is an API of llama-stack ${newer[0].version} and newer`, otherReleases: `${newer[0].version} or newer` };
  }
  if (older.length > 0 && newer.length === 0) {
    const last = older[older.length - 1].version;
    return { fact: `llama-stack ${next(last)} removed the ${api} API`, otherReleases: `${last} or older` };
  }
  return { fact: `the llama-stack releases with the ${api} API are ${knownReleasesText(having)}`, otherReleases: 'one of them' };
}

/**
 * How to fix a provider of `api` for a release that has no such API: where the API went or when it
 * came, and what to do. One sentence, without a final stop.
 */
export function missingApiFix(api: LlamaStackApi, release: LlamaStackRelease): string {
  const m = whyMissing(api, release);
  return m.renamedTo !== undefined
    ? `${m.fact}: move the provider to externalProviders.${CRD_SECTION_BY_API[m.renamedTo]} (with an image whose metadata declares `
      + `api: ${m.renamedTo}), or set llamaStackVersion to ${m.otherReleases}`
    : `${m.fact}: set llamaStackVersion to ${m.otherReleases}, or remove the provider`;
}

/** Orders release lines (`0.10` after `0.9`). */
export function compareVersions(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

function previous(version: string): string {
  const i = LLAMA_STACK_RELEASES.findIndex((r) => r.version === version);
  return LLAMA_STACK_RELEASES[i - 1].version;
}

function next(version: string): string {
  const i = LLAMA_STACK_RELEASES.findIndex((r) => r.version === version);
  return LLAMA_STACK_RELEASES[i + 1].version;
}
