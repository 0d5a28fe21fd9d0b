import type { IHorizontalPodAutoscalerSpec } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscalerSpec';
import type { IPodDisruptionBudgetSpec } from 'kubernetes-models/policy/v1/PodDisruptionBudgetSpec';
import type { IAffinity } from 'kubernetes-models/v1/Affinity';
import type { ITopologySpreadConstraint } from 'kubernetes-models/v1/TopologySpreadConstraint';
import { AutoscalingOptions, PodDisruptionBudgetOptions } from '../options';

// What the llama-stack operator renders for more than one replica and for autoscaling
// (llama-stack-k8s-operator before its rename to OGX, controllers/resource_helper.go: buildHPASpec,
// buildPodDisruptionBudgetSpec, configurePodScheduling). Its defaults key on `replicas` as written,
// not on the autoscaler's bounds, and so do these.

/** The autoscaler's fewest replicas, by the operator's rule: never fewer than `replicas` asked for, nor than 1. */
export function autoscalerMinReplicas(replicas: number, autoscaling: AutoscalingOptions): number {
  return Math.max(1, replicas, autoscaling.minReplicas ?? 1);
}

/** The HorizontalPodAutoscaler (`autoscaling/v2`) of the server's Deployment. */
export function autoscalerSpec(deploymentName: string, replicas: number, autoscaling: AutoscalingOptions): IHorizontalPodAutoscalerSpec {
  const utilisation = (name: 'cpu' | 'memory', averageUtilization: number) =>
    ({ type: 'Resource', resource: { name, target: { type: 'Utilization', averageUtilization } } });
  const metrics = [
    ...(autoscaling.targetCPUUtilizationPercentage !== undefined ? [utilisation('cpu', autoscaling.targetCPUUtilizationPercentage)] : []),
    ...(autoscaling.targetMemoryUtilizationPercentage !== undefined ? [utilisation('memory', autoscaling.targetMemoryUtilizationPercentage)] : []),
  ];
  return {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deploymentName },
    minReplicas: autoscalerMinReplicas(replicas, autoscaling),
    maxReplicas: autoscaling.maxReplicas,
    metrics: metrics.length > 0 ? metrics : [utilisation('cpu', 80)],
  };
}

/**
 * The PodDisruptionBudget: the one asked for; with more than one replica and none asked for, one
 * pod at a time (`maxUnavailable: 1`, which never blocks a drain as `minAvailable` can); else none.
 */
export function disruptionBudgetSpec(
  selector: Record<string, string>, replicas: number, budget?: PodDisruptionBudgetOptions,
): IPodDisruptionBudgetSpec | undefined {
  if (budget === undefined && replicas <= 1) return undefined;
  return { selector: { matchLabels: selector }, ...(budget ?? { maxUnavailable: 1 }) };
}

/**
 * Where the pods go: the spread constraints given; with more than one replica and none given, spread
 * over regions, zones and nodes as far as possible; with more than one replica, other nodes preferred.
 */
export function podPlacement(selector: Record<string, string>, replicas: number, given?: readonly ITopologySpreadConstraint[]):
{ topologySpreadConstraints?: ITopologySpreadConstraint[]; affinity?: IAffinity } {
  const several = replicas > 1;
  const spread = (topologyKey: string): ITopologySpreadConstraint =>
    ({ maxSkew: 1, topologyKey, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } });
  const topologySpreadConstraints = given !== undefined && given.length > 0
    ? [...given]
    : several ? ['topology.kubernetes.io/region', 'topology.kubernetes.io/zone', 'kubernetes.io/hostname'].map(spread) : undefined;
  const affinity: IAffinity | undefined = several
    ? { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } } }] } }
    : undefined;
  return { topologySpreadConstraints, affinity };
}
