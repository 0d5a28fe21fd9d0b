// `provider.overrides` of KAITO: how the cluster gets its nodes, and which GGUF file llama.cpp loads.
import { OverrideSchema } from '../../overrides';
import { ResolvedModelDeployment } from '../../resolved-spec';

/**
 * How KAITO finds nodes: `auto` — KAITO provisions a node of `resource.instanceType` (the default
 * install, Helm value `disableNodeAutoProvisioning: false`); `bring-your-own` — KAITO was installed
 * with node auto-provisioning disabled and schedules onto existing nodes that match the label selector.
 */
export type KaitoNodeProvisioning = 'auto' | 'bring-your-own';

/** Documented `provider.overrides` of KAITO. */
export function kaitoOverrides(defaultProvisioning: KaitoNodeProvisioning): OverrideSchema {
  return {
    nodeProvisioning: {
      type: 'string',
      enum: ['auto', 'bring-your-own'],
      default: defaultProvisioning,
      description: 'How the KAITO install gets nodes: `auto` (node auto-provisioning, needs `instanceType`) or '
        + '`bring-your-own` (KAITO installed with `disableNodeAutoProvisioning=true`; existing nodes matching the selector).',
    },
    instanceType: {
      type: 'string',
      description: 'The node SKU KAITO provisions (`resource.instanceType`), e.g. `Standard_NC24ads_A100_v4`. '
        + 'Required with `nodeProvisioning: auto`; not allowed with `bring-your-own`.',
    },
    ggufFile: {
      type: 'string',
      description: 'llama.cpp only: the GGUF file in the Hugging Face repository to load (`https://huggingface.co/<model.id>/resolve/main/<ggufFile>`), which the runner serves under its name without `.gguf`; '
        + 'without it the runner downloads every GGUF file of the repository.',
    },
  };
}

/** The KAITO placement settings of one deployment (overrides, provider default applied). */
export interface KaitoSettings {
  readonly nodeProvisioning: KaitoNodeProvisioning;
  readonly instanceType?: string;
  readonly ggufFile?: string;
}

/** Reads the KAITO overrides; values of the wrong type are ignored here (the override check reports them). */
export function kaitoSettings(d: ResolvedModelDeployment, defaultProvisioning: KaitoNodeProvisioning): KaitoSettings {
  const o = d.overrides;
  const text = (v: unknown): string | undefined => typeof v === 'string' ? v : undefined;
  const provisioning = text(o.nodeProvisioning);
  return {
    nodeProvisioning: provisioning === 'auto' || provisioning === 'bring-your-own' ? provisioning : defaultProvisioning,
    instanceType: text(o.instanceType),
    ggufFile: text(o.ggufFile),
  };
}
