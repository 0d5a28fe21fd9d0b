// Synth-time checks of a vLLM preset against KAITO's own model data (KAITO v0.12.0): the preset name
// its webhook accepts, the context window its inference-config validation allows, and the GPUs its
// node estimator will really give the model.
import { KAITO_CATALOG_RELEASE } from './catalog.generated';
import { KaitoSettings } from './overrides';
import { KaitoPreset, resolveKaitoPreset } from './presets';
import { estimateKaitoGpus, KAITO_DEFAULT_MAX_MODEL_LEN, KaitoEstimate } from './sizing';
import { KaitoCloudProvider, KaitoSku, kaitoSku } from './skus';
import { Problem } from '../../../errors';
import { ResolvedModelDeployment } from '../../resolved-spec';

/** The preset a vLLM deployment names, or undefined for deployments that render no preset. */
export function kaitoPresetOf(d: ResolvedModelDeployment): KaitoPreset | undefined {
  if (d.engine.type !== 'vllm' || d.model.source !== 'huggingface' || d.model.id === undefined) return undefined;
  return resolveKaitoPreset(d.model.id);
}

type CatalogPreset = Extract<KaitoPreset, { kind: 'catalog' }>;

/**
 * What KAITO's node estimator makes of a catalogue preset on the install's instance type, when synth can
 * know it: under node auto-provisioning, on a SKU of KAITO's table for the cloud.
 */
function nodeEstimate(d: ResolvedModelDeployment, preset: CatalogPreset, settings: KaitoSettings, cloud: KaitoCloudProvider)
  : { sku: KaitoSku; estimate: KaitoEstimate } | undefined {
  if (settings.nodeProvisioning !== 'auto' || settings.instanceType === undefined) return undefined;
  const sku = kaitoSku(cloud, settings.instanceType);
  return sku && { sku, estimate: estimateKaitoGpus(preset.model, sku, d.engine.contextLength ?? KAITO_DEFAULT_MAX_MODEL_LEN) };
}

/** Problems KAITO would refuse the preset for, at admission or when its controller sizes it. */
export function kaitoPresetProblems(d: ResolvedModelDeployment, settings: KaitoSettings, cloud: KaitoCloudProvider): Problem[] {
  const preset = kaitoPresetOf(d);
  if (preset === undefined) return [];
  const name = d.model.id!;
  // api/v1beta1/workspace_validation.go: InferenceSpec.validateCreate ("Unsupported inference preset
  // name"), ResourceSpec.validateCreateWithInference ("Model <p> is deprecated and no longer supported").
  if (preset.kind === 'unknown') {
    return [{
      field: 'model.id',
      message: `KAITO's webhook refuses "Unsupported inference preset name ${name}": a KAITO ${KAITO_CATALOG_RELEASE} preset is a Hugging Face id `
        + `("org/name") or one of its short names; closest: ${preset.closest.map((c) => JSON.stringify(c)).join(', ')}`,
    }];
  }
  if (preset.kind === 'deprecated') {
    return [{ field: 'model.id', message: `KAITO's webhook refuses "Model ${name.toLowerCase()} is deprecated and no longer supported": use the Hugging Face id of a current model` }];
  }
  if (preset.kind !== 'catalog') return [];
  const problems: Problem[] = [];
  // `engine.contextLength` is the inference config's max-model-len (engine.args cannot set it), which
  // api/v1beta1/inference_config_validation.go holds to the model's ModelTokenLimit.
  const context = d.engine.contextLength;
  if (context !== undefined && context > preset.model.modelTokenLimit) {
    problems.push({
      field: 'engine.contextLength',
      message: `KAITO's webhook refuses "max-model-len ${context} exceeds model's maximum supported context window `
        + `${preset.model.modelTokenLimit} (ModelTokenLimit)" for ${preset.model.name}: set at most ${preset.model.modelTokenLimit}`,
    });
  }
  const estimate = nodeEstimate(d, preset, settings, cloud)?.estimate;
  if (estimate !== undefined && 'tooSmall' in estimate) {
    problems.push({
      field: 'provider.overrides.instanceType',
      message: `KAITO cannot place ${preset.model.name} on ${settings.instanceType}: ${estimate.tooSmall} `
        + '(its node estimator fails the Workspace): choose a SKU with more GPU memory, or a shorter engine.contextLength',
    });
  }
  return problems;
}

/** What synth cannot check about the preset, or what KAITO will do other than the spec says. */
export function kaitoPresetWarnings(d: ResolvedModelDeployment, settings: KaitoSettings, cloud: KaitoCloudProvider): string[] {
  const preset = kaitoPresetOf(d);
  if (preset?.kind === 'hugging-face') {
    return [`${d.model.id} is not in KAITO ${KAITO_CATALOG_RELEASE}'s model catalogue: KAITO's webhook reads its config.json from Hugging Face `
      + 'when the Workspace is created (its architecture must be one KAITO\'s vLLM runs; a gated repository needs secrets.huggingFaceToken), '
      + 'so synth cannot check the model, its context window or its GPU needs'];
  }
  if (preset?.kind !== 'catalog') return [];
  const sizing = nodeEstimate(d, preset, settings, cloud);
  if (sizing === undefined || 'tooSmall' in sizing.estimate || sizing.estimate.gpus === d.resources.gpu.count) return [];
  const { sku, estimate } = sizing;
  return [`KAITO sizes ${preset.model.name} itself: on ${settings.instanceType} (${sku.gpus} GPU${sku.gpus > 1 ? 's' : ''}, ${sku.gpuMemoryGiB} GiB) `
    + `its node estimator gives ${estimate.nodes} node${estimate.nodes > 1 ? 's' : ''} per replica and vLLM runs on all ${estimate.gpus} GPU${estimate.gpus > 1 ? 's' : ''}, `
    + `not resources.gpu.count ${d.resources.gpu.count}: set resources.gpu.count to ${estimate.gpus} so the spec says what runs`];
}
