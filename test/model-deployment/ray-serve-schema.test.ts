/**
 * Every serve config the KubeRay provider renders (`spec.serveConfigV2`), validated by Ray's own Serve
 * schema (`ray.serve.schema.ServeDeploySchema`, the model Ray's dashboard validates a deploy request
 * with) from the PyPI `ray[serve]` 2.60.0 wheel, in the `ray-serve` tool environment
 * (scripts/test-setup/llama-stack-envs.mjs), by test/model-deployment/ray_serve_check.py. KubeRay's own
 * reading of the YAML is checked by kuberay.test.ts (ray-operator's Go code); the LLM configs inside
 * `args` are read by `ray.serve.llm`, which needs vLLM and is not checked here.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { render } from './helpers';
import { ModelDeploymentProps } from '../../src/model-deployment';
import { describeWhen } from '../sandbox/host';
import { testEnvsSupport, toolEnv } from '../sandbox/test-envs';

const rayEnv = toolEnv('ray-serve');
const CHECK = path.join(__dirname, 'ray_serve_check.py');
const EXAMPLE_APP = path.join(__dirname, '..', '..', 'examples', 'model-deployment-app', 'dist', 'models.k8s.yaml');

interface Result { readonly id: string; readonly ok: boolean; readonly error: string | null; readonly config: any }

function validate(cases: readonly { id: string; yaml: string }[]): Record<string, Result> {
  const out = execFileSync(rayEnv.value!.python, [CHECK], { input: JSON.stringify(cases), encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
  const results = Object.fromEntries((JSON.parse(out) as Result[]).map((r) => [r.id, r]));
  expect(Object.keys(results).sort()).toEqual(cases.map((c) => c.id).sort());
  return results;
}

const BASE: ModelDeploymentProps = { provider: { name: 'kuberay' }, model: { id: 'Qwen/Qwen3-8B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } };

describeWhen('KubeRay serve configs, validated by Ray 2.60.0\'s own Serve schema', testEnvsSupport(rayEnv), 'ray-serve tool environment', () => {
  test('every aggregated and disaggregated config, and the example app\'s, is a valid Serve deploy config, read back as rendered', () => {
    const variants: Record<string, ModelDeploymentProps> = {
      'aggregated': BASE,
      'aggregated, 3 replicas, 2 GPUs, options': {
        ...BASE,
        model: { id: 'Qwen/Qwen3-8B', servedName: 'on' },
        resources: { gpu: { count: 2 } },
        scaling: { replicas: 3 },
        engine: { type: 'vllm', contextLength: 8192, trustRemoteCode: true, args: { 'enforce-eager': '', 'gpu-memory-utilization': '0.9', 'tokenizer': 'yes' } },
      },
      'disaggregated': {
        ...BASE,
        resources: undefined,
        serving: { mode: 'disaggregated' },
        scaling: { prefill: { replicas: 2, gpu: { count: 1 } }, decode: { replicas: 1, gpu: { count: 2 } } },
      },
    };
    const cases = Object.entries(variants).map(([id, props]) => ({ id, yaml: render(props).resource.spec.serveConfigV2 as string }));
    const example = parseAllDocuments(fs.readFileSync(EXAMPLE_APP, 'utf8')).map((d) => d.toJS()).filter((o) => o?.kind === 'RayService');
    expect(example.length).toBeGreaterThan(0);
    cases.push(...example.map((o) => ({ id: `example-app ${o.metadata.name}`, yaml: o.spec.serveConfigV2 as string })));
    const results = validate(cases);
    for (const r of Object.values(results)) expect({ id: r.id, error: r.error }).toEqual({ id: r.id, error: null });
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
    expect(results.disaggregated.config.applications[0].import_path).toBe('ray.serve.llm:build_pd_openai_app');
  });

  test('the check can fail: what Ray\'s schema refuses is reported with its message', () => {
    const results = validate([
      { id: 'import path', yaml: 'applications:\n  - name: llm\n    import_path: nocolon\n' },
      { id: 'duplicate', yaml: 'applications:\n  - {name: a, import_path: "m:f"}\n  - {name: a, import_path: "m:g"}\n' },
    ]);
    expect(results['import path'].error).toMatch(/Got invalid import path "nocolon"/);
    expect(results.duplicate.error).toMatch(/Found multiple configs for application "a"/);
  });
});
