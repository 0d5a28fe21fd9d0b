import { GPU_VLLM, KAITO_CPU_NODE, KAITO_GPU_NODE, problemsFor } from './helpers';
import { DEFAULT_GPU_TYPE, DynamoProvider, KaitoProvider, KubeRayProvider, ModelDeploymentProps, ProviderSpec, resolveSpec } from '../../src/model-deployment';

const DISAGG: ModelDeploymentProps = {
  model: { id: 'meta-llama/Llama-3.1-70B-Instruct' },
  engine: { type: 'vllm' },
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { gpu: { count: 2 } }, decode: { gpu: { count: 1 } } },
};

describe('seed 003 §8, provider compatibility: exact messages, at synth', () => {
  test.each([
    ['sglang', 'kaito', 'engine.type', 'KAITO does not support sglang engine'],
    ['trtllm', 'kaito', 'engine.type', 'KAITO does not support trtllm engine'],
    ['llamacpp', 'dynamo', 'engine.type', 'Dynamo does not support llamacpp engine'],
    ['llamacpp', 'kuberay', 'engine.type', 'KubeRay does not support llamacpp engine'],
    ['sglang', 'kuberay', 'engine.type', 'KubeRay does not support sglang engine'],
    ['trtllm', 'kuberay', 'engine.type', 'KubeRay does not support trtllm engine'],
  ] as const)('engine %s with provider %s', (engine, provider, field, message) => {
    // KAITO's node SKU is given so that the engine is the only problem (other providers reject the override).
    const overrides = provider === 'kaito' ? KAITO_GPU_NODE : undefined;
    const problems = problemsFor({ ...GPU_VLLM, image: 'img:1.0.0', engine: { type: engine }, provider: { name: provider, overrides } as ProviderSpec });
    expect(problems).toEqual([{ field, message }]);
  });

  test.each([
    ['dynamo', 'Dynamo requires GPU (set resources.gpu.count > 0)'],
    ['kuberay', 'KubeRay requires GPU (set resources.gpu.count > 0)'],
  ] as const)('gpu.count 0 with provider %s', (provider, message) => {
    // llama.cpp passes the core rules without a GPU; the provider's own checks catch the rest.
    const problems = problemsFor({ model: { id: 'org/m-gguf' }, engine: { type: 'llamacpp' }, resources: { gpu: { count: 0 } }, provider: { name: provider } });
    expect(problems).toContainEqual({ field: 'resources.gpu.count', message });
  });

  test('mode disaggregated with provider kaito', () => {
    expect(problemsFor({ ...DISAGG, provider: { name: 'kaito', overrides: KAITO_GPU_NODE } }))
      .toEqual([{ field: 'serving.mode', message: 'KAITO does not support disaggregated mode' }]);
  });

  test('an auto-selected provider that cannot run the spec says it was auto-selected (KAITO is picked for llama.cpp)', () => {
    expect(problemsFor({ ...DISAGG, engine: { type: 'llamacpp' }, image: 'runner:1', provider: { overrides: KAITO_GPU_NODE } })).toEqual([
      { field: 'serving.mode', message: 'KAITO does not support disaggregated mode' },
      { field: 'provider.name', message: "'kaito' was selected automatically (engine=llamacpp → kaito (only llamacpp provider)); set provider.name to choose another provider" },
    ]);
  });

  test('KAITO picked automatically without a node SKU names the fix and says it was auto-selected', () => {
    expect(problemsFor({ model: { id: 'org/m-gguf' }, engine: { type: 'llamacpp' }, image: 'runner:1', provider: { overrides: { ggufFile: 'm.gguf' } } })).toEqual([
      {
        field: 'provider.overrides.instanceType',
        message: 'KAITO\'s webhook requires resource.instanceType when node auto-provisioning is enabled (the default KAITO install): '
          + 'set provider.overrides.instanceType to the node SKU KAITO should provision (a CPU SKU such as "Standard_D8s_v5"), '
          + 'or, when KAITO was installed with disableNodeAutoProvisioning=true, set provider.overrides.nodeProvisioning: bring-your-own',
      },
      { field: 'provider.name', message: "'kaito' was selected automatically (no GPU requested → kaito (only CPU provider)); set provider.name to choose another provider" },
    ]);
  });
});

describe('further provider checks (what the upstream resource could not express)', () => {
  test('KAITO: llama.cpp needs an image; vLLM presets need a Hugging Face model', () => {
    expect(problemsFor({ model: { id: 'org/m-gguf' }, engine: { type: 'llamacpp' } }))
      .toContainEqual({ field: 'image', message: 'KAITO requires image for the llamacpp engine (there is no default llama.cpp image)' });
    expect(problemsFor({ ...GPU_VLLM, model: { id: '/models/x', source: 'custom' }, provider: { name: 'kaito', overrides: KAITO_GPU_NODE } })).toEqual([{
      field: 'model.source',
      message: 'KAITO runs vLLM from a preset, which downloads the model from Hugging Face: use source huggingface, or engine llamacpp with an image that contains the model',
    }]);
  });

  test('Dynamo and KubeRay need a model id to start the engine', () => {
    for (const provider of ['dynamo', 'kuberay'] as const) {
      expect(problemsFor({ ...GPU_VLLM, model: { source: 'custom' }, image: 'img:1.0.0', provider: { name: provider } }).map((p) => p.field)).toEqual(['model.id']);
    }
  });

  test('engine.args must not repeat flags the provider sets', () => {
    expect(problemsFor({ ...GPU_VLLM, engine: { type: 'vllm', args: { 'model': 'x', 'served-model-name': 'y' } } })).toEqual([
      { field: 'engine.args.model', message: '--model is set by model.id; remove it from engine.args' },
      { field: 'engine.args.served-model-name', message: '--served-model-name is set by model.servedName; remove it from engine.args' },
      { field: 'provider.name', message: "'dynamo' was selected automatically (default → dynamo (GPU inference default)); set provider.name to choose another provider" },
    ]);
    expect(problemsFor({ ...DISAGG, provider: { name: 'kuberay' }, engine: { type: 'vllm', args: { 'kv-transfer-config': '{}' } } }))
      .toEqual([{ field: 'engine.args.kv-transfer-config', message: '--kv-transfer-config is set by serving.mode (NIXL KV transfer); remove it from engine.args' }]);
    expect(problemsFor({ model: { id: 'org/m-gguf' }, engine: { type: 'llamacpp', args: { address: ':8080' } }, image: 'r:1', provider: { name: 'kaito', overrides: { ...KAITO_CPU_NODE, ggufFile: 'm.gguf' } } }))
      .toEqual([{ field: 'engine.args.address', message: '--address is set by the KAITO llama.cpp template (port 5000); remove it from engine.args' }]);
  });

  test('names must leave room for the Services the operators create', () => {
    const long = 'a'.repeat(48);
    expect(problemsFor({ ...GPU_VLLM, provider: { name: 'kuberay' }, metadata: { name: long } })).toEqual([{
      field: 'metadata.name',
      message: `"${long}" is 48 characters; at most 47 are allowed because KubeRay appends 6 characters for the RayCluster and "-serve-svc" for its Service`,
    }]);
    const dynamoName = 'b'.repeat(46);
    expect(problemsFor({ ...DISAGG, provider: { name: 'dynamo' }, metadata: { name: dynamoName } })).toEqual([{
      field: 'metadata.name',
      message: `"${dynamoName}" is 46 characters; at most 45 are allowed because Dynamo names a Service "<name>-vllmprefillworker" (at most 63 characters)`,
    }]);
  });

  test('KubeRay cannot run a disaggregated role with zero replicas', () => {
    expect(problemsFor({ ...DISAGG, provider: { name: 'kuberay' }, scaling: { prefill: { replicas: 0, gpu: { count: 1 } }, decode: { gpu: { count: 1 } } } }))
      .toEqual([{ field: 'scaling.prefill.replicas', message: 'Ray Serve rejects num_replicas 0: disaggregated roles need at least 1 replica on KubeRay' }]);
  });

  test('capabilities match the matrix of seed 003 §4.5', () => {
    const caps = (p: { capabilities: object }) => p.capabilities;
    expect(caps(new KaitoProvider())).toEqual({ engines: ['vllm', 'llamacpp'], servingModes: ['aggregated'], cpuSupport: true, gpuSupport: true });
    expect(caps(new DynamoProvider())).toEqual({ engines: ['vllm', 'sglang', 'trtllm'], servingModes: ['aggregated', 'disaggregated'], cpuSupport: false, gpuSupport: true });
    expect(caps(new KubeRayProvider())).toEqual({ engines: ['vllm'], servingModes: ['aggregated', 'disaggregated'], cpuSupport: false, gpuSupport: true });
  });

  test('checkCompatibility is a pure function of the resolved spec', () => {
    const d = resolveSpec({ model: { id: 'org/m' }, engine: { type: 'sglang' }, resources: { gpu: { count: 1 } }, provider: { overrides: KAITO_GPU_NODE } }, 'md');
    expect(d.resources.gpu.type).toBe(DEFAULT_GPU_TYPE);
    expect(new KaitoProvider().checkCompatibility(d)).toEqual([{ field: 'engine.type', message: 'KAITO does not support sglang engine' }]);
    expect(new DynamoProvider().checkCompatibility(d)).toEqual([]);
  });
});
