import { ApiObject } from 'cdk8s';
import { ResolvedModelDeployment } from '../../resolved-spec';
import { EndpointStatus, ModelDeploymentStatus, UpstreamResource } from '../../status';
import { argsConflicts } from '../common';
import { kaitoAdmissionProblems } from './admission';
import { KaitoApiVersion } from './api-version';
import { ggufFileProblems, KAITO_INFERENCE_PORT, llamacppServedName } from './inference';
import { vllmConfigProblems } from './inference-config';
import { KaitoNodeProvisioning, kaitoOverrides, kaitoSettings } from './overrides';
import { kaitoPresetOf, kaitoPresetProblems, kaitoPresetWarnings } from './preset-checks';
import { KAITO_CLOUD_PROVIDERS, KaitoCloudProvider } from './skus';
import { kaitoEndpoint, translateInferenceSetStatus, translateWorkspaceStatus } from './status';
import { renderKaito, rendersInferenceSet } from './workspace';
import { Problem } from '../../../errors';
import { OverrideSchema } from '../../overrides';
import { InferenceProvider, RenderContext, ResourceType, SelectionRule } from '../../provider';

/** Options of the KAITO provider. */
export interface KaitoProviderOptions {
  /**
   * The Workspace API version to render.
   * @default 'kaito.sh/v1beta1' (the storage version)
   */
  readonly apiVersion?: KaitoApiVersion;
  /**
   * How the KAITO install gets nodes, for deployments that do not set `provider.overrides.nodeProvisioning`:
   * `auto` (node auto-provisioning, the default KAITO install; every deployment then needs
   * `provider.overrides.instanceType`) or `bring-your-own` (KAITO installed with
   * `disableNodeAutoProvisioning=true`).
   * @default 'auto'
   */
  readonly nodeProvisioning?: KaitoNodeProvisioning;
  /**
   * The cloud the KAITO install provisions nodes on (its Helm value `cloudProviderName`, the controller's
   * `CLOUD_PROVIDER`): its SKU handler decides which `provider.overrides.instanceType` values the webhook
   * accepts and how many GPUs each has.
   * @default 'azure' (the KAITO chart's default)
   */
  readonly cloudProvider?: KaitoCloudProvider;
}

/** The messages of provider compatibility checks for KAITO. */
export const KAITO_MESSAGES = {
  sglang: 'KAITO does not support sglang engine',
  trtllm: 'KAITO does not support trtllm engine',
  disaggregated: 'KAITO does not support disaggregated mode',
  llamacppImage: 'KAITO requires image for the llamacpp engine (there is no default llama.cpp image)',
  vllmCustomSource: 'KAITO runs vLLM from a preset, which downloads the model from Hugging Face: use source huggingface, or engine llamacpp with an image that contains the model',
} as const;

/**
 * KAITO (`Workspace`, or `InferenceSet` for any replica count other than 1): CPU or GPU, vLLM
 * presets and llama.cpp templates, aggregated mode only. Auto-selected when no GPU is requested
 * and for llama.cpp.
 */
export class KaitoProvider implements InferenceProvider {
  public readonly name = 'kaito';
  public readonly displayName = 'KAITO';
  public readonly documentation = 'https://github.com/kaito-project/kaito';
  public readonly capabilities = {
    engines: ['vllm', 'llamacpp'] as const,
    servingModes: ['aggregated'] as const,
    cpuSupport: true,
    gpuSupport: true,
  };
  public readonly selectionRules: readonly SelectionRule[] = [
    {
      // "gpu.count == 0 OR resources.gpu is omitted". Disaggregated mode has its GPUs in
      // scaling.prefill/decode (resources.gpu is not allowed there), so it is not CPU-only.
      condition: "spec.serving.mode != 'disaggregated' && (!has(spec.resources.gpu) || spec.resources.gpu.count == 0)",
      priority: 500,
      reason: 'no GPU requested → kaito (only CPU provider)',
    },
    {
      condition: "spec.engine.type == 'llamacpp'",
      priority: 300,
      reason: 'engine=llamacpp → kaito (only llamacpp provider)',
    },
  ];
  public readonly overrides: OverrideSchema;
  /** The primary resource type: the Workspace (an InferenceSet of the same version is rendered for replicas other than 1). */
  public readonly resourceType: ResourceType;
  private readonly nodeProvisioning: KaitoNodeProvisioning;
  private readonly cloudProvider: KaitoCloudProvider;

  public constructor(options: KaitoProviderOptions = {}) {
    const apiVersion = options.apiVersion ?? 'kaito.sh/v1beta1';
    if (apiVersion !== 'kaito.sh/v1beta1' && apiVersion !== 'kaito.sh/v1alpha1') {
      throw new Error(`KAITO apiVersion ${JSON.stringify(apiVersion)} is not supported; use kaito.sh/v1beta1 or kaito.sh/v1alpha1`);
    }
    this.resourceType = { apiVersion, kind: 'Workspace' };
    this.nodeProvisioning = options.nodeProvisioning ?? 'auto';
    if (this.nodeProvisioning !== 'auto' && this.nodeProvisioning !== 'bring-your-own') {
      throw new Error(`KAITO nodeProvisioning ${JSON.stringify(this.nodeProvisioning)} is not supported; use auto or bring-your-own`);
    }
    this.cloudProvider = options.cloudProvider ?? 'azure';
    if (!KAITO_CLOUD_PROVIDERS.includes(this.cloudProvider)) {
      throw new Error(`KAITO cloudProvider ${JSON.stringify(this.cloudProvider)} is not supported; use ${KAITO_CLOUD_PROVIDERS.join(', ')} (KAITO's SKU handlers)`);
    }
    this.overrides = kaitoOverrides(this.nodeProvisioning);
  }

  public checkCompatibility(d: ResolvedModelDeployment): Problem[] {
    const problems: Problem[] = [];
    if (d.engine.type === 'sglang') problems.push({ field: 'engine.type', message: KAITO_MESSAGES.sglang });
    if (d.engine.type === 'trtllm') problems.push({ field: 'engine.type', message: KAITO_MESSAGES.trtllm });
    if (d.mode === 'disaggregated') problems.push({ field: 'serving.mode', message: KAITO_MESSAGES.disaggregated });
    if (d.engine.type === 'llamacpp' && d.image === undefined) problems.push({ field: 'image', message: KAITO_MESSAGES.llamacppImage });
    if (d.engine.type === 'vllm' && d.model.source === 'custom') problems.push({ field: 'model.source', message: KAITO_MESSAGES.vllmCustomSource });
    if (d.engine.type === 'llamacpp') {
      problems.push(...argsConflicts(d, { address: `the KAITO llama.cpp template (port ${KAITO_INFERENCE_PORT})` }));
    }
    if (d.engine.type === 'vllm') {
      problems.push(...argsConflicts(d, {
        model: 'KAITO (the preset\'s weights)',
        port: `KAITO (port ${KAITO_INFERENCE_PORT})`,
        ...(d.model.servedName !== undefined ? { 'served-model-name': 'model.servedName' } : {}),
      }));
      problems.push(...vllmConfigProblems(d));
    }
    const settings = kaitoSettings(d, this.nodeProvisioning);
    problems.push(
      ...kaitoAdmissionProblems(d, settings, this.apiVersion, this.cloudProvider),
      ...kaitoPresetProblems(d, settings, this.cloudProvider),
      ...ggufFileProblems(d, settings),
    );
    return problems;
  }

  public render(context: RenderContext): ApiObject {
    const settings = kaitoSettings(context.deployment, this.nodeProvisioning);
    kaitoPresetWarnings(context.deployment, settings, this.cloudProvider).forEach(context.warn);
    return renderKaito(context, this.apiVersion, settings);
  }

  private get apiVersion(): KaitoApiVersion {
    return this.resourceType.apiVersion as KaitoApiVersion;
  }

  public endpoint(d: ResolvedModelDeployment): EndpointStatus {
    return kaitoEndpoint(d.name);
  }

  /**
   * vLLM's `--served-model-name` as KAITO sets it (kaito pkg/model/interface.go, buildVLLMInferenceCommand):
   * a Workspace an InferenceSet created serves under the InferenceSet's name, any other under the
   * preset's model name, which for a Hugging Face id is its last segment lower-cased
   * (`microsoft/Phi-4-mini-instruct` → `phi-4-mini-instruct`: presets/workspace/generator/generator.go);
   * `model.servedName` goes through the inference ConfigMap, whose options KAITO appends after its
   * own, so it wins. The llama.cpp runner serves its GGUF file's name without `.gguf`, known when
   * `provider.overrides.ggufFile` names the file (else `model.servedName` must say it).
   */
  public servedModelName(d: ResolvedModelDeployment): string | undefined {
    if (d.model.servedName !== undefined) return d.model.servedName;
    if (d.engine.type === 'llamacpp') return llamacppServedName(kaitoSettings(d, this.nodeProvisioning));
    const preset = kaitoPresetOf(d);
    if (preset === undefined) return d.model.id;
    if (rendersInferenceSet(d.replicas)) return d.name;
    return 'servedName' in preset ? preset.servedName : d.model.id;
  }

  public handlesResource(type: ResourceType): boolean {
    return (type.kind === 'Workspace' || type.kind === 'InferenceSet')
      && (type.apiVersion === 'kaito.sh/v1beta1' || type.apiVersion === 'kaito.sh/v1alpha1');
  }

  public translateStatus(resource: UpstreamResource): ModelDeploymentStatus {
    return resource.kind === 'InferenceSet' ? translateInferenceSetStatus(resource, this.name) : translateWorkspaceStatus(resource, this.name);
  }
}
