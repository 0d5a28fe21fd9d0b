import { runConfigError } from './helpers';
import { parseCrdConfig } from '../../src/run-config/crd-config';
import { providerKey } from '../../src/run-config/provider-id';

const SOURCE = 'metadata/custom-vllm/crd-config.yaml';
const valid = { providerId: 'custom-vllm', api: 'vector_io', crdSection: 'vectorIo', image: 'quay.io/acme/p:1', order: 3 };
const text = (value: unknown): string => JSON.stringify(value);

describe('parseCrdConfig', () => {
  test('reads the JSON written by the install init container', () => {
    const config = { url: '${env.VLLM_URL}', nested: { list: [1, 'two'] } };
    expect(parseCrdConfig(text({ ...valid, config }), SOURCE, 'custom-vllm')).toEqual({ ...valid, config, unknownFields: [] });
  });

  test('config is optional, and null means none', () => {
    expect(parseCrdConfig(text(valid), SOURCE).config).toBeUndefined();
    expect(parseCrdConfig(text({ ...valid, config: null }), SOURCE).config).toBeUndefined();
  });

  test('reads the document as the spec describes it: providerId, api and config, the rest derived', () => {
    const config = { url: 'http://fms:8080' };
    expect(parseCrdConfig(text({ providerId: 'trustyai_fms', api: 'safety', config }), 'metadata/trustyai_fms/crd-config.yaml', 'trustyai_fms'))
      .toEqual({ providerId: 'trustyai_fms', api: 'safety', crdSection: 'safety', config, unknownFields: [] });
    expect(parseCrdConfig(text({ providerId: 'p', api: 'file_processors' }), SOURCE).crdSection).toBe('fileProcessors');
  });

  test('accepts the provider ids llama-stack accepts, in the directory named after the id or its key', () => {
    for (const providerId of ['trustyai_fms', 'Acme Provider', 'a/b', 'ünïcode']) {
      expect(parseCrdConfig(text({ ...valid, providerId }), SOURCE, providerKey(providerId)).providerId).toBe(providerId);
    }
    expect(parseCrdConfig(text({ ...valid, providerId: 'trustyai_fms' }), SOURCE, 'trustyai_fms').providerId).toBe('trustyai_fms');
  });

  test('reads the service part\'s address the construct planned, unknown keys in it aside', () => {
    const serviceAddress = { mode: 'sidecar', base: 'http://localhost:18000', configKey: 'endpoint', path: '/v1' };
    expect(parseCrdConfig(text({ ...valid, serviceAddress }), SOURCE).serviceAddress).toEqual(serviceAddress);
    const service = { mode: 'service', base: 'http://stack-vectors:8080' };
    expect(parseCrdConfig(text({ ...valid, serviceAddress: { ...service, tls: true } }), SOURCE)).toMatchObject({ serviceAddress: service, unknownFields: ['serviceAddress.tls'] });
    for (const base of ['http://a:1', 'http://a:65535', 'http://a:9999']) {
      expect(parseCrdConfig(text({ ...valid, serviceAddress: { mode: 'service', base } }), SOURCE).serviceAddress).toEqual({ mode: 'service', base });
    }
  });

  test('keeps unknown fields aside', () => {
    expect(parseCrdConfig(text({ ...valid, imagePullPolicy: 'Always' }), SOURCE).unknownFields).toEqual(['imagePullPolicy']);
  });

  test.each([
    ['missing providerId', { ...valid, providerId: undefined }, 'providerId: missing'],
    ['missing api', { ...valid, api: undefined }, 'api: found nothing; expected one of inference, safety, agents, responses'],
    ['unknown api', { ...valid, api: 'models' }, "api: found 'models'; expected one of inference, safety, agents, responses"],
    ['unknown section', { ...valid, crdSection: 'vector_io' }, "crdSection: found 'vector_io'; expected one of inference, safety, agents, responses, vectorIo"],
    ['section of another api', { ...valid, crdSection: 'inference' }, "crdSection: 'inference' holds inference providers, but api is 'vector_io'."],
    ['negative order', { ...valid, order: -1 }, 'order: found a number (-1); expected a whole number from 0, or no order.'],
    ['disabled provider id', { ...valid, providerId: '__disabled__' }, "providerId: '__disabled__' marks a disabled provider in llama-stack, which would skip it."],
    ['provider id with an env reference', { ...valid, providerId: '${env.X:+p}' }, "providerId: '${env.X:+p}' holds a ${env.…} reference"],
    ['fractional order', { ...valid, order: 1.5 }, 'order: found a number (1.5)'],
    ['config that is a list', { ...valid, config: [1] }, 'config: found a list; expected a mapping of provider settings.'],
    ['image with spaces', { ...valid, image: 'quay.io/a b' }, "image: found 'quay.io/a b'"],
    ['service address that is text', { ...valid, serviceAddress: 'http://localhost:1' }, "serviceAddress: found 'http://localhost:1'; expected a mapping with mode and base."],
    ['service address of no mode', { ...valid, serviceAddress: { mode: 'pod', base: 'http://a:1' } }, "serviceAddress.mode: found 'pod'; expected 'sidecar' or 'service'."],
    ['service address of another form', { ...valid, serviceAddress: { mode: 'sidecar', base: 'http://a:1/x' } }, "serviceAddress.base: found 'http://a:1/x'; expected http://<host>:<port>"],
    ['service address beyond the ports', { ...valid, serviceAddress: { mode: 'service', base: 'http://a:99999' } }, "serviceAddress.base: found 'http://a:99999'; expected"],
    ['service address of port 0', { ...valid, serviceAddress: { mode: 'service', base: 'http://a:0' } }, 'with a port from 1 to 65535'],
    ['service address key with a newline', { ...valid, serviceAddress: { mode: 'sidecar', base: 'http://a:1', configKey: 'u\nrl' } }, 'serviceAddress.configKey: found \'u\\nrl\''],
  ])('rejects %s', (_name, value, expected) => {
    const message = runConfigError(() => parseCrdConfig(text(value), SOURCE)).message;
    expect(message).toContain('ERROR: Invalid provider settings in crd-config.yaml');
    expect(message).toContain(expected);
    expect(message).toContain('Resolution: crd-config.yaml is written by the provider\'s install init container');
  });

  test('rejects a file whose provider id differs from its directory', () => {
    const message = runConfigError(() => parseCrdConfig(text(valid), SOURCE, 'other')).message;
    expect(message).toContain("providerId: found 'custom-vllm', but the file is in directory 'other', which is neither that id nor its key 'custom-vllm'.");
    expect(message).toContain("Provider 'custom-vllm' (image: quay.io/acme/p:1)");
  });

  test('names the image as unknown when the file does not give it', () => {
    const message = runConfigError(() => parseCrdConfig(text({ providerId: 'p', api: 'nope' }), SOURCE)).message;
    expect(message).toContain("Provider 'p' (image: unknown)");
  });

  test('reports malformed JSON with line and column', () => {
    const message = runConfigError(() => parseCrdConfig('{"providerId": "x",\n "api": ', SOURCE, 'x')).message;
    expect(message).toMatch(/YAML parse error at line 2, column \d+/);
    expect(message).toContain("Provider 'x' (image: unknown)");
  });
});
