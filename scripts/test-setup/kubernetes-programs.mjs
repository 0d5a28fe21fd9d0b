// The Kubernetes programs the tests build from a release's module (test/kubernetes/<minor>/), in one
// place for the script that writes the module (kubernetes-module.mjs: its go.sum must hold every package
// they import) and the one that builds them (kubernetes.mjs).
//
// `providerless` leaves out the in-tree cloud providers (Kubernetes' own build tag): their
// k8s.io/legacy-cloud-providers module, which 1.29 and 1.30 import, is not on the module proxy, and a
// cluster on loopback talks to no cloud.
export const TAGS = 'providerless';

/**
 * The minors whose whole single-node cluster is built, not only the API server (test/cluster). 1.29's
 * kubelet and kube-controller-manager import modules the proxy does not serve even with `providerless`
 * (k8s.io/legacy-cloud-providers, k8s.io/kube-controller-manager v0.29 refused): an older minor needs
 * those modules on the proxy, or its programs built from a Kubernetes source tree.
 */
export const CLUSTER_MINORS = ['1.37'];

/** What `kubectl version` and /version report: a build from the module proxy has no VCS stamp. */
function versionFlags(kubernetes) {
  const [major, minor] = kubernetes.replace(/^v/, '').split('.');
  return ['gitVersion=' + kubernetes, 'gitMajor=' + major, 'gitMinor=' + minor].map((v) => `-X k8s.io/component-base/version.${v}`).join(' ');
}

/** The API server and its etcd (test/apiserver): binary → go build target. */
export function apiServerPrograms(kubernetes) {
  return {
    'kube-apiserver': { pkg: 'k8s.io/kubernetes/cmd/kube-apiserver', ldflags: versionFlags(kubernetes), tags: TAGS },
    'etcd': 'go.etcd.io/etcd/server/v3',
  };
}

/** The rest of a single-node cluster (test/cluster): binary → go build target. */
export function clusterPrograms(kubernetes) {
  const command = (name) => ({ pkg: `k8s.io/kubernetes/cmd/${name}`, ldflags: versionFlags(kubernetes), tags: TAGS });
  return Object.fromEntries(['kubelet', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'kubectl'].map((name) => [name, command(name)]));
}

/** The package paths of some programs, for `go list -deps`. */
export function packagesOf(programs) {
  return Object.values(programs).map((p) => (typeof p === 'string' ? p : p.pkg));
}
