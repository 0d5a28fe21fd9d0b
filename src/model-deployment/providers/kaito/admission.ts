// KAITO's admission webhook rules that our rendering can hit, checked at synth time.
//
// KAITO's Go module cannot be fetched on the machines this library is built on, so the webhook cannot
// be run in tests; this port is the check. Each rule cites the upstream function it follows
// (kaito: api/v1beta1/workspace_validation.go, api/v1beta1/inferenceset_validation.go). The preset
// rules are in preset-checks.ts. Rules that depend on the live cluster (the nodes matching a
// bring-your-own selector and their GPU labels, whether a gated model outside KAITO's catalogue needs
// a token) cannot be decided here and are documented instead.
import { KaitoApiVersion } from './api-version';
import { KaitoSettings } from './overrides';
import { acceptsUnknownSku, KaitoCloudProvider, kaitoSku, kaitoSkuNames } from './skus';
import { rendersInferenceSet } from './workspace';
import { Problem } from '../../../errors';
import { closest } from '../../../suggest';
import { ResolvedModelDeployment } from '../../resolved-spec';

/** The fix named when auto-provisioning has no instance type: an example SKU of the kind the deployment asks for. */
function instanceTypeFix(d: ResolvedModelDeployment): string {
  const example = d.resources.gpu.count > 0 ? 'a GPU SKU such as "Standard_NC24ads_A100_v4"' : 'a CPU SKU such as "Standard_D8s_v5"';
  return `set provider.overrides.instanceType to the node SKU KAITO should provision (${example}), `
    + 'or, when KAITO was installed with disableNodeAutoProvisioning=true, set provider.overrides.nodeProvisioning: bring-your-own';
}

/** Problems KAITO's webhook would refuse the rendered Workspace or InferenceSet for. */
export function kaitoAdmissionProblems(
  d: ResolvedModelDeployment, settings: KaitoSettings, apiVersion: KaitoApiVersion, cloud: KaitoCloudProvider,
): Problem[] {
  const problems: Problem[] = [];
  // Workspace.validateCreate and InferenceSet.validateInstanceType: with node auto-provisioning
  // (the default install) resource.instanceType is required; without it, it must be empty.
  if (settings.nodeProvisioning === 'auto' && !settings.instanceType) {
    problems.push({
      field: 'provider.overrides.instanceType',
      message: `KAITO's webhook requires resource.instanceType when node auto-provisioning is enabled (the default KAITO install): ${instanceTypeFix(d)}`,
    });
  }
  if (settings.nodeProvisioning === 'bring-your-own' && settings.instanceType !== undefined) {
    problems.push({
      field: 'provider.overrides.instanceType',
      message: 'KAITO\'s webhook requires resource.instanceType to be empty when node auto-provisioning is disabled '
        + '(nodeProvisioning: bring-your-own): remove provider.overrides.instanceType, and label your nodes to match nodeSelector',
    });
  }
  // The kaito.sh/v1alpha1 Workspace schema defaults resource.instanceType to Standard_NC24ads_A100_v4,
  // so a bring-your-own Workspace of that version always arrives with one and is refused.
  if (settings.nodeProvisioning === 'bring-your-own' && apiVersion === 'kaito.sh/v1alpha1' && !rendersInferenceSet(d.replicas)) {
    problems.push({
      field: 'provider.name',
      message: 'the kaito.sh/v1alpha1 Workspace schema defaults resource.instanceType to "Standard_NC24ads_A100_v4", which KAITO refuses '
        + 'when node auto-provisioning is disabled: configure the KAITO provider with apiVersion kaito.sh/v1beta1',
    });
  }
  if (settings.instanceType !== undefined && !/^\S+$/.test(settings.instanceType)) {
    problems.push({ field: 'provider.overrides.instanceType', message: `${JSON.stringify(settings.instanceType)} is not a node SKU name (no spaces, not empty)` });
  } else if (settings.nodeProvisioning === 'auto' && settings.instanceType) {
    problems.push(...instanceTypeProblems(settings.instanceType, cloud));
  }
  // ResourceSpec.validateCreateWithInference: every Workspace renders a label selector with
  // kubernetes.io/os, so "matchLabels must contain at least one non-reserved label" cannot fire.
  // InferenceSpec.validateCreate: exactly one of preset and template is rendered, by engine.
  return problems;
}

/**
 * ResourceSpec.validateCreateWithInference, with node auto-provisioning: the instance type must be a
 * SKU of the cloud's handler ("regardless of if preset is empty or not"), except Azure's N and D
 * series. KAITO prints its list in map order; ours is sorted.
 */
function instanceTypeProblems(instanceType: string, cloud: KaitoCloudProvider): Problem[] {
  if (kaitoSku(cloud, instanceType) !== undefined || acceptsUnknownSku(cloud, instanceType)) return [];
  const known = kaitoSkuNames(cloud);
  const near = known.find((k) => k.toLowerCase() === instanceType.toLowerCase()) ?? closest(instanceType, known);
  const azure = cloud === 'azure' ? ', or an Azure N- or D-series size (Standard_N…, Standard_D…)' : '';
  return [{
    field: 'provider.overrides.instanceType',
    message: `KAITO's webhook refuses "Unsupported instance type ${instanceType}. Supported SKUs: [${known.join(' ')}]" `
      + `(its ${cloud} SKU handler): ${near !== undefined ? `did you mean "${near}"? ` : ''}use one of those${azure}; `
      + 'if your KAITO install runs on another cloud (Helm value cloudProviderName), configure the KAITO provider with its cloudProvider',
  }];
}
