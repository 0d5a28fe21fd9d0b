import { CRD_SECTION_BY_API, LLAMA_STACK_APIS, LlamaStackApi } from './apis';
import { RunConfigError } from './errors';
import { clip } from './fields';
import { compareVersions } from '../checks';
import { imageTag } from '../image-reference';

/**
 * The server releases this library knows: llama-stack 0.2 to 0.7, then the same project renamed OGX
 * (PyPI `ogx` and `ogx-api`) from 0.8 on. Everything a config or a pod depends on that differs
 * between release lines is a field of its row, read from the released wheels
 * (`pip download --no-deps llama-stack==X llama-stack-api==X`, or `ogx==X ogx-api==X`) and, where
 * marked, by running the release's server:
 *
 * - `apis`: the values of the `Api` enum — `llama_stack/apis/datatypes.py` (0.2, 0.3),
 *   `llama_stack_api/datatypes.py` (0.4 to 0.7), `ogx_api/datatypes.py` (0.8 on). The server reads
 *   every entry of the config's `apis:` list and every key of its `providers:` with `Api(name)`,
 *   which refuses any other name (`core/server/server.py`, `core/resolver.py`).
 * - `providerApis`: `providable_apis()` of `core/distribution.py` (`distribution/distribution.py`
 *   before 0.2.17): the `Api` values minus the routing tables of `builtin_automatically_routed_apis()`
 *   (models, shields, …: "automatically provided and cannot be overridden", `core/resolver.py`) and
 *   minus `INTERNAL_APIS`. Only these have a provider registry, so only these may carry a
 *   `providers:` section, and a module-based external provider can only be registered for them
 *   (`get_external_providers_from_module` indexes the registry by the section's API).
 *   `scripts/llama-stack-apis.py` prints both lists from an unpacked release.
 * - `configFileName`: the file each distribution ships, `<package>/distributions/<name>/run.yaml`
 *   up to 0.3, `config.yaml` from 0.4.
 * - The server's start: the console script (`llama`, `ogx` from 0.8: `*.dist-info/entry_points.txt`),
 *   its run command (`llama stack run`; `ogx stack run` in 0.8; `ogx run` from 1.0, where
 *   `ogx stack run` is a deprecated alias: `ogx/cli/run.py`), the environment it reads
 *   (`LLAMA_STACK_*`, renamed `OGX_*` in 0.8 without a fallback: `ogx/core/utils/config_dirs.py`,
 *   `ogx/cli/stack/run.py`), how it starts worker processes and whether it serves plain HTTP.
 *
 * A line accepts what any of its patch releases accepts: `batches` arrived in 0.2.18, and the 0.2 row
 * is that of 0.2.18 to 0.2.24. The other lines were read at their first and last patch releases,
 * which agree.
 */
export interface ServerRelease {
  /** The release line, e.g. `0.7` or `1.5`. */
  readonly version: string;
  /** The project's name in this release: `llama-stack`, or `ogx` from 0.8, when the project was renamed. */
  readonly project: 'llama-stack' | 'ogx';
  /** The Python package of the server: `llama_stack`, or `ogx` (no `llama_stack` alias is left). */
  readonly pythonPackage: 'llama_stack' | 'ogx';
  /**
   * Where a provider imports the spec classes its `get_provider_spec()` returns from: a spec of any
   * other package is refused by the server (`ProviderWithSpec` validation, `core/resolver.py`).
   */
  readonly providerSpecModule: string;
  /** The server's console script: `llama`, or `ogx` (0.8 on). */
  readonly cli: 'llama' | 'ogx';
  /** The command that starts the server with a config file (the file is its one positional argument). */
  readonly runCommand: readonly string[];
  /**
   * The uvicorn application factory worker processes start from; it reads the config named by
   * `env.config`. Undefined before 0.3 (no factory).
   */
  readonly appFactory?: string;
  /** The names of the environment variables the server reads. */
  readonly env: ServerEnvNames;
  /** The server's state directory (`~/.llama`, `~/.ogx` from 0.8), where images keep it writable: `/.llama`, `/.ogx`. */
  readonly stateDir: string;
  /** Upstream's distribution images of this line. */
  readonly images: DistributionImages;
  /** The APIs a config may list providers for, in processing order. */
  readonly providerApis: readonly LlamaStackApi[];
  /** Every API name the config's `apis:` list may hold (the `Api` enum). */
  readonly apis: readonly string[];
  /** The name of the distribution's config file. */
  readonly configFileName: 'run.yaml' | 'config.yaml';
  /**
   * `required`: the run command exits unless the config serves TLS (`server.tls_certfile`,
   * `server.tls_keyfile`) or says `server.insecure: true` (or `--insecure` is given): "TLS required:
   * set tls_certfile/tls_keyfile in server config or pass '--insecure' to disable." (ogx 1.2 on,
   * `ogx/cli/stack/run.py`). `optional`: plain HTTP unless the config sets TLS; the key
   * `server.insecure` is ignored (no config model of these releases forbids unknown keys).
   */
  readonly tls: 'optional' | 'required';
  /**
   * How the server starts worker processes: `none` (one process; no factory before 0.3), `uvicorn`
   * (only by starting `uvicorn <appFactory> --factory --workers <n>`, which reads neither the config's
   * TLS settings nor `server.workers`), or `env` (`OGX_WORKERS`, read by the run command, which
   * applies TLS too: ogx 1.2 on).
   */
  readonly workers: 'none' | 'uvicorn' | 'env';
  /** Keys of the config's `server` section this release no longer reads (silently ignored). */
  readonly removedServerKeys: readonly string[];
  /**
   * True when `apis: []` serves no provider-backed API (ogx 1.5: `apis_to_serve`, `core/server/server.py`);
   * before, an empty list served every API, as an absent one does.
   */
  readonly emptyApisServesNone: boolean;
  /**
   * Where a config registers models: the top-level `models` list (0.2), `registered_resources.models`
   * from 0.3, where a top-level `models` is ignored without a word (`StackRunConfig`, `core/datatypes.py`).
   */
  readonly modelsPath: readonly ['models'] | readonly ['registered_resources', 'models'];
  /**
   * The URL key of the built-in `remote::vllm` provider's config: `url` up to 0.3, `base_url` from 0.4,
   * where a `url` is ignored without a word and the provider refuses to start without a URL
   * (`VLLMInferenceAdapterConfig`, `providers/remote/inference/vllm/config.py`).
   */
  readonly remoteVllmUrlKey: 'url' | 'base_url';
  /** The patch releases this row was read from. */
  readonly verifiedWith: readonly string[];
}

/** @deprecated The release table's row is {@link ServerRelease}: llama-stack was renamed OGX from 0.8. */
export type LlamaStackRelease = ServerRelease;

/** The environment variables a server release reads. */
export interface ServerEnvNames {
  /** The config the application factory (and the scripts) read: `LLAMA_STACK_CONFIG`, `OGX_CONFIG`. */
  readonly config: string;
  /** The state directory: `LLAMA_STACK_CONFIG_DIR`, `OGX_CONFIG_DIR`. */
  readonly configDir: string;
  /** The port, which wins over `server.port`: `LLAMA_STACK_PORT`, `OGX_PORT`. */
  readonly port: string;
  /** The worker count, read by the run command: `OGX_WORKERS` (ogx 1.2 on). */
  readonly workers?: string;
}

/** Upstream's distribution images of a release line: `<repository>-<name>:<tag>`. */
export interface DistributionImages {
  /** E.g. `docker.io/ogxai/distribution` (`…-starter:1.5.0`). */
  readonly repository: string;
  /** The tag of the newest patch release verified, e.g. `1.5.0`. */
  readonly tag: string;
  /** The distributions published as images. */
  readonly distributions: readonly string[];
}

const ROUTING_TABLES_0_2 = ['models', 'shields', 'vector_dbs', 'datasets', 'scoring_functions', 'benchmarks', 'tool_groups'];
const ROUTING_TABLES_0_3 = ['models', 'shields', 'vector_stores', 'datasets', 'scoring_functions', 'benchmarks', 'tool_groups'];
const ROUTING_TABLES_1_0 = ['models', 'vector_stores', 'tool_groups'];
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
// 0.8 removed datasetio, scoring and eval and added messages and interactions; 1.0 removed safety
// (and the shields routing table); 1.1 added skills; 1.2 added container_runtime (and the internal
// containers API), for which no provider ships in-tree up to 1.5.
const PROVIDERS_0_8: readonly LlamaStackApi[] = [
  'inference', 'safety', 'responses', 'vector_io', 'tool_runtime', 'files', 'file_processors', 'batches', 'messages', 'interactions',
];
const PROVIDERS_1_0 = PROVIDERS_0_8.filter((api) => api !== 'safety');
const PROVIDERS_1_1: readonly LlamaStackApi[] = [...PROVIDERS_1_0, 'skills'];
const PROVIDERS_1_2: readonly LlamaStackApi[] = [...PROVIDERS_1_1, 'container_runtime'];
const INTERNAL_0_4 = ['prompts', 'conversations', 'connectors', 'inspect', 'admin', 'providers'];

/** What every llama-stack line shares: the `llama` CLI, `LLAMA_STACK_*`, `~/.llama`, the llamastack images. */
function llamaStack(version: string, verifiedWith: readonly string[]): Pick<ServerRelease,
'version' | 'project' | 'pythonPackage' | 'cli' | 'runCommand' | 'appFactory' | 'env' | 'stateDir' | 'images' | 'tls' | 'workers'
| 'removedServerKeys' | 'emptyApisServesNone' | 'modelsPath' | 'remoteVllmUrlKey' | 'verifiedWith'> {
  const withFactory = version !== '0.2';
  return {
    version,
    project: 'llama-stack',
    pythonPackage: 'llama_stack',
    cli: 'llama',
    runCommand: ['llama', 'stack', 'run'],
    appFactory: withFactory ? 'llama_stack.core.server.server:create_app' : undefined,
    env: { config: 'LLAMA_STACK_CONFIG', configDir: 'LLAMA_STACK_CONFIG_DIR', port: 'LLAMA_STACK_PORT' },
    stateDir: '/.llama',
    // The names the llama-stack operator maps (its distributions.json), tagged with the newest patch verified.
    images: {
      repository: 'docker.io/llamastack/distribution',
      tag: verifiedWith[verifiedWith.length - 1],
      distributions: ['starter', 'remote-vllm', 'meta-reference-gpu', 'postgres-demo'],
    },
    tls: 'optional',
    workers: withFactory ? 'uvicorn' : 'none',
    removedServerKeys: [],
    emptyApisServesNone: false,
    modelsPath: version === '0.2' ? ['models'] : ['registered_resources', 'models'],
    remoteVllmUrlKey: version === '0.2' || version === '0.3' ? 'url' : 'base_url',
    verifiedWith,
  };
}

/** 0.4, 0.5 and 0.6 accept the same APIs. */
function release04(version: string, verifiedWith: readonly string[]): ServerRelease {
  return {
    ...llamaStack(version, verifiedWith),
    providerSpecModule: 'llama_stack_api',
    providerApis: PROVIDERS_0_4,
    apis: [...PROVIDERS_0_4, ...ROUTING_TABLES_0_3, ...INTERNAL_0_4],
    configFileName: 'config.yaml',
  };
}

/**
 * An OGX line: the `ogx` CLI (`ogx run` from 1.0), `OGX_*`, `~/.ogx`, the images of
 * `ogx-ai/ogx containers/Containerfile` (`docker.io/ogxai/distribution-<name>`), which build every
 * distribution the package ships (`ogx/distributions/<name>/config.yaml`).
 */
function ogx(version: string, providerApis: readonly LlamaStackApi[], verifiedWith: readonly string[]): ServerRelease {
  const [major, minor] = version.split('.').map(Number);
  const from = (m: number, n: number) => major > m || (major === m && minor >= n);
  return {
    version,
    project: 'ogx',
    pythonPackage: 'ogx',
    // `ogx_api.provider`, "the Provider SDK surface", exists from 1.0; 0.8 has the classes at the top level only.
    providerSpecModule: from(1, 0) ? 'ogx_api.provider' : 'ogx_api',
    cli: 'ogx',
    runCommand: from(1, 0) ? ['ogx', 'run'] : ['ogx', 'stack', 'run'],
    appFactory: 'ogx.core.server.server:create_app',
    env: { config: 'OGX_CONFIG', configDir: 'OGX_CONFIG_DIR', port: 'OGX_PORT', ...(from(1, 2) ? { workers: 'OGX_WORKERS' } : {}) },
    stateDir: '/.ogx',
    images: {
      repository: 'docker.io/ogxai/distribution',
      tag: verifiedWith[verifiedWith.length - 1],
      distributions: ['starter', 'postgres-demo', 'nvidia', 'oci', 'open-benchmark', 'watsonx'],
    },
    providerApis,
    apis: [...providerApis, ...(from(1, 0) ? ROUTING_TABLES_1_0 : ['models', 'shields', 'vector_stores', 'tool_groups']),
      ...INTERNAL_0_4, ...(from(1, 2) ? ['containers'] : [])],
    configFileName: 'config.yaml',
    tls: from(1, 2) ? 'required' : 'optional',
    workers: from(1, 2) ? 'env' : 'uvicorn',
    // ServerConfig of ogx 1.0 dropped both (core/datatypes.py); a leftover key is ignored without a word.
    removedServerKeys: from(1, 0) ? ['quota', 'cors'] : [],
    emptyApisServesNone: from(1, 5),
    modelsPath: ['registered_resources', 'models'],
    remoteVllmUrlKey: 'base_url',
    verifiedWith,
  };
}

/** The release lines, oldest first. */
export const SERVER_RELEASES: readonly ServerRelease[] = [
  {
    ...llamaStack('0.2', ['0.2.0', '0.2.12', '0.2.17', '0.2.18', '0.2.23', '0.2.24']),
    providerSpecModule: 'llama_stack.providers.datatypes',
    providerApis: [...PROVIDERS_0_3, 'telemetry'],
    apis: [...PROVIDERS_0_3, 'telemetry', ...ROUTING_TABLES_0_2, 'prompts', 'inspect', 'providers'],
    configFileName: 'run.yaml',
  },
  {
    ...llamaStack('0.3', ['0.3.0', '0.3.5']),
    providerSpecModule: 'llama_stack.providers.datatypes',
    providerApis: PROVIDERS_0_3,
    apis: [...PROVIDERS_0_3, 'telemetry', ...ROUTING_TABLES_0_3, 'prompts', 'conversations', 'inspect', 'providers'],
    configFileName: 'run.yaml',
  },
  release04('0.4', ['0.4.0', '0.4.7']),
  release04('0.5', ['0.5.0', '0.5.4']),
  release04('0.6', ['0.6.0', '0.6.1']),
  {
    ...llamaStack('0.7', ['0.7.0', '0.7.3']),
    providerSpecModule: 'llama_stack_api',
    providerApis: PROVIDERS_0_7,
    apis: [...PROVIDERS_0_7, ...ROUTING_TABLES_0_3, ...INTERNAL_0_4],
    configFileName: 'config.yaml',
  },
  ogx('0.8', PROVIDERS_0_8, ['0.8.0']),
  ogx('1.0', PROVIDERS_1_0, ['1.0.0', '1.0.4']),
  ogx('1.1', PROVIDERS_1_1, ['1.1.0', '1.1.3']),
  ogx('1.2', PROVIDERS_1_2, ['1.2.0', '1.2.5']),
  ogx('1.3', PROVIDERS_1_2, ['1.3.0', '1.3.1']),
  ogx('1.4', PROVIDERS_1_2, ['1.4.0', '1.4.1']),
  ogx('1.5', PROVIDERS_1_2, ['1.5.0']),
];

/** @deprecated Use {@link SERVER_RELEASES}. */
export const LLAMA_STACK_RELEASES = SERVER_RELEASES;

/** The release assumed when none is given: the newest OGX line (1.5). */
export const DEFAULT_SERVER_VERSION = '1.5';

/** @deprecated Use {@link DEFAULT_SERVER_VERSION}. */
export const DEFAULT_LLAMA_STACK_VERSION = DEFAULT_SERVER_VERSION;

/** APIs renamed between releases: the old name, the new one, and the release that renamed it. */
const RENAMES: ReadonlyArray<{ readonly from: LlamaStackApi; readonly to: LlamaStackApi; readonly in: string }> = [
  // 0.7 replaced the `agents` API by `responses` (llama_stack_api/datatypes.py, 0.6.1 → 0.7.0).
  { from: 'agents', to: 'responses', in: '0.7' },
];

// `0.7`, `0.7.3`, `v0.7.3`, `0.7.3-suffix`: the major and minor numbers name the line.
const VERSION = /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:\.(?:0|[1-9][0-9]*)(?:[-+][0-9A-Za-z.-]+)?)?$/;

/** The release line a version string (`0.7`, `1.5.0`, `v0.7.3`) names, or undefined when it names none this library knows. */
export function findRelease(version: string): ServerRelease | undefined {
  const m = VERSION.exec(version);
  return m ? SERVER_RELEASES.find((r) => r.version === `${m[1]}.${m[2]}`) : undefined;
}

/**
 * The release line a version string names.
 *
 * @throws RunConfigError when it names none this library knows
 */
export function requireRelease(version: string): ServerRelease {
  const release = findRelease(version);
  if (release === undefined) {
    throw new RunConfigError([{
      title: 'Unknown server release',
      details: [`'${clip(version)}' names no llama-stack or ogx release this version knows: ${knownReleasesText()}.`],
      resolution: `Give the release line the distribution runs, such as ${DEFAULT_SERVER_VERSION} (or a full version such as 1.5.0).`,
    }]);
  }
  return release;
}

/** The known release lines as one list for messages: `0.2, 0.3, …`. */
export function knownReleasesText(releases: readonly ServerRelease[] = SERVER_RELEASES): string {
  return releases.map((r) => r.version).join(', ');
}

/**
 * The release a distribution image's tag names, when the tag is a version of a known line
 * (`llamastack/distribution-starter:0.2.23` → 0.2, `ogxai/distribution-starter:1.5.0` → 1.5);
 * undefined for `latest`, digests and other tags.
 */
export function releaseOfImageTag(image: string): ServerRelease | undefined {
  const tag = imageTag(image);
  return tag === undefined ? undefined : findRelease(tag);
}

/** `llama-stack 0.7`, or `ogx 1.5`. */
export function releaseName(release: ServerRelease): string {
  return `${release.project} ${release.version}`;
}

/** The image of a named distribution in a release line, or undefined when the line publishes no such image. */
export function distributionImageOf(release: ServerRelease, name: string): string | undefined {
  const { repository, tag, distributions } = release.images;
  return distributions.includes(name) ? `${repository}-${name}:${tag}` : undefined;
}

/** The `externalProviders` sections a release accepts, in processing order, as one list for messages. */
export function acceptedSectionsText(release: ServerRelease): string {
  return release.providerApis.map((api) => CRD_SECTION_BY_API[api]).join(', ');
}

/** The APIs a release accepts providers for, as one list for messages. */
export function acceptedApisText(release: ServerRelease): string {
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
export function whyMissing(api: LlamaStackApi, release: ServerRelease): MissingApi {
  const renamed = RENAMES.find((r) => r.from === api && compareVersions(release.version, r.in) >= 0);
  if (renamed) {
    return { fact: `${api} was renamed ${renamed.to} in ${nameOf(renamed.in)}`, otherReleases: `${previous(renamed.in)} or older`, renamedTo: renamed.to };
  }
  const renamedFrom = RENAMES.find((r) => r.to === api && compareVersions(release.version, r.in) < 0);
  if (renamedFrom) {
    return { fact: `${api} is the ${nameOf(renamedFrom.in)} name of ${renamedFrom.from}`, otherReleases: `${renamedFrom.in} or newer`, renamedTo: renamedFrom.from };
  }
  const having = SERVER_RELEASES.filter((r) => r.providerApis.includes(api));
  const older = having.filter((r) => compareVersions(r.version, release.version) < 0);
  const newer = having.filter((r) => compareVersions(r.version, release.version) > 0);
  if (newer.length > 0 && older.length === 0) {
    return { fact: `${api} is an API of ${releaseName(newer[0])} and newer`, otherReleases: `${newer[0].version} or newer` };
  }
  if (older.length > 0 && newer.length === 0) {
    const last = older[older.length - 1].version;
    return { fact: `${nameOf(next(last))} removed the ${api} API`, otherReleases: `${last} or older` };
  }
  return { fact: `the releases with the ${api} API are ${knownReleasesText(having)}`, otherReleases: 'one of them' };
}

/**
 * How to fix a provider of `api` for a release that has no such API: where the API went or when it
 * came, and what to do. One sentence, without a final stop.
 */
export function missingApiFix(api: LlamaStackApi, release: ServerRelease): string {
  const m = whyMissing(api, release);
  return m.renamedTo !== undefined
    ? `${m.fact}: move the provider to externalProviders.${CRD_SECTION_BY_API[m.renamedTo]} (with an image whose metadata declares `
      + `api: ${m.renamedTo}), or set serverVersion to ${m.otherReleases}`
    : `${m.fact}: set serverVersion to ${m.otherReleases}, or remove the provider`;
}

/** `llama-stack 0.7`, `ogx 1.0`: the project and line of a known version. */
function nameOf(version: string): string {
  return releaseName(SERVER_RELEASES.find((r) => r.version === version)!);
}

function previous(version: string): string {
  const i = SERVER_RELEASES.findIndex((r) => r.version === version);
  return SERVER_RELEASES[i - 1].version;
}

function next(version: string): string {
  const i = SERVER_RELEASES.findIndex((r) => r.version === version);
  return SERVER_RELEASES[i + 1].version;
}
