// DynamoGraphDeployment status (v1alpha1 or v1beta1) → unified status. The operator's `status.state` is one of
// initializing (the schema default, before the first reconcile), pending (reconciled, not all
// services ready, or a rolling update in progress), successful, failed (the last reconcile
// failed); its `Ready` condition is True exactly when the state is successful and carries the
// reason and message (ai-dynamo: deploy/operator/api/v1alpha1/dynamographdeployment_types.go,
// internal/controller/dynamographdeployment_controller.go). `status.message` only exists in some
// releases, so it is read when present. A status older than the spec (`status.observedGeneration`
// below `metadata.generation`) describes the previous spec: the change is still being rolled out.
import { DYNAMO_FRONTEND_PORT } from './plan';
import { conditionsOf, countOf, EndpointStatus, findCondition, isTerminating, ModelDeploymentStatus, OPENAI_BASE_PATH, providerStatusOf, textOf, UpstreamResource } from '../../status';

interface ServiceSpec { readonly componentType?: unknown; readonly type?: unknown; readonly replicas?: unknown }
interface ServiceStatus { readonly readyReplicas?: unknown; readonly availableReplicas?: unknown }
type DgdSpec = { services?: Record<string, ServiceSpec>; components?: Array<ServiceSpec & { name?: unknown }> };
interface DgdStatus {
  readonly state?: unknown;
  readonly message?: unknown;
  readonly observedGeneration?: unknown;
  readonly services?: Record<string, ServiceStatus>;
  readonly components?: Record<string, ServiceStatus>;
}

/** Component types that serve no model: the frontend (`main` in older operators), the planner, the endpoint picker. */
const NOT_WORKERS: readonly unknown[] = ['frontend', 'main', 'planner', 'epp'];

/**
 * The components by name with their status: `spec.services` and `status.services` in v1alpha1,
 * `spec.components[]` and `status.components` in v1beta1 (the same fields otherwise; v1beta1's
 * dynamographdeployment_types.go).
 */
function componentsOf(spec: DgdSpec, status: DgdStatus): Array<{ spec: ServiceSpec; status?: ServiceStatus }> {
  if (Array.isArray(spec.components)) {
    return spec.components.map((c) => ({ spec: c ?? {}, status: status.components?.[String(c?.name)] }));
  }
  return Object.entries(spec.services ?? {}).map(([key, s]) => ({ spec: s ?? {}, status: status.services?.[key] }));
}

/** The frontend Service the operator creates for a DynamoGraphDeployment named `name`. */
export function dynamoEndpoint(name: string): EndpointStatus {
  return { service: `${name}-frontend`, port: DYNAMO_FRONTEND_PORT, basePath: OPENAI_BASE_PATH };
}

/** Maps a DynamoGraphDeployment (with `status`) to the unified status. */
export function translateDynamoStatus(dgd: UpstreamResource, providerName = 'dynamo'): ModelDeploymentStatus {
  const name = dgd.metadata?.name ?? '';
  const status = (dgd.status ?? {}) as DgdStatus;
  // Replicas count workers only (2 prefill + 4 decode workers are 6 replicas).
  const workers = componentsOf((dgd.spec ?? {}) as DgdSpec, status)
    .filter((c) => !NOT_WORKERS.includes(c.spec.componentType ?? c.spec.type));
  const desired = workers.reduce((sum, c) => sum + (countOf(c.spec.replicas) ?? 1), 0);
  const base = {
    provider: providerStatusOf(dgd, providerName),
    endpoint: dynamoEndpoint(name),
  };
  const reported = (field: 'readyReplicas' | 'availableReplicas') => {
    const counts = workers.map((c) => countOf(c.status?.[field]));
    return counts.every((c) => c !== undefined) && counts.length > 0 ? counts.reduce((a, b) => a! + b!, 0)! : undefined;
  };
  const notReady = { desired, ready: reported('readyReplicas') ?? 0, available: reported('availableReplicas') ?? 0 };
  const message = textOf(status.message) ?? textOf(findCondition(dgd, 'Ready')?.message)
    ?? textOf(conditionsOf(dgd).find((c) => c.status === 'False' && textOf(c.message))?.message);

  if (isTerminating(dgd)) return { ...base, phase: 'Terminating', replicas: notReady };
  const state = textOf(status.state);
  const observed = countOf(status.observedGeneration);
  const generation = countOf(dgd.metadata?.generation);
  if (state === 'successful' && observed !== undefined && generation !== undefined && observed < generation) {
    return { ...base, phase: 'Deploying', message: 'the operator has not reconciled the latest spec yet', replicas: notReady };
  }
  switch (state) {
    case 'successful':
      return {
        ...base,
        phase: 'Running',
        replicas: { desired, ready: reported('readyReplicas') ?? desired, available: reported('availableReplicas') ?? desired },
      };
    case 'failed':
      return { ...base, phase: 'Failed', message, replicas: notReady };
    case 'pending':
      return { ...base, phase: 'Deploying', message, replicas: notReady };
    case 'initializing':
      return { ...base, phase: 'Pending', message, replicas: notReady };
    case undefined:
      return { ...base, phase: 'Pending', message: 'Dynamo has not reported a status yet', replicas: notReady };
    default:
      return { ...base, phase: 'Pending', message: `unknown Dynamo state '${state}'${message ? `: ${message}` : ''}`, replicas: notReady };
  }
}
