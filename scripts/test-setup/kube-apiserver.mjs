#!/usr/bin/env node
// Builds the real Kubernetes API server and its etcd for the tests (test/apiserver) from the Go module
// proxy, one per Kubernetes release tested: test/kube-apiserver/<minor>/go.mod (written by
// kube-apiserver-module.mjs) requires k8s.io/kubernetes at that release, with every k8s.io staging module
// replaced by its published version (as Go projects that depend on Kubernetes do), and
// go.etcd.io/etcd/server/v3 at the release that Kubernetes release requires. Cached: a second run does
// nothing. Each writes the index `kube-apiserver-<minor>.json`. See go-build.mjs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setUpGoPrograms } from './go-build.mjs';

const MODULES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'kube-apiserver');

for (const minor of fs.readdirSync(MODULES).filter((d) => fs.existsSync(path.join(MODULES, d, 'go.mod'))).sort()) {
  const goMod = fs.readFileSync(path.join(MODULES, minor, 'go.mod'), 'utf8');
  /** The version go.mod requires of a module. */
  const required = (module) => new RegExp(`^(?:require)?\\s*${module.replace(/[.]/g, '\\.')} (v\\S+)`, 'm').exec(goMod)?.[1];
  const kubernetes = required('k8s.io/kubernetes');
  const [major, minorNumber] = kubernetes.replace(/^v/, '').split('.');
  // What `kubectl version` and /version report: a build from the module proxy has no VCS stamp.
  const version = ['gitVersion=' + kubernetes, 'gitMajor=' + major, 'gitMinor=' + minorNumber].map((v) => `-X k8s.io/component-base/version.${v}`).join(' ');
  setUpGoPrograms({
    name: `kube-apiserver-${minor}`,
    module: `kube-apiserver/${minor}`,
    binaries: {
      // `providerless` leaves out the in-tree cloud providers (Kubernetes' own build tag): their
      // k8s.io/legacy-cloud-providers module, which 1.29 and 1.30 import, is not on the module proxy,
      // and an API server on loopback talks to no cloud.
      'kube-apiserver': { pkg: 'k8s.io/kubernetes/cmd/kube-apiserver', ldflags: version, tags: 'providerless' },
      'etcd': 'go.etcd.io/etcd/server/v3',
    },
    what: `Rendered objects are not sent to a real Kubernetes ${minor} API server in this run`,
    info: { kubernetesVersion: kubernetes, etcdVersion: required('go.etcd.io/etcd/server/v3') },
  });
}
