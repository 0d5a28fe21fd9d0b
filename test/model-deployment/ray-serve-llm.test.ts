/**
 * Every serve config the KubeRay provider renders (`spec.serveConfigV2`), taken by Ray 2.60.0's own code
 * (PyPI `ray[llm]` with the vLLM 0.29.0 it pins, the `ray-llm` tool environment of
 * scripts/test-setup/llama-stack-envs.mjs) the way a Ray cluster takes it, by
 * test/model-deployment/ray_serve_check.py: Ray's Serve schema (`ray.serve.schema.ServeDeploySchema`), the
 * application built as Ray's Serve controller builds it (`ray.serve.llm`'s builders and their LLMServingArgs,
 * PDServingArgs and LLMConfig models, on a local Ray started for the run), and each LLM config's vLLM
 * arguments made into vLLM's own AsyncEngineArgs and FrontendArgs as a Serve LLM replica makes them.
 * KubeRay's own reading of the YAML is checked by kuberay.test.ts (ray-operator's Go code).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { problemsOf, render } from './helpers';
import { argsToFlags, ModelDeploymentProps } from '../../src/model-deployment';
import { describeWhen } from '../sandbox/host';
import { testEnvsSupport, toolEnv } from '../sandbox/test-envs';

const rayEnv = toolEnv('ray-llm');
const CHECK = path.join(__dirname, 'ray_serve_check.py');
const PARSE_ARGS = path.join(__dirname, 'runtime_args_check.py');
const IMPORT_ENGINE_ARGS = path.join(__dirname, '..', '..', 'scripts', 'import-vllm-engine-args.mjs');
const EXAMPLE_APP = path.join(__dirname, '..', '..', 'examples', 'model-deployment-app', 'dist', 'models.k8s.yaml');

interface Deployment { readonly name: string; readonly num_replicas: number; readonly placement_group_bundles: Record<string, number>[] | null }
interface Result {
  readonly id: string;
  readonly ok: boolean;
  readonly stage: 'schema' | 'build' | 'engine' | null;
  readonly error: string | null;
  readonly config: any;
  readonly deployments: Deployment[];
  readonly engines: { engine: Record<string, unknown>; frontend: Record<string, unknown> }[];
}

const BASE: ModelDeploymentProps = { provider: { name: 'kuberay' }, model: { id: 'Qwen/Qwen3-8B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } };

/** What the provider renders, by case. */
const VARIANTS: Record<string, ModelDeploymentProps> = {
  'aggregated': BASE,
  'aggregated, 3 replicas, 2 GPUs, options': {
    ...BASE,
    model: { id: 'Qwen/Qwen3-8B', servedName: 'on' },
    resources: { gpu: { count: 2 } },
    scaling: { replicas: 3 },
    engine: { type: 'vllm', contextLength: 8192, trustRemoteCode: true, args: { 'enforce-eager': '', 'gpu-memory-utilization': '0.9', 'tokenizer': 'yes' } },
  },
  'aggregated, tensor parallel 2 × pipeline parallel 2 on 4 GPUs': {
    ...BASE,
    resources: { gpu: { count: 4 } },
    scaling: { replicas: 2 },
    engine: { type: 'vllm', args: { 'tensor-parallel-size': '2', 'pipeline_parallel_size': '2' } },
  },
  'disaggregated': {
    ...BASE,
    resources: undefined,
    serving: { mode: 'disaggregated' },
    scaling: { prefill: { replicas: 2, gpu: { count: 1 } }, decode: { replicas: 1, gpu: { count: 2 } } },
  },
};

/** Hostile-to-Ray documents, one per stage, to show each stage refuses with Ray's or vLLM's message. */
const LLM_CONFIG = '{model_loading_config: {model_id: q, model_source: Qwen/Qwen3-8B}, deployment_config: {num_replicas: 1}, engine_kwargs: ';
const REFUSED: Record<string, string> = {
  'import path': 'applications:\n  - name: llm\n    import_path: nocolon\n',
  'duplicate': 'applications:\n  - {name: a, import_path: "m:f"}\n  - {name: a, import_path: "m:g"}\n',
  'unknown engine argument': `applications:\n  - name: llm\n    import_path: ray.serve.llm:build_openai_app\n    args: {llm_configs: [${LLM_CONFIG}{not_a_flag: 1}}]}\n`,
  'P/D without a KV connector': `applications:\n  - name: llm\n    import_path: ray.serve.llm:build_pd_openai_app\n    args: {prefill_config: ${LLM_CONFIG}{}}, decode_config: ${LLM_CONFIG}{}}}\n`,
  'KV role vLLM does not know': `applications:\n  - name: llm\n    import_path: ray.serve.llm:build_openai_app\n    args: {llm_configs: [${LLM_CONFIG}{kv_transfer_config: {kv_connector: NixlConnector, kv_role: kv_nonsense}}}]}\n`,
};

/** A misspelt vLLM argument, rendered with a user image (where synth cannot know the vLLM and lets it through). */
const MISSPELT = 'misspelt engine argument, user image';
const MISSPELT_PROPS: ModelDeploymentProps = { ...BASE, image: 'registry.example.com/ray-llm:2.60.0', engine: { type: 'vllm', args: { 'gpu-memory-utilisation': '0.9' } } };

/** The GPUs a RayService's worker groups bring to its Ray cluster. */
function workerGpus(rayService: any): number {
  return (rayService.spec.rayClusterConfig.workerGroupSpecs as any[])
    .reduce((sum, g) => sum + g.replicas * Number(g.template.spec.containers[0].resources?.limits?.['nvidia.com/gpu'] ?? 0), 0);
}

/** The GPUs Ray reserves for an application: each deployment's replicas times the GPUs of its placement group. */
function reservedGpus(deployments: readonly Deployment[]): number {
  return deployments.reduce((sum, d) => sum + d.num_replicas * (d.placement_group_bundles ?? []).reduce((n, b) => n + (b.GPU ?? 0), 0), 0);
}

describeWhen('KubeRay serve configs, taken by Ray 2.60.0\'s own code (ray[llm], vLLM 0.29.0)', testEnvsSupport(rayEnv), 'ray-llm tool environment', () => {
  const rendered = new Map<string, any>();
  let results: Record<string, Result>;

  beforeAll(() => {
    for (const [id, props] of Object.entries(VARIANTS)) rendered.set(id, render(props).resource);
    const example = parseAllDocuments(fs.readFileSync(EXAMPLE_APP, 'utf8')).map((d) => d.toJS()).filter((o) => o?.kind === 'RayService');
    expect(example.length).toBeGreaterThan(0);
    for (const o of example) rendered.set(`example-app ${o.metadata.name}`, o);
    const cases = [
      ...[...rendered].map(([id, o]) => ({ id, yaml: o.spec.serveConfigV2 as string })),
      { id: MISSPELT, yaml: render(MISSPELT_PROPS).resource.spec.serveConfigV2 as string },
      ...Object.entries(REFUSED).map(([id, yaml]) => ({ id, yaml })),
    ];
    // One Ray for all cases; it waits for Ray's own start-up, whatever the machine's load.
    const out = execFileSync(rayEnv.value!.python, [CHECK], { input: JSON.stringify(cases), encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
    results = Object.fromEntries((JSON.parse(out) as Result[]).map((r) => [r.id, r]));
    expect(Object.keys(results).sort()).toEqual(cases.map((c) => c.id).sort());
  }, 900_000);

  test('every rendered config passes Ray\'s schema, Ray Serve LLM\'s builders and vLLM\'s engine arguments', () => {
    for (const id of rendered.keys()) expect({ id, stage: results[id].stage, error: results[id].error }).toEqual({ id, stage: null, error: null });
  });

  test('Ray reserves exactly the GPUs the worker groups bring, so every replica can be placed and none is idle', () => {
    for (const [id, rayService] of rendered) {
      expect({ id, gpus: reservedGpus(results[id].deployments) }).toEqual({ id, gpus: workerGpus(rayService) });
    }
    const names = (id: string) => results[id].deployments.map((d) => `${d.name} ×${d.num_replicas}`);
    expect(names('aggregated, 3 replicas, 2 GPUs, options')).toEqual(['LLMServer:on ×3', 'OpenAiIngress ×1']);
    expect(names('disaggregated')).toEqual(['Prefill:Qwen--Qwen3-8B ×2', 'Decode:Qwen--Qwen3-8B ×1', 'OpenAiIngress ×1']);
  });

  test('the config reads back as rendered, and vLLM starts with the arguments the spec asks for', () => {
    const [app] = results['aggregated, 3 replicas, 2 GPUs, options'].config.applications;
    expect(app).toEqual({
      name: 'llm',
      route_prefix: '/',
      import_path: 'ray.serve.llm:build_openai_app',
      args: {
        llm_configs: [{
          model_loading_config: { model_id: 'on', model_source: 'Qwen/Qwen3-8B' },
          engine_kwargs: { enforce_eager: true, gpu_memory_utilization: 0.9, max_model_len: 8192, tensor_parallel_size: 2, tokenizer: 'yes', trust_remote_code: true },
          deployment_config: { num_replicas: 3 },
        }],
      },
    });
    expect(results['aggregated, 3 replicas, 2 GPUs, options'].engines).toEqual([{
      engine: {
        model: 'Qwen/Qwen3-8B',
        served_model_name: ['on'],
        distributed_executor_backend: 'ray',
        enable_log_requests: false,
        enforce_eager: true,
        gpu_memory_utilization: 0.9,
        max_model_len: 8192,
        tensor_parallel_size: 2,
        tokenizer: 'yes',
        trust_remote_code: true,
      },
      frontend: {},
    }]);
    const disaggregated = results.disaggregated;
    expect(disaggregated.config.applications[0].import_path).toBe('ray.serve.llm:build_pd_openai_app');
    expect(disaggregated.engines.map((e) => [e.engine.tensor_parallel_size, e.engine.kv_transfer_config]))
      .toEqual([[1, { kv_connector: 'NixlConnector', kv_role: 'kv_both' }], [2, { kv_connector: 'NixlConnector', kv_role: 'kv_both' }]]);
  });

  test('engine.args names: synth knows vLLM 0.29.0\'s own list, and refuses what Ray refuses, in Ray\'s words', () => {
    // The list synth checks against is what this environment's Ray and vLLM give (else the generated module is stale).
    execFileSync(process.execPath, [IMPORT_ENGINE_ARGS, '--check'], { stdio: 'pipe' });
    expect(results[MISSPELT]).toMatchObject({ stage: 'build', error: 'ValueError: Unknown engine argument: gpu_memory_utilisation' });
    const withRaysImage = { ...MISSPELT_PROPS, image: undefined };
    expect(problemsOf(() => render(withRaysImage)).map((p) => p.message)).toEqual([expect.stringContaining('Ray would refuse the application ("Unknown engine argument: gpu_memory_utilisation"); did you mean "gpu-memory-utilization"?')]);
  });

  test('the check can fail: each stage refuses with Ray\'s or vLLM\'s own message', () => {
    const refusal = (id: string) => ({ stage: results[id].stage, error: results[id].error });
    expect(refusal('import path')).toEqual({ stage: 'schema', error: expect.stringMatching(/Got invalid import path "nocolon"/) });
    expect(refusal('duplicate')).toEqual({ stage: 'schema', error: expect.stringMatching(/Found multiple configs for application "a"/) });
    expect(refusal('unknown engine argument')).toEqual({ stage: 'build', error: 'ValueError: Unknown engine argument: not_a_flag' });
    expect(refusal('P/D without a KV connector')).toEqual({ stage: 'build', error: expect.stringMatching(/kv_transfer_config is required for P\/D disaggregation/) });
    expect(refusal('KV role vLLM does not know')).toEqual({ stage: 'engine', error: expect.stringMatching(/Invalid vLLM config for 'kv_transfer_config'[\s\S]*kv_role/) });
  });
});

/**
 * One `engine.args` entry per case: what synth puts in engine_kwargs must be what vLLM 0.29.0's own server parser
 * (runtime_args_check.py "vllm-serve") makes of the same flag text, as KAITO and Dynamo pass it, and a text that
 * parser refuses must fail synth, naming the field. Config arguments (JSON objects vLLM makes into its config
 * classes) are taken by vLLM's AsyncEngineArgs in the suite above.
 */
const VALUE_CASES: readonly [string, string][] = [
  ['tokenizer', '0'], ['revision', 'true'], ['code-revision', '1e3'], ['hf-config-path', 'None'], ['tokenizer', ''],
  ['seed', '1_000'], ['max-num-seqs', ' 64 '], ['max-num-seqs', '1e3'], ['max-num-seqs', '-7'], ['max-num-seqs', '0x10'],
  ['gpu-memory-utilization', '1'], ['cpu-offload-gb', '1e1'], ['cpu-offload-gb', '.5'], ['cpu-offload-gb', 'abc'],
  ['max-num-batched-tokens', '8k'], ['max-num-batched-tokens', '25.6k'], ['max-num-batched-tokens', '2K'], ['max-num-batched-tokens', '1.5K'],
  ['kv-cache-memory-bytes', 'None'], ['enforce-eager', ''], ['enforce-eager', 'yes'], ['hf-token', ''], ['hf-token', 'hf_x'],
  ['ignore-patterns', 'a b'], ['cudagraph-capture-sizes', '8'], ['cudagraph-capture-sizes', 'x'],
  ['hf-overrides', '{"rope_theta": 1e6}'], ['hf-overrides', 'cuda'], ['hf-overrides', '{nope}'], ['allowed-origins', '["*"]'],
  ['dtype', 'half'], ['dtype', 'fp17'], ['max-lora-rank', '16'], ['max-lora-rank', '17'], ['kv-cache-dtype', 'None'],
];

describeWhen('KubeRay engine.args values, compared with vLLM 0.29.0\'s own CLI parser (ray-llm)', testEnvsSupport(rayEnv), 'ray-llm tool environment', () => {
  test('each value is what vLLM\'s CLI makes of the same flag, and what that CLI refuses fails synth', () => {
    const cases = VALUE_CASES.map(([key, text]) => ({ id: `${key}=${JSON.stringify(text)}`, parser: 'vllm-serve', args: argsToFlags({ [key]: text }) }));
    const out = execFileSync(rayEnv.value!.python, [PARSE_ARGS], { input: JSON.stringify(cases), encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
    type Parsed = { id: string; error: string | null; values: Record<string, unknown> };
    const parsed = Object.fromEntries((JSON.parse(out) as Parsed[]).map((r) => [r.id, r]));
    for (const [key, text] of VALUE_CASES) {
      const id = `${key}=${JSON.stringify(text)}`;
      const props: ModelDeploymentProps = { ...BASE, engine: { type: 'vllm', args: { [key]: text } } };
      const name = key.replace(/-/g, '_');
      // A text after a switch is no value of it: it lands in `vllm serve`'s positional model argument.
      const vllmSays = parsed[id].error === null && !('model_tag' in parsed[id].values) ? { value: parsed[id].values[name] } : { refused: true };
      const synthSays = vllmSays.refused
        ? { refused: problemsOf(() => render(props)).some((p) => p.field === `engine.args.${key}`) }
        : { value: parseAllDocuments(render(props).resource.spec.serveConfigV2)[0].toJS().applications[0].args.llm_configs[0].engine_kwargs[name] };
      expect({ id, ...synthSays }).toEqual({ id, ...vllmSays });
    }
  });
});
