// The status of a LlamaStackWithProviders server read from one of its pods (`kubectl get pod -o
// yaml`): the server's phase, as the llama-stack operator's status names it (Pending, Initializing,
// Ready, Failed, Terminating; llama-stack-k8s-operator api/v1alpha1/llamastackdistribution_types.go),
// and each external provider's, from its install init container and the server's preflight.
import { isRecord } from '../../checks';
import { MANAGED_BY } from '../../labels';
import { PROVIDER_SERVICE_ENV } from '../providers/service';
import { sidecarName } from '../providers/sidecar';

/** The server's phase, as the operator's `status.phase`. */
export type LlamaStackPhase = 'Pending' | 'Initializing' | 'Ready' | 'Failed' | 'Terminating';

/**
 * An external provider's phase: waiting for its turn, being installed, installed (and its service
 * available), failed; or Degraded: installed, but its sidecar is not ready or no pod of its service is
 * available.
 */
export type ProviderPhase = 'Pending' | 'Installing' | 'Ready' | 'Degraded' | 'Failed';

/** Where a provider runs: in the server's process only, or with its service in a sidecar or in pods of its own. */
export type ProviderMode = 'inline' | 'sidecar' | 'service';

/** A provider's sidecar as the kubelet reports it. */
export interface SidecarStatus {
  /** The container. */
  readonly container: string;
  readonly ready: boolean;
  readonly restarts: number;
}

/** A provider's service in pods of its own, as its Deployment reports it. */
export interface ProviderServiceStatus {
  /** Its Deployment and Service. */
  readonly name: string;
  /** Pods wanted and available; absent when its Deployment was not among the inputs. */
  readonly replicas?: { readonly desired: number; readonly available: number };
}

/** One external provider. */
export interface ExternalProviderStatus {
  readonly providerId: string;
  readonly api: string;
  readonly image: string;
  readonly mode: ProviderMode;
  readonly phase: ProviderPhase;
  /** Why, when it failed or waits on something other than its turn: the container's reason and message. */
  readonly reason?: string;
  /** Its sidecar, in mode `sidecar`. */
  readonly sidecar?: SidecarStatus;
  /** Its service, in mode `service`. */
  readonly service?: ProviderServiceStatus;
}

/** The status of one server pod. */
export interface LlamaStackStatus {
  /** The server (the pod's `app.kubernetes.io/instance`). */
  readonly name: string;
  readonly namespace?: string;
  /** The pod read. */
  readonly pod: string;
  readonly phase: LlamaStackPhase;
  /** Why, when not Ready. */
  readonly message?: string;
  /** How often the server container restarted. */
  readonly restarts: number;
  /** The external providers, in install order. */
  readonly providers: ExternalProviderStatus[];
}

/** True when `resource` is a pod of a LlamaStackWithProviders server. */
export function isLlamaStackPod(resource: Record<string, any>): boolean {
  const labels = resource.metadata?.labels ?? {};
  return resource.apiVersion === 'v1' && resource.kind === 'Pod' && labels['app.kubernetes.io/managed-by'] === MANAGED_BY
    && labels['app.kubernetes.io/name'] === 'llama-stack';
}

const INSTALL_PREFIX = 'install-provider-';

/**
 * The status of a server pod as saved with `kubectl get pod -o yaml`, with the Deployments of its
 * providers' services when given (by name; `kubectl get deployments -l kube-inference.io/server=<name>`).
 * @throws Error when it is not such a pod
 */
export function llamaStackPodStatus(
  pod: Record<string, any>,
  serviceDeployments: ReadonlyMap<string, Record<string, any>> = new Map(),
): LlamaStackStatus {
  if (!isLlamaStackPod(pod) || !isRecord(pod.spec) || !Array.isArray(pod.spec.containers) || pod.spec.containers.length === 0) {
    throw new Error('expected a pod of a LlamaStackWithProviders server (labels app.kubernetes.io/name: llama-stack, app.kubernetes.io/managed-by: kube-inference-constructs)');
  }
  const initSpecs: any[] = Array.isArray(pod.spec.initContainers) ? pod.spec.initContainers : [];
  const initStatuses = byName(pod.status?.initContainerStatuses);
  // Each init container's state, read once: the providers' and the server's phases both follow them.
  // Native sidecars (init containers that restart) run beside the server: they never complete.
  const inits = initSpecs.filter((c) => c.restartPolicy !== 'Always').map((c) => ({ spec: c, state: containerState(initStatuses.get(c.name)) }));
  const serverSpec = pod.spec.containers[0];
  const statuses = byName(pod.status?.containerStatuses);
  const server = statuses.get(serverSpec.name);
  const preflightFailures = preflightFailuresOf(terminationMessage(server));
  const sidecarStatuses = new Map([...initStatuses, ...statuses]);
  const sidecarNames = new Set([...initSpecs.filter((c) => c.restartPolicy === 'Always'), ...pod.spec.containers.slice(1)].map((c: any) => c.name));

  const providers = inits.filter(({ spec }) => typeof spec.name === 'string' && spec.name.startsWith(INSTALL_PREFIX)).map(({ spec: c, state }): ExternalProviderStatus => {
    const env = Object.fromEntries((c.env ?? []).map((e: any) => [e.name, e.value]));
    // The construct writes the id for Kubernetes' `$(VAR)` expansion: `$$` stands for `$`.
    const providerId = String(env.PROVIDER_ID ?? c.name.slice(INSTALL_PREFIX.length)).replace(/\$\$/g, '$');
    const failedPreflight = preflightFailures.get(providerId);
    const sidecarContainer = sidecarName(c.name.slice(INSTALL_PREFIX.length));
    const sidecar = sidecarNames.has(sidecarContainer) ? sidecarStatusOf(sidecarContainer, sidecarStatuses.get(sidecarContainer)) : undefined;
    const serviceName = env[PROVIDER_SERVICE_ENV];
    const service = typeof serviceName === 'string' ? serviceStatusOf(serviceName, serviceDeployments.get(serviceName)) : undefined;
    const installed = failedPreflight !== undefined && state.phase === 'done' ? { phase: 'Failed' as const, reason: `preflight failed: ${failedPreflight}` } : providerPhase(state);
    const unavailable = sidecar && !sidecar.status.ready ? sidecar.why : service?.why;
    return {
      providerId,
      api: String(env.PROVIDER_API ?? ''),
      image: String(env.PROVIDER_IMAGE ?? c.image ?? ''),
      mode: sidecar ? 'sidecar' : service ? 'service' : 'inline',
      ...(installed.phase === 'Ready' && unavailable !== undefined ? { phase: 'Degraded', reason: unavailable } : installed),
      ...(sidecar ? { sidecar: sidecar.status } : {}),
      ...(service ? { service: service.status } : {}),
    };
  });

  const name = pod.metadata?.labels?.['app.kubernetes.io/instance'] ?? pod.metadata?.name;
  const base = { name, namespace: pod.metadata?.namespace, pod: pod.metadata?.name, restarts: server?.restartCount ?? 0, providers };
  return { ...base, ...serverPhase(pod, inits, server) };
}

/** A provider service's availability (from its Deployment, when given), and why it is not available. */
function serviceStatusOf(name: string, deployment: Record<string, any> | undefined): { status: ProviderServiceStatus; why?: string } {
  if (deployment === undefined) return { status: { name } };
  const desired = typeof deployment.spec?.replicas === 'number' ? deployment.spec.replicas : 1;
  const available = typeof deployment.status?.availableReplicas === 'number' ? deployment.status.availableReplicas : 0;
  return { status: { name, replicas: { desired, available } }, why: available === 0 && desired > 0 ? `service ${name}: no pod available` : undefined };
}

/** A sidecar's readiness and restarts, and why it is not ready. */
function sidecarStatusOf(container: string, status: unknown): { status: SidecarStatus; why: string } {
  const s = isRecord(status) ? status : {};
  const state = containerState(status);
  const why = state.reason ?? (state.phase === 'running' ? 'not ready' : state.phase === 'done' ? 'exited' : 'not started');
  return { status: { container, ready: s.ready === true, restarts: typeof s.restartCount === 'number' ? s.restartCount : 0 }, why: `sidecar ${container}: ${why}` };
}

type State = { phase: 'waiting' | 'running' | 'done' | 'failed' | 'unknown'; reason?: string };

function byName(statuses: unknown): Map<string, any> {
  return new Map(Array.isArray(statuses) ? statuses.filter(isRecord).map((s) => [String(s.name), s]) : []);
}

/** Reasons a waiting container will not get past without a change: a failure, not a wait. */
const FAILED_WAITING = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError', 'CrashLoopBackOff', 'RunContainerError']);

/** What a container status says, with the reason and the termination message of a failure. */
function containerState(status: unknown): State {
  if (!isRecord(status) || !isRecord(status.state)) return { phase: 'unknown' };
  const { running, waiting, terminated } = status.state as Record<string, any>;
  if (isRecord(terminated)) {
    return terminated.exitCode === 0 ? { phase: 'done' } : { phase: 'failed', reason: describeTermination(terminated) };
  }
  if (isRecord(running)) return { phase: 'running' };
  if (isRecord(waiting)) {
    if (FAILED_WAITING.has(String(waiting.reason))) {
      // A crash loop: why it crashed is in the last run's termination.
      const last = (status as Record<string, any>).lastState?.terminated;
      const why = isRecord(last) ? describeTermination(last) : waiting.message;
      return { phase: 'failed', reason: `${waiting.reason}${why ? `: ${why}` : ''}` };
    }
    return { phase: 'waiting' };
  }
  return { phase: 'unknown' };
}

function describeTermination(t: Record<string, any>): string {
  const head = `${t.reason ?? 'Error'} (exit code ${t.exitCode})`;
  const message = terminationMessageOf(t);
  return message.trim() !== '' ? `${head}: ${message.trim()}` : head;
}

/**
 * The kubelet keeps the last 4096 bytes of a container's termination message
 * (kubecontainer.MaxContainerTerminationMessageLength, kubernetes pkg/kubelet/container/runtime.go).
 */
const MAX_TERMINATION_MESSAGE_BYTES = 4096;

/**
 * A termination's message, as a kubelet can have written it: a longer one, which no kubelet writes, is cut
 * to its last 4096 bytes the same way, saying so, so that a saved status costs no more to read than a real one.
 */
function terminationMessageOf(t: Record<string, any> | undefined): string {
  const message = t?.message;
  if (typeof message !== 'string' || message.length <= MAX_TERMINATION_MESSAGE_BYTES / 4) return typeof message === 'string' ? message : '';
  const bytes = Buffer.from(message, 'utf8');
  if (bytes.length <= MAX_TERMINATION_MESSAGE_BYTES) return message;
  return `(a message of ${bytes.length} bytes, cut to its last ${MAX_TERMINATION_MESSAGE_BYTES}, the most a kubelet keeps) `
    + bytes.subarray(bytes.length - MAX_TERMINATION_MESSAGE_BYTES).toString('utf8');
}

function providerPhase(state: State): Pick<ExternalProviderStatus, 'phase' | 'reason'> {
  switch (state.phase) {
    case 'done': return { phase: 'Ready' };
    case 'running': return { phase: 'Installing' };
    case 'failed': return { phase: 'Failed', reason: state.reason };
    default: return { phase: 'Pending' };
  }
}

function serverPhase(pod: Record<string, any>, inits: ReadonlyArray<{ spec: any; state: State }>, server: any): Pick<LlamaStackStatus, 'phase' | 'message'> {
  if (pod.metadata?.deletionTimestamp) return { phase: 'Terminating', message: 'the pod is being deleted' };
  const failed = inits.find(({ state }) => state.phase === 'failed');
  if (failed) return { phase: 'Failed', message: `init container ${failed.spec.name} failed: ${failed.state.reason}` };
  const serverState = containerState(server);
  if (serverState.phase === 'failed') return { phase: 'Failed', message: `the server container failed: ${serverState.reason}` };
  if (server?.ready === true) return { phase: 'Ready' };
  const unscheduled = (pod.status?.conditions ?? []).find((c: any) => c?.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled) return { phase: 'Pending', message: `not scheduled: ${unscheduled.message ?? unscheduled.reason ?? 'no node fits'}` };
  const waitingFor = inits.find(({ state }) => state.phase !== 'done');
  if (waitingFor) return { phase: 'Initializing', message: `init container ${waitingFor.spec.name} has not completed` };
  if (serverState.phase === 'running') return { phase: 'Initializing', message: 'the server is starting: not ready yet' };
  return { phase: 'Pending', message: 'the server container has not started' };
}

/** The termination message of the server container's current or last run. */
function terminationMessage(status: any): string {
  return terminationMessageOf(status?.state?.terminated ?? status?.lastState?.terminated);
}

/**
 * The providers preflight refused, with what it printed: `ERROR: Preflight check failed for external
 * provider '<id>'`, then `Provider:`, `Image:`, `Module:`, `Check: <check>`, the detail and a
 * `Resolution:` line (preflight.py, `report_failure`). The termination message holds the log's tail,
 * so a block may be cut short.
 */
function preflightFailuresOf(message: string): Map<string, string> {
  const found = new Map<string, string>();
  const lines = message.split('\n');
  lines.forEach((line, i) => {
    const m = /ERROR: Preflight check failed for external provider '(.*)'$/.exec(line);
    if (m === null) return;
    const end = lines.findIndex((l, j) => j > i && (l.startsWith('Resolution: ') || l.startsWith('ERROR: ')));
    const block = lines.slice(i + 1, end < 0 ? undefined : lines[end].startsWith('Resolution: ') ? end + 1 : end)
      .map((l) => l.trim()).filter((l) => l !== '' && !/^(Provider|Image|Module): /.test(l));
    found.set(m[1], block.join(' '));
  });
  return found;
}
