// vLLM options for a KAITO preset go through the ConfigMap that `inference.config` names: KAITO
// reads its `inference_config.yaml` key and passes the `vllm:` map to the vLLM server.
import { stringify } from 'yaml';
import { typedArgValue } from '../../engine-flags';
import { ResolvedModelDeployment } from '../../resolved-spec';

/** The ConfigMap key KAITO reads. */
export const INFERENCE_CONFIG_KEY = 'inference_config.yaml';

/**
 * The `vllm:` options for a preset workspace, sorted by key, or undefined when there are none:
 * `max-model-len` from `engine.contextLength`, `trust-remote-code`, `served-model-name`, then
 * `engine.args` (typed: KAITO hands the values to vLLM without parsing strings).
 */
export function vllmPresetOptions(deployment: ResolvedModelDeployment): Record<string, string | number | boolean> | undefined {
  const options: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(deployment.engine.args)) {
    options[key] = typedArgValue(value);
  }
  if (deployment.engine.contextLength !== undefined) options['max-model-len'] = deployment.engine.contextLength;
  if (deployment.engine.trustRemoteCode) options['trust-remote-code'] = true;
  if (deployment.model.servedName !== undefined) options['served-model-name'] = deployment.model.servedName;
  const keys = Object.keys(options).sort();
  if (keys.length === 0) return undefined;
  return Object.fromEntries(keys.map((k) => [k, options[k]]));
}

/** The `inference_config.yaml` document for the given vLLM options. */
export function inferenceConfigYaml(vllm: Record<string, string | number | boolean>): string {
  return stringify({ vllm }, { lineWidth: 0 });
}
