import type { IIngressSpec } from 'kubernetes-models/networking.k8s.io/v1/IngressSpec';
import type { INetworkPolicySpec } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicySpec';
import type { RouteSpec, RouteSpecTlsInsecureEdgeTerminationPolicy, RouteSpecTlsTermination, RouteSpecToKind } from '../../imports/openshift-route.generated';
import { AllowedFrom, NetworkOptions } from '../options';

// What the llama-stack operator renders for `spec.network` (llama-stack-k8s-operator before its
// rename to OGX: controllers/network_resources.go for the Ingress,
// pkg/deploy/plugins/networkpolicy_transformer.go for the NetworkPolicy). Differences: the operator
// renders the NetworkPolicy only when its own feature flag `enableNetworkPolicy` is on and then also
// admits its own namespace; here `allowedFrom` asks for it, and there is no operator to admit.

/** The Ingress of `network.expose`: every path to the Service's port, on any host. */
export function ingressSpec(network: NetworkOptions, serviceName: string, port: number): IIngressSpec {
  return {
    ingressClassName: network.ingressClassName,
    rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: serviceName, port: { number: port } } } }] } }],
  };
}

/**
 * How the router treats TLS: `edge` (it terminates TLS and speaks plain HTTP to a plain server),
 * `reencrypt` (it terminates TLS and opens TLS to the server's certificate, `tls`), `passthrough` (a
 * server whose config serves TLS itself: the router cannot read its traffic).
 */
export type RouteTermination = 'edge' | 'reencrypt' | 'passthrough';

/** The name of the OpenShift Route of a server named `name`. */
export function routeName(name: string): string {
  return `${name}-route`;
}

/**
 * The OpenShift Route of `network.exposeAs: 'Route'` (route.openshift.io/v1, schema in
 * crds/route.openshift.io_routes.yaml from openshift/api): the Service's named port, the router's
 * default host, TLS at the router with plain HTTP redirected.
 */
export function routeSpec(serviceName: string, portName: string, termination: RouteTermination, destinationCaCertificate?: string): RouteSpec {
  return {
    to: { kind: 'Service' as RouteSpecToKind, name: serviceName, weight: 100 },
    port: { targetPort: portName },
    tls: {
      termination: termination as RouteSpecTlsTermination,
      insecureEdgeTerminationPolicy: 'Redirect' as RouteSpecTlsInsecureEdgeTerminationPolicy,
      ...(destinationCaCertificate !== undefined ? { destinationCACertificate: destinationCaCertificate } : {}),
    },
  };
}

/**
 * Annotations telling Ingress controllers that the backend speaks HTTPS, for a server with `tls`.
 * Kubernetes' Ingress has no field for it; ingress-nginx reads this annotation (others read the
 * Service port's `appProtocol: https`, which the construct sets too).
 */
export const HTTPS_BACKEND_ANNOTATIONS: Readonly<Record<string, string>> = { 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' };

/** OpenShift labels its router's namespace with this; the operator admits it whenever `spec.network` is set. */
const OPENSHIFT_ROUTER = { 'network.openshift.io/policy-group': 'ingress' };

/**
 * OpenShift labels its monitoring namespaces (user-workload Prometheus) with this; the OGX operator
 * admits them to the metrics port (pkg/deploy/plugins/networkpolicy_transformer.go in
 * ogx-ai/ogx-k8s-operator).
 */
const OPENSHIFT_MONITORING = { 'network.openshift.io/policy-group': 'monitoring' };

/**
 * The NetworkPolicy of `network.allowedFrom`: ingress to the server's port from the pods of its own
 * namespace, the namespaces named (`*`: every namespace, and nothing else is needed), the namespaces
 * carrying one of the label keys, and OpenShift's router; with `metricsPort`, a second rule admitting
 * the same sources and OpenShift's monitoring namespaces to the metrics port, as the OGX operator does.
 */
export function networkPolicySpec(
  podLabels: Record<string, string>, port: number, allowedFrom: AllowedFrom, metricsPort?: number,
): INetworkPolicySpec {
  const namespaces = allowedFrom.namespaces ?? [];
  const everyNamespace = namespaces.includes('*');
  const from = everyNamespace
    ? [{ namespaceSelector: {} }]
    : [
      { podSelector: {} },
      ...namespaces.map((name) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } })),
      ...(allowedFrom.labels ?? []).map((key) => ({ namespaceSelector: { matchExpressions: [{ key, operator: 'Exists' }] } })),
      { namespaceSelector: { matchLabels: OPENSHIFT_ROUTER } },
    ];
  const metricsRule = metricsPort === undefined ? [] : [{
    from: everyNamespace ? from : [...from, { namespaceSelector: { matchLabels: OPENSHIFT_MONITORING } }],
    ports: [{ protocol: 'TCP' as const, port: metricsPort }],
  }];
  return { podSelector: { matchLabels: podLabels }, policyTypes: ['Ingress'], ingress: [{ from, ports: [{ protocol: 'TCP', port }] }, ...metricsRule] };
}
