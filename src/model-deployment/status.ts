// The unified status of seed 003 §4.1 (phase, message, replicas, endpoint), as providers compute it
// from their upstream resource as read back from the cluster (`kubectl get -o yaml`).
import { SELECTION_REASON_ANNOTATION } from './metadata';

/** Lifecycle phase of a deployment, the same for every provider. */
export type DeploymentPhase = 'Pending' | 'Deploying' | 'Running' | 'Failed' | 'Terminating';

/** Replica counts. */
export interface ReplicaStatus {
  /** Replicas asked for (workers; a Dynamo frontend is not counted). */
  readonly desired: number;
  /** Replicas ready. */
  readonly ready: number;
  /** Replicas available to serve. */
  readonly available: number;
}

/** Where the OpenAI-compatible API listens inside the cluster (a ClusterIP Service). */
export interface EndpointStatus {
  /** Service name. */
  readonly service: string;
  /** Service port. */
  readonly port: number;
  /**
   * Path of the OpenAI-compatible API on that port: clients such as Llama Stack's `remote::vllm`
   * provider take `http://<service>.<namespace>.svc.cluster.local:<port><basePath>` as their URL.
   */
  readonly basePath: string;
}

/** The path every built-in provider's runtime serves the OpenAI API under. */
export const OPENAI_BASE_PATH = '/v1';

/** Which upstream resource the status was read from. */
export interface ProviderStatus {
  /** Provider name, e.g. `dynamo`. */
  readonly name: string;
  /** Name of the upstream resource. */
  readonly resourceName: string;
  /** Kind of the upstream resource. */
  readonly resourceKind: string;
  /** Why the provider was chosen, when the resource records it (annotation `kube-inference.io/selection-reason`). */
  readonly selectionReason?: string;
}

/** The unified status of a deployment. */
export interface ModelDeploymentStatus {
  /** Lifecycle phase. */
  readonly phase: DeploymentPhase;
  /** Why, when the provider says (error or progress message). */
  readonly message?: string;
  /** The upstream resource. */
  readonly provider: ProviderStatus;
  /** Replica counts. */
  readonly replicas: ReplicaStatus;
  /** The serving endpoint. */
  readonly endpoint: EndpointStatus;
}

/** An upstream custom resource as read from the cluster. */
export interface UpstreamResource {
  /** e.g. `nvidia.com/v1alpha1`. */
  readonly apiVersion: string;
  /** e.g. `DynamoGraphDeployment`. */
  readonly kind: string;
  /** Object metadata. */
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly labels?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: string;
    readonly [key: string]: unknown;
  };
  /** Everything else (`spec`, `status`, and KAITO's top-level `resource`/`inference`). */
  readonly [key: string]: unknown;
}

/** A condition as Kubernetes reports it. */
export interface StatusCondition {
  /** Condition type. */
  readonly type: string;
  /** `True`, `False` or `Unknown`. */
  readonly status: string;
  /** Machine-readable reason. */
  readonly reason?: string;
  /** Human-readable message. */
  readonly message?: string;
}

/** The `status.conditions` of a resource, ignoring malformed entries. */
export function conditionsOf(resource: UpstreamResource): StatusCondition[] {
  const status = resource.status as { conditions?: unknown } | undefined;
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  return conditions.filter((c): c is StatusCondition => c !== null && typeof c === 'object'
    && typeof (c as StatusCondition).type === 'string' && typeof (c as StatusCondition).status === 'string');
}

/** The condition of the given type, if reported. */
export function findCondition(resource: UpstreamResource, type: string): StatusCondition | undefined {
  return conditionsOf(resource).find((c) => c.type === type);
}

/** Whether the resource is being deleted. */
export function isTerminating(resource: UpstreamResource): boolean {
  return typeof resource.metadata?.deletionTimestamp === 'string';
}

/** A non-negative integer field, or undefined. */
export function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** A non-empty string, or undefined. */
export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The `provider` part of a unified status: which provider's resource it is, and why it was chosen. */
export function providerStatusOf(resource: UpstreamResource, providerName: string): ProviderStatus {
  return {
    name: providerName,
    resourceName: resource.metadata?.name ?? '',
    resourceKind: resource.kind,
    selectionReason: resource.metadata?.annotations?.[SELECTION_REASON_ANNOTATION],
  };
}
