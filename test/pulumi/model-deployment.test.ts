import * as k8s from '@pulumi/kubernetes';
import { Testing } from 'cdk8s';
import { mockPulumi, settled, valueOf } from './mocks';
import * as cdk8s from '../../src';
import { ModelDeployment } from '../../src/pulumi';

const registered = mockPulumi();
const ofComponent = (prefix: string) => registered.filter((r) => r.name.startsWith(`${prefix}-`) && r.type.startsWith('kubernetes:'));

// `satisfies`: a cdk8s spec that names its objects by name, so the Pulumi args (names as Inputs) take it too.
const GPU_VLLM = {
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct', source: 'huggingface' },
  engine: { type: 'vllm', contextLength: 8192 },
  resources: { gpu: { count: 1 }, memory: '32Gi' },
  secrets: { huggingFaceToken: 'hf-token' },
} satisfies cdk8s.ModelDeploymentSpec;

describe('Pulumi ModelDeployment', () => {
  test('registers exactly what the cdk8s construct renders, and exposes the selection', async () => {
    const component = new ModelDeployment('llama-8b', { ...GPU_VLLM, namespace: 'models' });
    await settled(component.resources);
    const chart = Testing.chart();
    new cdk8s.ModelDeployment(chart, 'x', { ...GPU_VLLM, metadata: { name: 'llama-8b', namespace: 'models' } });
    const expected = Testing.synth(chart);
    expect(ofComponent('llama-8b').map((r) => r.inputs)).toEqual(expected);
    expect(registered.find((r) => r.name === 'llama-8b')?.type).toBe('kube-inference:model-deployment:ModelDeployment');
    expect(await valueOf(component.selectedProvider)).toBe('dynamo');
    expect(await valueOf(component.selectionReason)).toBe(expected[0].metadata.annotations['kube-inference.io/selection-reason']);
    expect(await valueOf(component.resourceType)).toBe('nvidia.com/v1beta1 DynamoGraphDeployment');
    expect(await valueOf(component.resourceName)).toBe('llama-8b');
    expect(await valueOf(component.resource.urn)).toMatch(/::llama-8b-dynamographdeployment-llama-8b$/);
  });

  test('custom resources are registered under their own type token', async () => {
    const component = new ModelDeployment('gemma', {
      model: { id: 'google/gemma-3-1b-it-qat-q8_0-gguf', source: 'huggingface' },
      engine: { type: 'llamacpp' },
      resources: { gpu: { count: 0 }, memory: '16Gi', cpu: '8' },
      image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
      provider: { overrides: { instanceType: 'Standard_D8s_v5', ggufFile: 'gemma-3-1b-it-q8_0.gguf' } },
    });
    await settled(component.resources);
    expect(ofComponent('gemma').map((r) => r.type)).toContain('kubernetes:kaito.sh/v1beta1:Workspace');
  });

  test('the namespace and the HF token Secret may be outputs of other resources', async () => {
    const ns = new k8s.core.v1.Namespace('models-ns', { metadata: { name: 'models' } });
    const token = new k8s.core.v1.Secret('hf', { metadata: { name: 'hf-token' }, stringData: { HF_TOKEN: 'x' } });
    const component = new ModelDeployment('deferred-md', { ...GPU_VLLM, namespace: ns.metadata.name, secrets: { huggingFaceToken: token.metadata.name } });
    await settled(component.resources);
    const [resource] = ofComponent('deferred-md').map((r) => r.inputs);
    expect(resource.metadata.namespace).toBe('models');
    expect(JSON.stringify(resource)).toContain('"hf-token"');
    expect(JSON.stringify(resource)).not.toMatch(/deferred-[0-9a-f]{16}-\d/);
  });

  test('image pull Secrets and the ServiceAccount may be outputs', async () => {
    const pull = new k8s.core.v1.Secret('pull-md', { metadata: { name: 'registry-login' } });
    const account = new k8s.core.v1.ServiceAccount('sa-md', { metadata: { name: 'serving' } });
    const component = new ModelDeployment('names-md', { ...GPU_VLLM, namespace: 'models', imagePullSecrets: [pull.metadata.name], serviceAccountName: account.metadata.name });
    await settled(component.resources);
    const chart = Testing.chart();
    new cdk8s.ModelDeployment(chart, 'x', { ...GPU_VLLM, metadata: { name: 'names-md', namespace: 'models' }, imagePullSecrets: ['registry-login'], serviceAccountName: 'serving' });
    expect(ofComponent('names-md').map((r) => r.inputs)).toEqual(Testing.synth(chart));
    expect(JSON.stringify(Testing.synth(chart))).toMatch(/registry-login[^]*serving|serving[^]*registry-login/);
  });

  test('invalid specs fail with the construct\'s messages before anything is registered', () => {
    expect(() => new ModelDeployment('bad', { ...GPU_VLLM, engine: { type: 'vllm', args: { '--x': '1' } } as any })).toThrow(/engine\.args/);
    expect(registered.some((r) => r.name.startsWith('bad-'))).toBe(false);
  });

});
