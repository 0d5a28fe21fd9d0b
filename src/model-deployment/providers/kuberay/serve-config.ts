// The Ray Serve application of a RayService (`spec.serveConfigV2`): Ray Serve LLM running vLLM.
// Aggregated mode uses `ray.serve.llm:build_openai_app` with one LLM config; disaggregated mode
// uses `ray.serve.llm:build_pd_openai_app` with a prefill and a decode config that exchange the
// KV cache through vLLM's NIXL connector.
import { engineKwargs } from './engine-args';
import { renderYaml } from '../../../run-config/render';
import { ResolvedComponent, ResolvedModelDeployment } from '../../resolved-spec';

/** Import path of the aggregated OpenAI-compatible app builder. */
export const OPENAI_APP = 'ray.serve.llm:build_openai_app';
/** Import path of the prefill/decode-disaggregated app builder. */
export const PD_OPENAI_APP = 'ray.serve.llm:build_pd_openai_app';
/** Port Ray Serve's HTTP proxy listens on. */
export const RAY_SERVE_PORT = 8000;

/** One Ray Serve LLM config (`ray.serve.llm.LLMConfig` as YAML). */
export interface LlmConfig {
  readonly model_loading_config: { readonly model_id: string; readonly model_source: string };
  readonly engine_kwargs: Readonly<Record<string, unknown>>;
  readonly deployment_config: { readonly num_replicas: number };
}

/** The Serve config document, before it becomes YAML. */
export interface ServeConfig {
  readonly applications: readonly {
    readonly name: string;
    readonly route_prefix: string;
    readonly import_path: string;
    readonly args: Readonly<Record<string, unknown>>;
  }[];
}

/**
 * The Serve config for a deployment (at least one replica: the provider refuses `scaling.replicas: 0`).
 * `vllmArgsKnown`: the vLLM is the one engine-args.generated.ts was read from, so `engine.args` are typed as its CLI types them.
 */
export function serveConfig(d: ResolvedModelDeployment, vllmArgsKnown: boolean): ServeConfig {
  if (d.mode === 'disaggregated') {
    return {
      applications: [{
        name: 'llm',
        route_prefix: '/',
        import_path: PD_OPENAI_APP,
        args: { prefill_config: llmConfig(d, d.prefill!, vllmArgsKnown, true), decode_config: llmConfig(d, d.decode!, vllmArgsKnown, true) },
      }],
    };
  }
  return {
    applications: [{
      name: 'llm',
      route_prefix: '/',
      import_path: OPENAI_APP,
      args: { llm_configs: [llmConfig(d, { replicas: d.replicas, gpu: d.resources.gpu }, vllmArgsKnown)] },
    }],
  };
}

/**
 * `serveConfigV2`: the Serve config as YAML text. KubeRay reads it with YAML 1.1 rules (sigs.k8s.io/yaml in
 * controllers/ray/rayservice_controller.go updateServeDeployment) before sending it to Ray as JSON, so it
 * is written with our YAML-1.1-safe writer: a model id or argument such as `yes`, `on` or `1_000` reaches
 * Ray as that string, not as a boolean or a number.
 */
export function serveConfigV2(d: ResolvedModelDeployment, vllmArgsKnown: boolean): string {
  return renderYaml(serveConfig(d, vllmArgsKnown));
}

/**
 * One LLM config. `engine_kwargs` are vLLM engine arguments (underscored names), sorted:
 * `engine.args` (typed as vLLM's CLI types them where the vLLM is known, see engine-args.ts), `max_model_len` from `engine.contextLength`, `trust_remote_code`,
 * `tensor_parallel_size` over the worker's GPUs (unless given), and the KV connector for P/D.
 */
export function llmConfig(d: ResolvedModelDeployment, c: Pick<ResolvedComponent, 'replicas' | 'gpu'>, vllmArgsKnown: boolean, disaggregated = false): LlmConfig {
  const kwargs = engineKwargs(d.engine.args, vllmArgsKnown);
  if (d.engine.contextLength !== undefined) kwargs.max_model_len = d.engine.contextLength;
  if (d.engine.trustRemoteCode) kwargs.trust_remote_code = true;
  if (kwargs.tensor_parallel_size === undefined) kwargs.tensor_parallel_size = Math.max(1, c.gpu.count);
  if (disaggregated) kwargs.kv_transfer_config = { kv_connector: 'NixlConnector', kv_role: 'kv_both' };
  const id = d.model.id!;
  return {
    model_loading_config: { model_id: d.model.servedName ?? id, model_source: id },
    engine_kwargs: Object.fromEntries(Object.keys(kwargs).sort().map((k) => [k, kwargs[k]])),
    deployment_config: { num_replicas: c.replicas },
  };
}
