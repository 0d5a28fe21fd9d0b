import { parse } from 'yaml';
import { problemsFor, render } from './helpers';
import { KUBERAY_MESSAGES, ModelDeploymentProps, ProviderRegistry } from '../../src/model-deployment';
import { describeWhen } from '../sandbox/host';
import { upstreamAdmission, upstreamAdmissionSupport } from '../upstream/admission';

const AGG: ModelDeploymentProps = {
  provider: { name: 'kuberay' },
  model: { id: 'Qwen/Qwen3-8B' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 2 }, memory: '48Gi', cpu: '12' },
  scaling: { replicas: 2 },
};
const DISAGG: ModelDeploymentProps = {
  provider: { name: 'kuberay' },
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
  engine: { type: 'vllm', contextLength: 8192 },
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { replicas: 2, gpu: { count: 1 }, memory: '32Gi' }, decode: { replicas: 1, gpu: { count: 2 }, memory: '64Gi' } },
};

describe('KubeRay RayService (ray.io/v1)', () => {
  test('serveConfigV2 runs vLLM on Ray Serve LLM: build_openai_app with one llm_config', () => {
    const { resource } = render({
      ...AGG,
      model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen3' },
      engine: { type: 'vllm', contextLength: 16384, trustRemoteCode: true, args: { 'gpu-memory-utilization': '0.9', 'enforce-eager': '', 'dtype': 'bfloat16' } },
    });
    expect(resource.apiVersion).toBe('ray.io/v1');
    expect(parse(resource.spec.serveConfigV2)).toEqual({
      applications: [{
        name: 'llm',
        route_prefix: '/',
        import_path: 'ray.serve.llm:build_openai_app',
        args: {
          llm_configs: [{
            model_loading_config: { model_id: 'qwen3', model_source: 'Qwen/Qwen3-8B' },
            engine_kwargs: { dtype: 'bfloat16', enforce_eager: true, gpu_memory_utilization: 0.9, max_model_len: 16384, tensor_parallel_size: 2, trust_remote_code: true },
            deployment_config: { num_replicas: 2 },
          }],
        },
      }],
    });
  });

  test('the head group: default resources, num-cpus 0 so no Serve replica lands on it, overrides win', () => {
    const head = (props: ModelDeploymentProps) => render(props).resource.spec.rayClusterConfig.headGroupSpec;
    const defaults = head(AGG);
    // As KubeRay's own LLM sample (ray-operator/config/samples/ray-service.llm-serve.yaml): Ray schedules
    // nothing that needs a CPU on the head.
    expect(defaults.rayStartParams).toEqual({ 'num-cpus': '0' });
    expect(defaults.template.spec.containers[0]).toMatchObject({
      name: 'ray-head',
      image: 'rayproject/ray-llm:2.60.0-py312-cu130',
      resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } },
    });
    expect(defaults.template.spec.containers[0].ports.map((p: any) => p.containerPort)).toEqual([6379, 8265, 10001, 8000]);
    const custom = head({ ...AGG, provider: { name: 'kuberay', overrides: { head: { resources: { cpu: '4', memory: '8Gi' }, rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-cpus': '2' } } } } });
    expect(custom.rayStartParams).toEqual({ 'dashboard-host': '0.0.0.0', 'num-cpus': '2' });
    expect(custom.template.spec.containers[0].resources).toEqual({ requests: { cpu: '4', memory: '8Gi' }, limits: { cpu: '4', memory: '8Gi' } });
  });

  test('a GPU worker group sized from the spec, replicas fixed', () => {
    const { resource } = render(AGG);
    expect(resource.spec.rayClusterConfig.rayVersion).toBe('2.60.0');
    expect(resource.spec.rayClusterConfig.enableInTreeAutoscaling).toBe(false);
    expect(resource.spec.rayClusterConfig.workerGroupSpecs).toEqual([{
      groupName: 'gpu-workers',
      replicas: 2,
      minReplicas: 2,
      maxReplicas: 2,
      template: {
        metadata: { labels: { 'kube-inference.io/model-deployment': 'md' } },
        spec: {
          containers: [{
            name: 'ray-worker',
            image: 'rayproject/ray-llm:2.60.0-py312-cu130',
            resources: {
              requests: { 'cpu': '12', 'memory': '48Gi', 'nvidia.com/gpu': '2' },
              limits: { 'cpu': '12', 'memory': '48Gi', 'nvidia.com/gpu': '2' },
            },
          }],
        },
      },
    }]);
  });

  test('disaggregated: build_pd_openai_app with prefill and decode configs over NIXL, one worker group per role', () => {
    const { resource } = render(DISAGG);
    const config = parse(resource.spec.serveConfigV2);
    expect(config.applications[0].import_path).toBe('ray.serve.llm:build_pd_openai_app');
    const { prefill_config: prefill, decode_config: decode } = config.applications[0].args;
    expect(prefill).toEqual({
      model_loading_config: { model_id: 'meta-llama/Llama-3.1-8B-Instruct', model_source: 'meta-llama/Llama-3.1-8B-Instruct' },
      engine_kwargs: { kv_transfer_config: { kv_connector: 'NixlConnector', kv_role: 'kv_both' }, max_model_len: 8192, tensor_parallel_size: 1 },
      deployment_config: { num_replicas: 2 },
    });
    expect(decode.engine_kwargs.tensor_parallel_size).toBe(2);
    expect(decode.deployment_config).toEqual({ num_replicas: 1 });
    const groups = resource.spec.rayClusterConfig.workerGroupSpecs;
    expect(groups.map((g: any) => [g.groupName, g.replicas, g.template.spec.containers[0].resources.limits])).toEqual([
      ['prefill-workers', 2, { 'memory': '32Gi', 'nvidia.com/gpu': '1' }],
      ['decode-workers', 1, { 'memory': '64Gi', 'nvidia.com/gpu': '2' }],
    ]);
  });

  test('scaling.replicas 0 is refused: KubeRay never reports a RayService without Serve applications Ready', () => {
    expect(problemsFor({ ...AGG, scaling: { replicas: 0 } })).toEqual([{ field: 'scaling.replicas', message: KUBERAY_MESSAGES.zeroReplicas }]);
    expect(KUBERAY_MESSAGES.zeroReplicas).toMatch(/delete the ModelDeployment/);
  });

  test('parallel sizes in engine.args must fit the GPUs a worker brings: more fails, fewer warns of idle GPUs', () => {
    const args = (a: Record<string, string>, props = AGG): ModelDeploymentProps => ({ ...props, engine: { ...props.engine!, args: a } });
    expect(problemsFor(args({ 'tensor-parallel-size': '4' }))).toEqual([{
      field: 'engine.args.tensor-parallel-size',
      message: 'engine.args.tensor-parallel-size makes each Ray Serve replica reserve 4 GPUs, but a worker brings 2 (resources.gpu.count): '
        + 'the replicas would wait for GPUs the Ray cluster never has; set resources.gpu.count to 4, or lower the parallel sizes',
    }]);
    // Without tensor-parallel-size, it is the worker's GPUs: pipeline parallelism multiplies them.
    expect(problemsFor(args({ pipeline_parallel_size: '2' })).map((p) => p.message)).toEqual([expect.stringMatching(/^engine.args.pipeline_parallel_size makes each Ray Serve replica reserve 4 GPUs, but a worker brings 2/)]);
    expect(problemsFor(args({ 'tensor-parallel-size': '2', 'pipeline-parallel-size': '2' }, DISAGG)).map((p) => p.message)).toEqual([
      expect.stringMatching(/reserve 4 GPUs, but a prefill worker brings 1 \(scaling\.prefill\.gpu\.count\)/),
      expect.stringMatching(/reserve 4 GPUs, but a decode worker brings 2 \(scaling\.decode\.gpu\.count\)/),
    ]);
    // "two" is refused as vLLM's CLI would refuse it (engine-args.ts), and not again here.
    expect(problemsFor(args({ 'tensor-parallel-size': 'two', 'pipeline-parallel-size': '0' }))).toEqual([
      { field: 'engine.args.tensor-parallel-size', message: expect.stringContaining('CLI would refuse "two" for --tensor-parallel-size') },
      { field: 'engine.args.pipeline-parallel-size', message: '"0" is not a positive whole number of GPUs' },
    ]);
    expect(problemsFor(args({ 'tensor-parallel-size': 'two' }, { ...AGG, image: 'registry.example.com/ray-llm:custom' }))).toEqual([
      { field: 'engine.args.tensor-parallel-size', message: '"two" is not a positive whole number of GPUs' },
    ]);
    expect(render(args({ 'tensor-parallel-size': '2' })).warnings).toEqual([]);
    expect(render(args({ 'tensor-parallel-size': '1' })).warnings).toEqual([
      'engine.args.tensor-parallel-size makes each Ray Serve replica use 1 GPUs, but a worker brings 2 (resources.gpu.count): 2 GPUs stay idle; set resources.gpu.count to 1',
    ]);
  });

  test('parallel sizes are checked as serveConfigV2 carries them: vLLM\'s int() of the text where the vLLM is known', () => {
    const args = (a: Record<string, string>, props = AGG): ModelDeploymentProps => ({ ...props, engine: { ...props.engine!, args: a } });
    const written = (props: ModelDeploymentProps) =>
      parse(render(props).resource.spec.serveConfigV2).applications[0].args.llm_configs[0].engine_kwargs;
    // int("1_000") is 1000: more GPUs than a worker brings, not a text that is no number.
    expect(problemsFor(args({ 'tensor-parallel-size': '1_000' }))).toEqual([{
      field: 'engine.args.tensor-parallel-size',
      message: 'engine.args.tensor-parallel-size makes each Ray Serve replica reserve 1000 GPUs, but a worker brings 2 (resources.gpu.count): '
        + 'the replicas would wait for GPUs the Ray cluster never has; set resources.gpu.count to 1000, or lower the parallel sizes',
    }]);
    // " 2 " and "+2" are 2: checked against each role's GPUs as "2" is (render throws on a problem).
    for (const two of ['2', ' 2 ', '+2']) {
      expect(render(args({ 'tensor-parallel-size': two })).warnings).toEqual([]);
      expect(written(args({ 'tensor-parallel-size': two })).tensor_parallel_size).toBe(2);
      expect(problemsFor(args({ 'tensor-parallel-size': two }, DISAGG)).map((p) => p.message))
        .toEqual([expect.stringMatching(/^engine\.args\.tensor-parallel-size makes each Ray Serve replica reserve 2 GPUs, but a prefill worker brings 1 /)]);
    }
    expect(render(args({ 'pipeline-parallel-size': '0_1', 'tensor-parallel-size': ' 1' })).warnings)
      .toEqual([expect.stringMatching(/^engine\.args\.pipeline-parallel-size × engine\.args\.tensor-parallel-size makes each Ray Serve replica use 1 GPUs, /)]);
    // Another image: Ray hands vLLM the text "1_000" (the guess from the text), which is no number of GPUs.
    expect(problemsFor(args({ 'tensor-parallel-size': '1_000' }, { ...AGG, image: 'registry.example.com/ray-llm:custom' }))).toEqual([
      { field: 'engine.args.tensor-parallel-size', message: '"1_000" is not a positive whole number of GPUs' },
    ]);
  });

  test('engine.args names vLLM does not have fail synth as Ray would refuse them, where the vLLM is known', () => {
    const args = (a: Record<string, string>, extra: Partial<ModelDeploymentProps> = {}): ModelDeploymentProps => ({ ...AGG, ...extra, engine: { type: 'vllm', args: a } });
    expect(problemsFor(args({ 'gpu-memory-utilisation': '0.9', 'max_num_seqs': '8', 'no-such-thing': '1' }))).toEqual([
      {
        field: 'engine.args.gpu-memory-utilisation',
        message: 'Ray Serve LLM 2.60.0 hands engine_kwargs to vLLM 0.29.0, which has no engine argument "gpu_memory_utilisation": '
          + 'Ray would refuse the application ("Unknown engine argument: gpu_memory_utilisation"); did you mean "gpu-memory-utilization"?',
      },
      {
        field: 'engine.args.no-such-thing',
        message: 'Ray Serve LLM 2.60.0 hands engine_kwargs to vLLM 0.29.0, which has no engine argument "no_such_thing": '
          + 'Ray would refuse the application ("Unknown engine argument: no_such_thing")',
      },
    ]);
    // Another Ray release, or another image, may carry another vLLM: not checked.
    const unknown = { 'no-such-thing': '1' };
    expect(render(args(unknown, { providers: ProviderRegistry.builtIn({ kuberay: { rayVersion: '2.58.0' } }) })).warnings).toEqual([]);
    expect(render(args(unknown, { image: 'registry.example.com/ray-llm:custom' })).warnings).toEqual([]);
    expect(render(args(unknown, { providers: ProviderRegistry.builtIn({ kuberay: { image: 'registry.example.com/ray-llm:custom' } }) })).warnings).toEqual([]);
  });

  describe('engine.args values reach vLLM as its CLI types the same flag text, where the vLLM is known', () => {
    const args = (a: Record<string, string>, extra: Partial<ModelDeploymentProps> = {}): ModelDeploymentProps =>
      ({ ...AGG, ...extra, engine: { type: 'vllm', args: a } });
    const kwargs = (props: ModelDeploymentProps) =>
      parse(render(props).resource.spec.serveConfigV2).applications[0].args.llm_configs[0].engine_kwargs;

    test('text arguments stay text, numbers keep their kind, switches and lists are as vLLM\'s parser makes them', () => {
      const typed: [string, string, unknown][] = [
        ['tokenizer', '0', '0'], ['revision', 'true', 'true'], ['code-revision', '1e3', '1e3'], // str
        ['hf-config-path', 'None', null], // optional str: "None" is None
        ['seed', '1_000', 1000], ['max-num-seqs', ' 64 ', 64], // int, as Python's int()
        ['gpu-memory-utilization', '1', 1], ['cpu-offload-gb', '1e1', 10], // float(): written 1 and 10, which vLLM's float fields take as they take 1.0
        ['max-num-batched-tokens', '8k', 8000], ['kv-cache-memory-bytes', '2K', 2048], // human-readable ints
        ['enforce-eager', '', true], ['enable-prefix-caching', 'false', false], // switches
        ['ignore-patterns', 'a b', ['a b']], ['cudagraph-capture-sizes', '8', [8]], // nargs=+: one command-line word, one element
        ['hf-overrides', '{"rope_theta": 1e6}', { rope_theta: 1e6 }], ['pt-load-map-location', 'cuda:0', 'cuda:0'], // dict or text
        // A config: vLLM expands 1k before it reads the JSON.
        ['kv-transfer-config', '{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_size": 1k}',
          { kv_connector: 'NixlConnector', kv_role: 'kv_both', kv_buffer_size: 1000 }],
        ['dtype', 'half', 'half'], ['hf-token', '', true], // a choice, a flag-or-text
      ];
      const given = kwargs(args(Object.fromEntries(typed.map(([key, text]) => [key, text]))));
      expect(typed.map(([key, text]) => [key, text, given[key.replace(/-/g, '_')]])).toEqual(typed);
    });

    test('a text vLLM\'s CLI would refuse fails synth, naming the field, what was expected and the fix', () => {
      expect(problemsFor(args({ 'max-num-batched-tokens': 'abc', 'max-num-seqs': '1e3' }))).toEqual([
        {
          field: 'engine.args.max-num-batched-tokens',
          message: 'vLLM 0.29.0\'s CLI would refuse "abc" for --max-num-batched-tokens, and Ray Serve LLM 2.60.0 hands engine_kwargs to vLLM unparsed: '
            + 'give a whole number, or one with a k/m/g/t (×1000) or K/M/G/T (×1024) suffix such as "8k"',
        },
        {
          field: 'engine.args.max-num-seqs',
          message: 'vLLM 0.29.0\'s CLI would refuse "1e3" for --max-num-seqs, and Ray Serve LLM 2.60.0 hands engine_kwargs to vLLM unparsed: '
            + 'give a whole number such as "4096"',
        },
      ]);
      const refused = {
        'tensor-parallel-size': '1e0', // int() refuses exponents (and the GPU check does not repeat the field)
        'max-num-batched-tokens': '1.5K', // no decimals with a binary suffix
        'gpu-memory-utilization': 'inf', // no JSON for it in the Serve config
        'enforce-eager': 'yes', // a switch takes no value
        'tokenizer': '', // a bare --tokenizer: "expected one argument"
        'dtype': 'fp17', // not a choice
        'kv-transfer-config': '[1]', // a config is a JSON object
        'hf-overrides': '{nope}', // a {…} text is JSON
      };
      expect(problemsFor(args(refused)).map((p) => p.field)).toEqual(Object.keys(refused).sort().map((k) => `engine.args.${k}`));
      expect(problemsFor(args({ dtype: 'fp17' }))[0].message).toMatch(/give a text \(one of "auto", "bfloat16", "float", "float16", "float32", "half"\)$/);
    });

    test('another Ray release or image keeps the guess from the text, and synth does not refuse values', () => {
      const guessed = { 'tokenizer': '0', 'max-num-seqs': '1e3' };
      const userImage = args(guessed, { image: 'registry.example.com/ray-llm:custom' });
      expect(kwargs(userImage)).toEqual({ tokenizer: 0, max_num_seqs: 1000, tensor_parallel_size: 2 });
    });
  });

  test('HF token, env, pod metadata, node selector and tolerations reach head and workers', () => {
    const { resource } = render({
      ...AGG,
      secrets: { huggingFaceToken: 'hf-token' },
      env: [{ name: 'VLLM_USE_V1', value: '1' }],
      podTemplate: { metadata: { annotations: { team: 'ml' } } },
      nodeSelector: { pool: 'gpu' },
      tolerations: [{ key: 'gpu', operator: 'Exists' }],
    });
    const config = resource.spec.rayClusterConfig;
    for (const template of [config.headGroupSpec.template, config.workerGroupSpecs[0].template]) {
      expect(template.metadata).toEqual({ labels: { 'kube-inference.io/model-deployment': 'md' }, annotations: { team: 'ml' } });
      expect(template.spec.containers[0].envFrom).toEqual([{ secretRef: { name: 'hf-token' } }]);
      expect(template.spec.containers[0].env).toEqual([{ name: 'VLLM_USE_V1', value: '1' }]);
      expect(template.spec.nodeSelector).toEqual({ pool: 'gpu' });
      expect(template.spec.tolerations).toEqual([{ key: 'gpu', operator: 'Exists' }]);
    }
  });

  test('Ray version and image are configurable; image in the spec wins', () => {
    const providers = ProviderRegistry.builtIn({ kuberay: { rayVersion: '2.49.0' } });
    const { resource } = render({ ...AGG, providers });
    expect(resource.spec.rayClusterConfig.rayVersion).toBe('2.49.0');
    expect(resource.spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[0].image).toBe('rayproject/ray-llm:2.49.0-py311-cu128');
    // Ray's LLM images are Python 3.12 on CUDA 13.0 from 2.56 on.
    const ray256 = render({ ...AGG, providers: ProviderRegistry.builtIn({ kuberay: { rayVersion: '2.56.0' } }) }).resource;
    expect(ray256.spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].image).toBe('rayproject/ray-llm:2.56.0-py312-cu130');
    const own = render({ ...AGG, image: 'registry.example.com/ray-llm:custom' }).resource;
    expect(own.spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].image).toBe('registry.example.com/ray-llm:custom');
  });

  test('override types are checked at every depth', () => {
    expect(problemsFor({ ...AGG, provider: { name: 'kuberay', overrides: { head: { rayStartParams: { 'num-cpus': 0 }, resources: { memory: 8 } } } as any } })).toEqual([
      { field: 'provider.overrides.head.rayStartParams.num-cpus', message: 'expected string, got number 0' },
      { field: 'provider.overrides.head.resources.memory', message: 'expected string, got number 8' },
    ]);
    expect(problemsFor({ ...AGG, provider: { name: 'kuberay', overrides: { head: { rayStartParams: ['num-cpus=0'] } } as any } })).toEqual([
      { field: 'provider.overrides.head.rayStartParams', message: 'expected map of strings (map[string]string), got a list' },
    ]);
  });
});

// What Ray's dashboard receives: KubeRay's own YAML→JSON conversion of spec.serveConfigV2 (YAML 1.1 rules),
// run by the upstream admission checker. Values YAML 1.1 would read as booleans, numbers or times must
// arrive as the strings the user wrote.
describeWhen('KubeRay serveConfigV2 as Ray receives it (ray-operator v1.6.2 code)', upstreamAdmissionSupport(), 'the upstream admission checker (Go)', () => {
  const TRICKY = ['yes', 'on', 'NO', '1_000', '1:20', '0x1F', '~', 'a\tb', '\t', '='];
  const rayReceives = (props: ModelDeploymentProps): any => {
    const [result] = upstreamAdmission([render(props).resource]);
    expect(result).toMatchObject({ kind: 'RayService', accepted: true, errors: [] });
    return (result.derived!.serveConfigV2 as any).applications[0].args.llm_configs[0];
  };

  test.each(TRICKY)('%j as model id (custom source) and engine arg value arrives as written', (value) => {
    const llm = rayReceives({ ...AGG, model: { source: 'custom', id: value }, engine: { type: 'vllm', args: { tokenizer: value } } });
    expect(llm.model_loading_config).toEqual({ model_id: value, model_source: value });
    expect(llm.engine_kwargs.tokenizer).toBe(value);
  });

  test.each(TRICKY.filter((v) => /^\S+$/.test(v)))('%j as servedName arrives as written', (value) => {
    expect(rayReceives({ ...AGG, model: { id: 'Qwen/Qwen3-8B', servedName: value } }).model_loading_config.model_id).toBe(value);
  });

  test('typed engine args keep their types', () => {
    expect(rayReceives({ ...AGG, engine: { type: 'vllm', args: { 'enforce-eager': '', 'gpu-memory-utilization': '0.9', 'max-num-seqs': '64' } } }).engine_kwargs)
      .toEqual({ enforce_eager: true, gpu_memory_utilization: 0.9, max_num_seqs: 64, tensor_parallel_size: 2 });
  });
});
