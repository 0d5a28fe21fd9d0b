import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { runConfigError } from './helpers';
import { FINITE_NUMBERS, HOSTILE_STRINGS } from './hostile-values';
import { CONFIG_LIMITS, parseUntrustedYaml } from '../../src/io/safe-yaml';
import { RunConfigError } from '../../src/run-config/errors';
import { generateOgxConfig, GeneratedConfig, hasDeclarativeConfig } from '../../src/run-config/ogx-configgen';
import { renderYaml } from '../../src/run-config/render';

/** Upstream's test data (cmd/configgen/testdata of ogx-ai/ogx-k8s-operator v0.14.0), copied verbatim. */
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ogx-configgen');
const CASES = fs.readdirSync(FIXTURES).filter((name) => fs.statSync(path.join(FIXTURES, name)).isDirectory()).sort();
const ERROR_CASES = CASES.filter((name) => fs.existsSync(path.join(FIXTURES, name, 'want-err')));
const CONFIG_CASES = CASES.filter((name) => !ERROR_CASES.includes(name));

const read = (name: string, file: string): string => fs.readFileSync(path.join(FIXTURES, name, file), 'utf8');
const specOf = (name: string): Record<string, unknown> => parse(read(name, 'cr.yaml')).spec;
const baseOf = (name: string): string => (fs.existsSync(path.join(FIXTURES, name, 'base.yaml')) ? read(name, 'base.yaml') : '');
const generate = (name: string): GeneratedConfig => generateOgxConfig(specOf(name), baseOf(name));

/** The config with its prototype-less mappings made ordinary objects, for `toStrictEqual` against parsed YAML. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, { value: plain(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** Every mapping's keys, in order, with their paths: to compare the order of two documents. */
function keyOrders(value: unknown, at = '', out: string[] = []): string[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => keyOrders(item, `${at}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    out.push(`${at}: ${Object.keys(value).join(', ')}`);
    for (const [key, item] of Object.entries(value)) keyOrders(item, `${at}.${key}`, out);
  }
  return out;
}

/** The details of a RunConfigError, one string. */
const detailsOf = (error: RunConfigError): string => error.issues.flatMap((issue) => issue.details).join('\n');

/** Env vars the Deployment gets, per case (research report A.5/A.14); the other cases have none. */
const EXPECTED_ENV: Readonly<Record<string, ReadonlyArray<[name: string, secret: string, key: string]>>> = {
  'p0-inference-base-url': [
    ['OGX_REMOTE_AZURE_API_KEY', 'azure-secret', 'api-key'],
    ['OGX_REMOTE_BEDROCK_API_KEY', 'bedrock-secret', 'api-key'],
    ['OGX_REMOTE_OPENAI_API_KEY', 'openai-secret', 'api-key'],
    ['OGX_REMOTE_WATSONX_API_KEY', 'watsonx-secret', 'api-key'],
  ],
  'p1-fileprocessors-config': [['OGX_REMOTE_DOCLING_SERVE_API_KEY', 'docling-secret', 'api-key']],
  'p1-milvus-config': [['OGX_REMOTE_MILVUS_TOKEN', 'milvus-secret', 'token']],
  'p1-pgvector-config': [['OGX_REMOTE_PGVECTOR_PASSWORD', 'pgvector-secret', 'password']],
  'p1-qdrant-config': [['OGX_REMOTE_QDRANT_API_KEY', 'qdrant-secret', 'api-key']],
  'rh-override-storage': [['OGX_STORAGE_SQL_CONNECTION_STRING', 'pg-secret', 'conn-string']],
};

/** A minimal spec and base to vary. */
const BASE = 'version: 2\napis: [inference]\n';
const vllm = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  distribution: { name: 'starter' },
  providers: { inference: { remote: { vllm: [{ endpoint: 'http://vllm:8000', ...extra }] } } },
});
/** A spec with one remote custom inference provider. */
const custom = (provider: Record<string, unknown>): Record<string, unknown> => ({
  distribution: { name: 'starter' },
  providers: { inference: { remote: { custom: [{ type: 'remote::acme', ...provider }] } } },
});
/** The config of the first inference provider. */
const firstConfig = (result: GeneratedConfig): Record<string, unknown> =>
  ((result.config.providers as Record<string, Array<Record<string, unknown>>>).inference[0].config) as Record<string, unknown>;

describe('the upstream test data', () => {
  test('holds the 21 cases of v0.14.0: 18 configs and 3 errors', () => {
    expect(CASES).toHaveLength(21);
    expect(ERROR_CASES).toEqual(['err-bad-base-path', 'err-no-declarative', 'err-override-config']);
  });

  test.each(CONFIG_CASES)('%s: the config equals want-config.yaml, key for key', (name) => {
    const want = parse(read(name, 'want-config.yaml'));
    expect(plain(generate(name).config)).toStrictEqual(want);
  });

  test.each(CONFIG_CASES)('%s: the Deployment gets the secret env vars of the spec, sorted', (name) => {
    const expected = (EXPECTED_ENV[name] ?? []).map(([envName, secretName, secretKey]) => ({ name: envName, secretName, secretKey }));
    expect(generate(name).env).toEqual(expected);
  });

  test.each(ERROR_CASES)('%s: fails with the operator\'s error (want-err) and a resolution', (name) => {
    const error = runConfigError(() => generate(name));
    expect(detailsOf(error)).toContain(read(name, 'want-err').trim());
    expect(error.issues[0].resolution).toMatch(/\S/);
    expect(error.stack).not.toMatch(/\n\s+at /);
  });

  test.each(CONFIG_CASES.filter((name) => name.startsWith('rh-')))(
    '%s: mappings keep the order of the operator\'s own output (the rh-* files are verbatim operator output)', (name) => {
      expect(keyOrders(generate(name).config)).toEqual(keyOrders(parse(read(name, 'want-config.yaml'))));
    });

  test.each(CONFIG_CASES)('%s: renderYaml writes text that reads back as the same config', (name) => {
    const { config } = generate(name);
    const text = renderYaml(config);
    expect(parseUntrustedYaml(text, CONFIG_LIMITS, { source: name, resolution: 'n/a' }).value).toStrictEqual(plain(config));
  });

  test('counts every provider of the merged config and the spec\'s models, as the operator\'s status does', () => {
    expect([generate('happy-basic').providerCount, generate('happy-basic').resourceCount]).toEqual([1, 1]);
    // The base's 8 inference providers give way to the spec's 1; the other 12 stay.
    expect([generate('rh-add-models').providerCount, generate('rh-add-models').resourceCount]).toEqual([13, 2]);
    expect([generate('rh-disable-apis').providerCount, generate('rh-disable-apis').resourceCount]).toEqual([20, 0]);
  });

  test('the same input gives the same output, and the inputs are not changed', () => {
    for (const name of CONFIG_CASES) {
      const spec = specOf(name);
      const before = JSON.stringify(spec);
      const first = generateOgxConfig(spec, baseOf(name));
      const second = generateOgxConfig(spec, baseOf(name));
      expect(renderYaml(second.config)).toBe(renderYaml(first.config));
      expect(second.env).toEqual(first.env);
      expect(JSON.stringify(spec)).toBe(before);
    }
  });
});

describe('hasDeclarativeConfig', () => {
  test('is true when providers, resources, storage or disabledAPIs is set', () => {
    for (const field of ['providers', 'resources', 'storage', 'disabledAPIs']) {
      expect(hasDeclarativeConfig({ distribution: { name: 'starter' }, [field]: {} })).toBe(true);
    }
    expect(hasDeclarativeConfig(specOf('rh-disable-apis'))).toBe(true);
  });

  test('is false without them: baseConfig or overrideConfig alone, null values, no spec', () => {
    expect(hasDeclarativeConfig(specOf('err-no-declarative'))).toBe(false);
    expect(hasDeclarativeConfig({ distribution: { name: 'starter' }, baseConfig: { name: 'base', key: 'config.yaml' } })).toBe(false);
    expect(hasDeclarativeConfig({ providers: null, resources: null, storage: null, disabledAPIs: null })).toBe(false);
    expect(hasDeclarativeConfig(null as unknown as Record<string, unknown>)).toBe(false);
    expect(hasDeclarativeConfig(['providers'] as unknown as Record<string, unknown>)).toBe(false);
    // An inherited field is not the spec's.
    expect(hasDeclarativeConfig(Object.create({ providers: {} }))).toBe(false);
  });
});

describe('the operator\'s errors (research report A.13)', () => {
  test.each([
    ['no version at all', 'image_name: test\n'],
    ['an empty version', 'version: ""\n'],
    ['a null version', 'version: ~\n'],
    ['an empty document', ''],
  ])('a base config with %s: missing required \'version\' field', (_, base) => {
    const error = runConfigError(() => generateOgxConfig(vllm(), base, { baseConfigSource: 'ConfigMap ai/base, key config.yaml' }));
    expect(detailsOf(error)).toBe("failed to parse base config: failed to validate base config: missing required 'version' field");
    expect(error.issues[0].source).toBe('ConfigMap ai/base, key config.yaml');
    expect(error.issues[0].resolution).toContain('version: 2');
  });

  test('a base config that is not YAML: the operator\'s prefix, where the text breaks, and how to fix it', () => {
    const error = runConfigError(() => generateOgxConfig(vllm(), 'version: 2\napis: [inference\n'));
    expect(detailsOf(error)).toMatch(/^failed to parse base config: failed to parse base config: yaml: .*line \d+/);
    expect(error.issues[0].resolution).toContain('one YAML document');
  });

  test('a base config of the wrong shape: yaml.v3\'s unmarshal errors, in document order, with the field', () => {
    const base = 'version: 2\napis: inference\nserver: [1]\nproviders:\n  inference:\n  - provider_id: [a]\n';
    expect(detailsOf(runConfigError(() => generateOgxConfig(vllm(), base)))).toBe([
      'failed to parse base config: failed to parse base config: yaml: unmarshal errors:',
      '  line 2: cannot unmarshal !!str `inference` into []string (apis)',
      '  line 3: cannot unmarshal !!seq into map[string]interface {} (server)',
      '  line 6: cannot unmarshal !!seq into string (providers.inference[0].provider_id)',
    ].join('\n'));
    expect(detailsOf(runConfigError(() => generateOgxConfig(vllm(), '- a\n- b\n')))).toContain('cannot unmarshal !!seq into config.BaseConfig');
    expect(detailsOf(runConfigError(() => generateOgxConfig(vllm(), 42 as unknown as string)))).toContain('not YAML text');
  });

  test.each([
    ['a list', [1, 2], 'array'],
    ['a string', 'url=http://x', 'string'],
    ['a number', 3, 'number'],
    ['a boolean', true, 'bool'],
  ])('custom settings that are %s: cannot unmarshal into a map, naming the settings field', (_, settings, kind) => {
    const error = runConfigError(() => generateOgxConfig(custom({ settings }), BASE));
    expect(detailsOf(error)).toContain('failed to expand providers: failed to expand inference providers: '
      + `failed to unmarshal settings JSON for provider "remote-acme": json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
    expect(error.issues[0].resolution).toContain('spec.providers.inference.remote.custom[0].settings');
  });

  test('a key in both secretRefs and settings', () => {
    const spec = {
      distribution: { name: 'starter' },
      providers: { vectorIo: { inline: { custom: [{ id: 'vec', type: 'inline::acme', secretRefs: { password: { name: 's', key: 'k' } }, settings: { password: 'x' } }] } } },
    };
    const error = runConfigError(() => generateOgxConfig(spec, BASE));
    expect(detailsOf(error)).toContain('failed to expand providers: failed to expand vector_io providers: '
      + 'failed to expand provider "vec": key "password" appears in both secretRefs and settings');
    expect(error.issues[0].resolution).toContain('spec.providers.vectorIo.inline.custom[0].settings');
    expect(error.issues[0].resolution).toContain('spec.providers.vectorIo.inline.custom[0].secretRefs');
  });

  test('a model without a provider and no inference provider anywhere', () => {
    const spec = { distribution: { name: 'starter' }, resources: { models: [{ name: 'llama3' }] } };
    const error = runConfigError(() => generateOgxConfig(spec, BASE));
    expect(detailsOf(error)).toContain('failed to expand resources: failed to assign provider for model "llama3": '
      + 'no explicit provider and no inference providers are configured');
    expect(error.issues[0].resolution).toContain('spec.resources.models[0].provider');
  });

  test('a model without a provider goes to the base\'s first inference provider when the spec has none', () => {
    const spec = { distribution: { name: 'starter' }, resources: { models: [{ name: 'llama3', contextLength: 8192 }] } };
    const { config } = generateOgxConfig(spec, read('rh-add-models', 'base.yaml'));
    expect(plain(config.registered_resources)).toEqual({
      models: [{ context_length: 8192, model_id: 'llama3', model_type: 'llm', provider_id: '${env.VLLM_URL:+vllm-inference}' }],
      vector_stores: undefined,
    });
  });

  test('two providers whose ids normalize alike pass different Secrets in one variable: the collision error', () => {
    // vLLM "acme.llm" and custom "acme-llm" both pass their token in OGX_ACME_LLM_API_TOKEN.
    const spec = {
      distribution: { name: 'starter' },
      providers: {
        inference: {
          remote: {
            vllm: [{ id: 'acme.llm', endpoint: 'http://a', apiToken: { name: 'first', key: 'token' } }],
            custom: [{ id: 'acme-llm', type: 'remote::acme', secretRefs: { 'api-token': { name: 'second', key: 'token' } } }],
          },
        },
      },
    };
    const error = runConfigError(() => generateOgxConfig(spec, BASE));
    expect(detailsOf(error)).toContain('failed to validate secret ref env var names: failed to validate env var name collision for '
      + '"OGX_ACME_LLM_API_TOKEN": first/token conflicts with second/token');
    expect(detailsOf(error)).toContain('spec.providers.inference.remote.vllm[0].apiToken');
    expect(detailsOf(error)).toContain('spec.providers.inference.remote.custom[0].secretRefs.api-token');
    // It is checked before the base config is read, as the operator does.
    expect(runConfigError(() => generateOgxConfig(spec, 'image_name: x\n')).issues[0].title).toBe('Secret environment variable name collision');
  });

  test('the overrideConfig check comes before the declarative check, and both before the base config', () => {
    const both = { distribution: { name: 'starter' }, overrideConfig: { name: 'c', key: 'k' }, providers: {} };
    expect(detailsOf(runConfigError(() => generateOgxConfig(both, 'not: [yaml')))).toContain('CR has overrideConfig set');
    expect(detailsOf(runConfigError(() => generateOgxConfig({ distribution: { name: 'x' } }, 'not: [yaml')))).toContain('nothing to generate');
  });
});

describe('what the operator writes', () => {
  test('the base\'s version keeps its text, as a string (yaml.v3 decodes it into a Go string)', () => {
    const version = (base: string): unknown => generateOgxConfig(vllm(), base).config.version;
    expect(version('version: 2\n')).toBe('2');
    expect(version('version: 2.10\n')).toBe('2.10');
    expect(version("version: '3'\n")).toBe('3');
  });

  test('base values are read as the operator reads them (yaml.v3), not as PyYAML would read the base', () => {
    const base = 'version: 2\nserver:\n  a: yes\n  b: 0o17\n  c: 017\n  d: 1e3\n  e: 1:20\n  f: 1_000\n  g: 2024-01-01\n  h: ~\n  i: .5\n';
    expect(plain(generateOgxConfig(vllm(), base).config.server)).toStrictEqual({
      a: 'yes', b: 15, c: 15, d: 1000, e: '1:20', f: 1000, g: '2024-01-01', h: null, i: 0.5, port: 8321,
    });
  });

  test('float64 values come back as llama-stack reads Go\'s formatting of them (1e+06 is a string to PyYAML)', () => {
    const settings = { million: 1000000, mebi: 1048576, half: 0.5, tiny: 0.00001, small: 0.0001, port: 8080, negative: -2.5e-7 };
    expect(plain(firstConfig(generateOgxConfig(custom({ settings }), BASE)))).toStrictEqual({
      million: '1e+06', mebi: 1048576, half: 0.5, tiny: '1e-05', small: 0.0001, port: 8080, negative: -2.5e-7,
    });
    expect(plain(generateOgxConfig(vllm(), 'version: 2\nserver:\n  ratio: 2000000.0\n  big: 2500000.0\n').config.server))
      .toStrictEqual({ ratio: '2e+06', big: 2500000, port: 8321 });
  });

  test('a string the operator writes unquoted is what PyYAML makes of it; = and << cannot be loaded at all', () => {
    const settings = { a: '.5_5', b: '-0x1FFFFFFFFFFFFFFFF', c: 'yes', d: '1:20', e: '2024-01-01', f: '0o17' };
    expect(plain(firstConfig(generateOgxConfig(custom({ settings }), BASE)))).toStrictEqual({
      a: 0.55, b: -(BigInt(2) ** BigInt(65) - BigInt(1)), c: 'yes', d: '1:20', e: '2024-01-01', f: '0o17',
    });
    for (const value of ['=', '<<']) {
      const error = runConfigError(() => generateOgxConfig(custom({ settings: { sep: value } }), BASE));
      expect(detailsOf(error)).toContain('providers.inference[0].config.sep');
      expect(error.issues[0].title).toBe('The generated config cannot be read by llama-stack');
    }
  });

  test('mappings are sorted as yaml.v3 sorts keys: digit runs by value, a non-letter before a letter', () => {
    const base = 'version: 2\nserver:\n  item10: a\n  item9: b\n  aB: c\n  a_b: d\n  Z: e\n';
    expect(Object.keys(generateOgxConfig(vllm(), base).config.server as object)).toEqual(['Z', 'a_b', 'aB', 'item9', 'item10', 'port']);
  });

  test('server.port: the spec\'s port, else the base\'s, else 8321; a spec.network without port is 8321 (the CRD default)', () => {
    const port = (spec: Record<string, unknown>, base: string): unknown =>
      (generateOgxConfig(spec, base).config.server as Record<string, unknown>).port;
    const withPort = 'version: 2\nserver:\n  port: 9000\n  auth: {provider_config: {type: x}}\n';
    expect(port({ ...vllm(), network: { port: 9090 } }, withPort)).toBe(9090);
    expect(port(vllm(), withPort)).toBe(9000);
    expect(port(vllm(), BASE)).toBe(8321);
    expect(port({ ...vllm(), network: { externalAccess: { enabled: true } } }, withPort)).toBe(8321);
    expect(plain(generateOgxConfig(vllm(), withPort).config.server)).toEqual({ auth: { provider_config: { type: 'x' } }, port: 9000 });
  });

  test('disabledAPIs filters apis (the providers of those APIs stay); an empty result leaves apis out', () => {
    const base = 'version: 2\napis: [inference, batches]\nproviders:\n  batches:\n  - {provider_id: ref, provider_type: inline::reference}\n';
    const some = generateOgxConfig({ distribution: { name: 'x' }, disabledAPIs: ['batches'] }, base).config;
    expect(some.apis).toEqual(['inference']);
    expect(plain(some.providers)).toEqual({ batches: [{ config: {}, provider_id: 'ref', provider_type: 'inline::reference' }] });
    expect('apis' in generateOgxConfig({ distribution: { name: 'x' }, disabledAPIs: ['batches', 'inference'] }, base).config).toBe(false);
  });

  test('keeps only what the operator reads of the base: other keys, provider keys and empty lists go; {} stays', () => {
    const base = [
      'version: 2', 'image_name: x', 'telemetry: {enabled: true}', 'vector_stores: {}', 'storage:',
      'registered_resources: {models: [], vector_stores: [], shields: [s]}',
      'providers:', '  inference:', '  - {provider_id: a, provider_type: remote::a, module: m}', '  safety:', '',
    ].join('\n');
    expect(plain(generateOgxConfig({ distribution: { image: 'quay.io/x:1' }, storage: null, disabledAPIs: [] }, base).config)).toStrictEqual({
      distro_name: 'quay.io/x:1',
      providers: { inference: [{ config: {}, provider_id: 'a', provider_type: 'remote::a' }], safety: [] },
      registered_resources: {},
      server: { port: 8321 },
      vector_stores: {},
      version: '2',
    });
  });

  test('expands anchors, aliases and << merges of the base (explicit keys win)', () => {
    const base = 'version: 2\ndefaults: &d {port: 9000, workers: 2}\nserver:\n  <<: *d\n  workers: 4\nstorage: {a: *d, b: [*d]}\n';
    const { config } = generateOgxConfig(vllm(), base);
    expect(plain(config.server)).toStrictEqual({ port: 9000, workers: 4 });
    expect(plain(config.storage)).toStrictEqual({ a: { port: 9000, workers: 2 }, b: [{ port: 9000, workers: 2 }] });
  });

  test('custom providers: id from the type, secretRefs as ${env…}, settings merged; secrets of one name: the first wins', () => {
    const result = generateOgxConfig(custom({
      secretRefs: { 'api-key': { name: 'acme', key: 'key' }, 'api_key': { name: 'acme', key: 'key' } },
      settings: { url: 'http://acme:8080', nested: { list: [1, 'two'] } },
    }), BASE);
    expect(plain(result.config.providers)).toStrictEqual({
      inference: [{
        config: {
          'api-key': '${env.OGX_REMOTE_ACME_API_KEY}', 'api_key': '${env.OGX_REMOTE_ACME_API_KEY}', 'nested': { list: [1, 'two'] }, 'url': 'http://acme:8080',
        },
        provider_id: 'remote-acme',
        provider_type: 'remote::acme',
      }],
    });
    expect(result.env).toEqual([{ name: 'OGX_REMOTE_ACME_API_KEY', secretName: 'acme', secretKey: 'key' }]);
  });

  test('storage: redis with a password and postgres; the Secrets are passed in OGX_STORAGE_* variables', () => {
    const spec = {
      distribution: { name: 'x' },
      storage: { kv: { type: 'redis', endpoint: 'redis:6379', password: { name: 'r', key: 'p' } }, sql: { type: 'postgres', connectionString: { name: 'pg', key: 'dsn' } } },
    };
    const result = generateOgxConfig(spec, 'version: 2\nstorage: {backends: {old: {}}}\n');
    expect(plain((result.config.storage as Record<string, unknown>).backends)).toStrictEqual({
      kv_default: { host: 'redis:6379', password: '${env.OGX_STORAGE_KV_PASSWORD}', type: 'kv_redis' },
      sql_default: { connection_string: '${env.OGX_STORAGE_SQL_CONNECTION_STRING}', type: 'sql_postgres' },
    });
    expect(result.env.map((e) => `${e.name}=${e.secretName}/${e.secretKey}`)).toEqual([
      'OGX_STORAGE_KV_PASSWORD=r/p', 'OGX_STORAGE_SQL_CONNECTION_STRING=pg/dsn',
    ]);
  });

  test('the typed providers\' config keys (bedrock, vertexai, s3, tool runtimes, vector stores config)', () => {
    const spec = {
      distribution: { name: 'x' },
      providers: {
        inference: {
          remote: {
            bedrock: [{ region: 'us-east-1', awsRoleArn: 'arn:x', totalMaxAttempts: 3, sessionTTL: 60, awsSessionToken: { name: 'aws', key: 'session' } }],
            vertexai: [{ project: 'p', location: 'europe-west4', refreshModels: false }],
          },
        },
        files: { remote: { s3: { bucketName: 'b', region: '', autoCreateBucket: true } }, inline: { localfs: { ttlSecs: 60 } } },
        toolRuntime: {
          remote: { tavilySearch: [{ apiKey: { name: 't', key: 'k' }, maxResults: 5 }], modelContextProtocol: [{ id: 'mcp' }] },
          inline: {
            fileSearch: [{
              vectorStoresConfig: {
                rewriteQueryParams: { temperature: '0.7', prompt: '' },
                chunkRetrievalParams: { rrfImpactFactor: '60.0', defaultSearchMode: 'hybrid' },
                fileSearchParams: {},
              },
            }],
          },
        },
      },
    };
    const result = generateOgxConfig(spec, BASE);
    expect(plain(result.config.providers)).toStrictEqual({
      files: [
        { config: { auto_create_bucket: true, bucket_name: 'b' }, provider_id: 'remote-s3', provider_type: 'remote::s3' },
        { config: { ttl_secs: 60 }, provider_id: 'inline-localfs', provider_type: 'inline::localfs' },
      ],
      inference: [
        {
          config: { aws_role_arn: 'arn:x', aws_session_token: '${env.OGX_REMOTE_BEDROCK_AWS_SESSION_TOKEN}', region_name: 'us-east-1', session_ttl: 60, total_max_attempts: 3 },
          provider_id: 'remote-bedrock',
          provider_type: 'remote::bedrock',
        },
        { config: { location: 'europe-west4', project: 'p', refresh_models: false }, provider_id: 'remote-vertexai', provider_type: 'remote::vertexai' },
      ],
      tool_runtime: [
        { config: { api_key: '${env.OGX_REMOTE_TAVILY_SEARCH_API_KEY}', max_results: 5 }, provider_id: 'remote-tavily-search', provider_type: 'remote::tavily-search' },
        { config: {}, provider_id: 'mcp', provider_type: 'remote::model-context-protocol' },
        {
          config: {
            vector_stores_config: {
              chunk_retrieval_params: { default_search_mode: 'hybrid', rrf_impact_factor: '60.0' },
              file_search_params: {},
              rewrite_query_params: { temperature: '0.7' },
            },
          },
          provider_id: 'inline-file-search',
          provider_type: 'inline::rag-runtime',
        },
      ],
    });
    expect(result.env.map((e) => e.name)).toEqual(['OGX_REMOTE_BEDROCK_AWS_SESSION_TOKEN', 'OGX_REMOTE_TAVILY_SEARCH_API_KEY']);
  });
});

describe('hostile and ill-typed input', () => {
  test.each([
    ['spec itself', null, 'spec: found nothing; expected a mapping.'],
    ['providers', { providers: 'inference' }, "spec.providers: found 'inference'; expected a mapping."],
    ['a provider list', { providers: { inference: { remote: { vllm: { endpoint: 'x' } } } } }, 'spec.providers.inference.remote.vllm: found a mapping; expected a list.'],
    ['an integer', vllm({ maxTokens: '4096' }), "spec.providers.inference.remote.vllm[0].maxTokens: found '4096'; expected a whole number. Remove the quotes"],
    ['a fraction', vllm({ maxTokens: 1.5 }), 'spec.providers.inference.remote.vllm[0].maxTokens: found a number (1.5); expected a whole number.'],
    ['a boolean', vllm({ refreshModels: 'true' }), "spec.providers.inference.remote.vllm[0].refreshModels: found 'true'; expected true or false."],
    ['a string', vllm({ endpoint: 8000 }), 'spec.providers.inference.remote.vllm[0].endpoint: found a number (8000); expected a string. YAML read'],
    ['a date', vllm({ endpoint: new Date(0) }), 'spec.providers.inference.remote.vllm[0].endpoint: found a date (1970-01-01); expected a string. YAML read the unquoted value as a date'],
    ['a header', vllm({ network: { headers: { 'X-Id': 7 } } }), 'spec.providers.inference.remote.vllm[0].network.headers.X-Id: found a number (7)'],
    ['a secret ref', custom({ secretRefs: { 'my key': 'secret' } }), 'spec.providers.inference.remote.custom[0].secretRefs["my key"]: found \'secret\'; expected a mapping.'],
    ['a deep setting', custom({ settings: { a: [{ b: Infinity }] } }), 'spec.providers.inference.remote.custom[0].settings.a[0].b: found a number (Infinity); JSON has no such number.'],
    ['a model list', { ...vllm(), resources: { models: [{ name: 'm', contextLength: '8k' }] } }, "spec.resources.models[0].contextLength: found '8k'"],
    ['the port', { ...vllm(), network: { port: 2 ** 40 } }, 'spec.network.port: found a number (1099511627776); expected a whole number that fits in 32 bits.'],
    ['disabledAPIs', { disabledAPIs: 'batches' }, "spec.disabledAPIs: found 'batches'; expected a list."],
    ['storage', { storage: { kv: ['redis'] } }, 'spec.storage.kv: found a list; expected a mapping.'],
    ['overrideConfig', { ...vllm(), overrideConfig: 'my-config' }, "spec.overrideConfig: found 'my-config'; expected a mapping."],
  ])('a wrong type at %s: a RunConfigError naming the field', (_, spec, message) => {
    const error = runConfigError(() => generateOgxConfig(spec as Record<string, unknown>, BASE));
    expect(error.issues[0].title).toBe('Invalid OGXServer spec');
    expect(detailsOf(error)).toContain(message);
  });

  test('reports every field of a wrong type at once', () => {
    const spec = { distribution: 'starter', providers: { inference: { remote: { vllm: [{ endpoint: 1, maxTokens: 'x' }] } } }, disabledAPIs: [1] };
    expect(runConfigError(() => generateOgxConfig(spec, BASE)).issues[0].details).toHaveLength(4);
  });

  test('__proto__, constructor and prototype are data: nothing is polluted, the config keeps them as keys', () => {
    const spec = JSON.parse(`{
      "__proto__": {"providers": {}}, "distribution": {"name": "x"},
      "providers": {"__proto__": {"inference": {}}, "inference": {"remote": {"custom": [
        {"type": "remote::acme", "id": "constructor", "secretRefs": {"__proto__": {"name": "s", "key": "k"}}},
        {"type": "remote::other", "settings": {"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}}
      ]}}}
    }`);
    const base = 'version: 2\nserver:\n  __proto__: {polluted: true}\n  constructor: 1\n';
    const result = generateOgxConfig(spec, base);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    const [first, second] = (result.config.providers as Record<string, Array<Record<string, unknown>>>).inference;
    expect(first.provider_id).toBe('constructor');
    expect(Object.getOwnPropertyDescriptor(first.config, '__proto__')?.value).toBe('${env.OGX_CONSTRUCTOR_PROTO}');
    expect(Object.keys(second.config as object)).toEqual(['__proto__', 'constructor']);
    expect(plain(Object.getOwnPropertyDescriptor(second.config, '__proto__')?.value)).toStrictEqual({ polluted: true });
    expect(Object.keys(result.config.server as object)).toEqual(['__proto__', 'constructor', 'port']);
    expect(result.env).toEqual([{ name: 'OGX_CONSTRUCTOR_PROTO', secretName: 's', secretKey: 'k' }]);
    // The spec's own __proto__ (not a field of the CRD) does not make the spec declarative.
    expect(hasDeclarativeConfig(JSON.parse('{"__proto__": {"providers": {}}}'))).toBe(false);
  });

  test('getters are not run, and settings that contain themselves are refused', () => {
    let called = false;
    const provider = { type: 'remote::acme' };
    Object.defineProperty(provider, 'settings', { enumerable: true, get: () => { called = true; return {}; } });
    const withGetter = { distribution: { name: 'x' }, providers: { inference: { remote: { custom: [provider] } } } };
    expect(detailsOf(runConfigError(() => generateOgxConfig(withGetter, BASE)))).toContain('settings: is computed by a getter');
    expect(called).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(detailsOf(runConfigError(() => generateOgxConfig(custom({ settings: cyclic }), BASE)))).toContain('settings.self: contains itself');
  });

  test('an alias bomb in the base config is refused, not expanded', () => {
    const lines = ['version: 2', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
    lines.push('server: {bomb: *a8}');
    expect(runConfigError(() => generateOgxConfig(vllm(), lines.join('\n'))).issues[0].title).toBe('Cannot read the OGX base config');
  });

  test('every field of every upstream case replaced by values of other types: a config or a clear error, never a crash', () => {
    const hostile: unknown[] = [
      null, 0, -1, 1.5, NaN, Infinity, '', 'x', '=', true, [], [null], [[]], {}, { __proto__: null }, new Date(0), BigInt(2) ** BigInt(70),
      Symbol('s'), () => 1, new Map([['a', 1]]), JSON.parse('{"__proto__": {"x": 1}}'),
    ];
    let crashes = 0;
    let cases = 0;
    const visit = (spec: Record<string, unknown>, base: string, node: unknown, set: (value: unknown) => void): void => {
      for (const value of hostile) {
        const saved = node;
        set(value);
        cases++;
        try {
          generateOgxConfig(spec, base);
        } catch (e) {
          if (!(e instanceof RunConfigError)) {
            crashes++;
            throw new Error(`crash with ${String(value)}: ${e instanceof Error ? e.stack : String(e)}`);
          }
        }
        set(saved);
      }
      if (node !== null && typeof node === 'object') {
        for (const key of Object.keys(node)) {
          const holder = node as Record<string, unknown>;
          visit(spec, base, holder[key], (v) => { holder[key] = v; });
        }
      }
    };
    for (const name of CASES) {
      const spec = specOf(name);
      visit(spec, baseOf(name), spec, () => undefined);
    }
    expect(crashes).toBe(0);
    expect(cases).toBeGreaterThan(2000);
  });

  test('hostile strings and numbers in settings and in the base come back through renderYaml unchanged', () => {
    const strings = HOSTILE_STRINGS.filter((s) => s !== '=' && s !== '<<');
    const settings = { strings, numbers: FINITE_NUMBERS, keyed: Object.fromEntries(strings.map((s, i) => [s, i])) };
    const keys = strings.filter((s) => s.length < 1000);
    const base = renderYaml({ version: 2, server: Object.fromEntries(keys.map((k) => [k, k])) });
    const result = generateOgxConfig(custom({ settings }), base);
    const text = renderYaml(result.config);
    expect(parseUntrustedYaml(text, CONFIG_LIMITS, { source: 'out', resolution: 'n/a' }).value).toStrictEqual(plain(result.config));
    expect(Object.keys(result.config.server as object)).toHaveLength(keys.length + 1);
  });
});
