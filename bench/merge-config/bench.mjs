// Benchmark of `kube-inference merge-config` as the merge image runs it (the launcher, src/cli/launcher.ts,
// loading the bundled CLI with the code cache the image's build writes: containers/merge/warm-up/), and,
// for reference, the same without the cache (KUBE_INFERENCE_COMPILE_CACHE=off, every run compiles the
// bundle): wall time and peak memory for 1, 10 and 50 external providers over the largest reference config,
// next to a bare node process that only parses and writes the same YAML (floor.mjs). Also reports the size
// of the bundle and, when buildah is installed, of the merge image. Prints a table; asserts nothing.
//
// Usage: node bench/merge-config/bench.mjs [--runs N] [--no-image]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeMeasurer } from '../measure.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 15;
const withImage = !args.includes('--no-image');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-config-bench-'));

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

// The CLI exactly as the image ships it, and the floor bundled the same way (one file, yaml inside).
run('bash', [path.join(repo, 'scripts/merge-image/bundle.sh'), work]);
const cli = path.join(work, 'kube-inference.cjs');
const bundle = path.join(work, 'kube-inference.bundle.cjs');
// The image's code cache, written as its build writes it (by the warm-up, with this node: the measured runs' own).
const cache = path.join(work, 'compile-cache');
run(process.execPath, [path.join(work, 'warm-up', 'warm-up.mjs'), work], {
  env: { ...process.env, KUBE_INFERENCE_COMPILE_CACHE: cache, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` },
});
const floor = path.join(work, 'floor.cjs');
run(path.join(repo, 'node_modules/.bin/esbuild'), [path.join(repo, 'bench/merge-config/floor.mjs'),
  '--bundle', '--platform=node', '--target=node20', '--format=cjs', '--log-level=warning', `--outfile=${floor}`]);

// The largest reference config.
const fixtures = path.join(repo, 'test/fixtures/llama-stack');
const baseName = fs.readdirSync(fixtures).sort((a, b) => fs.statSync(path.join(fixtures, b)).size - fs.statSync(path.join(fixtures, a)).size)[0];
const baseConfig = path.join(fixtures, baseName);

/**
 * A metadata directory with `count` providers spread over the provider APIs of llama-stack 0.7 (the
 * release of the largest reference config, and merge-config's default), in processing order; every
 * tenth overrides a base id.
 */
const APIS = [['inference', 'inference'], ['safety', 'safety'], ['responses', 'responses'], ['vector_io', 'vectorIo'],
  ['datasetio', 'datasetIo'], ['scoring', 'scoring'], ['eval', 'eval'], ['tool_runtime', 'toolRuntime'], ['files', 'files'],
  ['file_processors', 'fileProcessors'], ['batches', 'batches']];
function metadataDir(count) {
  const dir = path.join(work, `metadata-${count}`);
  const providers = Array.from({ length: count }, (_, i) => {
    const [api, section] = APIS[i % APIS.length];
    return { id: i % 10 === 0 && api === 'inference' ? 'openai' : `bench-${i}`, api, section };
  });
  // Spec order: by section, then position.
  providers.sort((a, b) => APIS.findIndex(([x]) => x === a.api) - APIS.findIndex(([x]) => x === b.api));
  providers.forEach((p, order) => {
    fs.mkdirSync(path.join(dir, p.id), { recursive: true });
    fs.writeFileSync(path.join(dir, p.id, 'lls-provider-spec.yaml'), [
      'apiVersion: llamastack.io/v1alpha1', 'kind: ProviderPackage',
      `metadata: {name: ${p.id}, version: "1.0.0", vendor: bench}`,
      `spec: {packageName: bench_provider_${order}, providerType: "remote::bench_${order}", api: ${p.api}, wheelPath: /lls-provider/packages/b.whl}`, '',
    ].join('\n'));
    fs.writeFileSync(path.join(dir, p.id, 'crd-config.yaml'), JSON.stringify({
      providerId: p.id, api: p.api, crdSection: p.section, image: `quay.io/bench/${p.id}:1`, order,
      config: { url: `http://${p.id}:8000`, api_key: '${env.BENCH_KEY}', options: { retries: 3, tls: { verify: true } } },
    }));
  });
  return dir;
}

/** Median wall time (ms) and highest peak RSS (MiB) of `node <args>` over the runs. */
const measure = nodeMeasurer(work, runs);

const rows = [];
for (const count of [1, 10, 50]) {
  const metadata = metadataDir(count);
  const out = path.join(work, `out-${count}`);
  const mergeArgs = [cli, 'merge-config', '--metadata-dir', metadata, '--base-config', baseConfig, '--output-dir', out, '--server-version', '0.7'];
  const merge = measure(mergeArgs, { KUBE_INFERENCE_COMPILE_CACHE: cache });
  const uncached = measure(mergeArgs, { KUBE_INFERENCE_COMPILE_CACHE: 'off' });
  const bare = measure([floor, metadata, baseConfig, path.join(work, `floor-${count}`)]);
  rows.push({ count, merge, uncached, bare });
}

const pad = (s, n) => String(s).padStart(n);
const mib = (n) => (n / 1024 / 1024).toFixed(2);
console.log(`merge-config benchmark: node ${process.version}, ${os.cpus().length} CPUs, median of ${runs} runs, peak RSS = max over runs`);
console.log(`base config: ${baseName} (${fs.statSync(baseConfig).size} bytes); bundle: ${mib(fs.statSync(bundle).size)} MiB; `
  + `code cache: ${fs.readdirSync(cache).map((f) => `${f.replace(/^[0-9a-f]+-/, '')} ${mib(fs.statSync(path.join(cache, f)).size)} MiB`).join(', ')}; `
  + `floor bundle: ${mib(fs.statSync(floor).size)} MiB`);
console.log('merge-config: as the image runs it (launcher, bundle, the code cache of the image\'s warm-up); no cache: KUBE_INFERENCE_COMPILE_CACHE=off');
console.log('');
console.log('providers | merge-config ms | no cache ms | floor ms | time ratio | no cache ratio | merge-config MiB | no cache MiB | floor MiB | memory ratio');
console.log('--------- | --------------- | ----------- | -------- | ---------- | -------------- | ---------------- | ------------ | --------- | ------------');
for (const { count, merge, uncached, bare } of rows) {
  console.log([pad(count, 9), pad(merge.ms.toFixed(1), 15), pad(uncached.ms.toFixed(1), 11), pad(bare.ms.toFixed(1), 8),
    pad((merge.ms / bare.ms).toFixed(2), 10), pad((uncached.ms / bare.ms).toFixed(2), 14),
    pad(merge.mib.toFixed(1), 16), pad(uncached.mib.toFixed(1), 12), pad(bare.mib.toFixed(1), 9), pad((merge.mib / bare.mib).toFixed(2), 12)].join(' | '));
}

if (withImage && spawnSync('buildah', ['--version']).status === 0) {
  const tag = run('bash', [path.join(repo, 'scripts/merge-image/build.sh'), '--tag', 'localhost/kube-inference/merge:bench']).trim();
  const size = run('buildah', ['images', '--format', '{{.Size}}', tag]).trim();
  const base = run('bash', [path.join(repo, 'scripts/merge-image/local-base.sh')]).trim();
  const baseSize = run('buildah', ['images', '--format', '{{.Size}}', base]).trim();
  console.log('');
  console.log(`merge image: ${size} (on the locally assembled base ${base}: ${baseSize}; the bundle adds ${mib(fs.statSync(bundle).size)} MiB)`);
  spawnSync('buildah', ['rmi', tag]);
} else {
  console.log('\nmerge image: not measured (buildah not installed, or --no-image)');
}
fs.rmSync(work, { recursive: true, force: true });
