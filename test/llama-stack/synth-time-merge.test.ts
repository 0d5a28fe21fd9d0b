import { readFileSync } from 'fs';
import { join } from 'path';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { errorOf, find, onLlamaStack, podSpec, render } from './helpers';
import { LlamaStackWithProviders, providerKey, warningsOf } from '../../src';
import { CONFIG_LIMITS, parseUntrustedYaml } from '../../src/io/safe-yaml';
import { initScripts, initScriptsDigest } from '../../src/llama-stack/scripts';
import { firstDifference } from '../../src/run-config/read-back';
import { hostileConfig } from '../run-config/hostile-values';
import { pythonDifference, pythonLoad, pyyamlSupport, pyyamlValue } from '../run-config/pyyaml';
import { describeWhen } from '../sandbox/host';

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

  test('no merge image runs, so the init scripts are rendered once, into a ConfigMap the init containers run from', () => {
    const scripts = find(manifests.filter((m) => m.metadata.name === 'stack-init-scripts'), 'ConfigMap');
    expect(Object.keys(scripts.data).sort()).toEqual([
      'extract-distribution-config.py', 'extract-distribution-config.sh', 'find-server-python.sh', 'inspect-distribution.py', 'inspect-distribution.sh',
      'install-provider.py', 'install-provider.sh', 'launch-server.sh', 'preflight.py', 'provider_loader.py', 'provider_packages.py', 'start-server.sh',
    ]);
    expect(scripts.data).toEqual(initScripts());
    expect(scripts.data['start-server.sh']).toContain('exec /bin/sh "$(dirname "$0")/launch-server.sh" "$@"');
    expect(pod.volumes).toContainEqual({ name: 'init-scripts', configMap: { name: 'stack-init-scripts' } });
    expect(pod.containers[0].command).toEqual(['/bin/sh', '/opt/llama-stack/scripts/start-server.sh']);
    expect(find(manifests, 'Deployment').spec.template.metadata.annotations['kube-inference.io/init-scripts-hash']).toBe(initScriptsDigest());
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
    // The pod's plain HTTP, said by the merge (server.insecure: ogx 1.2 and later need it, this release ignores it).
    expect(merged.server).toEqual({ port: 8321, insecure: true });
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
    const stack = new LlamaStackWithProviders(chart, 'x', onLlamaStack(PROPS));
    expect(stack.mergedAtSynthTime).toBe(true);
    expect(warningsOf(chart).join('\n')).toContain("External provider 'ollama' overrides base provider in API 'inference'");
  });
});

describe('overriding the trustyai_fms provider of the ODH distribution config', () => {
  const odh = readFileSync(join(__dirname, '..', 'fixtures', 'llama-stack', 'odh-distribution-config.yaml'), 'utf8');
  const props = {
    distribution: { image: 'quay.io/opendatahub/llama-stack:odh' },
    serverVersion: '0.7.3',
    userConfig: { config: odh },
    externalProviders: {
      safety: [{
        providerId: 'trustyai_fms',
        image: 'quay.io/trustyai/fms-provider:0.5.0',
        metadata: { ...SAFETY_METADATA, spec: { ...SAFETY_METADATA.spec, packageName: 'llama_stack_provider_trustyai_fms==0.5.0' } },
        config: { orchestrator_url: 'http://fms-orchestrator:8033' },
      }],
    },
  };

  test('replaces the base entry at synth time, with the override warning, keeping the id as written', () => {
    const chart = Testing.chart();
    const stack = new LlamaStackWithProviders(chart, 'x', props);
    expect(stack.mergedAtSynthTime).toBe(true);
    const manifests = Testing.synth(chart);
    const merged = parse(manifests.find((m: any) => m.kind === 'ConfigMap' && m.data?.['config.yaml'])!.data['config.yaml']);
    expect(merged.providers.safety).toEqual([
      parse(odh).providers.safety[1],
      { provider_id: 'trustyai_fms', provider_type: 'remote::trustyai_fms', module: 'llama_stack_provider_trustyai_fms', config: { orchestrator_url: 'http://fms-orchestrator:8033' } },
    ]);
    expect(warningsOf(chart).join('\n')).toContain("External provider 'trustyai_fms' overrides base provider in API 'safety'\n  Base type: remote::trustyai_fms");
    // Kubernetes names come from the id's key; the id itself reaches the script through the environment.
    const install = podSpec(manifests).initContainers.find((c: any) => c.name.startsWith('install-provider-'));
    expect(install.name).toBe(`install-provider-${providerKey('trustyai_fms')}`);
    expect(install.env).toContainEqual({ name: 'PROVIDER_ID', value: 'trustyai_fms' });
  });

  test('a 0.7 config checked as 0.6 fails synth, naming the APIs 0.6 lacks', () => {
    expect(errorOf({ ...props, serverVersion: '0.6' }))
      .toContain('userConfig.config: The base config names APIs llama-stack 0.6 does not have: '
        + '  - providers.responses: llama-stack 0.6 has no responses API (responses is the llama-stack 0.7 name of agents).');
  });
});

describe('metadata checked at synth time, merge still in the pod', () => {
  test('without a config known at synth, the metadata is validated and the merge runs in the pod', () => {
    const { userConfig: _, ...props } = PROPS;
    const pod = podSpec(render(props));
    expect(pod.initContainers.map((c: any) => c.name)).toContain('merge-config');
  });

  test('an API placement mismatch fails synth, naming the provider, the API and the fix', () => {
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
      .toContain("externalProviders.inference[0].metadataFile: cannot read 'nope.yaml' for provider 'p' (image quay.io/a:1): ");
    expect(errorOf({ ...PROPS, externalProviders: { inference: [{ providerId: 'p', image: 'quay.io/a:1', metadataFile: METADATA_FILE, metadata: SAFETY_METADATA }] } }))
      .toContain('gives both metadata and metadataFile');
  });

  test('metadata that breaks the ProviderPackage rules is refused with the rule', () => {
    const bad = { ...SAFETY_METADATA, spec: { ...SAFETY_METADATA.spec, providerType: 'custom' } };
    expect(errorOf({ ...PROPS, externalProviders: { safety: [{ providerId: 'p', image: 'quay.io/a:1', metadata: bad }] } }))
      .toMatch(/externalProviders\.safety\[0\]\.metadata: .*providerType/);
  });
});

describe('values llama-stack\'s YAML 1.1 reader would read otherwise', () => {
  const config = hostileConfig({ json: true });
  const read = (text: string): any => parseUntrustedYaml(text, CONFIG_LIMITS, { source: 'test', resolution: '' }).value;
  const hostileProps = {
    ...PROPS,
    externalProviders: { ...PROPS.externalProviders, inference: [{ ...PROPS.externalProviders.inference[0], config }] },
  };

  test('a provider config of hostile values is merged at synth time and reads back unchanged', () => {
    const data = find(render(hostileProps).filter((m) => m.metadata.name === 'stack-config'), 'ConfigMap').data;
    expect(firstDifference(read(data['config.yaml']).providers.inference[0].config, config)).toBeUndefined();
    expect(firstDifference(read(data['extra-providers.yaml']).providers.inference[0].config, config)).toBeUndefined();
  });

  test('a user config given as an object is written so that it reads back unchanged', () => {
    const user = { version: 2, providers: {}, hostile: hostileConfig() };
    const data = find(render({ distribution: { name: 'starter' }, userConfig: { config: user } }), 'ConfigMap').data;
    expect(firstDifference(read(data['config.yaml']), { ...user, server: { insecure: true } })).toBeUndefined();
  });

  describeWhen('read by real PyYAML', pyyamlSupport(), 'python3 with PyYAML', () => {
    test('the ConfigMap of the synth-time merge: config.yaml and extra-providers.yaml', () => {
      const data = find(render(hostileProps).filter((m) => m.metadata.name === 'stack-config'), 'ConfigMap').data;
      const [merged, extra] = pythonLoad([data['config.yaml'], data['extra-providers.yaml']]).map((r) => r.value as any);
      const inference = (doc: any) => doc.$map.find(([k]: [string]) => k === 'providers')[1].$map.find(([k]: [string]) => k === 'inference')[1][0];
      const entry = { provider_id: 'ollama', provider_type: 'remote::custom_vllm', module: 'acme_vllm_provider', config };
      expect(pythonDifference(inference(merged), entry)).toBeUndefined();
      expect(pythonDifference(inference(extra), entry)).toBeUndefined();
    });

    test('the ConfigMap of a user config given as an object', () => {
      const user = { version: 2, providers: {}, hostile: hostileConfig() };
      const data = find(render({ distribution: { name: 'starter' }, userConfig: { config: user } }), 'ConfigMap').data;
      expect(pythonDifference(pyyamlValue(data['config.yaml']), { ...user, server: { insecure: true } })).toBeUndefined();
    });
  });

  test.each<[string, unknown, string]>([
    ['infinity', { threshold: Infinity }, 'externalProviders.inference[0].config.threshold: the number Infinity in the config of provider \'ollama\' (image quay.io/acme/vllm-provider:1.2.0) cannot be passed to the pod: JSON carries only finite numbers'],
    ['NaN in a list', { weights: [1, NaN] }, 'externalProviders.inference[0].config.weights[1]: the number NaN'],
    ['a date', { since: new Date('2024-01-01T00:00:00Z') }, 'externalProviders.inference[0].config.since: a date (2024-01-01T00:00:00.000Z) in the config of provider \'ollama\''],
    ['a Map', { headers: new Map([['a', 'b']]) }, 'externalProviders.inference[0].config.headers: an object of class Map'],
    ['a cycle', (() => { const c: any = { a: {} }; c.a.back = c; return c; })(), 'externalProviders.inference[0].config.a.back: a value that contains itself (a cycle)'],
  ])('a provider config value that cannot reach the pod unchanged fails synth (%s)', (_, bad, message) => {
    const inference = [{ ...PROPS.externalProviders.inference[0], config: bad as any }];
    expect(errorOf({ ...PROPS, externalProviders: { inference } })).toContain(message);
  });

  test('a user config object value that cannot be written fails synth, naming its path', () => {
    expect(errorOf({ distribution: { name: 'starter' }, userConfig: { config: { server: { started: new Date(0) } } } }))
      .toContain('userConfig.config.server.started: a date (1970-01-01T00:00:00.000Z) cannot be written into the config llama-stack reads: give plain data');
  });
});
