// One model-serving spec, rendered at synth time into the custom resource of each provider:
// a KAITO Workspace, NVIDIA Dynamo DynamoGraphDeployments and a KubeRay RayService; then one OGX
// server that serves three of them through its own API (`models: [...endpoint]`).
//
//   npx tsc --build          # at the repository root: the example imports the compiled package
//   cdk8s synth              # writes dist/models.k8s.yaml
//
import { App, Chart } from 'cdk8s';
import { LlamaStackWithProviders, ModelDeployment } from 'kube-inference-constructs';

const app = new App();
const chart = new Chart(app, 'models', { namespace: 'default' });

// GPU vLLM with no provider named → Dynamo ("default → dynamo").
const llama8b = new ModelDeployment(chart, 'llama-8b', {
  metadata: { name: 'llama-8b' },
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct', source: 'huggingface' },
  engine: { type: 'vllm', contextLength: 8192 },
  serving: { mode: 'aggregated' },
  scaling: { replicas: 1 },
  resources: { gpu: { count: 1 }, memory: '32Gi' },
  secrets: { huggingFaceToken: 'hf-token' },
});

// A GGUF model on CPU → KAITO ("no GPU requested → kaito"). KAITO's default install provisions a
// node of provider.overrides.instanceType; ggufFile picks the one file of the repository to load.
new ModelDeployment(chart, 'gemma-cpu', {
  metadata: { name: 'gemma-cpu' },
  model: { id: 'google/gemma-3-1b-it-qat-q8_0-gguf', source: 'huggingface' },
  engine: { type: 'llamacpp' },
  serving: { mode: 'aggregated' },
  scaling: { replicas: 1 },
  resources: { gpu: { count: 0 }, memory: '16Gi', cpu: '8' },
  image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
  provider: { overrides: { instanceType: 'Standard_D8s_v5', ggufFile: 'gemma-3-1b-it-q8_0.gguf' } },
});

// Disaggregated prefill/decode with KV-cache-aware routing → Dynamo.
new ModelDeployment(chart, 'llama-70b-pd', {
  metadata: { name: 'llama-70b-pd' },
  model: { id: 'meta-llama/Llama-3.1-70B-Instruct', source: 'huggingface' },
  provider: {
    name: 'dynamo',
    overrides: { routerMode: 'kv', frontend: { replicas: 2, resources: { cpu: '4', memory: '8Gi' } } },
  },
  engine: { type: 'vllm' },
  serving: { mode: 'disaggregated' },
  scaling: {
    prefill: { replicas: 2, gpu: { count: 4 }, memory: '128Gi' },
    decode: { replicas: 4, gpu: { count: 2 }, memory: '64Gi' },
  },
  secrets: { huggingFaceToken: 'hf-token' },
});

// A vLLM preset on KAITO: the context length goes through the Workspace's inference ConfigMap.
const phi4 = new ModelDeployment(chart, 'phi-4-mini', {
  metadata: { name: 'phi-4-mini', labels: { 'kube-inference.io/team': 'assistants' } },
  provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } },
  model: { id: 'microsoft/Phi-4-mini-instruct' },
  engine: { type: 'vllm', contextLength: 16384, args: { 'gpu-memory-utilization': '0.9' } },
  resources: { gpu: { count: 1 } },
  secrets: { huggingFaceToken: 'hf-token' },
});

// KubeRay is never chosen automatically: name it. vLLM runs on Ray Serve LLM.
const qwen3 = new ModelDeployment(chart, 'qwen3-ray', {
  metadata: { name: 'qwen3-ray' },
  provider: {
    name: 'kuberay',
    overrides: { head: { resources: { cpu: '4', memory: '8Gi' } } },
  },
  model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen3-8b' },
  engine: { type: 'vllm', contextLength: 32768, args: { 'enable-prefix-caching': '' } },
  scaling: { replicas: 2 },
  resources: { gpu: { count: 1 }, memory: '48Gi', cpu: '8' },
  podTemplate: { metadata: { labels: { team: 'assistants' } } },
  tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
  secrets: { huggingFaceToken: 'hf-token' },
});

// One OGX server in front of three of them: each endpoint becomes a remote::vllm provider reaching the
// model's Service (Dynamo's `llama-8b-frontend:8000`, KAITO's `phi-4-mini:80`, KubeRay's
// `qwen3-ray-serve-svc:8000`) and a registered model: llama-8b/meta-llama/Llama-3.1-8B-Instruct,
// phi-4-mini/microsoft/Phi-4-mini-instruct, qwen3-ray/qwen3-8b.
new LlamaStackWithProviders(chart, 'assistant', {
  name: 'assistant',
  distribution: { name: 'starter' },
  models: [llama8b.endpoint, phi4.endpoint, qwen3.endpoint],
});

app.synth();
