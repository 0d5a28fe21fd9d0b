// vLLM options for a KAITO preset go through the ConfigMap that `inference.config` names. KAITO's
// vLLM entry point (kaito: presets/workspace/inference/vllm/inference_api.py, `KAITOArgumentParser.parse_args`)
// reads `inference_config.yaml` with PyYAML and turns every key of its `vllm:` map into the two
// arguments `--key str(value)`. A vLLM flag that takes no value (`--trust-remote-code`,
// `--enforce-eager`) therefore cannot go this way: `--trust-remote-code True` makes vLLM's argument
// parser exit. Such options fail synth instead of crashing the pod.
import { Problem } from '../../../errors';
import { renderYaml } from '../../../run-config/render';
import { ResolvedModelDeployment } from '../../resolved-spec';

/** The ConfigMap key KAITO reads. */
export const INFERENCE_CONFIG_KEY = 'inference_config.yaml';

/** `engine.args` values that vLLM reads as boolean switches, which take no value on its command line. */
const SWITCH_VALUES = ['', 'true', 'false'];

/** The options of a preset workspace that KAITO's config path cannot pass to vLLM. */
export function vllmConfigProblems(d: ResolvedModelDeployment): Problem[] {
  const problems: Problem[] = [];
  if (d.engine.trustRemoteCode) {
    problems.push({
      field: 'engine.trustRemoteCode',
      message: 'KAITO passes vLLM options from its inference config as "--key value", and --trust-remote-code takes no value '
        + '(vLLM would exit on "--trust-remote-code True"): remove engine.trustRemoteCode, or use a provider whose vLLM command line you control (dynamo, kuberay)',
    });
  }
  for (const key of Object.keys(d.engine.args).sort()) {
    if (SWITCH_VALUES.includes(d.engine.args[key])) {
      problems.push({
        field: `engine.args.${key}`,
        message: 'KAITO passes vLLM options from its inference config as "--key value", so a flag that takes no value '
          + `(an empty, "true" or "false" value) reaches vLLM as "--${key} True" and vLLM exits: remove it, `
          + 'or use a provider whose vLLM command line you control (dynamo, kuberay)',
      });
    }
  }
  return problems;
}

/**
 * The `vllm:` options for a preset workspace, sorted by key, or undefined when there are none:
 * `max-model-len` from `engine.contextLength`, `served-model-name`, then `engine.args`. Every value
 * is a string, written so that PyYAML reads it back as that string: KAITO hands `str(value)` to
 * vLLM, so the text arrives exactly as written.
 */
export function vllmPresetOptions(deployment: ResolvedModelDeployment): Record<string, string> | undefined {
  const options: Record<string, string> = { ...deployment.engine.args };
  if (deployment.engine.contextLength !== undefined) options['max-model-len'] = String(deployment.engine.contextLength);
  if (deployment.model.servedName !== undefined) options['served-model-name'] = deployment.model.servedName;
  const keys = Object.keys(options).sort();
  if (keys.length === 0) return undefined;
  return Object.fromEntries(keys.map((k) => [k, options[k]]));
}

/** The `inference_config.yaml` document for the given vLLM options (PyYAML-safe). */
export function inferenceConfigYaml(vllm: Record<string, string>): string {
  return renderYaml({ vllm });
}
