/*
 * The typed half of the OGX operator's config generator (ogx-ai/ogx-k8s-operator v0.14.0): reading an
 * `ogx.io/v1beta1` OGXServer spec as the operator's Go types decode it, and expanding `spec.providers`
 * into config.yaml provider entries and the secret-backed environment variables they reference.
 *
 * Behaviour follows upstream `pkg/config/provider.go` (expansion, order, ids, types, config keys) and
 * `pkg/config/secret.go` (env var names, collection order); nothing here is a copy of that code.
 * `ogx-configgen.ts` holds the public API and the rest of the pipeline.
 */

import { isPlainObject } from '../checks';
import { describe } from './fields';

/** A float64 of the operator's data (JSON numbers of custom settings, floats of the base config). */
export class GoFloat {
  public constructor(public readonly value: number) {}
}

/**
 * A value of the config as the operator holds it before writing it: Go's `map[string]interface{}` data.
 * A `number` is a Go integer (always whole); a `bigint` an integer beyond 2^53; a {@link GoFloat} a float64.
 */
export type GoValue = null | boolean | string | number | bigint | GoFloat | readonly GoValue[] | GoMap;

/** A Go map, keyed by the user's own strings (a `Map`, so that `__proto__` is only data). */
export type GoMap = Map<string, GoValue>;

/** A `{name, key}` reference to a key of a Secret. */
export interface SecretRef {
  readonly name: string;
  readonly key: string;
}

/** One entry of config.yaml `providers.<api>`. `config` undefined is Go's nil map, written `{}`. */
export interface ConfigProvider {
  readonly providerId: string;
  readonly providerType: string;
  readonly config: GoMap | undefined;
}

/** A secret-backed environment variable, with the spec field it comes from (for messages). */
export interface SecretEnv {
  readonly name: string;
  readonly secretName: string;
  readonly secretKey: string;
  readonly field: string;
}

/** A generation error of the operator, with the spec field to fix. */
export interface GenerationFailure {
  /** The operator's message, as `GenerateConfig` returns it. */
  readonly message: string;
  /** The spec field at fault, e.g. `spec.providers.inference.remote.custom[0].settings`. */
  readonly field: string;
  /** What to change. */
  readonly resolution: string;
}

const EMPTY_REF: SecretRef = { name: '', key: '' };
const INT64_MIN = -(BigInt(2) ** BigInt(63));
const INT64_MAX = BigInt(2) ** BigInt(63) - BigInt(1);
/** Deepest nesting of custom `settings` accepted (far beyond any real provider config). */
const MAX_SETTINGS_DEPTH = 100;

/**
 * `a.b`, or `a["b c"]` when the key is not a plain identifier, so that a path names the field even
 * when a user's map key holds dots, spaces or quotes.
 */
export function fieldPath(base: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

/**
 * The fields of one object of the spec, read the way Go's JSON decoder fills the operator's typed
 * structs: a field that is absent or null is Go's zero value (`undefined` here), a value of the wrong
 * type is a problem recorded with its path (the operator fails to decode such a CR), unknown fields are
 * ignored. Only own data properties are read: inherited ones, getters and `__proto__` tricks are not
 * followed.
 */
export class SpecFields {
  /** An object with no fields (Go's zero struct). */
  public static empty(path: string, problems: string[]): SpecFields {
    return new SpecFields(Object.create(null), path, problems);
  }

  /** The fields of `value` at `path`; undefined when it is absent or null; a problem when it is no mapping. */
  public static of(value: unknown, path: string, problems: string[]): SpecFields | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) {
      problems.push(`${path}: found ${describeNonMapping(value)}; expected a mapping.`);
      return undefined;
    }
    return new SpecFields(value, path, problems);
  }

  private constructor(
    private readonly data: Readonly<Record<string, unknown>>,
    /** Where this object is in the spec, e.g. `spec.providers.inference.remote.vllm[0]`. */
    public readonly path: string,
    private readonly problems: string[],
  ) {}

  /** Whether the field is present and not null (a Go pointer that is not nil). */
  public has(key: string): boolean {
    const value = this.raw(key);
    return value !== undefined && value !== null;
  }

  /** The raw value of an own data property (undefined for anything else). */
  public raw(key: string): unknown {
    const descriptor = Object.getOwnPropertyDescriptor(this.data, key);
    if (descriptor === undefined) return undefined;
    if (!('value' in descriptor)) {
      this.problems.push(`${this.at(key)}: is computed by a getter; expected plain data.`);
      return undefined;
    }
    return descriptor.value;
  }

  /** A string field. */
  public str(key: string): string | undefined {
    return readString(this.raw(key), this.at(key), this.problems);
  }

  /** An integer field; `bits` 32 for Go int32 fields. */
  public int(key: string, bits: 32 | 64 = 64): number | bigint | undefined {
    return readInt(this.raw(key), this.at(key), this.problems, bits);
  }

  /** A boolean field. */
  public bool(key: string): boolean | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      this.problems.push(`${this.at(key)}: found ${describe(value)}; expected true or false.${quoteHint(value, false)}`);
      return undefined;
    }
    return value;
  }

  /** A nested object. */
  public obj(key: string): SpecFields | undefined {
    return SpecFields.of(this.raw(key), this.at(key), this.problems);
  }

  /** A list of objects; a null item is Go's zero struct. */
  public objList(key: string): SpecFields[] {
    const items = this.list(key);
    const out: SpecFields[] = [];
    items?.forEach((item, i) => {
      const path = `${this.at(key)}[${i}]`;
      const fields = SpecFields.of(item, path, this.problems);
      if (fields) out.push(fields);
      else if (item === null || item === undefined) out.push(SpecFields.empty(path, this.problems));
    });
    return out;
  }

  /** A list of strings; a null item is Go's zero string. */
  public strList(key: string): string[] | undefined {
    const items = this.list(key);
    return items?.map((item, i) => readString(item, `${this.at(key)}[${i}]`, this.problems) ?? '');
  }

  /** A map of strings (e.g. HTTP headers); a null value is Go's zero string. */
  public strMap(key: string): Map<string, string> | undefined {
    const map = this.obj(key);
    if (!map) return undefined;
    const out = new Map<string, string>();
    for (const name of map.keys()) out.set(name, readString(map.raw(name), fieldPath(map.path, name), this.problems) ?? '');
    return out;
  }

  /** A `{name, key}` Secret reference (a Go pointer: undefined when absent or null). */
  public secretRef(key: string): SecretRef | undefined {
    const ref = this.obj(key);
    return ref ? { name: ref.str('name') ?? '', key: ref.str('key') ?? '' } : undefined;
  }

  /** A map of Secret references (custom providers' `secretRefs`); a null value is Go's zero reference. */
  public secretRefMap(key: string): Map<string, SecretRef> | undefined {
    const map = this.obj(key);
    if (!map) return undefined;
    const out = new Map<string, SecretRef>();
    for (const name of map.keys()) {
      const ref = SpecFields.of(map.raw(name), fieldPath(map.path, name), this.problems);
      out.set(name, ref ? { name: ref.str('name') ?? '', key: ref.str('key') ?? '' } : EMPTY_REF);
    }
    return out;
  }

  /**
   * A free-form JSON field (custom providers' `settings`), as Go's `json.Unmarshal` into `interface{}`
   * holds it: every number becomes a float64. Undefined when absent or null (`Raw` is nil then).
   */
  public json(key: string): GoValue | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return undefined;
    return readJson(value, this.at(key), this.problems, 0, new Set());
  }

  /** The names of the own enumerable fields, in their order. */
  public keys(): string[] {
    return Object.keys(this.data);
  }

  /** The path of a field of this object. */
  public at(key: string): string {
    return fieldPath(this.path, key);
  }

  private list(key: string): readonly unknown[] | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.problems.push(`${this.at(key)}: found ${describe(value)}; expected a list.`);
      return undefined;
    }
    return value;
  }
}

/** Describes a value that is not a plain mapping (a Map or a class instance is named by its type). */
function describeNonMapping(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return describe(value);
  return `an object of type ${Object.prototype.toString.call(value).slice(8, -1)}`;
}

function readString(value: unknown, path: string, problems: string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    problems.push(`${path}: found ${describe(value)}; expected a string.${quoteHint(value, true)}`);
    return undefined;
  }
  return value;
}

function readInt(value: unknown, path: string, problems: string[], bits: 32 | 64): number | bigint | undefined {
  if (value === undefined || value === null) return undefined;
  const whole = (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
  const big = whole ? BigInt(value as number | bigint) : BigInt(0);
  const [min, max] = bits === 32 ? [BigInt(-2147483648), BigInt(2147483647)] : [INT64_MIN, INT64_MAX];
  if (!whole || big < min || big > max) {
    const range = bits === 32 ? 'a whole number that fits in 32 bits' : 'a whole number';
    problems.push(`${path}: found ${describe(value)}; expected ${range}.${quoteHint(value, false)}`);
    return undefined;
  }
  return Number.isSafeInteger(Number(big)) ? Number(big) : big;
}

/** Why YAML may have read the user's value as another type, when that is the likely cause. */
function quoteHint(value: unknown, wantString: boolean): string {
  if (value instanceof Date) return ' YAML read the unquoted value as a date; quote it.';
  if (wantString && (typeof value === 'number' || typeof value === 'boolean')) return ' YAML read the unquoted value as a non-string; quote it.';
  if (!wantString && typeof value === 'string') return ' Remove the quotes around the value.';
  return '';
}

function readJson(value: unknown, path: string, problems: string[], depth: number, ancestors: Set<object>): GoValue | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') {
    const n = Number(value);
    if (!Number.isFinite(n)) {
      problems.push(`${path}: found ${describe(value)}; JSON has no such number.`);
      return undefined;
    }
    return new GoFloat(n);
  }
  if (depth >= MAX_SETTINGS_DEPTH) {
    problems.push(`${path}: nested more than ${MAX_SETTINGS_DEPTH} levels deep.`);
    return undefined;
  }
  if (Array.isArray(value) || isPlainObject(value)) {
    if (ancestors.has(value)) {
      problems.push(`${path}: contains itself; expected plain JSON data.`);
      return undefined;
    }
    ancestors.add(value);
    try {
      if (Array.isArray(value)) {
        const out: GoValue[] = [];
        for (let i = 0; i < value.length; i++) {
          const item: unknown = Object.prototype.hasOwnProperty.call(value, i) ? value[i] : undefined;
          if (item === undefined) problems.push(`${path}[${i}]: found nothing; expected a JSON value.`);
          else out.push(readJson(item, `${path}[${i}]`, problems, depth + 1, ancestors) ?? null);
        }
        return out;
      }
      const fields = SpecFields.of(value, path, problems)!;
      const out: GoMap = new Map();
      for (const key of fields.keys()) {
        const item = fields.raw(key);
        if (item === undefined) continue;
        const converted = readJson(item, fieldPath(path, key), problems, depth + 1, ancestors);
        if (converted !== undefined) out.set(key, converted);
      }
      return out;
    } finally {
      ancestors.delete(value);
    }
  }
  problems.push(`${path}: found ${describe(value)}; expected JSON data (a mapping, list, string, number, boolean or null).${quoteHint(value, true)}`);
  return undefined;
}

/**
 * NORM of `pkg/config/secret.go`: upper-case (rune by rune, as Go's `strings.ToUpper` does: a character
 * whose upper case is several characters, like `ß`, stays as it is), every run of characters other
 * than A-Z and 0-9 becomes one `_`, leading and trailing `_` go, an empty result is `_`, and a
 * leading digit gets a `_` in front.
 */
export function normalizeEnvName(text: string): string {
  let out = '';
  let lastUnderscore = false;
  for (const ch of text) {
    const upper = ch.toUpperCase();
    const rune = [...upper].length === 1 ? upper : ch;
    if (/^[A-Z0-9]$/.test(rune)) {
      out += rune;
      lastUnderscore = false;
    } else if (!lastUnderscore) {
      out += '_';
      lastUnderscore = true;
    }
  }
  out = out.replace(/^_+|_+$/g, '');
  if (out === '') return '_';
  return /^[0-9]/.test(out) ? `_${out}` : out;
}

/** `OGX_<NORM(providerId)>_<field>`, the variable a provider's secret is passed in. */
export function envVarName(providerId: string, field: string): string {
  return `OGX_${normalizeEnvName(providerId)}_${field}`;
}

/** Compares strings by code point (the byte order of their UTF-8, Go's `sort.Strings`). */
export function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

/** The config.yaml key of each `spec.providers` section, in the operator's order of expansion. */
export const PROVIDER_APIS: ReadonlyArray<readonly [section: string, api: string]> = [
  ['inference', 'inference'],
  ['vectorIo', 'vector_io'],
  ['toolRuntime', 'tool_runtime'],
  ['files', 'files'],
  ['batches', 'batches'],
  ['responses', 'responses'],
  ['fileProcessors', 'file_processors'],
];

/** The outcome of expanding `spec.providers`. */
export interface ExpandedProviders {
  /** Providers per config.yaml API; an API that yields none is absent. */
  readonly byApi: Map<string, ConfigProvider[]>;
  /** The first generation error, if any (the operator stops there). */
  readonly failure?: GenerationFailure;
}

/**
 * Expands `spec.providers` into config.yaml entries (`ExpandProviders` of `pkg/config/provider.go`) and
 * appends, in the operator's collection order, the secret-backed variables they reference to `secrets`
 * (`collectProviderSecrets` of `pkg/config/secret.go`: the same order as the expansion). A generation
 * error does not stop the walk, so that every secret is still collected (the operator collects them
 * before it expands); the first one is returned.
 */
export function expandProviders(providers: SpecFields, secrets: SecretEnv[]): ExpandedProviders {
  const expansion = new Expansion(secrets);
  const byApi = new Map<string, ConfigProvider[]>();
  for (const [field, api] of PROVIDER_APIS) {
    const spec = providers.obj(field);
    if (!spec) continue;
    expansion.api = api;
    const list = EXPANDERS[field](spec, expansion);
    if (list.length > 0) byApi.set(api, list);
  }
  return { byApi, failure: expansion.failure };
}

/** State of one expansion: where secrets go, the API being expanded, the first failure. */
class Expansion {
  public api = '';
  public failure: GenerationFailure | undefined;

  public constructor(private readonly secrets: SecretEnv[]) {}

  /** Sets `config[key]` to the variable of a secret and collects the variable (when the reference is set). */
  public secret(config: GoMap, key: string, providerId: string, field: string, ref: SecretRef | undefined, path: string): void {
    if (!ref) return;
    const name = envVarName(providerId, field);
    config.set(key, `\${env.${name}}`);
    this.secrets.push({ name, secretName: ref.name, secretKey: ref.key, field: path });
  }

  /** Records a generation error, unless one was recorded before. */
  public fail(message: string, field: string, resolution: string): void {
    this.failure ??= { message: `failed to expand providers: failed to expand ${this.api} providers: ${message}`, field, resolution };
  }
}

type Expander = (spec: SpecFields, expansion: Expansion) => ConfigProvider[];

/** The id a provider entry gets: its `id` when non-empty, else the type's default (`DeriveID`). */
function idOf(p: SpecFields, fallback: string): string {
  return p.str('id') || fallback;
}

function setNonEmpty(config: GoMap, key: string, value: string | undefined): void {
  if (value) config.set(key, value);
}

function setDefined(config: GoMap, key: string, value: GoValue | undefined): void {
  if (value !== undefined) config.set(key, value);
}

function setNonEmptyList(config: GoMap, key: string, value: readonly string[] | undefined): void {
  if (value && value.length > 0) config.set(key, value);
}

function provider(providerId: string, providerType: string, config: GoMap): ConfigProvider {
  return { providerId, providerType, config };
}

/** Remote custom providers, then (in the caller) the inline typed ones, then inline custom ones. */
function customs(group: SpecFields | undefined, expansion: Expansion): ConfigProvider[] {
  return group ? group.objList('custom').map((p) => expandCustom(p, expansion)) : [];
}

/**
 * A custom provider (`expandCustomProvider`): each `secretRefs` key becomes `${env.OGX_<ID>_<NORM(key)>}`,
 * then `settings`, which must be a JSON object, is merged in as is; a key in both is an error.
 */
function expandCustom(p: SpecFields, expansion: Expansion): ConfigProvider {
  const type = p.str('type') ?? '';
  const id = idOf(p, type.split('::').join('-'));
  const config: GoMap = new Map();
  const refs = p.secretRefMap('secretRefs') ?? new Map<string, SecretRef>();
  // secret.go visits the keys sorted; the config is sorted on output anyway.
  for (const key of [...refs.keys()].sort(compareCodePoints)) {
    expansion.secret(config, key, id, normalizeEnvName(key), refs.get(key), fieldPath(p.at('secretRefs'), key));
  }
  const settings = p.json('settings');
  if (settings === undefined) return provider(id, type, config);
  const settingsPath = p.at('settings');
  if (!(settings instanceof Map)) {
    expansion.fail(`failed to unmarshal settings JSON for provider ${goQuote(id)}: json: cannot unmarshal ${jsonKind(settings)} into Go value of type map[string]interface {}`,
      settingsPath, `Write ${settingsPath} as a mapping of config keys to values (it is merged into the provider's config), e.g. {url: "http://host:8080"}.`);
    return provider(id, type, config);
  }
  // Go visits the settings map in random order and reports the first clash it meets; the first in
  // sorted order is reported here, so that the message does not change from run to run.
  for (const key of [...settings.keys()].sort(compareCodePoints)) {
    if (refs.has(key)) {
      expansion.fail(`failed to expand provider ${goQuote(id)}: key ${goQuote(key)} appears in both secretRefs and settings`,
        fieldPath(settingsPath, key), `Remove the key '${key}' from ${settingsPath} or from ${p.at('secretRefs')}: a config key comes either from a Secret or from the settings.`);
      return provider(id, type, config);
    }
    config.set(key, settings.get(key)!);
  }
  return provider(id, type, config);
}

function jsonKind(value: GoValue): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  return 'number';
}

/** `applyCommonInferenceConfig`: refresh_models, allowed_models and network of remote inference providers. */
function applyCommonInference(config: GoMap, p: SpecFields): void {
  setDefined(config, 'refresh_models', p.bool('refreshModels'));
  setNonEmptyList(config, 'allowed_models', p.strList('allowedModels'));
  const network = p.obj('network');
  if (!network) return;
  const out: GoMap = new Map();
  const tls = network.obj('tls');
  if (tls) {
    const m: GoMap = new Map();
    setDefined(m, 'verify', tls.bool('verify'));
    setNonEmpty(m, 'min_version', tls.str('minVersion'));
    setNonEmptyList(m, 'ciphers', tls.strList('ciphers'));
    if (m.size > 0) out.set('tls', m);
  }
  const timeout = network.obj('timeout');
  if (timeout) {
    const m: GoMap = new Map();
    setDefined(m, 'connect', timeout.int('connect'));
    setDefined(m, 'read', timeout.int('read'));
    if (m.size > 0) out.set('timeout', m);
  }
  const headers = network.strMap('headers');
  if (headers && headers.size > 0) out.set('headers', new Map<string, GoValue>(headers));
  const proxy = network.obj('proxy');
  if (proxy) {
    const m: GoMap = new Map();
    setDefined(m, 'url', proxy.str('url'));
    setDefined(m, 'http', proxy.str('http'));
    setDefined(m, 'https', proxy.str('https'));
    setDefined(m, 'ca_cert', proxy.str('cacert'));
    setNonEmptyList(m, 'no_proxy', proxy.strList('noProxy'));
    if (m.size > 0) out.set('proxy', m);
  }
  if (out.size > 0) config.set('network', out);
}

const expandInference: Expander = (spec, expansion) => {
  const out: ConfigProvider[] = [];
  const remote = spec.obj('remote');
  if (remote) {
    for (const p of remote.objList('vllm')) {
      const id = idOf(p, 'remote-vllm');
      const config: GoMap = new Map([['base_url', p.str('endpoint') ?? '']]);
      setDefined(config, 'max_tokens', p.int('maxTokens'));
      expansion.secret(config, 'api_token', id, 'API_TOKEN', p.secretRef('apiToken'), p.at('apiToken'));
      applyCommonInference(config, p);
      out.push(provider(id, 'remote::vllm', config));
    }
    for (const p of remote.objList('openai')) {
      const id = idOf(p, 'remote-openai');
      const config: GoMap = new Map();
      expansion.secret(config, 'api_key', id, 'API_KEY', p.secretRef('apiKey') ?? EMPTY_REF, p.at('apiKey'));
      setNonEmpty(config, 'base_url', p.str('endpoint'));
      applyCommonInference(config, p);
      out.push(provider(id, 'remote::openai', config));
    }
    for (const p of remote.objList('azure')) {
      const id = idOf(p, 'remote-azure');
      const config: GoMap = new Map([['base_url', p.str('endpoint') ?? '']]);
      expansion.secret(config, 'api_key', id, 'API_KEY', p.secretRef('apiKey') ?? EMPTY_REF, p.at('apiKey'));
      setNonEmpty(config, 'api_version', p.str('apiVersion'));
      setNonEmpty(config, 'api_type', p.str('apiType'));
      applyCommonInference(config, p);
      out.push(provider(id, 'remote::azure', config));
    }
    for (const p of remote.objList('bedrock')) {
      const id = idOf(p, 'remote-bedrock');
      const config: GoMap = new Map([['region_name', p.str('region') ?? '']]);
      for (const [field, key, env] of [
        ['apiKey', 'api_key', 'API_KEY'],
        ['awsAccessKeyId', 'aws_access_key_id', 'AWS_ACCESS_KEY_ID'],
        ['awsSecretAccessKey', 'aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY'],
        ['awsSessionToken', 'aws_session_token', 'AWS_SESSION_TOKEN'],
      ] as const) {
        expansion.secret(config, key, id, env, p.secretRef(field), p.at(field));
      }
      setNonEmpty(config, 'aws_role_arn', p.str('awsRoleArn'));
      setNonEmpty(config, 'aws_web_identity_token_file', p.str('awsWebIdentityTokenFile'));
      setNonEmpty(config, 'aws_role_session_name', p.str('awsRoleSessionName'));
      setNonEmpty(config, 'profile_name', p.str('profileName'));
      setNonEmpty(config, 'retry_mode', p.str('retryMode'));
      setDefined(config, 'total_max_attempts', p.int('totalMaxAttempts'));
      setDefined(config, 'connect_timeout', p.int('connectTimeout'));
      setDefined(config, 'read_timeout', p.int('readTimeout'));
      setDefined(config, 'session_ttl', p.int('sessionTTL'));
      applyCommonInference(config, p);
      out.push(provider(id, 'remote::bedrock', config));
    }
    for (const p of remote.objList('vertexai')) {
      const config: GoMap = new Map([['project', p.str('project') ?? '']]);
      setNonEmpty(config, 'location', p.str('location'));
      applyCommonInference(config, p);
      out.push(provider(idOf(p, 'remote-vertexai'), 'remote::vertexai', config));
    }
    for (const p of remote.objList('watsonx')) {
      const id = idOf(p, 'remote-watsonx');
      const config: GoMap = new Map();
      expansion.secret(config, 'api_key', id, 'API_KEY', p.secretRef('apiKey') ?? EMPTY_REF, p.at('apiKey'));
      setNonEmpty(config, 'base_url', p.str('endpoint'));
      setNonEmpty(config, 'project_id', p.str('projectId'));
      setDefined(config, 'timeout', p.int('timeout'));
      applyCommonInference(config, p);
      out.push(provider(id, 'remote::watsonx', config));
    }
    out.push(...customs(remote, expansion));
  }
  out.push(...customs(spec.obj('inline'), expansion));
  return out;
};

const expandVectorIo: Expander = (spec, expansion) => {
  const out: ConfigProvider[] = [];
  const remote = spec.obj('remote');
  if (remote) {
    for (const p of remote.objList('pgvector')) {
      const id = idOf(p, 'remote-pgvector');
      const config: GoMap = new Map();
      setNonEmpty(config, 'host', p.str('host'));
      setDefined(config, 'port', p.int('port'));
      setNonEmpty(config, 'db', p.str('db'));
      setNonEmpty(config, 'user', p.str('user'));
      expansion.secret(config, 'password', id, 'PASSWORD', p.secretRef('password') ?? EMPTY_REF, p.at('password'));
      setNonEmpty(config, 'distance_metric', p.str('distanceMetric'));
      const index = p.obj('vectorIndex');
      if (index) {
        // v0.14.0 prunes empty index maps (and writes no `persistence` block, which later versions add).
        const m: GoMap = new Map();
        const hnsw = index.obj('hnsw');
        if (hnsw) {
          const h: GoMap = new Map();
          setDefined(h, 'm', hnsw.int('m'));
          setDefined(h, 'ef_construction', hnsw.int('efConstruction'));
          setDefined(h, 'ef_search', hnsw.int('efSearch'));
          if (h.size > 0) m.set('hnsw', h);
        }
        const ivf = index.obj('ivfFlat');
        if (ivf) {
          const h: GoMap = new Map();
          setDefined(h, 'nlist', ivf.int('nlist'));
          setDefined(h, 'nprobe', ivf.int('nprobe'));
          if (h.size > 0) m.set('ivf_flat', h);
        }
        if (m.size > 0) config.set('vector_index', m);
      }
      out.push(provider(id, 'remote::pgvector', config));
    }
    for (const p of remote.objList('milvus')) {
      const id = idOf(p, 'remote-milvus');
      const config: GoMap = new Map([['uri', p.str('uri') ?? '']]);
      expansion.secret(config, 'token', id, 'TOKEN', p.secretRef('token'), p.at('token'));
      setNonEmpty(config, 'consistency_level', p.str('consistencyLevel'));
      out.push(provider(id, 'remote::milvus', config));
    }
    for (const p of remote.objList('qdrant')) {
      const id = idOf(p, 'remote-qdrant');
      const config: GoMap = new Map();
      setNonEmpty(config, 'url', p.str('url'));
      setNonEmpty(config, 'host', p.str('host'));
      setDefined(config, 'port', p.int('port'));
      setNonEmpty(config, 'location', p.str('location'));
      expansion.secret(config, 'api_key', id, 'API_KEY', p.secretRef('apiKey'), p.at('apiKey'));
      setDefined(config, 'grpc_port', p.int('grpcPort'));
      setDefined(config, 'prefer_grpc', p.bool('preferGrpc'));
      setDefined(config, 'https', p.bool('https'));
      setNonEmpty(config, 'prefix', p.str('prefix'));
      setDefined(config, 'timeout', p.int('timeout'));
      out.push(provider(id, 'remote::qdrant', config));
    }
    out.push(...customs(remote, expansion));
  }
  out.push(...customs(spec.obj('inline'), expansion));
  return out;
};

const expandToolRuntime: Expander = (spec, expansion) => {
  const out: ConfigProvider[] = [];
  const remote = spec.obj('remote');
  if (remote) {
    for (const [field, defaultId, type] of [
      ['braveSearch', 'remote-brave-search', 'remote::brave-search'],
      ['tavilySearch', 'remote-tavily-search', 'remote::tavily-search'],
    ] as const) {
      for (const p of remote.objList(field)) {
        const id = idOf(p, defaultId);
        const config: GoMap = new Map();
        expansion.secret(config, 'api_key', id, 'API_KEY', p.secretRef('apiKey') ?? EMPTY_REF, p.at('apiKey'));
        setDefined(config, 'max_results', p.int('maxResults'));
        out.push(provider(id, type, config));
      }
    }
    for (const p of remote.objList('modelContextProtocol')) {
      out.push(provider(idOf(p, 'remote-model-context-protocol'), 'remote::model-context-protocol', new Map()));
    }
    out.push(...customs(remote, expansion));
  }
  const inline = spec.obj('inline');
  if (inline) {
    for (const p of inline.objList('fileSearch')) {
      const config: GoMap = new Map();
      const stores = p.obj('vectorStoresConfig');
      if (stores) config.set('vector_stores_config', expandVectorStoresConfig(stores));
      // v0.14.0 writes the rag-runtime type for the file-search provider (the testdata expects it).
      out.push(provider(idOf(p, 'inline-file-search'), 'inline::rag-runtime', config));
    }
    out.push(...customs(inline, expansion));
  }
  return out;
};

const expandFiles: Expander = (spec, expansion) => {
  const out: ConfigProvider[] = [];
  const remote = spec.obj('remote');
  if (remote) {
    const s3 = remote.obj('s3');
    if (s3) {
      const id = 'remote-s3';
      const config: GoMap = new Map([['bucket_name', s3.str('bucketName') ?? '']]);
      setNonEmpty(config, 'region', s3.str('region'));
      setNonEmpty(config, 'endpoint_url', s3.str('endpointUrl'));
      expansion.secret(config, 'aws_access_key_id', id, 'AWS_ACCESS_KEY_ID', s3.secretRef('awsAccessKeyId'), s3.at('awsAccessKeyId'));
      expansion.secret(config, 'aws_secret_access_key', id, 'AWS_SECRET_ACCESS_KEY', s3.secretRef('awsSecretAccessKey'), s3.at('awsSecretAccessKey'));
      setDefined(config, 'auto_create_bucket', s3.bool('autoCreateBucket'));
      out.push(provider(id, 'remote::s3', config));
    }
    out.push(...customs(remote, expansion));
  }
  const inline = spec.obj('inline');
  if (inline) {
    const localfs = inline.obj('localfs');
    if (localfs) {
      const config: GoMap = new Map();
      setDefined(config, 'ttl_secs', localfs.int('ttlSecs'));
      out.push(provider('inline-localfs', 'inline::localfs', config));
    }
    out.push(...customs(inline, expansion));
  }
  return out;
};

const expandBatches: Expander = (spec, expansion) => {
  const out = customs(spec.obj('remote'), expansion);
  const inline = spec.obj('inline');
  if (inline) {
    const reference = inline.obj('reference');
    if (reference) {
      const config: GoMap = new Map();
      setDefined(config, 'max_concurrent_batches', reference.int('maxConcurrentBatches'));
      setDefined(config, 'max_concurrent_requests_per_batch', reference.int('maxConcurrentRequestsPerBatch'));
      out.push(provider('inline-reference', 'inline::batch-reference', config));
    }
    out.push(...customs(inline, expansion));
  }
  return out;
};

const expandResponses: Expander = (spec, expansion) => {
  const out = customs(spec.obj('remote'), expansion);
  const inline = spec.obj('inline');
  if (inline) {
    const builtin = inline.obj('builtin');
    if (builtin) {
      const config: GoMap = new Map();
      const stores = builtin.obj('vectorStoresConfig');
      if (stores) config.set('vector_stores_config', expandVectorStoresConfig(stores));
      const compaction = builtin.obj('compactionConfig');
      if (compaction) {
        const m: GoMap = new Map();
        setNonEmpty(m, 'summarization_prompt', compaction.str('summarizationPrompt'));
        setNonEmpty(m, 'summary_prefix', compaction.str('summaryPrefix'));
        setNonEmpty(m, 'summarization_model', compaction.str('summarizationModel'));
        setDefined(m, 'default_compact_threshold', compaction.int('defaultCompactThreshold'));
        setNonEmpty(m, 'tokenizer_encoding', compaction.str('tokenizerEncoding'));
        config.set('compaction_config', m);
      }
      out.push(provider('inline-builtin', 'inline::responses', config));
    }
    out.push(...customs(inline, expansion));
  }
  return out;
};

const expandFileProcessors: Expander = (spec, expansion) => {
  const out: ConfigProvider[] = [];
  const remote = spec.obj('remote');
  if (remote) {
    const docling = remote.obj('doclingServe');
    if (docling) {
      const id = 'remote-docling-serve';
      const config: GoMap = new Map([['base_url', docling.str('baseUrl') ?? '']]);
      expansion.secret(config, 'api_key', id, 'API_KEY', docling.secretRef('apiKey'), docling.at('apiKey'));
      setDefined(config, 'default_chunk_size_tokens', docling.int('defaultChunkSizeTokens'));
      out.push(provider(id, 'remote::docling-serve', config));
    }
    out.push(...customs(remote, expansion));
  }
  const inline = spec.obj('inline');
  if (inline) {
    for (const [field, extras] of [
      ['auto', [['extractMetadata', 'extract_metadata'], ['cleanText', 'clean_text']]],
      ['pypdf', [['extractMetadata', 'extract_metadata'], ['cleanText', 'clean_text']]],
      ['markitdown', []],
      ['docling', [['doOcr', 'do_ocr']]],
    ] as const) {
      const p = inline.obj(field);
      if (!p) continue;
      const config: GoMap = new Map();
      setDefined(config, 'default_chunk_size_tokens', p.int('defaultChunkSizeTokens'));
      setDefined(config, 'default_chunk_overlap_tokens', p.int('defaultChunkOverlapTokens'));
      for (const [from, to] of extras) setDefined(config, to, p.bool(from));
      out.push(provider(`inline-${field}`, `inline::${field}`, config));
    }
    out.push(...customs(inline, expansion));
  }
  return out;
};

const EXPANDERS: Readonly<Record<string, Expander>> = {
  inference: expandInference,
  vectorIo: expandVectorIo,
  toolRuntime: expandToolRuntime,
  files: expandFiles,
  batches: expandBatches,
  responses: expandResponses,
  fileProcessors: expandFileProcessors,
};

/** `{provider_id, model_id[, embedding_dimensions]}` of a QualifiedModel. */
function qualifiedModel(model: SpecFields): GoMap {
  const m: GoMap = new Map([['provider_id', model.str('providerId') ?? ''], ['model_id', model.str('modelId') ?? '']]);
  setDefined(m, 'embedding_dimensions', model.int('embeddingDimensions'));
  return m;
}

/**
 * `expandVectorStoresConfig`: each section appears when it is set, possibly as `{}`; inside, strings
 * when non-empty, pointers when set (`temperature`, `rrfImpactFactor` and `weightedSearchAlpha` are
 * strings in the CRD and stay strings).
 */
function expandVectorStoresConfig(vs: SpecFields): GoMap {
  const m: GoMap = new Map();
  setNonEmpty(m, 'default_provider_id', vs.str('defaultProviderId'));
  const embedding = vs.obj('defaultEmbeddingModel');
  if (embedding) m.set('default_embedding_model', qualifiedModel(embedding));
  const reranker = vs.obj('defaultRerankerModel');
  if (reranker) m.set('default_reranker_model', new Map([['provider_id', reranker.str('providerId') ?? ''], ['model_id', reranker.str('modelId') ?? '']]));
  section(m, vs, 'rewriteQueryParams', 'rewrite_query_params', (p, out) => {
    const model = p.obj('model');
    if (model) out.set('model', qualifiedModel(model));
    setNonEmpty(out, 'prompt', p.str('prompt'));
    setDefined(out, 'max_tokens', p.int('maxTokens'));
    setDefined(out, 'temperature', p.str('temperature'));
  });
  section(m, vs, 'fileSearchParams', 'file_search_params', (p, out) => {
    setNonEmpty(out, 'header_template', p.str('headerTemplate'));
    setNonEmpty(out, 'footer_template', p.str('footerTemplate'));
  });
  section(m, vs, 'chunkRetrievalParams', 'chunk_retrieval_params', (p, out) => {
    setDefined(out, 'chunk_multiplier', p.int('chunkMultiplier'));
    setDefined(out, 'max_tokens_in_context', p.int('maxTokensInContext'));
    setDefined(out, 'default_reranker_strategy', p.str('defaultRerankerStrategy'));
    setDefined(out, 'rrf_impact_factor', p.str('rrfImpactFactor'));
    setDefined(out, 'weighted_search_alpha', p.str('weightedSearchAlpha'));
    setDefined(out, 'default_search_mode', p.str('defaultSearchMode'));
  });
  section(m, vs, 'contextPromptParams', 'context_prompt_params', (p, out) => {
    setNonEmpty(out, 'chunk_annotation_template', p.str('chunkAnnotationTemplate'));
    setNonEmpty(out, 'context_template', p.str('contextTemplate'));
  });
  section(m, vs, 'annotationPromptParams', 'annotation_prompt_params', (p, out) => {
    setDefined(out, 'enable_annotations', p.bool('enableAnnotations'));
    setNonEmpty(out, 'annotation_instruction_template', p.str('annotationInstructionTemplate'));
    setNonEmpty(out, 'chunk_annotation_template', p.str('chunkAnnotationTemplate'));
  });
  section(m, vs, 'fileIngestionParams', 'file_ingestion_params', (p, out) => {
    setDefined(out, 'default_chunk_size_tokens', p.int('defaultChunkSizeTokens'));
    setDefined(out, 'default_chunk_overlap_tokens', p.int('defaultChunkOverlapTokens'));
  });
  section(m, vs, 'fileBatchParams', 'file_batch_params', (p, out) => {
    setDefined(out, 'max_concurrent_files_per_batch', p.int('maxConcurrentFilesPerBatch'));
    setDefined(out, 'file_batch_chunk_size', p.int('fileBatchChunkSize'));
    setDefined(out, 'cleanup_interval_seconds', p.int('cleanupIntervalSeconds'));
  });
  section(m, vs, 'contextualRetrievalParams', 'contextual_retrieval_params', (p, out) => {
    const model = p.obj('model');
    if (model) out.set('model', qualifiedModel(model));
    setDefined(out, 'default_timeout_seconds', p.int('defaultTimeoutSeconds'));
    setDefined(out, 'default_max_concurrency', p.int('defaultMaxConcurrency'));
    setDefined(out, 'max_document_tokens', p.int('maxDocumentTokens'));
  });
  return m;
}

function section(m: GoMap, vs: SpecFields, field: string, key: string, fill: (p: SpecFields, out: GoMap) => void): void {
  const p = vs.obj(field);
  if (!p) return;
  const out: GoMap = new Map();
  fill(p, out);
  m.set(key, out);
}

/**
 * Go's `%q` (`strconv.Quote`): double quotes, with `"` and `\` escaped, printable characters as they
 * are and the others as escapes.
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (cp === 0x20 || !/[\p{C}\p{Z}]/u.test(ch)) out += ch;
    else if (GO_ESCAPES[ch] !== undefined) out += GO_ESCAPES[ch];
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

const GO_ESCAPES: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };
