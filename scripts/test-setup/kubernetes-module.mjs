#!/usr/bin/env node
// Writes the Go module that builds one Kubernetes release's programs for the tests (its API server, and
// for the minors in CLUSTER_MINORS a whole single-node cluster: kubernetes-programs.mjs):
// test/kubernetes/<minor>/go.mod and go.sum, requiring k8s.io/kubernetes at that release and
// go.etcd.io/etcd/server/v3 at the release its go.mod requires, with every k8s.io staging module that
// k8s.io/kubernetes replaces by a local path (./staging/src/k8s.io/...) replaced by its published
// version instead, as Go projects that depend on Kubernetes do. Needs Go and the module proxy.
//
//   node scripts/test-setup/kubernetes-module.mjs v1.37.2
//
// The module is committed; scripts/test-setup/kubernetes.mjs builds every one of them.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLUSTER_MINORS, TAGS, apiServerPrograms, clusterPrograms, packagesOf } from './kubernetes-programs.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const release = process.argv[2];
if (!/^v1\.\d+\.\d+$/.test(release ?? '')) {
  process.stderr.write('usage: node scripts/test-setup/kubernetes-module.mjs v1.<minor>.<patch>\n');
  process.exit(2);
}
const minor = release.replace(/^v/, '').split('.').slice(0, 2).join('.');
const dir = path.join(ROOT, 'test', 'kubernetes', minor);
const go = (args, cwd = dir) => execFileSync('go', args, { cwd, encoding: 'utf8', env: { ...process.env, GOFLAGS: '' } });

// The release's own go.mod: its go directive, its etcd and its local replacements.
fs.mkdirSync(dir, { recursive: true });
const upstreamMod = fs.readFileSync(JSON.parse(go(['mod', 'download', '-json', `k8s.io/kubernetes@${release}`], ROOT)).GoMod, 'utf8');
const goDirective = /^go (\S+)/m.exec(upstreamMod)[1];
const etcd = /^\s*go\.etcd\.io\/etcd\/server\/v3 (v\S+)/m.exec(upstreamMod)[1];
const staging = [...upstreamMod.matchAll(/^\s*(k8s\.io\/[\w.-]+) => \.\/staging\/src\/\S+/gm)].map((m) => m[1]).sort();
const published = release.replace(/^v1\./, 'v0.');

fs.writeFileSync(path.join(dir, 'go.mod'), [
  `module kube-inference-constructs/test/kubernetes/${minor}`,
  '',
  `go ${goDirective}`,
  '',
  `require k8s.io/kubernetes ${release}`,
  '',
  `require go.etcd.io/etcd/server/v3 ${etcd}`,
  '',
  'replace (',
  ...staging.map((m) => `\t${m} => ${m} ${published}`),
  ')',
  '',
].join('\n'));
fs.rmSync(path.join(dir, 'go.sum'), { force: true });
// Resolves the whole graph and records the sums of every package the programs need, without building
// them, with the build tags kubernetes.mjs builds with.
const programs = { ...apiServerPrograms(release), ...(CLUSTER_MINORS.includes(minor) ? clusterPrograms(release) : {}) };
go(['list', '-mod=mod', `-tags=${TAGS}`, '-deps', ...packagesOf(programs)]);
process.stdout.write(`test/kubernetes/${minor}: k8s.io/kubernetes ${release}, staging modules ${published}, etcd ${etcd}\n`);
