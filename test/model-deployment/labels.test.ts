import { Testing } from 'cdk8s';
import { GPU_VLLM, KAITO_CPU_NODE, quietChart, render } from './helpers';
import { ModelDeployment, ModelDeploymentProps } from '../../src/model-deployment';

const LLAMACPP: ModelDeploymentProps = {
  model: { id: 'o/m-gguf' }, engine: { type: 'llamacpp' }, image: 'runner:1', provider: { overrides: { ...KAITO_CPU_NODE, ggufFile: 'm.gguf' } },
};

describe('labels and annotations (domain kube-inference.io)', () => {
  test('only labels with our prefix are copied to the provider resource; the others are reported', () => {
    const { resource, warnings } = render({
      ...GPU_VLLM,
      metadata: { labels: { 'kube-inference.io/team': 'ml', 'team': 'ml', 'app': 'chat' }, annotations: { 'argocd.argoproj.io/sync-wave': '2' } },
    });
    expect(resource.metadata.labels['kube-inference.io/team']).toBe('ml');
    expect(resource.metadata.labels.team).toBeUndefined();
    expect(resource.metadata.labels.app).toBeUndefined();
    expect(warnings).toEqual([
      'metadata.labels app, team not copied to the DynamoGraphDeployment: only labels with the kube-inference.io/ prefix are (use podTemplate.metadata.labels for pod labels)',
    ]);
    expect(resource.metadata.annotations).toEqual({
      'argocd.argoproj.io/sync-wave': '2',
      'kube-inference.io/provider': 'dynamo',
      'kube-inference.io/selection-reason': 'default → dynamo (GPU inference default)',
    });
  });

  test('the report names the kind actually rendered: KAITO renders an InferenceSet for replicas other than 1', () => {
    const { objects, warnings } = render({ ...LLAMACPP, scaling: { replicas: 2 }, metadata: { labels: { team: 'ml' } } });
    expect(objects.map((o) => o.kind)).toContain('InferenceSet');
    expect(warnings).toEqual([
      'metadata.labels team not copied to the InferenceSet: only labels with the kube-inference.io/ prefix are (use podTemplate.metadata.labels for pod labels)',
    ]);
  });

  test('managed-by, the standard app.kubernetes.io labels and ours are always there and cannot be overridden', () => {
    const { resource } = render({ ...GPU_VLLM, metadata: { labels: { 'kube-inference.io/provider': 'other' } } }, 'chat');
    expect(resource.metadata.labels).toEqual({
      'app.kubernetes.io/component': 'inference',
      'app.kubernetes.io/instance': 'chat',
      'app.kubernetes.io/managed-by': 'kube-inference-constructs',
      'app.kubernetes.io/name': 'model-deployment',
      'kube-inference.io/engine-type': 'vllm',
      'kube-inference.io/managed-by': 'kube-inference-constructs',
      'kube-inference.io/model-deployment': 'chat',
      'kube-inference.io/model-source': 'huggingface',
      'kube-inference.io/provider': 'dynamo',
    });
  });

  test('podTemplate.metadata reaches the pods of every provider', () => {
    const podTemplate = { metadata: { labels: { team: 'ml' }, annotations: { 'prometheus.io/scrape': 'true' } } };
    const expected = { labels: { 'team': 'ml', 'kube-inference.io/model-deployment': 'md' }, annotations: { 'prometheus.io/scrape': 'true' } };
    const dynamo = render({ ...GPU_VLLM, podTemplate }).resource;
    expect(dynamo.spec.components.map((c: any) => c.podTemplate.metadata)).toEqual([expected, expected]);
    const kaito = render({ ...LLAMACPP, podTemplate }).resource;
    expect(kaito.inference.template.metadata).toEqual(expected);
    const ray = render({ ...GPU_VLLM, provider: { name: 'kuberay' }, podTemplate }).resource;
    expect(ray.spec.rayClusterConfig.headGroupSpec.template.metadata).toEqual(expected);
    expect(ray.spec.rayClusterConfig.workerGroupSpecs[0].template.metadata).toEqual(expected);
  });

  test('the namespace is the metadata namespace, or the chart\'s', () => {
    expect(render({ ...GPU_VLLM, metadata: { namespace: 'inference' } }).resource.metadata.namespace).toBe('inference');
    expect(render(GPU_VLLM).resource.metadata.namespace).toBeUndefined();
  });
});

test('without metadata.name, the name derives from the construct path (stable across runs)', () => {
  const chart = quietChart();
  const md = new ModelDeployment(chart, 'chat', GPU_VLLM);
  expect(md.name).toMatch(/^test-chat-c8[0-9a-f]{6}$/);
  expect(Testing.synth(chart)[0].metadata.name).toBe(md.name);
});
