// A provider's service as a sidecar of the server's pod, from the provider's own
// image. The install init container still puts the provider's in-process adapter into the server; the
// sidecar runs the heavy part beside it, reached on localhost at a port the construct assigns and hands
// to the service as PROVIDER_PORT, and the adapter's config gets that address.
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { ProviderSidecar } from './options';
import { isUnprivilegedPort, serviceAddressOf, ServicePartRequest, servicePartContainer } from './service-part';
import type { ServiceAddress } from '../../run-config/service-address';

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

/**
 * The sidecar's container. Native (an init container with `restartPolicy: Always`, Kubernetes ≥ 1.29):
 * started, and its startup probe passed, before the server starts; it stops after the server. Else a
 * regular container beside the server, which then starts with it (its adapter must retry while the
 * service comes up).
 */
export function sidecarContainer(s: PlannedSidecar, native: boolean, securityContext: IContainer['securityContext']): IContainer {
  const portName = `p-${s.port}`;
  const container = servicePartContainer({
    name: sidecarName(s.key),
    image: s.image,
    imagePullPolicy: s.imagePullPolicy,
    port: s.port,
    portName,
    options: s.options,
    securityContext,
    defaultStartupProbe: { tcpSocket: { port: portName }, periodSeconds: 1, failureThreshold: 120 },
    withoutReadiness: s.options.podReadyWithoutIt,
  });
  // An init container that restarts: the kubelet keeps it running beside the main containers.
  return native ? { ...container, restartPolicy: 'Always' } : container;
}

/**
 * Plans the sidecars of the pod in spec order: ports (the given one, else the next free from
 * {@link FIRST_SIDECAR_PORT}), checked against each other and the server container's ports
 * (`serverPorts`: each with what listens on it), and each service's address. Problems are reported by field.
 */
export function planSidecars(
  requests: ReadonlyArray<ServicePartRequest<ProviderSidecar>>,
  serverPorts: ReadonlyMap<number, string>,
  report: (field: string, message: string) => void,
): Array<{ sidecar: PlannedSidecar; serviceAddress: ServiceAddress }> {
  const taken = new Map<number, string>(serverPorts);
  for (const r of requests) {
    const port = r.options.port;
    if (port === undefined) continue;
    if (!isUnprivilegedPort(port)) {
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
    const serviceAddress = serviceAddressOf(r.field, 'sidecar', r.options, `http://localhost:${port}`, report);
    return { sidecar: { key: r.key, image: r.image, imagePullPolicy: r.imagePullPolicy ?? 'IfNotPresent', port, options: r.options }, serviceAddress };
  });
}

/** The Kubernetes minor of `1.30`, `v1.30` or `1.30.2`, or undefined when it is none. */
export function kubernetesMinorOf(version: string): number | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(version);
  return m ? Number(m[1]) : undefined;
}
