import { Testing } from 'cdk8s';
import { GPU_VLLM, KAITO_CPU_NODE, problemsFor } from './helpers';
import { ValidationError } from '../../src/errors';
import { ModelDeployment, ModelDeploymentProps, validateModelDeploymentSpec } from '../../src/model-deployment';
import { warningsOf } from '../../src/warnings';

const DISAGG: ModelDeploymentProps = {
  model: { id: 'meta-llama/Llama-3.1-70B-Instruct' },
  engine: { type: 'vllm' },
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { replicas: 1, gpu: { count: 2 } }, decode: { replicas: 1, gpu: { count: 1 } } },
};

describe('seed 003 §8, core webhook rules: exact messages, at synth', () => {
  test.each([
    ['vllm', 'vLLM engine requires GPU (set resources.gpu.count > 0)'],
    ['sglang', 'SGLang engine requires GPU (set resources.gpu.count > 0)'],
    ['trtllm', 'TensorRT-LLM engine requires GPU (set resources.gpu.count > 0)'],
  ] as const)('engine %s with gpu.count 0', (engine, message) => {
    expect(problemsFor({ model: { id: 'org/model' }, engine: { type: engine }, resources: { gpu: { count: 0 } } }))
      .toEqual([{ field: 'resources.gpu.count', message }]);
  });

  test('an omitted resources.gpu counts as gpu.count 0', () => {
    expect(problemsFor({ model: { id: 'org/model' }, engine: { type: 'vllm' } }))
      .toEqual([{ field: 'resources.gpu.count', message: 'vLLM engine requires GPU (set resources.gpu.count > 0)' }]);
  });

  test('llamacpp runs without a GPU', () => {
    expect(() => new ModelDeployment(Testing.chart(), 'md', {
      metadata: { name: 'md' }, model: { id: 'org/model-gguf' }, engine: { type: 'llamacpp' }, image: 'runner:1', provider: { overrides: KAITO_CPU_NODE },
    })).not.toThrow();
  });

  test('disaggregated with resources.gpu', () => {
    expect(problemsFor({ ...DISAGG, resources: { gpu: { count: 1 } } }))
      .toEqual([{ field: 'resources.gpu', message: 'Cannot specify both resources.gpu and scaling.prefill/decode' }]);
  });

  test.each([
    ['no scaling at all', undefined],
    ['prefill only', { prefill: { gpu: { count: 1 } } }],
    ['decode only', { decode: { gpu: { count: 1 } } }],
  ])('disaggregated without prefill or decode: %s', (_, scaling) => {
    expect(problemsFor({ ...DISAGG, scaling }))
      .toContainEqual({ field: 'scaling', message: 'Disaggregated mode requires scaling.prefill and scaling.decode' });
  });

  test.each([
    ['missing', { replicas: 1 }],
    ['zero', { replicas: 1, gpu: { count: 0 } }],
  ])('disaggregated without scaling.prefill.gpu.count (%s)', (_, prefill) => {
    expect(problemsFor({ ...DISAGG, scaling: { ...DISAGG.scaling, prefill } }))
      .toEqual([{ field: 'scaling.prefill.gpu.count', message: 'Disaggregated mode requires scaling.prefill.gpu.count' }]);
  });

  test('disaggregated without scaling.decode.gpu.count', () => {
    expect(problemsFor({ ...DISAGG, scaling: { ...DISAGG.scaling, decode: { replicas: 2 } } }))
      .toEqual([{ field: 'scaling.decode.gpu.count', message: 'Disaggregated mode requires scaling.decode.gpu.count' }]);
  });

  test('missing engine.type', () => {
    expect(problemsFor({ ...GPU_VLLM, engine: {} as any })).toEqual([{ field: 'engine.type', message: 'engine.type is required' }]);
    expect(problemsFor({ ...GPU_VLLM, engine: undefined as any })).toEqual([{ field: 'engine.type', message: 'engine.type is required' }]);
  });

  test('missing model.id when source is huggingface (explicit or default)', () => {
    const expected = [{ field: 'model.id', message: 'model.id is required when source is huggingface' }];
    expect(problemsFor({ ...GPU_VLLM, model: { source: 'huggingface' } })).toEqual(expected);
    expect(problemsFor({ ...GPU_VLLM, model: {} })).toEqual(expected);
  });

  test('model.id may be omitted for source custom (the core rule; providers may still need it)', () => {
    expect(() => new ModelDeployment(Testing.chart(), 'md', {
      metadata: { name: 'md' }, model: { source: 'custom' }, engine: { type: 'llamacpp' }, image: 'my/llama-with-model:1', provider: { overrides: KAITO_CPU_NODE },
    })).not.toThrow();
  });

  test("Provider '{name}' CRD not installed in cluster, when the cluster's API versions are given", () => {
    expect(problemsFor({ ...GPU_VLLM, clusterApiVersions: ['v1', 'apps/v1', 'kaito.sh/v1beta1'] })).toEqual([
      { field: 'provider.name', message: "Provider 'dynamo' CRD not installed in cluster" },
      { field: 'provider.name', message: "'dynamo' was selected automatically (default → dynamo (GPU inference default)); set provider.name to choose another provider" },
    ]);
    expect(() => new ModelDeployment(Testing.chart(), 'md', { metadata: { name: 'md' }, ...GPU_VLLM, clusterApiVersions: ['nvidia.com/v1beta1'] }))
      .not.toThrow();
  });

  test('every problem is reported at once, without a stack trace', () => {
    let error: unknown;
    try {
      new ModelDeployment(Testing.chart(), 'md', { metadata: { name: 'md' }, model: { source: 'huggingface' }, engine: { type: 'sglang' }, serving: { mode: 'disaggregated' }, resources: { gpu: { count: 1 } } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems.map((p) => p.message)).toEqual([
      'model.id is required when source is huggingface',
      'Cannot specify both resources.gpu and scaling.prefill/decode',
      'Disaggregated mode requires scaling.prefill and scaling.decode',
    ]);
    expect((error as Error).stack).toBe(`ValidationError: ${(error as Error).message}`);
    expect((error as Error).message).toContain("ModelDeployment 'test/md' has 3 invalid settings:");
  });
});

describe('webhook warnings: reported, never fatal', () => {
  const warnings = (props: ModelDeploymentProps) => {
    const chart = Testing.chart();
    new ModelDeployment(chart, 'md', { metadata: { name: 'md' }, ...props });
    return warningsOf(chart);
  };

  test('servedName with source custom', () => {
    expect(warnings({ ...GPU_VLLM, provider: { name: 'dynamo' }, model: { id: '/models/llama', source: 'custom', servedName: 'llama' } }))
      .toContain('servedName is ignored for custom source');
  });

  test('contextLength on trtllm is a flag (--max-seq-len), not a warning', () => {
    expect(warnings({ ...GPU_VLLM, engine: { type: 'trtllm', contextLength: 8192 } })).toEqual([]);
  });

  test('trustRemoteCode on trtllm and llamacpp', () => {
    expect(warnings({ ...GPU_VLLM, engine: { type: 'trtllm', trustRemoteCode: true } }))
      .toEqual(['engine.trustRemoteCode is ignored for trtllm: remote code is resolved when the TensorRT-LLM engine is built']);
    expect(warnings({ model: { id: 'org/m-gguf' }, engine: { type: 'llamacpp', trustRemoteCode: true }, image: 'runner:1', provider: { overrides: { ...KAITO_CPU_NODE, ggufFile: 'm.gguf' } } }))
      .toEqual(['engine.trustRemoteCode is ignored for llamacpp: GGUF models carry no code']);
  });

  test('scaling fields of the other serving mode', () => {
    expect(warnings({ ...GPU_VLLM, scaling: { replicas: 1, prefill: { gpu: { count: 1 } } } }))
      .toEqual(['scaling.prefill and scaling.decode are ignored in aggregated mode (set serving.mode: disaggregated to use them)']);
    expect(warnings({ ...DISAGG, scaling: { ...DISAGG.scaling, replicas: 3 } }))
      .toEqual(['scaling.replicas is ignored in disaggregated mode (set scaling.prefill.replicas and scaling.decode.replicas)']);
  });
});

describe('shape of every field', () => {
  test('engine.args keys starting with - are rejected', () => {
    expect(problemsFor({ ...GPU_VLLM, engine: { type: 'vllm', args: { '--enforce-eager': '', '-q': 'awq' } } })).toEqual([
      { field: 'engine.args.--enforce-eager', message: 'engine.args keys are flag names without leading dashes: write "enforce-eager", not "--enforce-eager"' },
      { field: 'engine.args.-q', message: 'engine.args keys are flag names without leading dashes: write "q", not "-q"' },
    ]);
  });

  test('engine.args must not repeat a flag the spec sets', () => {
    expect(problemsFor({ ...GPU_VLLM, engine: { type: 'vllm', args: { 'max-model-len': '4096', 'trust-remote-code': '' } } })).toEqual([
      { field: 'engine.args.max-model-len', message: '--max-model-len is set by engine.contextLength; set it there instead of in engine.args' },
      { field: 'engine.args.trust-remote-code', message: '--trust-remote-code is set by engine.trustRemoteCode; set it there instead of in engine.args' },
    ]);
  });

  test('engine.args values must be strings', () => {
    expect(problemsFor({ ...GPU_VLLM, engine: { type: 'vllm', args: { 'gpu-memory-utilization': 0.9 as any } } }))
      .toEqual([{ field: 'engine.args.gpu-memory-utilization', message: 'expected a string, got number 0.9' }]);
  });

  test('enumerations, integers, quantities and names', () => {
    expect(problemsFor({
      model: { id: 'not an id', source: 'ollama' as any },
      engine: { type: 'tgi' as any, contextLength: 0 },
      serving: { mode: 'split' as any },
      scaling: { replicas: -1 },
      resources: { gpu: { count: 1.5, type: 'Nvidia GPU' }, memory: '32GB', cpu: 4 as any },
      secrets: { huggingFaceToken: 'HF_TOKEN' },
      image: 'my image',
    })).toEqual([
      { field: 'model.source', message: 'expected one of huggingface, custom, got string "ollama"' },
      { field: 'engine.type', message: 'expected one of vllm, sglang, trtllm, llamacpp, got string "tgi"' },
      { field: 'engine.contextLength', message: 'must be at least 1, got 0' },
      { field: 'serving.mode', message: 'expected one of aggregated, disaggregated, got string "split"' },
      { field: 'scaling.replicas', message: 'must be at least 0, got -1' },
      { field: 'resources.gpu.count', message: 'expected an integer, got number 1.5' },
      { field: 'resources.gpu.type', message: '"Nvidia GPU" is not an extended resource name such as "nvidia.com/gpu"' },
      { field: 'resources.memory', message: '"32GB" is not a Kubernetes quantity such as "4", "500m" or "32Gi"' },
      { field: 'resources.cpu', message: 'expected a quantity string, got number 4 (quote it: "4")' },
      { field: 'image', message: '"my image" is not an image reference without whitespace' },
      { field: 'secrets.huggingFaceToken', message: '"HF_TOKEN" is not a Secret name, a DNS-1123 subdomain (at most 253 lower-case letters, digits, "-" and ".")' },
    ]);
  });

  test('a Hugging Face id is checked only for source huggingface', () => {
    expect(problemsFor({ ...GPU_VLLM, model: { id: 'bad id!' } }))
      .toEqual([{ field: 'model.id', message: '"bad id!" is not a Hugging Face model id such as "meta-llama/Llama-3.1-8B-Instruct"' }]);
  });

  test('env, tolerations, labels', () => {
    expect(problemsFor({
      ...GPU_VLLM,
      env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }, { name: '1 bad' }, { name: 'B', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      tolerations: [{ operator: 'Equal' }, { key: 'gpu', operator: 'Exists', value: 'yes' }, { key: 'k', effect: 'Sometimes' as any }],
      nodeSelector: { pool: 'gpu pool' },
      podTemplate: { metadata: { labels: { 'bad key!': 'x' } } },
    })).toEqual([
      { field: 'env[1].name', message: 'duplicate environment variable "A"' },
      { field: 'env[2].name', message: '"1 bad" is not a valid environment variable name' },
      { field: 'env[3]', message: 'set value or valueFrom, not both' },
      { field: 'podTemplate.metadata.labels.bad key!', message: '"bad key!" is not a valid label key ([prefix/]name, name at most 63 characters)' },
      { field: 'nodeSelector.pool', message: '"gpu pool" is not a valid label value (at most 63 alphanumerics, \'-\', \'_\' or \'.\')' },
      { field: 'tolerations[0].operator', message: 'a toleration without key must use operator Exists' },
      { field: 'tolerations[1].value', message: 'must be empty when operator is Exists' },
      { field: 'tolerations[2].effect', message: 'expected one of NoSchedule, PreferNoSchedule, NoExecute, got string "Sometimes"' },
    ]);
  });

  test('unknown fields are named (documents are checked as strictly as props)', () => {
    expect(validateModelDeploymentSpec({ ...GPU_VLLM, replicas: 2, engine: { type: 'vllm', maxLen: 1 } }).problems).toEqual([
      { field: 'replicas', message: 'unknown field; expected one of: model, provider, engine, serving, scaling, resources, image, env, podTemplate, secrets, nodeSelector, tolerations, imagePullSecrets, serviceAccountName' },
      { field: 'engine.maxLen', message: 'unknown field; expected one of: type, contextLength, trustRemoteCode, args' },
    ]);
  });

  test('the name must be a valid Service name', () => {
    expect(problemsFor({ ...GPU_VLLM, metadata: { name: 'Llama_8B' } })).toEqual([
      { field: 'metadata.name', message: '"Llama_8B" is not a valid name: lower-case letters, digits and \'-\', starting with a letter, at most 63 characters' },
    ]);
  });

  test('a spec that is not a map', () => {
    expect(validateModelDeploymentSpec('vllm').problems).toEqual([{ field: '', message: 'the spec must be a map with model and engine' }]);
  });
});
