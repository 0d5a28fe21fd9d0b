// What every provider's pods get from the unified spec whatever the provider: pull Secrets, the
// ServiceAccount, container arguments that Kubernetes passes on as written; and the limits the API
// server enforces on the spec's numbers and names.
import { Chart, Testing } from 'cdk8s';
import { dynamoComponents, dynamoMain, GPU_VLLM, KAITO_CPU_NODE, problemsFor, quietChart, render } from './helpers';
import { ModelDeployment, ModelDeploymentProps } from '../../src/model-deployment';

const IDENTITY = { imagePullSecrets: ['registry-creds', 'mirror-creds'], serviceAccountName: 'inference' };
const PULL = [{ name: 'registry-creds' }, { name: 'mirror-creds' }];
const LLAMACPP: ModelDeploymentProps = {
  model: { id: 'google/gemma-3-1b-it-qat-q8_0-gguf' },
  engine: { type: 'llamacpp' },
  image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
  provider: { overrides: { ...KAITO_CPU_NODE, ggufFile: 'gemma-3-1b-it-q8_0.gguf' } },
};

/** Every pod spec in a rendered resource, wherever the provider keeps it. */
function podSpecs(resource: any): any[] {
  switch (resource.kind) {
    case 'DynamoGraphDeployment':
      return resource.spec.components.map((c: any) => c.podTemplate.spec);
    case 'RayService': {
      const cluster = resource.spec.rayClusterConfig;
      return [cluster.headGroupSpec.template.spec, ...cluster.workerGroupSpecs.map((g: any) => g.template.spec)];
    }
    case 'Workspace':
      return [resource.inference.template.spec];
    default:
      throw new Error(`no pod specs known for ${resource.kind}`);
  }
}

describe('pull Secrets and ServiceAccount reach every pod', () => {
  test.each([
    ['dynamo', { ...GPU_VLLM }],
    ['dynamo (disaggregated)', { ...GPU_VLLM, resources: undefined, serving: { mode: 'disaggregated' as const }, scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } } }],
    ['kuberay', { ...GPU_VLLM, provider: { name: 'kuberay' as const } }],
    ['kaito (llama.cpp template)', LLAMACPP],
  ])('%s', (_, props) => {
    const specs = podSpecs(render({ ...props, ...IDENTITY }).resource);
    expect(specs.length).toBeGreaterThan(0);
    for (const spec of specs) {
      expect(spec).toMatchObject({ serviceAccountName: 'inference', imagePullSecrets: PULL });
    }
  });

  test('none given, none rendered', () => {
    for (const spec of podSpecs(render(GPU_VLLM).resource)) {
      expect(spec.serviceAccountName).toBeUndefined();
      expect(spec.imagePullSecrets).toBeUndefined();
    }
  });

  test('names that are not Secret or ServiceAccount names fail synth, naming the field', () => {
    expect(problemsFor({ ...GPU_VLLM, imagePullSecrets: ['ok', 'Not_A_Name'], serviceAccountName: 'SA' })).toEqual([
      { field: 'imagePullSecrets[1]', message: '"Not_A_Name" is not a Secret name, a DNS-1123 subdomain (at most 253 lower-case letters, digits, "-" and ".")' },
      { field: 'serviceAccountName', message: '"SA" is not a ServiceAccount name, a DNS-1123 subdomain (at most 253 lower-case letters, digits, "-" and ".")' },
    ]);
  });
});

describe('container arguments built from user values are not expanded by Kubernetes', () => {
  // The kubelet expands $(VAR) in command and args and turns $$ into $; every $ is doubled so the
  // runtime gets the value as written.
  test('Dynamo worker arguments', () => {
    const { resource } = render({ ...GPU_VLLM, model: { id: 'Qwen/Qwen3-8B', servedName: 'chat$(HOSTNAME)' }, engine: { type: 'vllm', args: { 'chat-template': '$(HOME)/t.jinja $$ $x' } } });
    const args: string[] = dynamoMain(dynamoComponents(resource).VllmWorker).args;
    expect(args).toContain('chat$$(HOSTNAME)');
    expect(args).toContain('$$(HOME)/t.jinja $$$$ $$x');
  });

  test('KAITO llama.cpp template arguments', () => {
    const { resource } = render({ ...LLAMACPP, engine: { type: 'llamacpp', args: { 'some-flag': '$(SECRET)' } } });
    expect(resource.inference.template.spec.containers[0].args).toContain('$$(SECRET)');
  });
});

describe('numbers and names the API server would refuse fail synth', () => {
  test('counts beyond a 32-bit integer', () => {
    expect(problemsFor({ ...GPU_VLLM, scaling: { replicas: 2 ** 31 } })).toEqual([
      { field: 'scaling.replicas', message: 'must be at most 2147483647 (Kubernetes stores it as a 32-bit integer), got 2147483648' },
    ]);
    expect(problemsFor({ ...GPU_VLLM, resources: { gpu: { count: 2 ** 40 } } })[0].field).toBe('resources.gpu.count');
  });

  test('a namespace over 63 characters', () => {
    const namespace = 'n'.repeat(64);
    expect(problemsFor({ ...GPU_VLLM, metadata: { name: 'md', namespace } })).toEqual([
      { field: 'metadata.namespace', message: `"${namespace}" is 64 characters; a namespace name has at most 63` },
    ]);
  });

  test('a toleration key that is not a label key', () => {
    expect(problemsFor({ ...GPU_VLLM, tolerations: [{ key: 'gpu type!', operator: 'Exists' }, { key: 'nvidia.com/gpu', operator: 'Exists' }] })).toEqual([
      { field: 'tolerations[0].key', message: '"gpu type!" is not a valid toleration key: a label key such as "nvidia.com/gpu" (optional DNS prefix and \'/\', then at most 63 letters, digits, \'-\', \'_\' or \'.\')' },
    ]);
  });
});

describe('the serving endpoint, for clients such as a Llama Stack remote::vllm provider', () => {
  test.each([
    ['dynamo', GPU_VLLM, { service: 'chat-frontend', port: 8000, model: GPU_VLLM.model.id }],
    ['kuberay', { ...GPU_VLLM, provider: { name: 'kuberay' as const } }, { service: 'chat-serve-svc', port: 8000, model: GPU_VLLM.model.id }],
    // The llama.cpp runner serves the GGUF file's name without .gguf.
    ['kaito', LLAMACPP, { service: 'chat', port: 80, model: 'gemma-3-1b-it-q8_0' }],
  ])('%s: Service, port, OpenAI base path and the model\'s name there, with the cluster URL', (_, props, expected) => {
    const md = new ModelDeployment(quietChart(), 'md', { ...props, metadata: { name: 'chat', namespace: 'ai' } });
    expect(md.endpoint).toEqual({
      name: 'chat',
      ...expected,
      basePath: '/v1',
      namespace: 'ai',
      url: `http://${expected.service}.ai.svc.cluster.local:${expected.port}/v1`,
    });
  });

  test('the chart\'s namespace when metadata has none; a namespace-relative URL when neither has one', () => {
    const inChart = new ModelDeployment(new Chart(Testing.app(), 'c', { namespace: 'team-a' }), 'md', { ...GPU_VLLM, metadata: { name: 'chat' } });
    expect(inChart.endpoint.url).toBe('http://chat-frontend.team-a.svc.cluster.local:8000/v1');
    const nowhere = new ModelDeployment(Testing.chart(), 'md', { ...GPU_VLLM, metadata: { name: 'chat' } });
    expect(nowhere.endpoint).toMatchObject({ namespace: undefined, url: 'http://chat-frontend:8000/v1' });
  });
});
