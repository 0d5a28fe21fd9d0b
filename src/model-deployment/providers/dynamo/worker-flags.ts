// The flags a Dynamo worker needs for its role (aggregated, prefill, decode) and for KV-aware
// routing, per engine, as upstream's deploy examples and worker parsers require them. They are
// defaults: `engine.args` or the role's `provider.overrides.<role>.args` replace any of them.
import { DynamoRole } from './roles';
import { compareVersions } from '../../../checks';
import { EngineType } from '../../types';

/**
 * The KV transfer of vLLM's disaggregated workers: NIXL, each side sending and receiving. Since
 * Dynamo 1.0 a prefill worker without `--kv-transfer-config` exits ("the default is no longer
 * nixl", ai-dynamo: dynamo/vllm/args.py); the decode worker needs the same connector to receive
 * the KV cache (upstream's disaggregated launch scripts pass it to both).
 */
export const VLLM_KV_TRANSFER_CONFIG = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}';

/**
 * SGLang's disaggregation bootstrap port, as upstream's disagg.yaml sets it. Dynamo's SGLang
 * worker would otherwise pick a random free port; a fixed one is reachable and predictable.
 */
export const SGLANG_BOOTSTRAP_PORT = 12345;

/**
 * The ZMQ endpoint vLLM publishes KV events on: Dynamo's default port (`DYN_VLLM_KV_EVENT_PORT`,
 * 20080, ai-dynamo: dynamo/vllm/envs.py), which the worker relays to the router.
 */
export const VLLM_KV_EVENTS_CONFIG = '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:20080"}';

/** SGLang's KV event publisher, as upstream's sglang agg_router.yaml configures it. */
export const SGLANG_KV_EVENTS_CONFIG = '{"publisher":"zmq","topic":"kv-events","endpoint":"tcp://*:5557"}';

/** Where a TensorRT-LLM worker finds its role's engine configuration (a mounted ConfigMap). */
export const TRTLLM_ENGINE_CONFIG_DIR = '/etc/dynamo/engine';

/** The disaggregation flags of one role: transfer backend and connection settings. */
export function disaggregationFlags(engine: EngineType, role: DynamoRole): Record<string, string> {
  if (role === 'aggregated') return {};
  switch (engine) {
    case 'vllm':
      return { 'kv-transfer-config': VLLM_KV_TRANSFER_CONFIG };
    case 'sglang':
      // SGLang's default transfer backend is mooncake, which the runtime images do not set up;
      // the bootstrap server must listen on the pod address for the decode pods to reach it
      // (upstream examples/backends/sglang/deploy/disagg.yaml).
      return {
        'disaggregation-transfer-backend': 'nixl',
        'disaggregation-bootstrap-port': String(SGLANG_BOOTSTRAP_PORT),
        'host': '0.0.0.0',
      };
    case 'trtllm':
      // Per-role engine settings (cache transceiver, overlap scheduler) live in a YAML file.
      return { 'extra-engine-args': `${TRTLLM_ENGINE_CONFIG_DIR}/${role}.yaml` };
    default:
      return {};
  }
}

/**
 * The flags that make a worker publish KV cache events for the frontend's KV router
 * (`routerMode: kv`), for the workers' Dynamo release. vLLM decode workers publish none (ai-dynamo:
 * dynamo/vllm/args.py turns events off for them), so they get nothing.
 */
export function kvEventFlags(engine: EngineType, role: DynamoRole, release: string): Record<string, string> {
  switch (engine) {
    case 'vllm':
      return role === 'decode' ? {} : { 'kv-events-config': VLLM_KV_EVENTS_CONFIG };
    case 'sglang':
      return { 'kv-events-config': SGLANG_KV_EVENTS_CONFIG };
    case 'trtllm':
      return trtllmPublishFlags(release);
    default:
      return {};
  }
}

/**
 * TensorRT-LLM's publishing switches (ai-dynamo: dynamo/trtllm/backend_args.py and args.py of each
 * release): up to 1.4 `--publish-events-and-metrics` publishes both (upstream
 * examples/backends/trtllm/deploy/agg_router.yaml); 1.5 renamed it `--publish-kv-events`, keeping the
 * old name as a deprecated alias of that one flag; 1.6 split it into `--publish-kv-events` and
 * `--publish-metrics`, the old name a deprecated alias of both "for one release".
 */
function trtllmPublishFlags(release: string): Record<string, string> {
  if (compareVersions(release, '1.6') >= 0) return { 'publish-kv-events': '', 'publish-metrics': '' };
  if (compareVersions(release, '1.5') >= 0) return { 'publish-kv-events': '' };
  return { 'publish-events-and-metrics': '' };
}
