// RayService status → unified status, as KubeRay v1.6 and v1.7 write it (ray-operator/apis/ray/v1/rayservice_types.go,
// controllers/ray/rayservice_controller.go): readiness is the condition of type `Ready` (True with reason
// NonZeroServeEndpoints; False with Initializing, ZeroServeEndpoints, or the terminal ValidationFailed and
// InitializingTimeout); the deprecated `status.serviceStatus` (`Running` or empty) is read when there is no
// condition; Serve application statuses are NOT_STARTED, DEPLOYING, RUNNING, DEPLOY_FAILED, DELETING, UNHEALTHY.
// v1.7 adds `spec.suspend`: while it holds, the conditions `Suspending` and then `Suspended` are True, the Ray
// clusters are deleted and `Ready` is False with reason SuspendInProgress or SuspendComplete
// (rayservice_controller.go handleSuspend; the condition names as KubeRay's e2e tests wait for them).
// A RayService's Ray cluster is first KubeRay's *pending* cluster, whose Serve applications and counts are
// under `status.pendingServiceStatus`, and becomes the *active* one (`activeServiceStatus`) only once it
// serves (rayservice_controller.go reconcilePromotionAndServingStatus): until a cluster is active, Ray's
// report on the first one is read from the pending status. During an upgrade the active cluster keeps
// serving, and a failure of the new one is told alongside.
import { RAY_SERVE_PORT } from './serve-config';
import { compareStrings } from '../../../checks';
import { countOf, EndpointStatus, findCondition, isTerminating, ModelDeploymentStatus, OPENAI_BASE_PATH, providerStatusOf, textOf, UpstreamResource } from '../../status';

interface ServeDeploymentStatus { readonly status?: unknown; readonly message?: unknown }
interface ApplicationStatus extends ServeDeploymentStatus { readonly serveDeploymentStatuses?: Record<string, ServeDeploymentStatus> }
interface ServiceStatus {
  readonly applicationStatuses?: Record<string, ApplicationStatus>;
  readonly rayClusterStatus?: { readonly readyWorkerReplicas?: unknown; readonly availableWorkerReplicas?: unknown };
  readonly rayClusterName?: unknown;
}

const FAILED_APP_STATUSES = ['DEPLOY_FAILED', 'UNHEALTHY'];
/**
 * Reasons of a False `Ready` condition after which KubeRay stops trying: the controller's validation
 * refused the spec (rayservice_controller.go validateRayService), or the RayService outlived its
 * `ray.io/initializing-timeout` (markFailedOnInitializingTimeout: "a terminal failure state").
 */
const TERMINAL_READY_REASONS = ['ValidationFailed', 'InitializingTimeout'];

/** KubeRay 1.7's suspension conditions, the later state first, with what the unified status says. */
const SUSPENSION = [
  { type: 'Suspended', message: 'KubeRay suspended the RayService (spec.suspend: true): its Ray cluster is deleted; set spec.suspend to false to resume' },
  { type: 'Suspending', message: 'KubeRay is suspending the RayService (spec.suspend: true): its Ray cluster is being deleted' },
] as const;

/** The Serve Service KubeRay creates for a RayService named `name` (`<name>-serve-svc`). */
export function rayServeEndpoint(name: string): EndpointStatus {
  return { service: `${name}-serve-svc`, port: RAY_SERVE_PORT, basePath: OPENAI_BASE_PATH };
}

/** Maps a RayService (with `status`) to the unified status. */
export function translateRayServiceStatus(service: UpstreamResource, providerName = 'kuberay'): ModelDeploymentStatus {
  const name = service.metadata?.name ?? '';
  const spec = service.spec as { rayClusterConfig?: { workerGroupSpecs?: { replicas?: unknown }[] } } | undefined;
  const groups = Array.isArray(spec?.rayClusterConfig?.workerGroupSpecs) ? spec!.rayClusterConfig!.workerGroupSpecs! : [];
  const desired = groups.reduce((sum, g) => sum + (countOf(g?.replicas) ?? 0), 0);
  const status = (service.status ?? {}) as { serviceStatus?: unknown; activeServiceStatus?: ServiceStatus; pendingServiceStatus?: ServiceStatus };
  const pending = status.pendingServiceStatus ?? {};
  const serving = textOf(status.activeServiceStatus?.rayClusterName) !== undefined;
  // The status of the cluster that serves, else of the first one on its way (see above).
  const active = serving || textOf(pending.rayClusterName) === undefined ? status.activeServiceStatus ?? {} : pending;
  const apps = applicationsOf(active);
  // The counts are `omitempty` int32s: once rayClusterStatus is reported, a missing count is 0.
  const reported = active.rayClusterStatus === undefined ? undefined : 0;
  const ready = countOf(active.rayClusterStatus?.readyWorkerReplicas) ?? reported;
  const available = countOf(active.rayClusterStatus?.availableWorkerReplicas) ?? reported;
  const base = {
    provider: providerStatusOf(service, providerName),
    endpoint: rayServeEndpoint(name),
  };
  const replicas = (running: boolean) => ({
    desired,
    ready: ready ?? (running ? desired : 0),
    available: available ?? (running ? desired : 0),
  });

  if (isTerminating(service)) return { ...base, phase: 'Terminating', replicas: replicas(false) };
  const suspension = SUSPENSION.find(({ type }) => findCondition(service, type)?.status === 'True');
  if (suspension) return { ...base, phase: 'Pending', message: suspension.message, replicas: replicas(false) };
  const readyCondition = findCondition(service, 'Ready');
  if (readyCondition?.status === 'False' && TERMINAL_READY_REASONS.includes(String(readyCondition.reason))) {
    return { ...base, phase: 'Failed', message: textOf(readyCondition.message) ?? `KubeRay: ${String(readyCondition.reason)}`, replicas: replicas(false) };
  }
  const failed = apps.find(([, app]) => FAILED_APP_STATUSES.includes(String(app?.status)));
  if (failed) {
    return { ...base, phase: 'Failed', message: failureMessage(failed[0], failed[1]), replicas: replicas(false) };
  }
  if (readyCondition?.status === 'True' || (readyCondition === undefined && status.serviceStatus === 'Running')) {
    const upgradeFailed = serving ? applicationsOf(pending).find(([, app]) => FAILED_APP_STATUSES.includes(String(app?.status))) : undefined;
    const message = upgradeFailed && `the upgrade's new Ray cluster ${String(pending.rayClusterName)} fails: ${failureMessage(...upgradeFailed)}`;
    return { ...base, phase: 'Running', ...(message ? { message } : {}), replicas: replicas(true) };
  }
  const message = textOf(readyCondition?.message);
  if (apps.length > 0) return { ...base, phase: 'Deploying', message, replicas: replicas(false) };
  return { ...base, phase: 'Pending', message: message ?? (readyCondition ? undefined : 'KubeRay has not reported a status yet'), replicas: replicas(false) };
}

/** The Serve applications of a cluster's status, by name. */
function applicationsOf(cluster: ServiceStatus): [string, ApplicationStatus][] {
  return Object.entries(cluster.applicationStatuses ?? {}).sort(([a], [b]) => compareStrings(a, b));
}

/** The application's message, else the messages of its failing Serve deployments ("serveStatuses"). */
function failureMessage(appName: string, app: ApplicationStatus): string {
  const own = textOf(app.message);
  if (own) return own;
  const deployments = Object.entries(app.serveDeploymentStatuses ?? {}).sort(([a], [b]) => compareStrings(a, b))
    .filter(([, d]) => textOf(d?.message))
    .map(([deployment, d]) => `${deployment}: ${String(d.message)}`);
  return deployments.length > 0 ? deployments.join('; ') : `Serve application '${appName}' is ${String(app.status)}`;
}
