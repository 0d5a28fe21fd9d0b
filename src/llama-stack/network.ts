import type { IIngressSpec } from 'kubernetes-models/networking.k8s.io/v1/IngressSpec';
import type { INetworkPolicySpec } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicySpec';
import { AllowedFrom, NetworkOptions } from './options';
import type { RouteSpec, RouteSpecTlsInsecureEdgeTerminationPolicy, RouteSpecTlsTermination, RouteSpecToKind } from '../imports/openshift-route.generated';

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
 * The OpenShift Route of `network.exposeAs: 'Route'` (route.openshift.io/v1, schema in
 * crds/route.openshift.io_routes.yaml from openshift/api): the Service's named port, the router's
 * default host; TLS terminated at the router with plain HTTP redirected, or passed through when the
 * server serves TLS itself (the router cannot read its traffic then).
 */
export function routeSpec(serviceName: string, serverServesTls: boolean): RouteSpec {
  return {
    to: { kind: 'Service' as RouteSpecToKind, name: serviceName, weight: 100 },
    port: { targetPort: 'http' },
    tls: {
      termination: (serverServesTls ? 'passthrough' : 'edge') as RouteSpecTlsTermination,
      insecureEdgeTerminationPolicy: 'Redirect' as RouteSpecTlsInsecureEdgeTerminationPolicy,
    },
  };
}

/** OpenShift labels its router's namespace with this; the operator admits it whenever `spec.network` is set. */
const OPENSHIFT_ROUTER = { 'network.openshift.io/policy-group': 'ingress' };

/**
 * The NetworkPolicy of `network.allowedFrom`: ingress to the server's port from the pods of its own
 * namespace, the namespaces named (`*`: every namespace, and nothing else is needed), the
 * namespaces carrying one of the label keys, and OpenShift's router.
 */
export function networkPolicySpec(podLabels: Record<string, string>, port: number, allowedFrom: AllowedFrom): INetworkPolicySpec {
  const namespaces = allowedFrom.namespaces ?? [];
  const from = namespaces.includes('*')
    ? [{ namespaceSelector: {} }]
    : [
      { podSelector: {} },
      ...namespaces.map((name) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } })),
      ...(allowedFrom.labels ?? []).map((key) => ({ namespaceSelector: { matchExpressions: [{ key, operator: 'Exists' }] } })),
      { namespaceSelector: { matchLabels: OPENSHIFT_ROUTER } },
    ];
  return { podSelector: { matchLabels: podLabels }, policyTypes: ['Ingress'], ingress: [{ from, ports: [{ protocol: 'TCP', port }] }] };
}
