import { parse } from 'yaml';
import { provider, runConfigError } from './helpers';
import { mergeRunConfig } from '../../src/run-config/merge';
import { formatMergeLog } from '../../src/run-config/merge-log';
import { parseServedModels, ServedModel } from '../../src/run-config/served-models';

const MODEL: ServedModel = { providerId: 'llama-8b', url: 'http://llama-8b-frontend.models.svc.cluster.local:8000/v1', model: 'meta-llama/Llama-3.1-8B-Instruct' };
const BASE = `version: 2
apis:
- inference
providers:
  inference:
  - provider_id: sentence-transformers
    provider_type: inline::sentence-transformers
    config: {}
server:
  port: 8321
`;

describe('mergeRunConfig: served models', () => {
  test('a remote::vllm provider after the base\'s, and the model registered under registered_resources (ogx 1.5); the rest byte for byte', () => {
    const result = mergeRunConfig(BASE, [], { serverVersion: '1.5', servedModels: [MODEL], transport: 'insecure' });
    // The base's lines as they were, the new ones inserted where they belong.
    expect(result.configText).toBe(BASE.replace('server:\n  port: 8321\n', `  - provider_id: llama-8b
    provider_type: remote::vllm
    config:
      base_url: http://llama-8b-frontend.models.svc.cluster.local:8000/v1
      api_token: fake
server:
  port: 8321
  insecure: true
registered_resources:
  models:
  - model_id: meta-llama/Llama-3.1-8B-Instruct
    provider_id: llama-8b
    provider_model_id: meta-llama/Llama-3.1-8B-Instruct
    model_type: llm
    metadata: {}
`));
    expect(result.servedModels).toEqual([{ ...MODEL, id: 'llama-8b/meta-llama/Llama-3.1-8B-Instruct', replaced: [] }]);
    expect(formatMergeLog(result, { baseConfig: 'base', outputs: [] })).toContain(
      'Served models: 1\n  inference: llama-8b (remote::vllm, http://llama-8b-frontend.models.svc.cluster.local:8000/v1); model registered as llama-8b/meta-llama/Llama-3.1-8B-Instruct');
  });

  test.each([
    ['0.2', 'url', ['models']],
    ['0.3', 'url', ['registered_resources', 'models']],
    ['0.4', 'base_url', ['registered_resources', 'models']],
    ['0.7', 'base_url', ['registered_resources', 'models']],
    ['1.1', 'base_url', ['registered_resources', 'models']],
  ])('llama-stack/ogx %s: the URL under %s, the model under %j', (serverVersion, urlKey, path) => {
    const config = parse(mergeRunConfig(BASE, [], { serverVersion, servedModels: [MODEL] }).configText);
    expect(config.providers.inference[1].config).toEqual({ [urlKey]: MODEL.url, api_token: 'fake' });
    expect(path.reduce((v: any, k) => v[k], config)).toEqual([expect.objectContaining({ model_id: MODEL.model, provider_id: 'llama-8b' })]);
  });

  test('appended to a block list of registrations; one of the same model and provider replaced; a flow-style section rewritten', () => {
    const base = `${BASE}registered_resources:
  models:
  - model_id: all-MiniLM-L6-v2   # the embedding model
    provider_id: sentence-transformers
    model_type: embedding
    metadata: {embedding_dimension: 384}
  - model_id: ${MODEL.model}
    provider_id: llama-8b
  shields: []
`;
    const text = mergeRunConfig(base, [], { serverVersion: '1.5', servedModels: [MODEL] }).configText;
    expect(text).toContain('  - model_id: all-MiniLM-L6-v2   # the embedding model\n');
    const config = parse(text);
    expect(config.registered_resources.models.map((m: any) => m.model_id)).toEqual(['all-MiniLM-L6-v2', MODEL.model]);
    expect(config.registered_resources.models[1].model_type).toBe('llm');
    expect(config.registered_resources.shields).toEqual([]);
    const flow = parse(mergeRunConfig(`${BASE}registered_resources: {models: []}\n`, [], { serverVersion: '1.5', servedModels: [MODEL] }).configText);
    expect(flow.registered_resources.models).toHaveLength(1);
  });

  test('a base provider with the model\'s id is replaced, with a warning', () => {
    const base = BASE.replace('sentence-transformers\n    provider_type: inline::sentence-transformers', 'llama-8b\n    provider_type: remote::ollama');
    const result = mergeRunConfig(base, [], { serverVersion: '1.5', servedModels: [MODEL] });
    expect(parse(result.configText).providers.inference.map((p: any) => p.provider_type)).toEqual(['remote::vllm']);
    expect(result.warnings.map((w) => w.message)).toEqual([
      `Served model 'llama-8b/${MODEL.model}' (${MODEL.url}) replaces base provider 'llama-8b' in API 'inference'\n  Base type: remote::ollama\n  Served model's type: remote::vllm`,
    ]);
  });

  test('after the external providers; an external inference provider with the same id is refused', () => {
    const echo = provider('acme-echo', { providerType: 'remote::acme-echo', packageName: 'acme_echo_provider' });
    const config = parse(mergeRunConfig(BASE, [echo], { serverVersion: '1.5', servedModels: [MODEL] }).configText);
    expect(config.providers.inference.map((p: any) => p.provider_id)).toEqual(['sentence-transformers', 'acme-echo', 'llama-8b']);
    const clash = runConfigError(() => mergeRunConfig(BASE, [echo], { serverVersion: '1.5', servedModels: [{ ...MODEL, providerId: 'acme-echo' }] }));
    expect(clash.message).toContain("'acme-echo' is the provider id of the served model meta-llama/Llama-3.1-8B-Instruct");
  });

  test('registrations that are not a list, or shared, are refused naming the key', () => {
    expect(runConfigError(() => mergeRunConfig(`${BASE}registered_resources: {models: 3}\n`, [], { servedModels: [MODEL] })).message)
      .toContain('registered_resources.models: found a number (3); expected a list, where the served models are registered.');
    expect(runConfigError(() => mergeRunConfig(`${BASE}registered_resources: &r {models: []}\nother: *r\n`, [], { servedModels: [MODEL] })).message)
      .toContain('registered_resources: is a YAML alias or carries an anchor');
  });

  test('merge-config\'s --served-models JSON is checked field by field', () => {
    expect(parseServedModels(JSON.stringify([MODEL]))).toEqual([MODEL]);
    const bad = (json: string) => runConfigError(() => parseServedModels(json)).message;
    expect(bad('{')).toContain('not JSON');
    expect(bad('[{"providerId": "a", "url": "ftp://x", "model": "m"}]')).toContain('[0].url: "ftp://x" is not an http:// or https:// URL');
    expect(bad('[{"providerId": "a", "url": "http://x/v1", "model": "${env.MODEL}"}]')).toContain('[0].model: "${env.MODEL}" is not a model name');
    expect(bad('[{"providerId": "__disabled__", "url": "http://x/v1", "model": "m"}]')).toContain("[0].providerId: '__disabled__' marks a disabled provider");
    expect(bad('[{"providerId": "a", "url": "http://x/v1", "model": "m", "extra": 1}]')).toContain('[0]: unknown field extra.');
    expect(bad(JSON.stringify([MODEL, MODEL]))).toContain("[1].providerId: 'llama-8b' is the provider id of models[0] too");
  });
});

describe('the text edits: at one offset, a nested section\'s new lines before a new top-level key', () => {
  test('a new providers section at the end of the file and server.insecure in the last section', () => {
    const text = mergeRunConfig('version: 2\nserver:\n  port: 8321\n', [provider('acme-echo', { providerType: 'remote::acme-echo', packageName: 'acme_echo_provider' })],
      { serverVersion: '1.5', transport: 'insecure' }).configText;
    expect(parse(text)).toMatchObject({ server: { port: 8321, insecure: true }, providers: { inference: [{ provider_id: 'acme-echo' }] } });
  });
});
