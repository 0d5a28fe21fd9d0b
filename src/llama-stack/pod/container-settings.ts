// What the pod's containers share: the security contexts, and the init containers' resources and termination message.
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { ISecurityContext } from 'kubernetes-models/v1/SecurityContext';
import type { PodPlan } from './plan';
import type { PodSecurityOptions } from '../options';

/** The container-level security context: the restricted profile, or nothing when relaxed. */
export function containerSecurityContext(security: Required<PodSecurityOptions>): ISecurityContext | undefined {
  if (!security.restricted) {
    return undefined;
  }
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
  };
}

/**
 * The pod-level security context: fixed uid/gid/fsGroup (unless the platform assigns them), plus the
 * restricted profile's pod settings.
 */
export function podSecurityContext(security: Required<PodSecurityOptions>): IPodSecurityContext {
  return {
    ...(security.idsFromPlatform ? {} : { runAsUser: security.runAsUser, runAsGroup: security.runAsGroup, fsGroup: security.fsGroup }),
    ...(security.restricted ? { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } : {}),
  };
}

/**
 * What every init container shares: small resources, the restricted profile, and its log tail as
 * the termination message, so the reason for a failure shows in the pod status.
 */
export function initContainerBasics(plan: PodPlan): Pick<IContainer, 'resources' | 'securityContext' | 'terminationMessagePolicy'> {
  return {
    resources: plan.initResources,
    securityContext: containerSecurityContext(plan.security),
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}
