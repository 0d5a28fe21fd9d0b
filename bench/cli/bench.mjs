// Benchmarks of the front ends, each as a ratio to a floor measured in the same run (the machines are
// shared and noisy: never compare raw times across runs). Prints a table; asserts nothing.
//
//   render, one document          vs `node -e 0`                       (target ≤ 1.5×; and without the code cache,
//                                                                       for reference)
//   validate, one object          vs `node -e 0`                       (target ≤ 2×)
//   validate vs render, same workload (220 documents: render's output)  (target ≤ 1.2×)
//   render, 1000 documents        vs stringifying its own output with `yaml` (target ≤ 2×)
//   Pulumi components, 220 documents (under the engine mocks) vs render of the same 220
//                                 time (target ≤ 1.5×) and peak RSS (target ≤ 2×); and vs the Pulumi SDK
//                                 registering the same objects without this library: time (target ≤ 1.1×)
//                                 and peak RSS (target ≤ 1×)
//
// Usage: node bench/cli/bench.mjs [--runs N]   (the compiled lib/ is measured: `npx projen compile` first)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeMeasurer } from '../measure.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 7;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-bench-'));
// The CLI users run: the package's bin (the launcher of the bundle of lib/cli/main.js), with a code cache
// of its own (each command's first run, one of the runs measured, writes it).
const cli = path.join(repo, JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')).bin['kube-inference']);
process.env.KUBE_INFERENCE_COMPILE_CACHE = path.join(work, 'compile-cache');

/** Median wall time (ms) and highest peak RSS (MiB) of `node <args>` over the runs. */
const measure = nodeMeasurer(work, runs);

// Inputs: n LlamaStackDistribution documents (the fixture's first stack under new names) and as many
// ModelDeployment documents, alternating; each renders 3 objects (LLSD) or 1–2 (ModelDeployment).
const stack = fs.readFileSync(path.join(repo, 'test', 'fixtures', 'llsd', 'two-stacks.yaml'), 'utf8').split(/^---$/m)[0];
const model = (i) => [
  'apiVersion: airunway.ai/v1alpha1', 'kind: ModelDeployment', `metadata: {name: model-${i}, namespace: ai}`,
  'spec:', '  model: {id: Qwen/Qwen3-8B}', '  engine: {type: vllm, contextLength: 8192}', '  resources: {gpu: {count: 1}, memory: 32Gi}', '',
].join('\n');
function documents(count) {
  const file = path.join(work, `input-${count}.yaml`);
  const docs = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? stack.replace(/team-a/g, `team-${i}`) : model(i)));
  fs.writeFileSync(file, docs.join('\n---\n'));
  return file;
}
function rendered(input) {
  const out = path.join(work, `${path.basename(input, '.yaml')}.k8s.yaml`);
  const r = spawnSync(process.execPath, [cli, 'render', input], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`render ${input} failed:\n${r.stderr}`);
  fs.writeFileSync(out, r.stdout);
  return out;
}

const one = documents(1);
const oneRendered = rendered(one);
const firstObject = path.join(work, 'one-object.yaml');
fs.writeFileSync(firstObject, fs.readFileSync(oneRendered, 'utf8').split(/^---$/m)[0]);
const many = documents(1000);
const manyRendered = rendered(many);
const pulumiCount = 220;
const forPulumi = documents(pulumiCount);
const forPulumiRendered = rendered(forPulumi);

// The floor of rendering 1000 documents: stringify render's own output (its objects, read from JSON so
// that parsing is not counted) with `yaml` and write it out.
const stringifyFloor = path.join(work, 'stringify-floor.cjs');
const manyJson = path.join(work, 'many.json');
const YAML = createRequire(import.meta.url)(path.join(repo, 'node_modules', 'yaml'));
fs.writeFileSync(manyJson, JSON.stringify(YAML.parseAllDocuments(fs.readFileSync(manyRendered, 'utf8')).map((d) => d.toJS())));
fs.writeFileSync(stringifyFloor, `const fs = require('fs'); const YAML = require(${JSON.stringify(path.join(repo, 'node_modules', 'yaml'))});
const objects = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
process.stdout.write(objects.map((o) => YAML.stringify(o)).join('---\\n'));
`);

// The Pulumi program: one component per document of the same input, under the engine mocks. It reads the
// documents as JSON, parsed beforehand, as the SDK floor below reads its objects: neither measures YAML.
const pulumiProgram = path.join(work, 'pulumi-program.cjs');
const pulumiDocuments = path.join(work, 'pulumi-documents.json');
fs.writeFileSync(pulumiDocuments, JSON.stringify(YAML.parseAllDocuments(fs.readFileSync(forPulumi, 'utf8'), { version: '1.1' }).map((d) => d.toJS())));
fs.writeFileSync(pulumiProgram, `const pulumi = require(${JSON.stringify(path.join(repo, 'node_modules', '@pulumi', 'pulumi'))});
const fs = require('fs');
pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name + '-id', state: a.inputs }), call: (a) => a.inputs }, 'bench', 'dev', false);
const { LlamaStackWithProviders, ModelDeployment } = require(${JSON.stringify(path.join(repo, 'lib', 'pulumi'))});
const docs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const resources = [];
for (const d of docs) {
  if (d.kind === 'ModelDeployment') {
    resources.push(...new ModelDeployment(d.metadata.name, { namespace: d.metadata.namespace, ...d.spec }).resources);
  } else {
    const s = d.spec.server;
    resources.push(...new LlamaStackWithProviders(d.metadata.name, {
      namespace: d.metadata.namespace, replicas: d.spec.replicas, distribution: s.distribution,
      serverVersion: d.metadata.annotations['kube-inference.io/server-version'],
      port: s.containerSpec.port, env: s.containerSpec.env, externalProviders: s.externalProviders,
    }).resources);
  }
}
Promise.all(resources.map((r) => new Promise((resolve) => r.urn.apply(resolve)))).then(() => process.stdout.write(String(resources.length)));
`);

// The Pulumi SDK's own cost for the same objects: render's output of the same documents registered
// directly (typed core kinds, CustomResource for the rest, as the components do), under the same
// mocks, without this library. Reported beside the target: it shows how much of the components' time
// is the SDK's per-resource work (serialisation, promise bookkeeping) rather than ours.
const pulumiSdkFloor = path.join(work, 'pulumi-sdk-floor.cjs');
fs.writeFileSync(pulumiSdkFloor, `const pulumi = require(${JSON.stringify(path.join(repo, 'node_modules', '@pulumi', 'pulumi'))});
const k8s = require(${JSON.stringify(path.join(repo, 'node_modules', '@pulumi', 'kubernetes'))});
const fs = require('fs');
pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name + '-id', state: a.inputs }), call: (a) => a.inputs }, 'bench', 'dev', false);
const typed = { 'v1/ConfigMap': k8s.core.v1.ConfigMap, 'v1/Service': k8s.core.v1.Service, 'apps/v1/Deployment': k8s.apps.v1.Deployment };
const objects = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const resources = objects.map((o, i) => new (typed[o.apiVersion + '/' + o.kind] ?? k8s.apiextensions.CustomResource)('object-' + i, o));
Promise.all(resources.map((r) => new Promise((resolve) => r.urn.apply(resolve)))).then(() => process.stdout.write(String(resources.length)));
`);

const nodeFloor = measure(['-e', '0']);
const rows = [
  ['render, 1 document', measure([cli, 'render', one]), 'node -e 0', nodeFloor, 1.5],
  ['render, 1 document, without the code cache', measure([cli, 'render', one], { KUBE_INFERENCE_COMPILE_CACHE: 'off' }), 'node -e 0', nodeFloor, undefined],
  ['validate, 1 object', measure([cli, 'validate', firstObject]), 'node -e 0', nodeFloor, 2],
];
rows.push(['render, 1000 documents', measure([cli, 'render', many]), 'yaml stringify of its output', measure([stringifyFloor, manyJson]), 2]);
// The same workload for validate and render: 220 documents, and render's output of them (1000 would
// render more than validate's 16 MiB input limit).
const renderForPulumi = measure([cli, 'render', forPulumi]);
rows.push([`validate, render's output of ${pulumiCount} documents`, measure([cli, 'validate', forPulumiRendered]), `render, ${pulumiCount} documents`, renderForPulumi, 1.2]);
const pulumiRun = measure([pulumiProgram, pulumiDocuments]);
rows.push([`Pulumi components, ${pulumiCount} documents (time)`, pulumiRun, `render, ${pulumiCount} documents`, renderForPulumi, 1.5]);
const pulumiObjects = path.join(work, 'pulumi-objects.json');
fs.writeFileSync(pulumiObjects, JSON.stringify(YAML.parseAllDocuments(fs.readFileSync(forPulumiRendered, 'utf8')).map((d) => d.toJS())));
const pulumiSdkRun = measure([pulumiSdkFloor, pulumiObjects]);
rows.push([`Pulumi components, ${pulumiCount} documents (time)`, pulumiRun, 'SDK registering the same objects', pulumiSdkRun, 1.1]);

const pad = (s, n) => String(s).padEnd(n);
console.log(`CLI and Pulumi benchmark: node ${process.version}, ${os.cpus().length} CPUs, median of ${runs} runs, peak RSS = max over runs`);
console.log(`inputs: 1000 documents → ${fs.statSync(manyRendered).size} bytes of manifests`);
console.log('');
console.log(`${pad('measured', 46)} | ${pad('ms', 8)} | ${pad('floor', 32)} | ${pad('floor ms', 8)} | ratio | target`);
console.log(`${'-'.repeat(46)} | -------- | ${'-'.repeat(32)} | -------- | ----- | ------`);
for (const [what, m, floorName, f, target] of rows) {
  const ratio = m.ms / f.ms;
  const verdict = target === undefined ? '(for reference)' : `≤ ${target}${ratio > target ? ' (missed)' : ''}`;
  console.log(`${pad(what, 46)} | ${pad(m.ms.toFixed(0), 8)} | ${pad(floorName, 32)} | ${pad(f.ms.toFixed(0), 8)} | ${ratio.toFixed(2).padStart(5)} | ${verdict}`);
}
const rssRatio = pulumiRun.mib / renderForPulumi.mib;
console.log(`${pad(`Pulumi components, ${pulumiCount} documents (peak RSS)`, 46)} | ${pad(`${pulumiRun.mib.toFixed(0)} MiB`, 8)} | ${pad(`render, ${pulumiCount} documents`, 32)} | ${pad(`${renderForPulumi.mib.toFixed(0)} MiB`, 8)} | ${rssRatio.toFixed(2).padStart(5)} | ≤ 2${rssRatio > 2 ? ' (missed)' : ''}`);
const sdkRssRatio = pulumiRun.mib / pulumiSdkRun.mib;
console.log(`${pad(`Pulumi components, ${pulumiCount} documents (peak RSS)`, 46)} | ${pad(`${pulumiRun.mib.toFixed(0)} MiB`, 8)} | ${pad('SDK registering the same objects', 32)} | ${pad(`${pulumiSdkRun.mib.toFixed(0)} MiB`, 8)} | ${sdkRssRatio.toFixed(2).padStart(5)} | ≤ 1${sdkRssRatio > 1 ? ' (missed)' : ''}`);
fs.rmSync(work, { recursive: true, force: true });
