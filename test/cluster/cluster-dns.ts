/**
 * The single-node cluster's DNS, as kubeadm sets it up (`cmd/kubeadm/app/phases/addons/dns/manifests.go`
 * in k8s.io/kubernetes): CoreDNS with kubeadm's Corefile, the `system:coredns` ClusterRole bound to the
 * `kube-system/coredns` ServiceAccount, and the `kube-dns` Service at the tenth address of the Service
 * range, which the kubelet writes into every pod's resolv.conf (`clusterDNS`).
 *
 * CoreDNS runs on the node like the other components rather than in a pod, serving on the node's bridge
 * address (a free port): the `kube-dns` Service has no selector, and its EndpointSlice names that address,
 * so a pod's query goes through kube-proxy's rules to it as it would to a CoreDNS pod.
 */
import { goBuild } from '../sandbox/go-builds';

/** The `kube-dns` Service's address: the tenth of the Service range (kubeadm's `GetDNSIP`). */
export const CLUSTER_DNS_IP = '10.216.0.10';
export const CLUSTER_DOMAIN = 'cluster.local';
/** Who CoreDNS is to the API server: the ServiceAccount kubeadm's ClusterRoleBinding names. */
export const COREDNS_USER = { user: 'system:serviceaccount:kube-system:coredns', groups: 'system:serviceaccounts,system:serviceaccounts:kube-system' };

export const corednsBuild = () => goBuild('coredns', ['coredns'], 'node scripts/test-setup/kubernetes.mjs');

/** Where CoreDNS listens and reports: `port` on `address` (UDP and TCP), `health` and `ready` on loopback. */
export interface CorednsPorts { readonly address: string; readonly port: number; readonly health: number; readonly ready: number }

/**
 * kubeadm's Corefile for the cluster's domain, with what a process on the node needs instead of a pod's
 * defaults: `bind` to the node's address and a port of its own, the API server through `kubeconfig`, and
 * health and readiness on loopback. `prometheus` (metrics nobody reads here), `reload` (the file never
 * changes) and `loop` (it guards a forward to itself, which a node's resolver is not) are left out.
 */
export function corefile(ports: CorednsPorts, kubeconfig: string): string {
  return `.:${ports.port} {
    bind ${ports.address}
    errors
    health 127.0.0.1:${ports.health} {
       lameduck 5s
    }
    ready 127.0.0.1:${ports.ready}
    kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
       kubeconfig ${kubeconfig}
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success ${CLUSTER_DOMAIN}
       disable denial ${CLUSTER_DOMAIN}
    }
    loadbalance
}
`;
}

/** kubeadm's RBAC for CoreDNS, and the `kube-dns` Service with an EndpointSlice naming the node's CoreDNS. */
export function clusterDnsObjects(ports: CorednsPorts): object[] {
  const labels = { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' };
  const dnsPorts = [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }];
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:coredns' },
      rules: [
        { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: 'kube-system' }],
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-dns', namespace: 'kube-system', labels },
      spec: { clusterIP: CLUSTER_DNS_IP, ports: dnsPorts.map((p) => ({ ...p, targetPort: ports.port })) },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'kube-dns-node', namespace: 'kube-system', labels: { 'kubernetes.io/service-name': 'kube-dns' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [ports.address], conditions: { ready: true } }],
      ports: dnsPorts.map((p) => ({ name: p.name, protocol: p.protocol, port: ports.port })),
    },
  ];
}
