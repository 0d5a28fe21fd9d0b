// A Pulumi ModelDeployment's endpoint wired into a Pulumi LlamaStackWithProviders: `models: [model.endpoint]`.
import * as k8s from '@pulumi/kubernetes';
import { mockPulumi, settled, valueOf } from './mocks';
import { LlamaStackWithProviders, ModelDeployment } from '../../src/pulumi';

const registered = mockPulumi();
const ofComponent = (prefix: string) => registered.filter((r) => r.name.startsWith(`${prefix}-`) && r.type.startsWith('kubernetes:'));
const mergeArgs = (prefix: string) => ofComponent(prefix).find((r) => r.inputs.kind === 'Deployment')!.inputs.spec.template.spec.initContainers
  .find((c: any) => c.name === 'merge-config').args as string[];

const SPEC = { model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, engine: { type: 'vllm' as const }, resources: { gpu: { count: 1 } } };

describe('Pulumi: a ModelDeployment served through a LlamaStackWithProviders', () => {
  test('the endpoint is typed, its URL an output; the stack takes it as it is and lists the model', async () => {
    const model = new ModelDeployment('llama-8b', { ...SPEC, namespace: 'models' });
    expect(model.endpoint).toMatchObject({ name: 'llama-8b', model: 'meta-llama/Llama-3.1-8B-Instruct', service: 'llama-8b-frontend', port: 8000 });
    expect(await valueOf(model.endpoint.url)).toBe('http://llama-8b-frontend.models.svc.cluster.local:8000/v1');
    const stack = new LlamaStackWithProviders('served', { namespace: 'ai', distribution: { name: 'starter' }, models: [model.endpoint] });
    await settled(stack.resources);
    expect(await valueOf(stack.modelIds)).toEqual(['llama-8b/meta-llama/Llama-3.1-8B-Instruct']);
    expect(await valueOf(stack.url)).toBe('http://served-service.ai.svc.cluster.local:8321');
    const args = mergeArgs('served');
    expect(JSON.parse(args[args.indexOf('--served-models') + 1]))
      .toEqual([{ providerId: 'llama-8b', url: 'http://llama-8b-frontend.models.svc.cluster.local:8000/v1', model: 'meta-llama/Llama-3.1-8B-Instruct' }]);
  });

  test('a namespace output reaches the URL in the merge step\'s arguments, and the pods\' template stays the same from run to run', async () => {
    const ns = new k8s.core.v1.Namespace('models-ns', { metadata: { name: 'team-models' } });
    const model = new ModelDeployment('deferred-model', { ...SPEC, namespace: ns.metadata.name });
    expect(await valueOf(model.endpoint.url)).toBe('http://deferred-model-frontend.team-models.svc.cluster.local:8000/v1');
    const templates: string[] = [];
    for (const name of ['deferred-a', 'deferred-b']) {
      const stack = new LlamaStackWithProviders(name, { name: 'stack', namespace: 'ai', distribution: { name: 'starter' }, models: [model.endpoint] });
      await settled(stack.resources);
      templates.push(JSON.stringify(ofComponent(name).find((r) => r.inputs.kind === 'Deployment')!.inputs.spec.template));
    }
    expect(templates[0]).toContain('team-models.svc.cluster.local');
    expect(templates[0]).not.toMatch(/deferred-[0-9a-f]{16}-\d/);
    expect(templates[1]).toBe(templates[0]);
  });

  test('a URL output with an inline config is refused, naming both and the fix', () => {
    const ns = new k8s.core.v1.Namespace('models-ns-2', { metadata: { name: 'm2' } });
    const model = new ModelDeployment('inline-model', { ...SPEC, namespace: ns.metadata.name });
    expect(() => new LlamaStackWithProviders('inline', { distribution: { name: 'starter' }, models: [model.endpoint], userConfig: { config: { version: 2 } } }))
      .toThrow(/models\[0\]\.url: is an output .* userConfig\.config is merged with the models when the component renders/);
  });
});
