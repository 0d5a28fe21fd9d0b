#!/usr/bin/env node
// Builds the real Kubernetes API server and its etcd for the tests (test/apiserver) from the Go module
// proxy: test/kube-apiserver/go.mod requires k8s.io/kubernetes at the release tested, with every
// k8s.io staging module replaced by its published version (as Go projects that depend on Kubernetes
// do), and go.etcd.io/etcd/server/v3 at the release that Kubernetes release requires. Cached: a second
// run does nothing. See go-build.mjs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setUpGoPrograms } from './go-build.mjs';

const goMod = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'kube-apiserver', 'go.mod'), 'utf8');
/** The version go.mod requires of a module (in a require block, or on a `require` line of its own). */
const required = (module) => new RegExp(`^(?:require)?\\s*${module.replace(/[.]/g, '\\.')} (v\\S+)`, 'm').exec(goMod)?.[1];

const kubernetes = required('k8s.io/kubernetes');
const [major, minor] = kubernetes.replace(/^v/, '').split('.');
// What `kubectl version` and /version report: a build from the module proxy has no VCS stamp.
const version = ['gitVersion=' + kubernetes, 'gitMajor=' + major, 'gitMinor=' + minor].map((v) => `-X k8s.io/component-base/version.${v}`).join(' ');

setUpGoPrograms({
  name: 'kube-apiserver',
  module: 'kube-apiserver',
  binaries: {
    'kube-apiserver': { pkg: 'k8s.io/kubernetes/cmd/kube-apiserver', ldflags: version },
    'etcd': 'go.etcd.io/etcd/server/v3',
  },
  what: 'Rendered objects are not sent to a real API server in this run',
  info: { kubernetesVersion: kubernetes, etcdVersion: required('go.etcd.io/etcd/server/v3') },
});
