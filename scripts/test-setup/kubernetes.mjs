#!/usr/bin/env node
// Builds the real Kubernetes programs for the tests from the Go module proxy, one module per Kubernetes
// release tested: test/kubernetes/<minor>/go.mod (written by kubernetes-module.mjs) requires
// k8s.io/kubernetes at that release, with every k8s.io staging module replaced by its published version
// (as Go projects that depend on Kubernetes do), and go.etcd.io/etcd/server/v3 at the release that
// Kubernetes release requires. Per minor: the API server and etcd (index `kube-apiserver-<minor>.json`,
// test/apiserver) and, for the minors in CLUSTER_MINORS, the rest of a single-node cluster (index
// `kube-cluster-<minor>.json`, test/cluster). With a cluster, its DNS too: CoreDNS from its own module,
// test/coredns/ (index `coredns.json`), and the KubeRay operator, test/kuberay-operator/ (index
// `kuberay-operator.json`). Cached: a second run does nothing. See go-build.mjs.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findGo, setUpGoPrograms } from './go-build.mjs';
import { CLUSTER_MINORS, apiServerPrograms, clusterPrograms } from './kubernetes-programs.mjs';

const MODULES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'kubernetes');

/** The version a go.mod's text requires of a module. */
const required = (goMod, module) => new RegExp(`^(?:require)?\\s*${module.replace(/[.]/g, '\\.')} (v\\S+)`, 'm').exec(goMod)?.[1];

for (const minor of fs.readdirSync(MODULES).filter((d) => fs.existsSync(path.join(MODULES, d, 'go.mod'))).sort()) {
  const goMod = fs.readFileSync(path.join(MODULES, minor, 'go.mod'), 'utf8');
  const kubernetes = required(goMod, 'k8s.io/kubernetes');
  const info = { kubernetesVersion: kubernetes, etcdVersion: required(goMod, 'go.etcd.io/etcd/server/v3') };
  setUpGoPrograms({
    name: `kube-apiserver-${minor}`,
    module: `kubernetes/${minor}`,
    binaries: apiServerPrograms(kubernetes),
    what: `Rendered objects are not sent to a real Kubernetes ${minor} API server in this run`,
    info,
  });
  if (CLUSTER_MINORS.includes(minor)) {
    setUpGoPrograms({
      name: `kube-cluster-${minor}`,
      module: `kubernetes/${minor}`,
      binaries: clusterPrograms(kubernetes),
      what: `What we render is not run on a real Kubernetes ${minor} cluster in this run`,
      info,
    });
  }
}

// The cluster's DNS: CoreDNS at the release test/coredns/go.mod requires (`go get
// github.com/coredns/coredns@<release> && go mod tidy` there moves it), in a module of its own: its
// dependencies are not Kubernetes', and sharing a module would move the Kubernetes programs' too.
if (CLUSTER_MINORS.length > 0) {
  setUpGoPrograms({
    name: 'coredns',
    module: 'coredns',
    binaries: { coredns: '.' },
    what: 'The single-node cluster has no DNS in this run: its tests cannot run',
    info: { corednsVersion: required(fs.readFileSync(path.join(MODULES, '..', 'coredns', 'go.mod'), 'utf8'), 'github.com/coredns/coredns') },
  });
  // The KubeRay operator the cluster runs (test/cluster/kuberay.test.ts), at the release of the library's
  // KubeRay checks (test/upstream-admission), in a module of its own; its CRDs and RBAC are read from
  // that release's module in the module cache (`moduleDir`).
  const kuberay = required(fs.readFileSync(path.join(MODULES, '..', 'kuberay-operator', 'go.mod'), 'utf8'), 'github.com/ray-project/kuberay/ray-operator');
  // The module cache of the Go the builds use (no Go: the build says so, and moduleDir is never read).
  const go = findGo();
  const modCache = typeof go === 'string' ? '' : spawnSync(go.executable, ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  setUpGoPrograms({
    name: 'kuberay-operator',
    module: 'kuberay-operator',
    binaries: { 'ray-operator': 'github.com/ray-project/kuberay/ray-operator' },
    what: 'The KubeRay operator does not reconcile rendered RayServices on the single-node cluster in this run',
    info: { kuberayVersion: kuberay, moduleDir: path.join(modCache, `github.com/ray-project/kuberay/ray-operator@${kuberay}`) },
  });
}
