// KAITO Workspace and InferenceSet status → unified status. A Workspace reports conditions —
// ResourceReady, InferenceReady, WorkspaceSucceeded (kaito: api/v1beta1/condition_types.go) — and
// `status.state`, one of Pending, Ready, NotReady (inference) or Running, Succeeded, Failed (tuning);
// WorkspaceSucceeded=False with reason `workspacePending` means "not done yet", not failure. An
// InferenceSet reports `status.replicas`, `status.readyReplicas` and the InferenceSetReady condition
// (kaito: api/v1beta1/inferenceset_types.go, pkg/inferenceset/inferenceset_controller.go).
import { conditionsOf, countOf, EndpointStatus, findCondition, isTerminating, ModelDeploymentStatus, OPENAI_BASE_PATH, providerStatusOf, textOf, UpstreamResource } from '../../status';

/** Port of the Service KAITO creates in front of the inference pods. */
export const KAITO_SERVICE_PORT = 80;

/**
 * The Service in front of a deployment named `name` (same name, port 80): the one KAITO creates for
 * a Workspace, or the one we render for an InferenceSet.
 */
export function kaitoEndpoint(name: string): EndpointStatus {
  return { service: name, port: KAITO_SERVICE_PORT, basePath: OPENAI_BASE_PATH };
}

/** Maps a Workspace (with `status`) to the unified status. */
export function translateWorkspaceStatus(workspace: UpstreamResource, providerName = 'kaito'): ModelDeploymentStatus {
  const name = workspace.metadata?.name ?? '';
  const resource = workspace.resource as { count?: unknown } | undefined;
  const desired = countOf(resource?.count) ?? 1;
  const base = {
    provider: providerStatusOf(workspace, providerName),
    endpoint: kaitoEndpoint(name),
  };
  const notReady = { desired, ready: 0, available: 0 };
  const state = textOf((workspace.status as { state?: unknown } | undefined)?.state);

  if (isTerminating(workspace)) {
    return { ...base, phase: 'Terminating', replicas: notReady };
  }
  if (findCondition(workspace, 'WorkspaceSucceeded')?.status === 'True' || state === 'Ready' || state === 'Succeeded') {
    return { ...base, phase: 'Running', replicas: { desired, ready: desired, available: desired } };
  }
  // An error condition: a False condition whose reason names a failure.
  const failed = conditionsOf(workspace).find((c) => c.status === 'False' && /fail|error/i.test(c.reason ?? ''));
  if (failed || state === 'Failed') {
    return { ...base, phase: 'Failed', message: textOf(failed?.message) ?? firstFalseMessage(workspace), replicas: notReady };
  }
  const inference = findCondition(workspace, 'InferenceReady');
  if (inference?.status === 'False' || state === 'NotReady') {
    return { ...base, phase: 'Deploying', message: textOf(inference?.message), replicas: notReady };
  }
  if (conditionsOf(workspace).length === 0 && state === undefined) {
    return { ...base, phase: 'Pending', message: 'KAITO has not reported a status yet', replicas: notReady };
  }
  const resourceReady = findCondition(workspace, 'ResourceReady');
  return { ...base, phase: 'Pending', message: resourceReady?.status === 'True' ? undefined : textOf(resourceReady?.message), replicas: notReady };
}

function firstFalseMessage(workspace: UpstreamResource): string | undefined {
  return textOf(conditionsOf(workspace).find((c) => c.status === 'False' && textOf(c.message))?.message);
}

/** Maps an InferenceSet (with `status`) to the unified status. */
export function translateInferenceSetStatus(set: UpstreamResource, providerName = 'kaito'): ModelDeploymentStatus {
  const name = set.metadata?.name ?? '';
  const spec = set.spec as { replicas?: unknown } | undefined;
  const status = set.status as { readyReplicas?: unknown } | undefined;
  const desired = countOf(spec?.replicas) ?? 1;
  const ready = Math.min(countOf(status?.readyReplicas) ?? 0, desired);
  const base = { provider: providerStatusOf(set, providerName), endpoint: kaitoEndpoint(name), replicas: { desired, ready, available: ready } };
  if (isTerminating(set)) return { ...base, phase: 'Terminating' };
  const condition = findCondition(set, 'InferenceSetReady');
  if (condition?.status === 'True' || (desired > 0 && ready === desired)) return { ...base, phase: 'Running' };
  // The controller reports reason inferencesetFailed when it cannot set up the inference pool.
  if (condition?.status === 'False' && /fail/i.test(condition.reason ?? '')) return { ...base, phase: 'Failed', message: textOf(condition.message) };
  if (condition === undefined) return { ...base, phase: 'Pending', message: 'KAITO has not reported a status yet' };
  return { ...base, phase: ready > 0 ? 'Deploying' : 'Pending', message: textOf(condition.message) };
}
