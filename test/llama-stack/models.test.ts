// `models`: a ModelDeployment's endpoint wired into the stack (served through its remote::vllm provider).
import { App, Chart, Testing } from 'cdk8s';
import { parse } from 'yaml';
import { find, render } from './helpers';
import { LlamaStackWithProviders, ModelDeployment, ModelDeploymentProps } from '../../src';

const GPU: Omit<ModelDeploymentProps, 'metadata'> = { model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } };

/** The endpoint of a deployment rendered by the named provider, in namespace `models`. */
function endpointOf(provider: string, more: Partial<ModelDeploymentProps> = {}) {
  return new ModelDeployment(Testing.chart(), 'm', { ...GPU, metadata: { name: 'llama-8b', namespace: 'models' }, provider: { name: provider }, ...more } as ModelDeploymentProps).endpoint;
}

const mergeArgs = (manifests: any[]) => find(manifests, 'Deployment').spec.template.spec.initContainers.find((c: any) => c.name === 'merge-config').args;

describe('LlamaStackWithProviders models', () => {
  test.each([
    ['dynamo', {}, 'http://llama-8b-frontend.models.svc.cluster.local:8000/v1', 'meta-llama/Llama-3.1-8B-Instruct'],
    ['kuberay', {}, 'http://llama-8b-serve-svc.models.svc.cluster.local:8000/v1', 'meta-llama/Llama-3.1-8B-Instruct'],
    // KAITO serves a Workspace's preset under its generated name, the id's last segment lower-cased
    // (presets/workspace/generator/generator.go), and an InferenceSet's workspaces under the InferenceSet's name (pkg/model/interface.go).
    ['kaito', { provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } } }, 'http://llama-8b.models.svc.cluster.local:80/v1', 'llama-3.1-8b-instruct'],
    ['kaito', { scaling: { replicas: 2 }, provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } } }, 'http://llama-8b.models.svc.cluster.local:80/v1', 'llama-8b'],
    ['dynamo', { model: { id: 'meta-llama/Llama-3.1-8B-Instruct', servedName: 'llama' } }, 'http://llama-8b-frontend.models.svc.cluster.local:8000/v1', 'llama'],
  ])('%s %j: the endpoint\'s URL and model reach the merge in the pod', (provider, more, url, model) => {
    const endpoint = endpointOf(provider, more as Partial<ModelDeploymentProps>);
    expect(endpoint).toMatchObject({ name: 'llama-8b', url, model });
    const manifests = render({ distribution: { name: 'starter' }, serverVersion: '1.5', models: [endpoint] });
    const args = mergeArgs(manifests);
    expect(JSON.parse(args[args.indexOf('--served-models') + 1])).toEqual([{ providerId: 'llama-8b', url, model }]);
    expect(args).toContain('--no-providers');
  });

  test('one line in a chart: model ids, and the config merged at synth time when it is inline', () => {
    const chart = new Chart(new App(), 'c', { namespace: 'ai' });
    const model = new ModelDeployment(chart, 'model', { ...GPU, metadata: { name: 'llama-8b' } });
    const stack = new LlamaStackWithProviders(chart, 'stack', {
      name: 'assistant', distribution: { name: 'starter' }, models: [model.endpoint], userConfig: { config: { version: 2, providers: { inference: [] } } },
    });
    expect(stack.modelIds).toEqual(['llama-8b/meta-llama/Llama-3.1-8B-Instruct']);
    // The server's own URL, for its clients (https with tls).
    expect(stack.url).toBe('http://assistant-service.ai.svc.cluster.local:8321');
    expect(new LlamaStackWithProviders(chart, 'tls', { name: 'secure', distribution: { name: 'starter' }, tls: { secretName: 'tls' } }).url)
      .toBe('https://secure-service.ai.svc.cluster.local:8321');
    const manifests = Testing.synth(chart);
    const config = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name.endsWith('-config'));
    expect(parse(config.data['config.yaml']).providers.inference).toEqual([{
      provider_id: 'llama-8b', provider_type: 'remote::vllm', config: { base_url: 'http://llama-8b-frontend.ai.svc.cluster.local:8000/v1', api_token: 'fake' },
    }]);
    expect(config.data['merge-log.txt']).toContain('model registered as llama-8b/meta-llama/Llama-3.1-8B-Instruct');
    expect(find(manifests, 'Deployment').spec.template.spec.initContainers ?? []).toEqual([]);
  });

  test('every problem named: no model name, a clashing or missing provider id, a URL that is not one, an unknown field', () => {
    const custom = endpointOf('kaito', {
      model: { source: 'custom' },
      engine: { type: 'llamacpp' },
      image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
      resources: { gpu: { count: 0 } },
      provider: { name: 'kaito', overrides: { instanceType: 'Standard_D8s_v5' } },
    });
    expect(custom.model).toBeUndefined();
    expect(() => render({
      distribution: { name: 'starter' },
      serverVersion: '1.5',
      externalProviders: { inference: [{ providerId: 'llama-8b', image: 'quay.io/acme/p:1' }] },
      models: [custom, endpointOf('dynamo'), { url: 'ftp://x', model: 'm' }],
    })).toThrow(expect.objectContaining({
      message: expect.stringMatching(new RegExp([
        'models\\[0\\]\\.model: the endpoint http://llama-8b\\.models\\.svc\\.cluster\\.local:80/v1 does not say which model it serves',
        "models\\[1\\]\\.providerId: 'llama-8b' is the provider id of models\\[0\\] too",
        'models\\[2\\]\\.url: "ftp://x" is not an http:// or https:// URL',
        "models\\[0\\]\\.providerId: 'llama-8b' is the providerId of externalProviders.inference\\[0\\] too",
      ].join('[^]*'))),
    }));
    expect(() => render({ distribution: { name: 'starter' }, models: [{ url: 'http://a/v1', model: 'm', modell: 'x' } as any] }))
      .toThrow('models[0].modell: unknown field; expected one of: url, model, providerId, name, service, port, basePath, namespace');
  });
});
