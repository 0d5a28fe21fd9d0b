// Level 2a of seed 002: a provider's service as a sidecar of the server's pod, from the provider's own
// image. The install init container still puts the provider's in-process adapter into the server; the
// sidecar runs the heavy part beside it, reached on localhost at a port the construct assigns and hands
// to the service as PROVIDER_PORT, and the adapter's config gets that address.
import type * as k8s from 'cdk8s-plus-28/lib/imports/k8s';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { ResourceRequirements } from './pod';

/** A provider's service run as a sidecar of the server's pod (seed 002, Level 2a). */
export interface ProviderSidecar {
  /**
   * The port the service listens on, given to it as `PROVIDER_PORT`. Unique in the pod, never the
   * server's, at least 1024 (the containers run without privileges).
   * @default - 18000 + the sidecar's position among the pod's sidecars (spec order)
   */
  readonly port?: number;
  /**
   * The service's command.
   * @default - the image's entrypoint
   */
  readonly command?: string[];
  /**
   * Arguments to the command.
   * @default - the image's
   */
  readonly args?: string[];
  /**
   * More environment variables of the service (`PROVIDER_PORT` is the construct's).
   * @default - none
   */
  readonly env?: k8s.EnvVar[];
  /**
   * The service's resource requests and limits. They add to the pod's: the scheduler places the pod by
   * the sum of the server's and every sidecar's requests.
   * @default - none
   */
  readonly resources?: ResourceRequirements;
  /**
   * The key of the provider's `config` that receives the service's address,
   * `http://localhost:<port><path>`.
   * @default 'url'
   */
  readonly configKey?: string;
  /**
   * Appended to the address, e.g. `/v1`.
   * @default - nothing
   */
  readonly path?: string;
  /**
   * How the kubelet knows the service has started: the server starts only after (with native sidecars).
   * @default - a TCP connection to the port, every second for up to two minutes
   */
  readonly startupProbe?: k8s.Probe;
  /**
   * When the service is ready; while it is not, the pod is not Ready either.
   * @default - a TCP connection to the port, every 10 seconds
   */
  readonly readinessProbe?: k8s.Probe;
  /**
   * When the kubelet restarts the service.
   * @default - a TCP connection to the port, every 10 seconds, three failures
   */
  readonly livenessProbe?: k8s.Probe;
  /**
   * Keep the pod Ready while this sidecar is not (seed 002: the server keeps serving the other APIs
   * while a provider's service fails): it gets no readiness probe; its liveness probe still restarts it.
   * @default false
   */
  readonly podReadyWithoutIt?: boolean;
}

/** The first port assigned to sidecars; the next ones follow in spec order. */
export const FIRST_SIDECAR_PORT = 18000;

/** The Kubernetes minor from which sidecars are native (init containers with `restartPolicy: Always`). */
export const NATIVE_SIDECARS_SINCE = 29;

/** A sidecar with what the construct decided for it. */
export interface PlannedSidecar {
  /** The provider's key (`providerKey`): the container is `provider-<key>`. */
  readonly key: string;
  readonly image: string;
  readonly imagePullPolicy: string;
  readonly port: number;
  readonly options: ProviderSidecar;
}

/** The sidecar's container name. */
export function sidecarName(key: string): string {
  return `provider-${key}`;
}

/** The address the provider's adapter reaches its service at. */
export function sidecarAddress(port: number, path: string | undefined): string {
  return `http://localhost:${port}${path ?? ''}`;
}

/**
 * The sidecar's container. Native (an init container with `restartPolicy: Always`, Kubernetes ≥ 1.29):
 * started, and its startup probe passed, before the server starts; it stops after the server. Else a
 * regular container beside the server, which then starts with it (its adapter must retry while the
 * service comes up).
 */
export function sidecarContainer(s: PlannedSidecar, native: boolean, securityContext: IContainer['securityContext']): IContainer {
  const tcp = { tcpSocket: { port: s.port } };
  const o = s.options;
  const readiness = o.podReadyWithoutIt ? undefined : (o.readinessProbe as IProbe | undefined) ?? { ...tcp, periodSeconds: 10 };
  return {
    name: sidecarName(s.key),
    image: s.image,
    imagePullPolicy: s.imagePullPolicy as IContainer['imagePullPolicy'],
    ...(native ? { restartPolicy: 'Always' } : {}),
    command: o.command,
    args: o.args,
    env: [{ name: 'PROVIDER_PORT', value: String(s.port) }, ...((o.env ?? []) as IContainer['env'] & object)],
    ports: [{ name: `p-${s.port}`, containerPort: s.port, protocol: 'TCP' }],
    resources: o.resources,
    securityContext,
    startupProbe: (o.startupProbe as IProbe | undefined) ?? { ...tcp, periodSeconds: 1, failureThreshold: 120 },
    readinessProbe: readiness,
    livenessProbe: (o.livenessProbe as IProbe | undefined) ?? { ...tcp, periodSeconds: 10, failureThreshold: 3 },
  };
}

/** A provider asking for a sidecar, as validation sees it. */
interface SidecarRequest {
  readonly field: string;
  readonly key: string;
  readonly image: string;
  readonly imagePullPolicy?: string;
  readonly options: ProviderSidecar;
  readonly config?: { [key: string]: unknown };
}

/**
 * Plans the sidecars of the pod in spec order: ports (the given one, else the next free from
 * {@link FIRST_SIDECAR_PORT}), checked against each other and the server's port, and each adapter's
 * config with the service's address at its key. Problems are reported by field.
 */
export function planSidecars(
  requests: readonly SidecarRequest[],
  serverPort: number,
  report: (field: string, message: string) => void,
): Array<{ sidecar: PlannedSidecar; config: { [key: string]: unknown } }> {
  const taken = new Map<number, string>([[serverPort, 'the server']]);
  for (const r of requests) {
    const port = r.options.port;
    if (port === undefined) continue;
    if (!Number.isInteger(port) || port < 1024 || port > 65535) {
      report(`${r.field}.sidecar.port`, `${port} is not a port the sidecar can listen on: expected an integer from 1024 to 65535 (its container runs without privileges), or leave it out for one assigned from ${FIRST_SIDECAR_PORT}.`);
    } else if (taken.has(port)) {
      report(`${r.field}.sidecar.port`, `${port} is already ${taken.get(port)}'s port in this pod (the containers of a pod share its network): choose another, or leave it out for one assigned.`);
    } else {
      taken.set(port, `the sidecar of ${r.field}`);
    }
  }
  let next = FIRST_SIDECAR_PORT;
  return requests.map((r) => {
    let port = r.options.port;
    if (port === undefined) {
      while (taken.has(next)) next++;
      port = next;
      taken.set(port, `the sidecar of ${r.field}`);
    }
    const key = r.options.configKey ?? 'url';
    if (key === '') report(`${r.field}.sidecar.configKey`, 'is empty: name the key of the provider\'s config that receives the service\'s address (default \'url\').');
    if (r.options.path !== undefined && !r.options.path.startsWith('/')) {
      report(`${r.field}.sidecar.path`, `'${r.options.path}' must start with '/': it is appended to http://localhost:${port}.`);
    }
    if (r.config !== undefined && Object.prototype.hasOwnProperty.call(r.config, key)) {
      report(`${r.field}.config.${key}`, `is set, and the sidecar's address (${sidecarAddress(port, r.options.path)}) goes there: remove it, or name another key with sidecar.configKey.`);
    }
    const config = { ...r.config, [key]: sidecarAddress(port, r.options.path) };
    return { sidecar: { key: r.key, image: r.image, imagePullPolicy: r.imagePullPolicy ?? 'IfNotPresent', port, options: r.options }, config };
  });
}

/** The Kubernetes minor of `1.30`, `v1.30` or `1.30.2`, or undefined when it is none. */
export function kubernetesMinorOf(version: string): number | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(version);
  return m ? Number(m[1]) : undefined;
}
