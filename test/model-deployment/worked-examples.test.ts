import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { dynamoComponents, dynamoMain, expectSchemaValid } from './helpers';
import { ModelDeployment, renderModelDeploymentDocument } from '../../src/model-deployment';
import { warningsOf } from '../../src/warnings';

// The three worked examples of seed 003 §4.2, written as the seed writes them (ModelDeployment
// documents), rendered through the document path and the construct path alike.
const EXAMPLE_1 = `
apiVersion: kubefoundry.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: llama-8b
  namespace: default
spec:
  model:
    id: "meta-llama/Llama-3.1-8B-Instruct"
    source: "huggingface"
  engine:
    type: "vllm"
    contextLength: 8192
  serving:
    mode: "aggregated"
  scaling:
    replicas: 1
  resources:
    gpu:
      count: 1
    memory: "32Gi"
  secrets:
    huggingFaceToken: "hf-token"
`;

const EXAMPLE_2 = `
apiVersion: kubefoundry.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: gemma-cpu
  namespace: default
spec:
  model:
    id: "google/gemma-3-1b-it-qat-q8_0-gguf"
    source: "huggingface"
  engine:
    type: "llamacpp"
  serving:
    mode: "aggregated"
  scaling:
    replicas: 1
  resources:
    gpu:
      count: 0  # No GPU - triggers KAITO selection
    memory: "16Gi"
    cpu: "8"
  image: "ghcr.io/sozercan/llama-cpp-runner:latest"
  provider:
    overrides:
      instanceType: "Standard_D8s_v5"  # KAITO provisions a node of this SKU (no provider.name: still auto-selected)
      ggufFile: "gemma-3-1b-it-q8_0.gguf"
`;

const EXAMPLE_3 = `
apiVersion: kubefoundry.ai/v1alpha1
kind: ModelDeployment
metadata:
  name: llama-70b-pd
  namespace: default
spec:
  model:
    id: "meta-llama/Llama-3.1-70B-Instruct"
    source: "huggingface"
  provider:
    name: "dynamo"
    overrides:
      routerMode: "kv"
      frontend:
        replicas: 2
        resources:
          cpu: "4"
          memory: "8Gi"
  engine:
    type: "vllm"
  serving:
    mode: "disaggregated"
  scaling:
    prefill:
      replicas: 2
      gpu:
        count: 4
      memory: "128Gi"
    decode:
      replicas: 4
      gpu:
        count: 2
      memory: "64Gi"
  secrets:
    huggingFaceToken: "hf-token"
`;

function renderDocument(yaml: string) {
  const doc = parse(yaml);
  const chart = Testing.chart();
  const md = renderModelDeploymentDocument(chart, doc, doc.metadata.name);
  const objects = Testing.synth(chart);
  return { md, objects, warnings: warningsOf(chart) };
}

describe('seed 003 §4.2 example 1: GPU deployment → Dynamo (auto-selected)', () => {
  const { md, objects, warnings } = renderDocument(EXAMPLE_1);
  const dgd = objects[0];

  test('renders one DynamoGraphDeployment that validates against the CRD', () => {
    expect(objects.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`))
      .toEqual(['nvidia.com/v1beta1 DynamoGraphDeployment default/llama-8b']);
    expectSchemaValid(objects);
    expect(warnings).toEqual([]);
  });

  test('selects Dynamo with the seed reason and records it on the resource', () => {
    expect(md.provider.name).toBe('dynamo');
    expect(md.selectionReason).toBe('default → dynamo (GPU inference default)');
    expect(dgd.metadata.annotations['kube-inference.io/selection-reason']).toBe('default → dynamo (GPU inference default)');
    expect(dgd.metadata.labels['kube-inference.io/provider']).toBe('dynamo');
  });

  test('has a frontend and a vLLM worker with the context length flag, the GPU as a resource and the HF token', () => {
    const { Frontend, VllmWorker } = dynamoComponents(dgd);
    expect(dgd.apiVersion).toBe('nvidia.com/v1beta1');
    expect(dgd.spec.backendFramework).toBe('vllm');
    expect(Frontend).toMatchObject({ type: 'frontend', replicas: 1 });
    expect(VllmWorker).toMatchObject({ type: 'worker', replicas: 1 });
    for (const c of [Frontend, VllmWorker]) expect(dynamoMain(c).envFrom).toEqual([{ secretRef: { name: 'hf-token' } }]);
    expect(dynamoMain(VllmWorker).resources.limits).toEqual({ 'memory': '32Gi', 'nvidia.com/gpu': '1' });
    expect(dynamoMain(VllmWorker).command).toEqual(['python3', '-m', 'dynamo.vllm']);
    expect(dynamoMain(VllmWorker).args).toEqual(['--model', 'meta-llama/Llama-3.1-8B-Instruct', '--max-model-len', '8192']);
  });

  test('matches the snapshot', () => {
    expect(objects).toMatchSnapshot();
  });
});

describe('seed 003 §4.2 example 2: CPU deployment (GGUF) → KAITO (auto-selected)', () => {
  const { md, objects, warnings } = renderDocument(EXAMPLE_2);
  const ws = objects[0];

  test('renders one Workspace with resource and inference at the top level, valid against the CRD', () => {
    expect(objects.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`)).toEqual(['kaito.sh/v1beta1 Workspace gemma-cpu']);
    expect(ws.spec).toBeUndefined();
    expect(Object.keys(ws).sort()).toEqual(['apiVersion', 'inference', 'kind', 'metadata', 'resource']);
    expectSchemaValid(objects);
    expect(warnings).toEqual([]);
  });

  test('selects KAITO because no GPU was requested', () => {
    expect(md.provider.name).toBe('kaito');
    expect(ws.metadata.annotations['kube-inference.io/selection-reason']).toBe('no GPU requested → kaito (only CPU provider)');
    expect(ws.metadata.labels['kube-inference.io/model-source']).toBe('huggingface');
  });

  test('runs the user image on a provisioned Linux node from a pod template', () => {
    expect(ws.resource).toEqual({ instanceType: 'Standard_D8s_v5', labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux' } } });
    const container = ws.inference.template.spec.containers[0];
    expect(container).toEqual({
      name: 'model',
      image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
      // The seed writes huggingface://<repo>/<file>; the runner image downloads a file by its URL (upstream wins: docs/model-deployment.md).
      args: ['https://huggingface.co/google/gemma-3-1b-it-qat-q8_0-gguf/resolve/main/gemma-3-1b-it-q8_0.gguf', '--address=:5000'],
      ports: [{ containerPort: 5000 }],
      resources: { requests: { memory: '16Gi', cpu: '8' } },
    });
  });

  test('matches the snapshot', () => {
    expect(objects).toMatchSnapshot();
  });
});

describe('seed 003 §4.2 example 3: disaggregated P/D with KV routing → Dynamo', () => {
  const { md, objects, warnings } = renderDocument(EXAMPLE_3);
  const dgd = objects[0];

  test('renders a DynamoGraphDeployment valid against the CRD, router mode as a frontend argument', () => {
    expectSchemaValid(objects);
    expect(warnings).toEqual([]);
    expect(md.selectionReason).toBe('explicit provider selection');
    const frontend = dynamoComponents(dgd).Frontend;
    // The seed writes `router-mode: kv` as a service field; the CRD has no such field.
    expect(frontend['router-mode']).toBeUndefined();
    expect(dynamoMain(frontend).args).toEqual(['--http-port', '8000', '--router-mode', 'kv']);
    expect(frontend.replicas).toBe(2);
    expect(dynamoMain(frontend).resources.requests).toEqual({ cpu: '4', memory: '8Gi' });
  });

  test('has prefill and decode workers (component types of their own) with --disaggregation-mode', () => {
    const { VllmPrefillWorker, VllmDecodeWorker } = dynamoComponents(dgd);
    expect(dgd.spec.components.map((c: any) => c.name)).toEqual(['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker']);
    expect(VllmPrefillWorker).toMatchObject({ type: 'prefill', replicas: 2 });
    expect(dynamoMain(VllmPrefillWorker).resources.limits).toEqual({ 'memory': '128Gi', 'nvidia.com/gpu': '4' });
    expect(VllmDecodeWorker).toMatchObject({ type: 'decode', replicas: 4 });
    expect(dynamoMain(VllmDecodeWorker).resources.limits).toEqual({ 'memory': '64Gi', 'nvidia.com/gpu': '2' });
    // NIXL KV transfer on both sides; with KV routing the prefill worker publishes KV events
    // (vLLM decode workers publish none).
    const nixl = ['--kv-transfer-config', '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'];
    expect(dynamoMain(VllmPrefillWorker).args).toEqual(
      ['--model', 'meta-llama/Llama-3.1-70B-Instruct', '--disaggregation-mode', 'prefill', '--tensor-parallel-size', '4',
        '--kv-events-config', '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:20080"}', ...nixl]);
    expect(dynamoMain(VllmDecodeWorker).args).toEqual(
      ['--model', 'meta-llama/Llama-3.1-70B-Instruct', '--disaggregation-mode', 'decode', '--tensor-parallel-size', '2', ...nixl]);
  });

  test('matches the snapshot', () => {
    expect(objects).toMatchSnapshot();
  });
});

test('the construct renders the same objects as the document', () => {
  const doc = parse(EXAMPLE_3);
  const chart = Testing.chart();
  new ModelDeployment(chart, 'x', { ...doc.spec, metadata: { name: 'llama-70b-pd', namespace: 'default' } });
  expect(Testing.synth(chart)).toEqual(renderDocument(EXAMPLE_3).objects);
});

test('the same input renders the same bytes', () => {
  const once = JSON.stringify([EXAMPLE_1, EXAMPLE_2, EXAMPLE_3].map((y) => renderDocument(y).objects));
  const twice = JSON.stringify([EXAMPLE_1, EXAMPLE_2, EXAMPLE_3].map((y) => renderDocument(y).objects));
  expect(twice).toBe(once);
});
