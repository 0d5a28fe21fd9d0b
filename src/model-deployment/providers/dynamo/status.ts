// DynamoGraphDeployment status → unified status (seed 003 §4.9, corrected by upstream: the
// operator's `status.state` is one of initializing, pending, successful, failed — the seed's
// `deploying` is accepted too — and messages are in `status.conditions`; `status.message` only
// exists in some releases, so it is read when present).
import { DYNAMO_FRONTEND_PORT } from './plan';
import { conditionsOf, countOf, EndpointStatus, findCondition, isTerminating, ModelDeploymentStatus, OPENAI_BASE_PATH, providerStatusOf, textOf, UpstreamResource } from '../../status';

interface ServiceSpec { readonly componentType?: unknown; readonly replicas?: unknown }
interface ServiceStatus { readonly readyReplicas?: unknown; readonly availableReplicas?: unknown }

/** The frontend Service the operator creates for a DynamoGraphDeployment named `name`. */
export function dynamoEndpoint(name: string): EndpointStatus {
  return { service: `${name}-frontend`, port: DYNAMO_FRONTEND_PORT, basePath: OPENAI_BASE_PATH };
}

/** Maps a DynamoGraphDeployment (with `status`) to the unified status. */
export function translateDynamoStatus(dgd: UpstreamResource, providerName = 'dynamo'): ModelDeploymentStatus {
  const name = dgd.metadata?.name ?? '';
  const status = (dgd.status ?? {}) as { state?: unknown; message?: unknown; services?: Record<string, ServiceStatus> };
  const services = ((dgd.spec as { services?: Record<string, ServiceSpec> } | undefined)?.services) ?? {};
  // Replicas count workers only (seed 003 §4.2, example 3: 2 prefill + 4 decode = 6).
  const workers = Object.entries(services).filter(([, s]) => s?.componentType !== 'frontend' && s?.componentType !== 'main');
  const desired = workers.reduce((sum, [, s]) => sum + (countOf(s?.replicas) ?? 1), 0);
  const base = {
    provider: providerStatusOf(dgd, providerName),
    endpoint: dynamoEndpoint(name),
  };
  const reported = (field: 'readyReplicas' | 'availableReplicas') => {
    const counts = workers.map(([key]) => countOf(status.services?.[key]?.[field]));
    return counts.every((c) => c !== undefined) && counts.length > 0 ? counts.reduce((a, b) => a! + b!, 0)! : undefined;
  };
  const notReady = { desired, ready: reported('readyReplicas') ?? 0, available: reported('availableReplicas') ?? 0 };
  const message = textOf(status.message) ?? textOf(findCondition(dgd, 'Ready')?.message)
    ?? textOf(conditionsOf(dgd).find((c) => c.status === 'False' && textOf(c.message))?.message);

  if (isTerminating(dgd)) return { ...base, phase: 'Terminating', replicas: notReady };
  const state = textOf(status.state);
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
    case 'deploying':
      return { ...base, phase: 'Deploying', message, replicas: notReady };
    case 'initializing':
      return { ...base, phase: 'Pending', message, replicas: notReady };
    case undefined:
      return { ...base, phase: 'Pending', message: 'Dynamo has not reported a status yet', replicas: notReady };
    default:
      return { ...base, phase: 'Pending', message: `unknown Dynamo state '${state}'${message ? `: ${message}` : ''}`, replicas: notReady };
  }
}
