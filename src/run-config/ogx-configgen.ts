/*
 * The config generator of the OGX Kubernetes operator (ogx-ai/ogx-k8s-operator v0.14.0, `pkg/config/*`
 * and `cmd/configgen`), as a pure function: from an `ogx.io/v1beta1` OGXServer spec and a base config,
 * the config.yaml the operator writes into its generated ConfigMap, and the Secret-backed environment
 * variables it adds to the Deployment. No Kubernetes access: the caller supplies the base config (the
 * `spec.baseConfig` ConfigMap's key, or the distribution's default config).
 *
 * The pipeline follows upstream `pkg/config/generator.go` (`GenerateConfig`): parse the base
 * (`merge.go`), expand the providers (`provider.go`, in `ogx-configgen-providers.ts`), merge them per
 * API, expand the models (`resource.go`), build the storage section (`storage.go`), filter the APIs,
 * then write the result with gopkg.in/yaml.v3. Nothing here is a copy of upstream code.
 *
 * Two YAML readers meet here. The operator decodes the base config with Go's yaml.v3 and writes the
 * result with yaml.v3; llama-stack then reads that text with PyYAML (YAML 1.1). The returned `config`
 * is what llama-stack reads from the operator's text, so that `renderYaml(config)` means to the server
 * exactly what the operator's ConfigMap means. Where the readers differ, the operator's reading of the
 * base wins (e.g. `version: 2` becomes the string "2", `enabled: yes` stays the string "yes", `0o17`
 * is 15), and the server's reading of the operator's text wins after that (e.g. a float64 such as the
 * JSON number 1000000 of custom settings is written `1e+06`, which PyYAML reads as a string).
 */

import { Document, isAlias, isMap, isScalar, isSeq, Scalar } from 'yaml';
import type { ScalarTag, YAMLMap, YAMLSeq } from 'yaml';
import { isPlainObject } from '../checks';
import { RunConfigError } from './errors';
import { describe } from './fields';
import {
  compareCodePoints, ConfigProvider, expandProviders, ExpandedProviders, fieldPath, GoFloat, GoMap, goQuote, GoValue,
  SecretEnv, SpecFields,
} from './ogx-configgen-providers';
import { asPyYamlReads, CONFIG_LIMITS, parseUntrustedYaml } from '../io';
import type { ParsedYaml } from '../io';

/** What the operator generates for one OGXServer. */
export interface GeneratedConfig {
  /**
   * The config as plain data, keys in the order the operator's output has them (sorted as yaml.v3
   * sorts map keys), ready for `renderYaml`. Mappings have no prototype, so that a key such as
   * `__proto__` from the base config or the spec is only data.
   */
  readonly config: Record<string, unknown>;
  /** Secret-backed environment variables the config references with ${env.NAME}, sorted by name, first wins on duplicates. */
  readonly env: ReadonlyArray<{ readonly name: string; readonly secretName: string; readonly secretKey: string }>;
  /** Top-level keys of the base config the operator does not read, which the generated config lacks (`image_name`, `logging`, …), in base order. */
  readonly droppedBaseKeys: readonly string[];
  /** Counts the operator reports in its status: every provider of the merged config, and the spec's models. */
  readonly providerCount: number;
  readonly resourceCount: number;
}

/** Options of {@link generateOgxConfig}. */
export interface GenerateOgxConfigOptions {
  /** Names the base config in messages, e.g. `ConfigMap ai/rh-base, key config.yaml`. */
  readonly baseConfigSource?: string;
  /**
   * The config is for a real ogx server: refuse providers of a type no ogx release registers, which the
   * operator writes for some typed providers and the server refuses to start with.
   * @default false - the operator's output, as its test data expects it
   */
  readonly forServer?: boolean;
}

/**
 * Provider types the OGX operator v0.14.0 writes for typed providers (`pkg/config/provider.go`:
 * `inline::rag-runtime` for `toolRuntime.inline.fileSearch`, `inline::batch-reference` for
 * `batches.inline.reference`, `inline::responses` for `responses.inline.builtin`) that no ogx release
 * registers (`ogx/providers/registry/<api>.py` of every ogx wheel, 0.8.0 to 1.5.0), with the type ogx
 * registers for that provider. The real ogx 1.5.0 refuses to start with them ("Provider
 * `inline::batch-reference` is not available for API `Api.batches`": test/pod-startup/ogx-configgen.test.ts).
 */
const UNREGISTERED_TYPES: ReadonlyMap<string, { readonly registered: string; readonly registry: string }> = new Map([
  ['inline::rag-runtime', { registered: 'inline::file-search', registry: 'tool_runtime.py' }],
  ['inline::batch-reference', { registered: 'inline::reference', registry: 'batches.py' }],
  ['inline::responses', { registered: 'inline::builtin', registry: 'responses.py' }],
]);

/** Refuses providers of a type no ogx release registers (see {@link UNREGISTERED_TYPES}). */
function checkRegisteredTypes(read: ReadSpec): void {
  const problems: string[] = [];
  for (const [api, list] of read.providers?.byApi ?? []) {
    for (const p of list) {
      const known = UNREGISTERED_TYPES.get(p.providerType);
      if (known) {
        problems.push(`spec.providers (${api}): provider '${p.providerId}' gets provider_type ${p.providerType}, which no ogx release registers; `
          + `ogx serves this provider as ${known.registered} (ogx/providers/registry/${known.registry}) and refuses to start with the other.`);
      }
    }
  }
  if (problems.length > 0) {
    fail('OGXServer providers no ogx server can load', problems,
      'Give the provider as a custom provider of the type ogx registers, with its whole config: '
      + 'spec.providers.<api>.inline.custom: [{type: <the type named above>, settings: {...}}] (the settings become its config: '
      + 'batches\' inline::reference also needs sqlstore, responses\' inline::builtin needs persistence). The OGX operator v0.14.0 writes these configs as they are, and its pods do not start.');
  }
}

/** The fields whose presence makes the operator generate a config (`spec.baseConfig` alone does not). */
const DECLARATIVE_FIELDS = ['providers', 'resources', 'storage', 'disabledAPIs'] as const;

/** `server.port` when neither the spec nor the base sets one (`DefaultServerPort`); also the CRD's default of `spec.network.port`. */
const DEFAULT_SERVER_PORT = 8321;

/** Where the generated storage section keeps its SQLite databases unless `SQLITE_STORE_DIR` says otherwise (the operator's storage mount). */
export const GENERATED_SQLITE_DIR = '/.ogx';

/** Most values the base config may expand to through aliases, and the config may hold (a guard against alias bombs). */
const MAX_VALUES = 1_000_000;

/** Deepest nesting of the decoded base config, aliases expanded. */
const MAX_NESTING = 200;

/**
 * True when the spec has a declarative field (providers, resources, storage, disabledAPIs), which is
 * when the operator generates a config. Any value other than null counts, as a non-nil Go field does.
 */
export function hasDeclarativeConfig(spec: Record<string, unknown>): boolean {
  if (!isPlainObject(spec)) return false;
  const fields = SpecFields.of(spec, 'spec', []);
  return fields !== undefined && DECLARATIVE_FIELDS.some((name) => fields.has(name));
}

/**
 * Checks what the generator checks of the spec alone, and returns the Secret-backed environment
 * variables the generated config references (`${env.OGX_<ID>_<FIELD>}`), sorted by name: they depend on
 * the spec alone (`CollectSecretRefs`, `pkg/config/secret.go`), so the server container can be given
 * them at synth time even when the config is generated in the pod, over a base config seen there only.
 *
 * @throws RunConfigError naming the field, for a spec the generator refuses whatever the base config:
 *   fields of the wrong types, `overrideConfig`, no declarative field, references colliding on one
 *   variable name, providers that cannot be expanded
 */
export function secretEnvOf(spec: Record<string, unknown>): GeneratedConfig['env'] {
  const read = checkedSpec(spec);
  checkProviders(read);
  checkRegisteredTypes(read);
  return uniqueSortedEnv(read.secrets);
}

/** The spec, decoded and checked as `cmd/configgen` checks it before it reads the base config. */
function checkedSpec(spec: Record<string, unknown>): ReadSpec {
  const read = readSpec(spec);
  if (read.root.has('overrideConfig')) {
    fail('OGXServer spec.overrideConfig is set', [
      'failed to generate config: CR has overrideConfig set; the operator would skip config generation and use the override ConfigMap directly',
    ], 'Remove spec.overrideConfig to have the operator generate the config from spec.providers, spec.resources, spec.storage and '
      + 'spec.disabledAPIs; with spec.overrideConfig the operator mounts that ConfigMap key as it is and generates nothing.');
  }
  if (!DECLARATIVE_FIELDS.some((name) => read.root.has(name))) {
    fail('OGXServer has no declarative config', [
      'failed to generate config: CR has no declarative config fields (providers, resources, storage, or disabledAPIs); nothing to generate',
    ], 'Set spec.providers, spec.resources, spec.storage or spec.disabledAPIs to have the operator generate a config; without '
      + 'them the operator mounts no config and the image runs its own default config.');
  }
  checkEnvNames(read.secrets);
  return read;
}

/** The expansion of the spec's providers (`provider.go`), which the operator runs after reading the base config. */
function checkProviders(read: ReadSpec): void {
  const failure = read.providers?.failure;
  if (failure) fail('Cannot expand the OGXServer providers', [failure.message, `The field at fault is ${failure.field}.`], failure.resolution);
}

/**
 * Generates the config the OGX operator (v0.14.0) would write for `spec`, over the base config
 * `baseConfigText`, and the Secret-backed environment variables it would add to the Deployment.
 *
 * The checks run in the operator's order: the spec's field types (the operator cannot decode a CR
 * with a wrong type), `spec.overrideConfig` and the presence of a declarative field (the checks of
 * `cmd/configgen`), the environment variable names (`ValidateSecretRefEnvVarNames`), then the base
 * config, the providers and the models (`GenerateConfig`). The CRD's defaulting is applied where it
 * changes the output: a `spec.network` without `port` means port 8321, as in a cluster.
 *
 * @throws RunConfigError with the operator's message in `details` and a resolution naming the field
 */
export function generateOgxConfig(spec: Record<string, unknown>, baseConfigText: string, options: GenerateOgxConfigOptions = {}): GeneratedConfig {
  const source = typeof options?.baseConfigSource === 'string' && options.baseConfigSource !== '' ? options.baseConfigSource : 'the base config';
  const read = checkedSpec(spec);
  const base = readBaseConfig(baseConfigText, source);
  checkProviders(read);
  if (options.forServer === true) checkRegisteredTypes(read);

  // MergeProviders: each API the spec gives replaces the base's whole list of that API.
  let merged = base.providers;
  if (read.providers && merged) {
    merged = new Map(merged);
    for (const [api, list] of read.providers.byApi) merged.set(api, list);
  } else if (read.providers) {
    merged = read.providers.byApi;
  }

  const models = expandModels(read, merged);
  const config = buildConfig(read, base, merged, models);
  return {
    config: new ConfigWriter(source).top(config),
    env: uniqueSortedEnv(read.secrets),
    droppedBaseKeys: base.dropped.filter((key) => !config.has(key)),
    providerCount: [...(merged?.values() ?? [])].reduce((sum, list) => sum + list.length, 0),
    resourceCount: models.length,
  };
}

/**
 * The warning for base config keys the generated config lacks: the operator's generator keeps only the
 * keys its BaseConfig has, as the construct and `merge-config` say.
 */
export function droppedKeysWarning(keys: readonly string[]): string {
  return 'declarativeConfig: the OGX operator\'s config generator keeps version, apis, providers, registered_resources, vector_stores, '
    + `server and storage of the base config, and drops ${keys.join(', ')}, as the operator does. Remove them from the base config, `
    + 'or write the whole config in userConfig without declarativeConfig.';
}

/** A model of `spec.resources.models`, as decoded. */
interface SpecModel {
  readonly name: string;
  readonly provider: string;
  readonly modelType: string;
  readonly contextLength: number | bigint | undefined;
  readonly quantization: string;
  readonly path: string;
}

/** The spec, decoded as the operator's Go types hold it (the fields config generation reads). */
interface ReadSpec {
  readonly root: SpecFields;
  readonly distroName: string;
  readonly providers: ExpandedProviders | undefined;
  readonly models: readonly SpecModel[] | undefined;
  readonly storage: GoMap | undefined;
  readonly disabledApis: readonly string[] | undefined;
  readonly port: number | bigint | undefined;
  /** Secret-backed variables in the operator's collection order (providers, then storage). */
  readonly secrets: readonly SecretEnv[];
}

/** Decodes every field config generation reads; throws one error listing every field of a wrong type. */
function readSpec(spec: unknown): ReadSpec {
  const problems: string[] = [];
  const root = SpecFields.of(spec, 'spec', problems);
  if (!root) {
    if (problems.length === 0) problems.push(`spec: found ${describe(spec)}; expected a mapping.`);
    failSpec(problems);
  }
  const secrets: SecretEnv[] = [];

  const distribution = root.obj('distribution');
  const distroName = distribution?.str('name') || distribution?.str('image') || '';
  for (const name of ['overrideConfig', 'baseConfig']) {
    const ref = root.obj(name);
    ref?.str('name');
    ref?.str('key');
  }
  const providersSpec = root.obj('providers');
  const providers = providersSpec ? expandProviders(providersSpec, secrets) : undefined;

  const resources = root.obj('resources');
  const models = resources?.objList('models').map((m): SpecModel => ({
    name: m.str('name') ?? '',
    provider: m.str('provider') ?? '',
    modelType: m.str('modelType') ?? '',
    contextLength: m.int('contextLength'),
    quantization: m.str('quantization') ?? '',
    path: m.path,
  }));

  const storageSpec = root.obj('storage');
  const storage = storageSpec ? applyStorage(storageSpec, secrets) : undefined;
  const disabledApis = root.strList('disabledAPIs');
  const network = root.obj('network');
  // The CRD defaults spec.network.port to 8321 whenever spec.network exists; the operator sees that value.
  const port = network ? network.int('port', 32) ?? DEFAULT_SERVER_PORT : undefined;

  if (problems.length > 0) failSpec(problems);
  return { root, distroName, providers, models, storage, disabledApis, port, secrets };
}

function failSpec(problems: string[]): never {
  return fail('Invalid OGXServer spec', problems,
    'Give each field named above the type the OGXServer CRD (ogx.io/v1beta1) gives it; the operator cannot decode a CR with a field of another type.');
}

/**
 * `ApplyStorage` (`pkg/config/storage.go`): a complete storage section (kv_default, sql_default and the
 * four default stores) that replaces the base's. Collects `OGX_STORAGE_KV_PASSWORD` and
 * `OGX_STORAGE_SQL_CONNECTION_STRING` whenever their Secret is referenced (`secret.go`), whatever the type.
 */
function applyStorage(storage: SpecFields, secrets: SecretEnv[]): GoMap {
  const sqlite = (kind: 'kv' | 'sql', file: string): GoMap => new Map([['type', `${kind}_sqlite`], ['db_path', `\${env.SQLITE_STORE_DIR:=${GENERATED_SQLITE_DIR}}/${file}`]]);
  const kv = storage.obj('kv');
  const sql = storage.obj('sql');
  let kvBackend = sqlite('kv', 'kvstore.db');
  let sqlBackend = sqlite('sql', 'sqlstore.db');
  const kvPassword = kv?.secretRef('password');
  const connectionString = sql?.secretRef('connectionString');
  if (kv?.str('type') === 'redis') {
    kvBackend = new Map([['type', 'kv_redis'], ['host', kv.str('endpoint') ?? '']]);
    if (kvPassword) kvBackend.set('password', '${env.OGX_STORAGE_KV_PASSWORD}');
  }
  if (sql?.str('type') === 'postgres') {
    sqlBackend = new Map([['type', 'sql_postgres'], ['connection_string', '${env.OGX_STORAGE_SQL_CONNECTION_STRING}']]);
  }
  if (kvPassword) {
    secrets.push({ name: 'OGX_STORAGE_KV_PASSWORD', secretName: kvPassword.name, secretKey: kvPassword.key, field: kv!.at('password') });
  }
  if (connectionString) {
    secrets.push({
      name: 'OGX_STORAGE_SQL_CONNECTION_STRING', secretName: connectionString.name, secretKey: connectionString.key, field: sql!.at('connectionString'),
    });
  }
  const store = (backend: string, key: 'namespace' | 'table_name', value: string): GoMap => new Map([['backend', backend], [key, value]]);
  return new Map<string, GoValue>([
    ['backends', new Map([['kv_default', kvBackend], ['sql_default', sqlBackend]])],
    ['stores', new Map([
      ['metadata', store('kv_default', 'namespace', 'registry')],
      ['inference', store('sql_default', 'table_name', 'inference_store')],
      ['conversations', store('sql_default', 'table_name', 'openai_conversations')],
      ['prompts', store('kv_default', 'namespace', 'prompts')],
    ])],
  ]);
}

/**
 * `ValidateSecretRefEnvVarNames` (`pkg/config/secret.go`): every name must be an environment variable
 * name, and one name may not stand for two different Secret keys (ids `a-b` and `a_b` both give `A_B`).
 */
function checkEnvNames(secrets: readonly SecretEnv[]): void {
  const seen = new Map<string, SecretEnv>();
  for (const env of secrets) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(env.name)) {
      fail('Invalid secret environment variable name', [
        `failed to validate secret ref env var names: failed to validate generated env var name ${goQuote(env.name)}`,
      ], `Change ${env.field} (or its provider's id) so that the variable name is made of A-Z, 0-9 and _.`);
    }
    const first = seen.get(env.name);
    if (first === undefined) {
      seen.set(env.name, env);
    } else if (first.secretName !== env.secretName || first.secretKey !== env.secretKey) {
      fail('Secret environment variable name collision', [
        `failed to validate secret ref env var names: failed to validate env var name collision for ${goQuote(env.name)}: `
          + `${first.secretName}/${first.secretKey} conflicts with ${env.secretName}/${env.secretKey}`,
        `${first.field} and ${env.field} are both passed in ${env.name}.`,
      ], `Give the providers of ${first.field} and ${env.field} ids that differ once upper-cased with every run of other `
        + 'characters than letters and digits made one _ (the variable is OGX_<ID>_<FIELD>), or make both refer to the same Secret key.');
    }
  }
}

/** `CollectSecretRefs`: the first variable of each name, sorted by name. */
function uniqueSortedEnv(secrets: readonly SecretEnv[]): GeneratedConfig['env'] {
  const unique = new Map<string, { name: string; secretName: string; secretKey: string }>();
  for (const { name, secretName, secretKey } of secrets) {
    if (!unique.has(name)) unique.set(name, { name, secretName, secretKey });
  }
  return [...unique.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * `ExpandResources` (`pkg/config/resource.go`): each model of the spec, on its provider or the first
 * inference provider of the merged config (which may be the base's, even an `${env…}` template).
 */
function expandModels(read: ReadSpec, merged: Map<string, ConfigProvider[]> | undefined): GoMap[] {
  return (read.models ?? []).map((m) => {
    let providerId = m.provider;
    if (providerId === '') {
      const first = merged?.get('inference')?.[0];
      if (!first) {
        fail('Cannot assign a provider to a model', [
          `failed to expand resources: failed to assign provider for model ${goQuote(m.name)}: no explicit provider and no inference providers are configured`,
        ], `Set ${m.path}.provider, or configure an inference provider (spec.providers.inference, or providers.inference in the base config): `
          + 'a model without a provider goes to the first inference provider.');
      }
      providerId = first.providerId;
    }
    const model: GoMap = new Map([['model_id', m.name], ['provider_id', providerId], ['model_type', m.modelType || 'llm']]);
    if (m.contextLength !== undefined) model.set('context_length', m.contextLength);
    if (m.quantization) model.set('quantization', m.quantization);
    return model;
  });
}

/** `buildFinalConfig` (`pkg/config/generator.go`). */
function buildConfig(read: ReadSpec, base: BaseConfig, merged: Map<string, ConfigProvider[]> | undefined, models: GoMap[]): GoMap {
  const config: GoMap = new Map([['version', base.version]]);
  if (read.distroName) config.set('distro_name', read.distroName);

  // MergeAPIs: the disabled names leave `apis`; the providers of those APIs stay.
  const disabled = new Set(read.disabledApis ?? []);
  const apis = (base.apis ?? []).filter((api) => !disabled.has(api));
  if (apis.length > 0) config.set('apis', apis);

  if (merged && merged.size > 0) {
    const providers: GoMap = new Map();
    for (const [api, list] of merged) {
      providers.set(api, list.map((p): GoMap => new Map<string, GoValue>([
        ['provider_id', p.providerId], ['provider_type', p.providerType], ['config', p.config ?? new Map()],
      ])));
    }
    config.set('providers', providers);
  }

  // registered_resources is always written; its lists are omitted when empty.
  const resources: GoMap = new Map();
  const baseModels = base.registeredResources?.models ?? [];
  const modelList = models.length > 0 ? models : baseModels;
  if (modelList.length > 0) resources.set('models', modelList);
  const vectorStores = base.registeredResources?.vectorStores ?? [];
  if (vectorStores.length > 0) resources.set('vector_stores', vectorStores);
  config.set('registered_resources', resources);

  if (base.vectorStores !== undefined) config.set('vector_stores', base.vectorStores);

  const server: GoMap = new Map(base.server ?? []);
  if (read.port !== undefined && read.port !== 0) server.set('port', read.port);
  else if (!server.has('port')) server.set('port', DEFAULT_SERVER_PORT);
  config.set('server', server);

  const storage = read.storage ?? base.storage;
  if (storage !== undefined) config.set('storage', storage);
  return config;
}

function fail(title: string, details: string[], resolution: string, source?: string): never {
  throw new RunConfigError([{ title, details, resolution, ...(source !== undefined ? { source } : {}) }]);
}

// ---------------------------------------------------------------------------------------------------
// The base config, decoded as yaml.v3 decodes it into the operator's BaseConfig (pkg/config/types.go).

/** `registered_resources` of the base: only its models and vector stores are read. */
interface RegisteredResources {
  readonly models: readonly GoValue[] | undefined;
  readonly vectorStores: readonly GoValue[] | undefined;
}

/** The parts of the base config the operator reads; every other top-level key is dropped. */
interface BaseConfig {
  readonly version: string;
  readonly apis: readonly string[] | undefined;
  readonly providers: Map<string, ConfigProvider[]> | undefined;
  readonly registeredResources: RegisteredResources | undefined;
  readonly vectorStores: GoMap | undefined;
  readonly server: GoMap | undefined;
  readonly storage: GoMap | undefined;
  /** The other top-level keys, which the generated config drops. */
  readonly dropped: readonly string[];
}

/** The top-level keys of the base config the operator's BaseConfig has (`pkg/config/types.go`). */
const BASE_CONFIG_KEYS: ReadonlySet<string> = new Set(['version', 'apis', 'providers', 'registered_resources', 'vector_stores', 'server', 'storage']);

const OPERATOR_PARSE_PREFIX = 'failed to parse base config: failed to parse base config:';

/**
 * `ParseBaseConfig` (`pkg/config/merge.go`): the text is first read by this library's guarded reader
 * (size, depth and alias limits; one document; syntax errors with line and column), then decoded with
 * yaml.v3's rules.
 */
function readBaseConfig(text: unknown, source: string): BaseConfig {
  const resolution = `Fix ${source}: it must be one YAML document whose top level is a mapping with at least version `
    + '(e.g. version: 2), and apis, providers, registered_resources, vector_stores, server and storage as llama-stack configs have them.';
  if (typeof text !== 'string') {
    fail('Cannot read the OGX base config', [`${OPERATOR_PARSE_PREFIX} the base config is ${describe(text)}, not YAML text.`], resolution, source);
  }
  let parsed: ParsedYaml;
  try {
    parsed = parseUntrustedYaml(text, CONFIG_LIMITS, { source, resolution });
  } catch (e) {
    if (!(e instanceof RunConfigError)) throw e;
    const issue = e.issues[0];
    const [first, ...rest] = issue.details;
    throw new RunConfigError([{ ...issue, title: 'Cannot read the OGX base config', details: [`${OPERATOR_PARSE_PREFIX} yaml: ${first}`, ...rest] }]);
  }
  const reader = new BaseConfigReader(parsed);
  const decoded = reader.decode();
  const top = parsed.doc.contents;
  const dropped = isMap(top)
    ? top.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : undefined))
      .filter((k): k is string => k !== undefined && !BASE_CONFIG_KEYS.has(k))
    : [];
  const base: BaseConfig = { ...decoded, dropped };
  if (reader.fatal !== undefined) {
    fail('Cannot read the OGX base config', [`${OPERATOR_PARSE_PREFIX} yaml: ${reader.fatal}`], resolution, source);
  }
  if (reader.typeErrors.length > 0) {
    const lines = [...reader.typeErrors].sort((a, b) => a.line - b.line).map((e) => `  ${e.text}`);
    fail('Cannot read the OGX base config', [`${OPERATOR_PARSE_PREFIX} yaml: unmarshal errors:`, ...lines],
      `${resolution} Each field named above has another type in the operator's BaseConfig.`, source);
  }
  if (base.version === '') {
    fail('The OGX base config has no version', [
      "failed to parse base config: failed to validate base config: missing required 'version' field",
    ], `Add a top-level version to ${source}, e.g. version: 2 (the operator requires it and copies it into the generated config as a string).`, source);
  }
  return base;
}

type YamlNode = Scalar | YAMLMap | YAMLSeq;

/** A scalar as yaml.v3 resolves it: its short tag and its Go value. */
interface Resolved {
  readonly tag: string;
  readonly value: GoValue;
}

/** Thrown inside the reader to stop at an error yaml.v3 stops at. */
class StopDecoding {
  public constructor(public readonly message: string) {}
}

/**
 * Decodes the parsed document with yaml.v3's rules: scalars resolved as yaml.v3 resolves them (its
 * YAML 1.2-like core schema: `yes` is a string, `0o17` and `017` are 15, `1e3` is a float), typed fields
 * read as the Go struct reads them (a `string` field takes any scalar's text, so `version: 2` is "2";
 * null is the zero value), a wrong kind recorded as yaml.v3 reports it (`line N: cannot unmarshal !!seq
 * into string`), aliases expanded and `<<` merged (explicit keys win, then the earlier merged mapping).
 */
class BaseConfigReader {
  /** yaml.v3's `cannot unmarshal` errors, with their line (yaml.v3 reports them in document order). */
  public readonly typeErrors: Array<{ readonly line: number; readonly text: string }> = [];
  public fatal: string | undefined;
  private readonly active = new Set<YamlNode>();
  private values = 0;

  public constructor(private readonly parsed: ParsedYaml) {}

  public decode(): Omit<BaseConfig, 'dropped'> {
    const empty: Omit<BaseConfig, 'dropped'> = {
      version: '', apis: undefined, providers: undefined, registeredResources: undefined, vectorStores: undefined, server: undefined, storage: undefined,
    };
    try {
      const root = this.node(this.parsed.doc.contents);
      if (root === null || this.isNull(root)) return empty;
      if (!isMap(root)) {
        this.typeError(root, 'config.BaseConfig', 'the top level');
        return empty;
      }
      const fields = this.structFields(root);
      const at = (key: string): unknown => fields.get(key);
      const version = this.string(at('version'), 'version');
      this.string(at('distro_name'), 'distro_name');
      this.string(at('image_name'), 'image_name');
      return {
        version,
        apis: this.stringList(at('apis'), 'apis'),
        providers: this.providers(at('providers')),
        registeredResources: this.registeredResources(at('registered_resources')),
        vectorStores: this.stringKeyedMap(at('vector_stores'), 'vector_stores'),
        server: this.stringKeyedMap(at('server'), 'server'),
        storage: this.stringKeyedMap(at('storage'), 'storage'),
      };
    } catch (e) {
      if (!(e instanceof StopDecoding)) throw e;
      this.fatal = e.message;
      return empty;
    }
  }

  /** Follows an alias to its node; null for an empty value. */
  private node(value: unknown): YamlNode | null {
    if (isAlias(value)) return value.resolve(this.parsed.doc) ?? null;
    if (isScalar(value) || isMap(value) || isSeq(value)) return value;
    return null;
  }

  private isNull(node: YamlNode | null): boolean {
    return node === null || (isScalar(node) && this.resolve(node).tag === '!!null');
  }

  /** Runs `fn` inside a collection, refusing a collection that contains itself and runaway nesting. */
  private within<T>(node: YamlNode, fn: () => T): T {
    if (this.active.has(node)) throw new StopDecoding('an alias refers to a mapping or list that contains it');
    if (this.active.size >= MAX_NESTING) throw new StopDecoding(`collections are nested more than ${MAX_NESTING} levels deep (aliases expanded)`);
    this.active.add(node);
    try {
      return fn();
    } finally {
      this.active.delete(node);
    }
  }

  private count(): void {
    if (++this.values > MAX_VALUES) throw new StopDecoding(`the document expands (through aliases) to more than ${MAX_VALUES} values`);
  }

  private line(node: YamlNode): number {
    return this.parsed.lineCounter.linePos(node.range?.[0] ?? 0).line;
  }

  /** Records yaml.v3's `cannot unmarshal` error for `node` decoded into `goType`, with the config path. */
  private typeError(node: YamlNode, goType: string, path: string): void {
    let shown = '';
    let tag = isMap(node) ? '!!map' : '!!seq';
    if (isScalar(node)) {
      tag = this.resolve(node).tag;
      const text = scalarText(node);
      shown = text.length > 10 ? ` \`${text.slice(0, 7)}...\`` : ` \`${text}\``;
    }
    const line = this.line(node);
    this.typeErrors.push({ line, text: `line ${line}: cannot unmarshal ${tag}${shown} into ${goType} (${path})` });
  }

  /** A scalar as yaml.v3 resolves it: quoted and block scalars are strings, plain ones are resolved, explicit tags honoured. */
  private resolve(node: Scalar): Resolved {
    const text = scalarText(node);
    const tag = node.tag;
    const quoted = node.type !== undefined && node.type !== Scalar.PLAIN;
    if (tag === undefined || tag === '!') return quoted ? { tag: '!!str', value: text } : resolvePlain(text);
    const short = tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
    if (short === '!!binary') return { tag: '!!str', value: Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8') };
    if (!['!!int', '!!float', '!!bool', '!!null'].includes(short)) return { tag: '!!str', value: text };
    const resolved = resolvePlain(text);
    if (resolved.tag === short) return resolved;
    if (short === '!!float' && resolved.tag === '!!int') return { tag: '!!float', value: new GoFloat(Number(resolved.value)) };
    throw new StopDecoding(`cannot decode ${resolved.tag} \`${text}\` as a ${short}`);
  }

  /** Whether a mapping key is the merge key `<<` (plain, untagged). */
  private isMergeKey(key: unknown): boolean {
    return isScalar(key) && (key.type === undefined || key.type === Scalar.PLAIN) && scalarText(key) === '<<'
      && (key.tag === undefined || key.tag === '!' || key.tag === 'tag:yaml.org,2002:merge');
  }

  /** The pairs of a mapping: its own first, then those of its `<<` sources in order (the first of a key wins). */
  private pairs(map: YAMLMap): Array<{ readonly key: unknown; readonly value: unknown }> {
    const own: Array<{ key: unknown; value: unknown }> = [];
    let mergeValue: unknown;
    let hasMerge = false;
    for (const pair of map.items) {
      if (this.isMergeKey(pair.key)) {
        mergeValue = pair.value;
        hasMerge = true;
      } else {
        own.push({ key: pair.key, value: pair.value });
      }
    }
    if (!hasMerge) return own;
    const source = this.node(mergeValue);
    const sources = source !== null && isSeq(source) ? source.items.map((item) => this.node(item)) : [source];
    for (const s of sources) {
      if (s === null || !isMap(s)) throw new StopDecoding('map merge requires map or sequence of maps as the value');
      own.push(...this.within(s, () => this.pairs(s)));
    }
    return own;
  }

  /** The fields of a struct-like mapping by key text (the first of a key wins). */
  private structFields(map: YAMLMap): Map<string, unknown> {
    const fields = new Map<string, unknown>();
    for (const { key, value } of this.pairs(map)) {
      const name = this.keyText(key, true, '');
      if (name !== undefined && !fields.has(name)) fields.set(name, value);
    }
    return fields;
  }

  /**
   * The text of a key. In a map of strings (a struct, or `map[string]…`) a scalar key is its text and
   * null is ""; in an untyped map whose keys are not all strings yaml.v3 keeps the resolved values and
   * writes them back (`0x1F:` becomes `31:`). A mapping or list as a key is an error.
   */
  private keyText(key: unknown, stringKeyed: boolean, path: string): string | undefined {
    const node = this.node(key);
    if (node === null) return stringKeyed ? '' : 'null';
    if (!isScalar(node)) {
      if (stringKeyed) {
        this.typeError(node, 'string', `a key of ${path || 'the top level'}`);
        return undefined;
      }
      throw new StopDecoding(`invalid map key: a ${isMap(node) ? 'mapping' : 'list'} at line ${this.line(node)}`);
    }
    const resolved = this.resolve(node);
    if (resolved.tag === '!!null') return stringKeyed ? '' : 'null';
    if (stringKeyed || resolved.tag === '!!str') return scalarText(node);
    return goScalarText(resolved.value);
  }

  /** A `string` field: any scalar's text, "" for null. */
  private string(value: unknown, path: string): string {
    this.count();
    const node = this.node(value);
    if (node === null || this.isNull(node)) return '';
    if (!isScalar(node)) {
      this.typeError(node, 'string', path);
      return '';
    }
    // yaml.v3 sets a string field to the scalar's text whatever it resolves to (a !!binary is decoded).
    const resolved = this.resolve(node);
    return node.tag === 'tag:yaml.org,2002:binary' ? String(resolved.value) : scalarText(node);
  }

  /** A `[]string` field. */
  private stringList(value: unknown, path: string): string[] | undefined {
    const node = this.node(value);
    if (node === null || this.isNull(node)) return undefined;
    if (!isSeq(node)) {
      this.typeError(node, '[]string', path);
      return undefined;
    }
    return this.within(node, () => node.items.map((item, i) => this.string(item, `${path}[${i}]`)));
  }

  /** `providers`: `map[string][]config.ConfigProvider`. */
  private providers(value: unknown): Map<string, ConfigProvider[]> | undefined {
    const node = this.node(value);
    if (node === null || this.isNull(node)) return undefined;
    if (!isMap(node)) {
      this.typeError(node, 'map[string][]config.ConfigProvider', 'providers');
      return undefined;
    }
    return this.within(node, () => {
      const out = new Map<string, ConfigProvider[]>();
      for (const { key, value: listValue } of this.pairs(node)) {
        const api = this.keyText(key, true, 'providers');
        if (api === undefined || out.has(api)) continue;
        const path = fieldPath('providers', api);
        const list = this.node(listValue);
        if (list !== null && !this.isNull(list) && !isSeq(list)) {
          this.typeError(list, '[]config.ConfigProvider', path);
          continue;
        }
        // A null list stays as an empty list under its API (Go keeps the key with a nil slice).
        const items = list !== null && isSeq(list) ? this.within(list, () => list.items.map((item, i) => this.providerEntry(item, `${path}[${i}]`))) : [];
        out.set(api, items.filter((p): p is ConfigProvider => p !== undefined));
      }
      return out;
    });
  }

  /** One `config.ConfigProvider`: provider_id, provider_type and config; any other key is dropped. */
  private providerEntry(value: unknown, path: string): ConfigProvider | undefined {
    this.count();
    const node = this.node(value);
    if (node === null || this.isNull(node)) return { providerId: '', providerType: '', config: undefined };
    if (!isMap(node)) {
      this.typeError(node, 'config.ConfigProvider', path);
      return undefined;
    }
    return this.within(node, () => {
      const fields = this.structFields(node);
      return {
        providerId: this.string(fields.get('provider_id'), `${path}.provider_id`),
        providerType: this.string(fields.get('provider_type'), `${path}.provider_type`),
        config: this.stringKeyedMap(fields.get('config'), `${path}.config`),
      };
    });
  }

  /** `registered_resources`: models and vector_stores (`[]interface {}`); other keys are dropped. */
  private registeredResources(value: unknown): RegisteredResources | undefined {
    const node = this.node(value);
    if (node === null || this.isNull(node)) return undefined;
    if (!isMap(node)) {
      this.typeError(node, 'config.RegisteredResources', 'registered_resources');
      return undefined;
    }
    return this.within(node, () => {
      const fields = this.structFields(node);
      return {
        models: this.untypedList(fields.get('models'), 'registered_resources.models'),
        vectorStores: this.untypedList(fields.get('vector_stores'), 'registered_resources.vector_stores'),
      };
    });
  }

  private untypedList(value: unknown, path: string): GoValue[] | undefined {
    const node = this.node(value);
    if (node === null || this.isNull(node)) return undefined;
    if (!isSeq(node)) {
      this.typeError(node, '[]interface {}', path);
      return undefined;
    }
    return this.within(node, () => node.items.map((item) => this.untyped(item)));
  }

  /** A `map[string]interface {}` field; undefined for null (Go's nil map), an empty map for `{}`. */
  private stringKeyedMap(value: unknown, path: string): GoMap | undefined {
    const node = this.node(value);
    if (node === null || this.isNull(node)) return undefined;
    if (!isMap(node)) {
      this.typeError(node, 'map[string]interface {}', path);
      return undefined;
    }
    return this.within(node, () => this.mapBody(node, true, path));
  }

  private mapBody(node: YAMLMap, stringKeyed: boolean, path: string): GoMap {
    const out: GoMap = new Map();
    for (const { key, value } of this.pairs(node)) {
      const name = this.keyText(key, stringKeyed, path);
      if (name !== undefined && !out.has(name)) out.set(name, this.untyped(value));
    }
    return out;
  }

  /** An `interface {}` value. */
  private untyped(value: unknown): GoValue {
    this.count();
    const node = this.node(value);
    if (node === null) return null;
    if (isScalar(node)) return this.resolve(node).value;
    if (isSeq(node)) return this.within(node, () => node.items.map((item) => this.untyped(item)));
    // yaml.v3 makes a map[string]interface{} when every own key resolves to a string, else a map of any keys.
    const allStrings = node.items.every((pair) => {
      const key = this.node(pair.key);
      return key !== null && isScalar(key) && (this.isMergeKey(key) || this.resolve(key).tag === '!!str');
    });
    return this.within(node, () => this.mapBody(node, allStrings, ''));
  }
}

/** The text of a scalar as written (for plain scalars, after line folding). */
function scalarText(node: Scalar): string {
  if (typeof node.source === 'string') return node.source;
  return node.value === null || node.value === undefined ? '' : String(node.value);
}

/** yaml.v3's `resolveTable`: what a plain scalar may be, by its first character (a Sign, a Digit, a word of the Map, a float). */
const RESOLVE_HINTS: ReadonlyMap<string, 'S' | 'D' | 'M' | '.'> = new Map<string, 'S' | 'D' | 'M' | '.'>([
  ['+', 'S'], ['-', 'S'], ['.', '.'],
  ...[...'0123456789'].map((c): [string, 'D'] => [c, 'D']),
  ...[...'yYnNtTfFoO~'].map((c): [string, 'M'] => [c, 'M']),
]);

const RESOLVE_MAP: ReadonlyMap<string, Resolved> = new Map<string, Resolved>([
  ...['true', 'True', 'TRUE'].map((s): [string, Resolved] => [s, { tag: '!!bool', value: true }]),
  ...['false', 'False', 'FALSE'].map((s): [string, Resolved] => [s, { tag: '!!bool', value: false }]),
  ...['', '~', 'null', 'Null', 'NULL'].map((s): [string, Resolved] => [s, { tag: '!!null', value: null }]),
  ...['.nan', '.NaN', '.NAN'].map((s): [string, Resolved] => [s, { tag: '!!float', value: new GoFloat(NaN) }]),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((s): [string, Resolved] => [s, { tag: '!!float', value: new GoFloat(Infinity) }]),
  ...['-.inf', '-.Inf', '-.INF'].map((s): [string, Resolved] => [s, { tag: '!!float', value: new GoFloat(-Infinity) }]),
]);

/** yaml.v3's `yamlStyleFloat`. */
const GO_YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** Go's `strconv.ParseInt(s, 0, 64)` syntax (after yaml.v3 removed the underscores). */
const GO_INT_SYNTAX = /^([-+]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/;
const UINT64_MAX = BigInt(2) ** BigInt(64) - BigInt(1);
const INT64_MIN = -(BigInt(2) ** BigInt(63));
const INT64_MAX = BigInt(2) ** BigInt(63) - BigInt(1);

/**
 * yaml.v3's `resolve` of a plain scalar (resolve.go): a table of exact words, then by its first
 * character a float (`.5`), or an integer in Go syntax (`0x1F`, `0o17`, `017`, `0b101`, underscores
 * dropped) or a float (`1e3`, `1.5`). Timestamps are not told apart: decoded into an untyped value
 * yaml.v3 keeps them as strings. Everything else is a string.
 */
function resolvePlain(text: string): Resolved {
  const hint = text === '' ? 'N' : RESOLVE_HINTS.get(text[0]);
  if (hint === undefined) return { tag: '!!str', value: text };
  const known = RESOLVE_MAP.get(text);
  if (known) return known;
  if (hint === '.') {
    if (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) && Number.isFinite(Number(text))) return { tag: '!!float', value: new GoFloat(Number(text)) };
  } else if (hint === 'S' || hint === 'D') {
    const plain = text.replace(/_/g, '');
    const int = GO_INT_SYNTAX.exec(plain);
    if (int) {
      const body = int[2];
      const digits = /^0[0-7]+$/.test(body) ? `0o${body.slice(1)}` : body.replace(/^0([XOB])/, (_, c: string) => `0${c.toLowerCase()}`);
      const magnitude = BigInt(digits);
      const value = int[1] === '-' ? -magnitude : magnitude;
      // ParseInt (int64), else ParseUint (no sign), else fall through to the float syntax.
      if ((value >= INT64_MIN && value <= INT64_MAX) || (int[1] === '' && value <= UINT64_MAX)) {
        return { tag: '!!int', value: Number.isSafeInteger(Number(value)) ? Number(value) : value };
      }
    }
    if (GO_YAML_FLOAT.test(plain) && Number.isFinite(Number(plain))) return { tag: '!!float', value: new GoFloat(Number(plain)) };
  }
  return { tag: '!!str', value: text };
}

/** How yaml.v3 writes a scalar Go value (a map key of an untyped map). */
function goScalarText(value: GoValue): string {
  if (value instanceof GoFloat) return formatGoFloat(value.value);
  return String(value);
}

/**
 * Go's `strconv.FormatFloat(f, 'g', -1, 64)`, as yaml.v3 writes a float64: the shortest digits, in
 * exponent form when the exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`); `.inf`, `-.inf`, `.nan`.
 */
function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const sign = f < 0 ? '-' : '';
  const [mantissa, exponent] = Math.abs(f).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${rest}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const point = exp + 1;
  const whole = point > 0 ? digits.slice(0, point).padEnd(point, '0') : '0';
  const decimals = Math.max(digits.length - point, 0);
  let fraction = '';
  for (let i = 0; i < decimals; i++) fraction += digits[point + i] ?? '0';
  return `${sign}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}

// ---------------------------------------------------------------------------------------------------
// Writing: what llama-stack reads from the text yaml.v3 writes.

/** yaml.v3 quotes these on output for other YAML 1.1 readers (`isOldBool`). */
const OLD_BOOLS: ReadonlySet<string> = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);
/** yaml.v3 quotes these on output too (`isBase60Float`). */
const BASE_60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

let pyYamlTags: readonly ScalarTag[] | undefined;

/** PyYAML's implicit scalar types (this library's reading of llama-stack's reader), most specific first. */
function pyYamlImplicitTags(): readonly ScalarTag[] {
  pyYamlTags ??= new Document(null, { version: '1.1', customTags: asPyYamlReads }).schema.tags
    .filter((t): t is ScalarTag => t.default === true && t.test !== undefined && !('collection' in t && t.collection));
  return pyYamlTags;
}

/**
 * Converts the operator's data to what llama-stack reads from the operator's text: maps become objects
 * with yaml.v3's key order, a float64 is read back from Go's formatting of it, and a string yaml.v3
 * writes unquoted is read as PyYAML resolves it (the few strings where the two disagree).
 */
class ConfigWriter {
  private values = 0;

  public constructor(private readonly source: string) {}

  public top(config: GoMap): Record<string, unknown> {
    return this.write(config, '') as Record<string, unknown>;
  }

  private write(value: GoValue, path: string): unknown {
    if (++this.values > MAX_VALUES) {
      fail('The generated config is too large', [`The config expands (through the base config's aliases) to more than ${MAX_VALUES} values.`],
        `Reduce ${this.source}: anchors and aliases (&name, *name) repeated many times make the written config very large.`, this.source);
    }
    if (value === null || typeof value === 'boolean') return value;
    if (typeof value === 'number') return value === 0 ? 0 : value;
    if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value;
    if (value instanceof GoFloat) return readFloat(value.value);
    if (typeof value === 'string') return this.readString(value, path);
    if (Array.isArray(value)) return value.map((item, i) => this.write(item, `${path}[${i}]`));
    const map = value as GoMap;
    const out: Record<string, unknown> = Object.create(null);
    for (const key of [...map.keys()].sort(goKeyCompare)) {
      const at = path === '' ? key : fieldPath(path, key);
      this.readString(key, at);
      out[key] = this.write(map.get(key)!, at);
    }
    return out;
  }

  /** A string as llama-stack reads it from yaml.v3's output. */
  private readString(text: string, path: string): unknown {
    const unquoted = !text.includes('\n') && resolvePlain(text).tag === '!!str' && !OLD_BOOLS.has(text) && !BASE_60.test(text);
    if (!unquoted) return text;
    if (text === '<<' || text === '=') {
      fail('The generated config cannot be read by llama-stack', [
        `${path}: the operator writes the string '${text}' without quotes, which llama-stack's YAML reader (PyYAML) takes for the YAML 1.1 `
          + `${text === '=' ? 'value' : 'merge'} key and cannot load.`,
      ], `Change the value '${text}' at ${path} (in the spec or in ${this.source}): the operator's config would not load.`);
    }
    const tag = pyYamlImplicitTags().find((t) => t.test!.test(text));
    // A timestamp PyYAML sees where yaml.v3 saw none stays a string: plain data has no datetime.
    if (tag === undefined || tag.tag === 'tag:yaml.org,2002:timestamp') return text;
    return tag.resolve(text, () => undefined, {});
  }
}

/**
 * A float64 read back from Go's text: an exponent without a dot (`1e+06`) is a string to PyYAML; `-0` is
 * the integer 0; a whole number beyond 2^53 is a bigint, so that it is written back digit for digit
 * (plain data cannot tell PyYAML's float 1e+16 from its integer, so the value is kept and the kind is not).
 */
function readFloat(f: number): unknown {
  const text = formatGoFloat(f);
  if (!Number.isFinite(f)) return f;
  if (/e/.test(text) && !text.includes('.')) return text;
  if (Number.isInteger(f) && !Number.isSafeInteger(f)) return BigInt(f);
  return f === 0 ? 0 : f;
}

/** yaml.v3's order of map keys (sorter.go): letters by code point, digit runs by value, a non-letter before a letter. */
function goKeyCompare(a: string, b: string): number {
  if (a === b) return 0;
  return goKeyLess(a, b) ? -1 : goKeyLess(b, a) ? 1 : compareCodePoints(a, b);
}

function goKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a, (c) => c.codePointAt(0)!);
  const br = Array.from(b, (c) => c.codePointAt(0)!);
  const isLetter = (cp: number): boolean => /\p{L}/u.test(String.fromCodePoint(cp));
  const isDigit = (cp: number): boolean => /\p{Nd}/u.test(String.fromCodePoint(cp));
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) {
      digits = isDigit(ar[i]);
      continue;
    }
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i] < br[i];
    if (al || bl) return digits ? al : bl;
    let an = BigInt(0);
    let bn = BigInt(0);
    if (ar[i] === 0x30 || br[i] === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== 0x30) {
          an = BigInt(1);
          bn = BigInt(1);
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = BigInt.asIntN(64, an * BigInt(10) + BigInt(ar[ai] - 0x30));
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = BigInt.asIntN(64, bn * BigInt(10) + BigInt(br[bi] - 0x30));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i] < br[i];
  }
  return ar.length < br.length;
}
