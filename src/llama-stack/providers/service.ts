// A provider's service in pods of its own, from the provider's own image: a
// Deployment and a Service beside the server's, tied to it by a label, reachable only from the server's
// pods (a NetworkPolicy). The install init container still puts the in-process adapter into the server,
// whose config gets the Service's address.
import { createHash } from 'crypto';
import type { Construct } from 'constructs';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { ProviderService } from './options';
import { isUnprivilegedPort, serviceAddressOf, ServicePartRequest, servicePartContainer } from './service-part';
import { defineObject } from '../../kubernetes-objects';
import { LABEL_DOMAIN, standardLabels } from '../../labels';
import type { ServiceAddress } from '../../run-config/service-address';

/** The label that ties a provider's service to its server. */
export const SERVER_LABEL = `${LABEL_DOMAIN}/server`;

/** The install container's variable naming the provider's service (its Deployment and Service). */
export const PROVIDER_SERVICE_ENV = 'PROVIDER_SERVICE';

/** The port of a provider's service unless given. */
export const DEFAULT_SERVICE_PORT = 8080;

/** A provider's service with what the construct decided for it. */
export interface PlannedService {
  /** The name of its Deployment and Service (a DNS-1035 label of at most 63 characters). */
  readonly name: string;
  readonly image: string;
  readonly imagePullPolicy: string;
  readonly port: number;
  readonly options: ProviderService;
}

/**
 * The name of a provider's Deployment and Service: `<server>-<provider key>`, shortened with a hash of
 * the whole when longer than a Service name may be (63 characters).
 */
export function providerServiceName(server: string, key: string): string {
  const whole = `${server}-${key}`;
  if (whole.length <= 63) return whole;
  const hash = createHash('sha256').update(whole).digest('hex').slice(0, 8);
  return `${whole.slice(0, 63 - hash.length - 1).replace(/-+$/, '')}-${hash}`;
}

/** The labels that select a provider service's pods. */
export function providerServiceSelector(s: PlannedService): Record<string, string> {
  return { 'app.kubernetes.io/name': 'llama-stack-provider', 'app.kubernetes.io/instance': s.name };
}

/** The container of a provider service's pods. */
export function providerServiceContainer(s: PlannedService, securityContext: IContainer['securityContext']): IContainer {
  return servicePartContainer({ name: 'provider', image: s.image, imagePullPolicy: s.imagePullPolicy, port: s.port, portName: 'http', options: s.options, securityContext });
}

/** Plans the providers' services: names, ports, and each one's address (its Service's). */
export function planServices(
  requests: ReadonlyArray<ServicePartRequest<ProviderService>>,
  server: string,
  report: (field: string, message: string) => void,
): Array<{ service: PlannedService; serviceAddress: ServiceAddress }> {
  return requests.map((r) => {
    const port = r.options.port ?? DEFAULT_SERVICE_PORT;
    if (!isUnprivilegedPort(port)) {
      report(`${r.field}.service.port`, `${port} is not a port the service can listen on: expected an integer from 1024 to 65535 (its container runs without privileges; default ${DEFAULT_SERVICE_PORT}).`);
    }
    const replicas = r.options.replicas;
    if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 0)) {
      report(`${r.field}.service.replicas`, `${replicas} is not a replica count: expected a whole number ≥ 0.`);
    }
    const name = providerServiceName(server, r.key);
    const serviceAddress = serviceAddressOf(r.field, 'service', r.options, `http://${name}:${port}`, report);
    return { service: { name, image: r.image, imagePullPolicy: r.imagePullPolicy ?? 'IfNotPresent', port, options: r.options }, serviceAddress };
  });
}

/** What a provider's service takes from its server. */
export interface ServiceContext {
  /** The server's name: its services carry it in `kube-inference.io/server`. */
  readonly server: string;
  readonly namespace?: string;
  /** The labels that select the server's pods: only they may call the service. */
  readonly serverSelector: Record<string, string>;
  /** The user's labels, on every object. */
  readonly labels?: Record<string, string>;
  readonly podSecurityContext: IPodSecurityContext;
  readonly containerSecurityContext: IContainer['securityContext'];
}

/**
 * Defines a provider's service: its ServiceAccount (unless one is given), Deployment, Service, and a
 * NetworkPolicy that admits only the server's pods, on the service's port.
 */
export function defineProviderService(scope: Construct, s: PlannedService, ctx: ServiceContext): void {
  const selector = providerServiceSelector(s);
  const labels = { ...ctx.labels, ...standardLabels('llama-stack-provider', s.name, 'provider-service'), ...selector, [SERVER_LABEL]: ctx.server };
  const metadata = (name: string) => ({ name, namespace: ctx.namespace, labels });
  const serviceAccountName = s.options.serviceAccountName ?? `${s.name}-sa`;
  const id = (what: string) => `${s.name}-${what}`;
  if (s.options.serviceAccountName === undefined) {
    defineObject(scope, id('service-account'), 'ServiceAccount', { metadata: metadata(serviceAccountName) });
  }
  defineObject(scope, id('deployment'), 'Deployment', {
    metadata: metadata(s.name),
    spec: {
      replicas: s.options.replicas ?? 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName,
          automountServiceAccountToken: false,
          securityContext: ctx.podSecurityContext,
          containers: [providerServiceContainer(s, ctx.containerSecurityContext)],
        },
      },
    },
  });
  defineObject(scope, id('service'), 'Service', {
    metadata: metadata(s.name),
    spec: { selector, ports: [{ name: 'http', port: s.port, targetPort: 'http', protocol: 'TCP' }] },
  });
  defineObject(scope, id('network-policy'), 'NetworkPolicy', {
    metadata: metadata(s.name),
    spec: {
      podSelector: { matchLabels: selector },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: { matchLabels: ctx.serverSelector } }], ports: [{ protocol: 'TCP', port: s.port }] }],
    },
  });
}
