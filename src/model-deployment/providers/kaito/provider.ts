import { ApiObject } from 'cdk8s';
import { Problem } from '../../../errors';
import { OverrideSchema } from '../../overrides';
import { InferenceProvider, RenderContext, ResourceType, SelectionRule } from '../../provider';
import { ResolvedModelDeployment } from '../../resolved-spec';
import { EndpointStatus, ModelDeploymentStatus, UpstreamResource } from '../../status';
import { argsConflicts } from '../common';
import { kaitoEndpoint, translateWorkspaceStatus } from './status';
import { KaitoApiVersion, renderWorkspace } from './workspace';

/** Options of the KAITO provider. */
export interface KaitoProviderOptions {
  /**
   * The Workspace API version to render.
   * @default 'kaito.sh/v1beta1' (the storage version)
   */
  readonly apiVersion?: KaitoApiVersion;
}

/** The messages of seed 003 §8 (provider compatibility) for KAITO. */
export const KAITO_MESSAGES = {
  sglang: 'KAITO does not support sglang engine',
  trtllm: 'KAITO does not support trtllm engine',
  disaggregated: 'KAITO does not support disaggregated mode',
  llamacppImage: 'KAITO requires image for the llamacpp engine (there is no default llama.cpp image)',
  vllmCustomSource: 'KAITO runs vLLM from a preset, which downloads the model from Hugging Face: use source huggingface, or engine llamacpp with an image that contains the model',
} as const;

/**
 * KAITO (`Workspace`): CPU or GPU, vLLM presets and llama.cpp templates, aggregated mode only.
 * Auto-selected when no GPU is requested and for llama.cpp (seed 003 §4.4).
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
      // §4.4 "gpu.count == 0 OR resources.gpu is omitted". Disaggregated mode has its GPUs in
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
  /** KAITO has no overrides (seed 003 §4.15): every key is reported as unknown. */
  public readonly overrides: OverrideSchema = {};
  public readonly resourceType: ResourceType;

  public constructor(options: KaitoProviderOptions = {}) {
    const apiVersion = options.apiVersion ?? 'kaito.sh/v1beta1';
    if (apiVersion !== 'kaito.sh/v1beta1' && apiVersion !== 'kaito.sh/v1alpha1') {
      throw new Error(`KAITO apiVersion ${JSON.stringify(apiVersion)} is not supported; use kaito.sh/v1beta1 or kaito.sh/v1alpha1`);
    }
    this.resourceType = { apiVersion, kind: 'Workspace' };
  }

  public checkCompatibility(d: ResolvedModelDeployment): Problem[] {
    const problems: Problem[] = [];
    if (d.engine.type === 'sglang') problems.push({ field: 'engine.type', message: KAITO_MESSAGES.sglang });
    if (d.engine.type === 'trtllm') problems.push({ field: 'engine.type', message: KAITO_MESSAGES.trtllm });
    if (d.mode === 'disaggregated') problems.push({ field: 'serving.mode', message: KAITO_MESSAGES.disaggregated });
    if (d.engine.type === 'llamacpp' && d.image === undefined) problems.push({ field: 'image', message: KAITO_MESSAGES.llamacppImage });
    if (d.engine.type === 'vllm' && d.model.source === 'custom') problems.push({ field: 'model.source', message: KAITO_MESSAGES.vllmCustomSource });
    if (d.engine.type === 'llamacpp') {
      problems.push(...argsConflicts(d, { address: 'the KAITO llama.cpp template (port 5000)' }));
    }
    return problems;
  }

  public render(context: RenderContext): ApiObject {
    return renderWorkspace(context, this.resourceType.apiVersion as KaitoApiVersion);
  }

  public endpoint(d: ResolvedModelDeployment): EndpointStatus {
    return kaitoEndpoint(d.name);
  }

  public handlesResource(type: ResourceType): boolean {
    return type.kind === 'Workspace' && (type.apiVersion === 'kaito.sh/v1beta1' || type.apiVersion === 'kaito.sh/v1alpha1');
  }

  public translateStatus(resource: UpstreamResource): ModelDeploymentStatus {
    return translateWorkspaceStatus(resource, this.name);
  }
}
