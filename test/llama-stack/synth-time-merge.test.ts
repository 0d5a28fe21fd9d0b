import { join } from 'path';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { errorOf, find, podSpec, render } from './helpers';
import { LlamaStackWithProviders, warningsOf } from '../../src';

const METADATA_FILE = join(__dirname, '..', 'fixtures', 'provider-metadata', 'custom-vllm.yaml');
const SAFETY_METADATA = {
  apiVersion: 'llamastack.io/v1alpha1',
  kind: 'ProviderPackage',
  metadata: { name: 'fms', version: '0.4.0', vendor: 'trustyai' },
  spec: { packageName: 'llama_stack_provider_trustyai_fms', providerType: 'remote::trustyai_fms', api: 'safety', wheelPath: '/lls-provider/packages/fms.whl' },
};
const BASE = `# our production config
version: 2
apis:
- inference
- safety
providers:
  inference:
  - provider_id: ollama
    provider_type: remote::ollama
    config: {url: "http://ollama:11434"}
server:
  port: 8321
`;
const PROPS = {
  distribution: { name: 'starter' },
  userConfig: { config: BASE },
  externalProviders: {
    inference: [{ providerId: 'ollama', image: 'quay.io/acme/vllm-provider:1.2.0', metadataFile: METADATA_FILE, config: { url: 'http://vllm:8000/v1' } }],
    safety: [{ providerId: 'trustyai-fms', image: 'quay.io/trustyai/fms:0.4.0', metadata: SAFETY_METADATA }],
  },
};

describe('config merged at synth time (every provider\'s metadata and the config are known)', () => {
  const manifests = render(PROPS);
  const pod = podSpec(manifests);
  const config = find(manifests.filter((m) => m.metadata.name === 'stack-config'), 'ConfigMap');

  test('the pod installs the providers but runs neither extraction nor merge', () => {
    expect(pod.initContainers.map((c: any) => c.name)).toEqual(['inspect-distribution', 'install-provider-ollama', 'install-provider-trustyai-fms']);
    expect(pod.volumes.map((v: any) => v.name)).toEqual(['init-scripts', 'external-providers', 'user-config', 'llama-storage']);
  });

  test('the merged config, extra-providers.yaml and merge-log.txt are rendered for review', () => {
    expect(Object.keys(config.data).sort()).toEqual(['config.yaml', 'extra-providers.yaml', 'merge-log.txt']);
    const merged = parse(config.data['config.yaml']);
    expect(merged.providers.inference).toEqual([
      { provider_id: 'ollama', provider_type: 'remote::custom_vllm', module: 'acme_vllm_provider', config: { url: 'http://vllm:8000/v1' } },
    ]);
    expect(merged.providers.safety).toEqual([{ provider_id: 'trustyai-fms', provider_type: 'remote::trustyai_fms', module: 'llama_stack_provider_trustyai_fms' }]);
    // Everything the merge does not own is kept, comments included.
    expect(config.data['config.yaml']).toMatch(/^# our production config\n/);
    expect(merged.server).toEqual({ port: 8321 });
    expect(parse(config.data['extra-providers.yaml'])).toMatchObject({ apiVersion: 'llamastack.io/v1alpha1', kind: 'ExternalProviders' });
    expect(config.data['merge-log.txt']).toContain('replaced base provider ollama (remote::ollama)');
  });

  test('the server runs the merged config from the ConfigMap', () => {
    const server = pod.containers[0];
    expect(server.env).toContainEqual({ name: 'LLAMA_STACK_CONFIG', value: '/etc/llama-stack/config.yaml' });
    expect(server.volumeMounts).toContainEqual({ name: 'user-config', mountPath: '/etc/llama-stack', readOnly: true });
  });

  test('the override of a base provider is a warning at synth', () => {
    const chart = Testing.chart();
    const stack = new LlamaStackWithProviders(chart, 'x', PROPS);
    expect(stack.mergedAtSynthTime).toBe(true);
    expect(warningsOf(chart).join('\n')).toContain("External provider 'ollama' overrides base provider in API 'inference'");
  });
});

describe('metadata checked at synth time, merge still in the pod', () => {
  test('without a config known at synth, the metadata is validated and the merge runs in the pod', () => {
    const { userConfig: _, ...props } = PROPS;
    const pod = podSpec(render(props));
    expect(pod.initContainers.map((c: any) => c.name)).toContain('merge-config');
  });

  test('an API placement mismatch fails synth with the seed\'s message, naming the provider', () => {
    const message = errorOf({ ...PROPS, externalProviders: { safety: [{ providerId: 'custom-vllm', image: 'quay.io/acme/p:1', metadataFile: METADATA_FILE }] } });
    expect(message).toContain('externalProviders.safety[0]: Provider API type mismatch');
    expect(message).toContain('declares api=inference in lls-provider-spec.yaml');
    expect(message).toContain('Move the provider to externalProviders.inference');
  });

  test('invalid metadata YAML names the line', () => {
    const message = errorOf({ ...PROPS, externalProviders: { inference: [{ providerId: 'p', image: 'quay.io/a:1', metadata: 'apiVersion: llamastack.io/v1alpha1\nkind: [ProviderPackage\n' }] } });
    expect(message).toContain('externalProviders.inference[0].metadata:');
    expect(message).toMatch(/line \d+/);
  });

  test('a missing metadata file and two metadata sources are errors', () => {
    expect(errorOf({ ...PROPS, externalProviders: { inference: [{ providerId: 'p', image: 'quay.io/a:1', metadataFile: 'nope.yaml' }] } }))
      .toContain("externalProviders.inference[0].metadataFile: cannot read 'nope.yaml' for provider 'p' (image quay.io/a:1): ENOENT");
    expect(errorOf({ ...PROPS, externalProviders: { inference: [{ providerId: 'p', image: 'quay.io/a:1', metadataFile: METADATA_FILE, metadata: SAFETY_METADATA }] } }))
      .toContain('gives both metadata and metadataFile');
  });

  test('metadata that breaks the ProviderPackage rules is refused with the rule', () => {
    const bad = { ...SAFETY_METADATA, spec: { ...SAFETY_METADATA.spec, providerType: 'custom' } };
    expect(errorOf({ ...PROPS, externalProviders: { safety: [{ providerId: 'p', image: 'quay.io/a:1', metadata: bad }] } }))
      .toMatch(/externalProviders\.safety\[0\]\.metadata: .*providerType/);
  });
});
