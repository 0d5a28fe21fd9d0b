/**
 * Pod start-up benchmark with the real server: runs the rendered pod in the bubblewrap sandbox, in the
 * distribution image of the test set-up (ogx 1.5.0 from PyPI by default; `--server 0.7.3` for
 * llama-stack), and prints
 *
 * 1. per-provider install: wall time of the `install-provider-<id>` init container against a bare offline
 *    `pip install --no-index --target` of the same wheels with the same Python (the floor), for a provider
 *    with 1 and with 10 dependency wheels, and for the sample provider;
 * 2. pod start-up: from the start of the first init container until the server answers `GET /v1/health`,
 *    for 0, 1, 5 and 10 providers, against the floor: the same server started with no providers and no
 *    init containers (the image's own entrypoint and config), plus the bare installs of the providers.
 *
 * Targets: ≤ 1.2× the floor plus the installs; ≤ 1.2× bare pip per provider. Timings are printed, never
 * asserted. Needs the test set-up (`node scripts/test-setup/llama-stack-envs.mjs`, run by `npm test`).
 *
 *   npx ts-node --transpile-only --project test/tsconfig.json bench/pod-startup/bench.ts [--runs N] [--server VERSION] [--json FILE]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findRelease } from '../../src/run-config/releases';
import { env, freePort, OGX, renderStack, Scenario, starterImage } from '../../test/pod-startup/helpers';
import { sandboxSupport } from '../../test/sandbox/host';
import { mergeImage, venvBasePython } from '../../test/sandbox/images';
import { llamaStackEnv } from '../../test/sandbox/test-envs';
import { buildSyntheticWheel, providerMetadata, providerPackage, sampleProviderWheels, SAMPLE_PROVIDER_DIR, SyntheticPackage } from '../../test/sandbox/wheels';
import { median } from '../stats';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] || 0) || 5;
const JSON_OUT = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
/** The server release of the test set-up to run: ogx 1.5.0 by default. */
const SERVER = args.includes('--server') ? args[args.indexOf('--server') + 1] : OGX;
/** Its distribution image, tagged with the release as upstream tags it. */
const IMAGE = starterImage(SERVER);

/** A dependency package of realistic shape: a package with a dozen small modules. */
function dependency(i: number): SyntheticPackage {
  const mod = `acme_bench_dep_${i}`;
  const files: Record<string, string> = { [`${mod}/__init__.py`]: `"""Benchmark dependency ${i}."""\nVALUE = ${i}\n` };
  for (let m = 0; m < 12; m++) {
    files[`${mod}/module_${m}.py`] = Array.from({ length: 40 }, (_, l) => `def f_${m}_${l}(x):\n    return x + ${l}\n`).join('\n');
  }
  return { name: `acme-bench-dep-${i}`, version: '1.0.0', files };
}

function fmtRuns(xs: number[]): string {
  return `${fmt(median(xs))} (min ${fmt(Math.min(...xs))})`;
}

function fmt(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** Times `pip install --no-index --target` of the wheels with the image's Python, outside any sandbox. */
function barePip(wheels: string[], dir: string): number {
  const target = path.join(dir, `bare-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const t = performance.now();
  const r = spawnSync(path.join(venvBasePython(env(SERVER).venv).binDir, 'python3'), ['-m', 'pip', 'install', '--no-index', '--find-links', path.dirname(wheels[0]),
    '--target', target, '--no-cache-dir', '--disable-pip-version-check', '--no-warn-script-location', ...wheels], {
    encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, PIP_CONFIG_FILE: '/dev/null', PIP_NO_INPUT: '1' },
  });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`bare pip failed: ${r.stdout}${r.stderr}`);
  fs.rmSync(target, { recursive: true, force: true });
  return ms;
}

interface ProviderBuild {
  readonly id: string;
  readonly image: string;
  readonly wheels: string[];
}

async function main(): Promise<void> {
  const support = sandboxSupport();
  if (!support.ok) {
    throw new Error(`cannot benchmark: ${support.reason}`);
  }
  const found = llamaStackEnv(SERVER);
  if (!found.value) {
    throw new Error(`cannot benchmark: ${found.reason}`);
  }
  const python = venvBasePython(env(SERVER).venv);
  const s = new Scenario('bench');
  const merge = mergeImage();
  s.distribution({}, IMAGE, SERVER);
  const stack = (props: Parameters<typeof renderStack>[0]) => renderStack({ distribution: { image: IMAGE }, ...props });
  const out: Record<string, unknown> = {
    host: { server: SERVER, python: python.binDir, cpus: os.cpus().length, loadAverage: os.loadavg(), runs: RUNS, mergeImage: merge.kind },
  };
  const log = (l = '') => console.log(l);

  /** Runs a pod as a server; returns it once ready (or throws with what happened). */
  const serve = async (manifests: any[]) => {
    const pod = await s.run(manifests, { serve: { readyTimeoutMs: 300_000 } });
    if (pod.phase !== 'Running') throw new Error(pod.describe());
    return pod;
  };

  try {
    const depWheelsDir = s.path('wheels', 'deps');
    const deps = Array.from({ length: 10 }, (_, i) => buildSyntheticWheel(dependency(i), s.dir, depWheelsDir));
    const makeProvider = (id: string, depCount: number, depOffset = 0): ProviderBuild => {
      const name = `acme-bench-${id}`;
      const mine = Array.from({ length: depCount }, (_, i) => deps[(depOffset + i) % deps.length]);
      const dir = s.path('wheels', id);
      const wheel = buildSyntheticWheel(providerPackage({ name, requires: mine.map((w) => `${path.basename(w).split('-')[0].replace(/_/g, '-')}==1.0.0`) }), s.dir, dir);
      const wheels = [wheel, ...mine.map((w) => {
        fs.copyFileSync(w, path.join(dir, path.basename(w)));
        return path.join(dir, path.basename(w));
      })];
      const image = `registry.test/bench/${id}:1`;
      s.provider(image, { metadata: providerMetadata({ name, wheels }), wheels, python });
      return { id, image, wheels };
    };
    const sampleWheels = sampleProviderWheels(s.path('wheels', 'sample'));
    s.provider('registry.test/bench/sample:1', { metadata: fs.readFileSync(path.join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8'), wheels: sampleWheels, python });
    const sample: ProviderBuild = { id: 'acme-echo', image: 'registry.test/bench/sample:1', wheels: sampleWheels };

    log(`# Pod start-up benchmark, real ${findRelease(SERVER)?.project ?? 'ogx'} ${SERVER} (${RUNS} runs each, median; ${(out.host as any).cpus} CPU(s), load average ${os.loadavg()[0].toFixed(1)}; merge container: ${merge.kind})`);
    log();
    log('## Per-provider install (install container vs bare offline pip install, same Python)');
    log();
    log('| provider | bare `pip install --no-index --target` (floor) | install-provider container | overhead | ratio |');
    log('|---|---|---|---|---|');
    const overhead: Record<string, unknown> = {};
    const installs: Array<[string, ProviderBuild]> = [['1 dependency wheel', makeProvider('deps1', 1)], ['10 dependency wheels', makeProvider('deps10', 10)], ['sample provider (2 wheels)', sample]];
    for (const [label, p] of installs) {
      const floor: number[] = [];
      const container: number[] = [];
      // One warm-up of each (page cache, pip's own imports), not counted.
      barePip(p.wheels, s.dir);
      (await s.run(stack({ externalProviders: { inference: [{ providerId: p.id, image: p.image }] } }), { runMain: false })).dispose();
      for (let r = 0; r < RUNS; r++) {
        floor.push(barePip(p.wheels, s.dir));
        const pod = await s.run(stack({ externalProviders: { inference: [{ providerId: p.id, image: p.image }] } }), { runMain: false });
        const c = pod.container(`install-provider-${p.id}`);
        if (c.reason !== 'Completed') throw new Error(pod.describe());
        container.push(c.durationMs!);
        pod.dispose();
      }
      const f = median(floor);
      const c = median(container);
      overhead[label] = { floorMs: f, containerMs: c, ratio: c / f, floorRuns: floor, containerRuns: container };
      log(`| ${label} | ${fmtRuns(floor)} | ${fmtRuns(container)} | ${fmt(c - f)} | ${(c / f).toFixed(2)}x (min/min ${(Math.min(...container) / Math.min(...floor)).toFixed(2)}x) |`);
    }
    out.perProvider = overhead;

    log();
    log('## Pod start-up: first container start → server answers GET /v1/health (1 dependency wheel per provider)');
    log();
    const runs = Math.max(1, Math.ceil(RUNS / 2));
    // The floor: the same server with no providers and no init containers (the image's own config; on ogx
    // 1.2 and later started with --insecure, which its entrypoint lacks).
    const floorRuns: number[] = [];
    for (let r = 0; r < runs; r++) {
      const pod = await serve(stack({ port: await freePort() }));
      floorRuns.push(pod.containers[0].readyAtMs! - pod.containers[0].startedAtMs!);
      await pod.stop();
      pod.dispose();
    }
    const floor = median(floorRuns);
    log(`Floor (server alone, no init containers): ${fmtRuns(floorRuns)}`);
    log();
    log('| providers | pod start → ready | floor + bare installs | ratio | per provider | inspect / installs / extract / merge / server+preflight (median run) |');
    log('|---|---|---|---|---|---|');
    const all = Array.from({ length: 10 }, (_, i) => makeProvider(`p${i}`, 1, i));
    const bareInstall = all.map((p) => median(Array.from({ length: 3 }, () => barePip(p.wheels, s.dir))));
    const startup: Record<string, unknown> = { floorMs: floor, floorRuns };
    for (const n of [0, 1, 5, 10]) {
      const providers = all.slice(0, n);
      const toReady: number[] = [];
      const phases: string[] = [];
      for (let r = 0; r < runs; r++) {
        const pod = await serve(stack({ port: await freePort(), externalProviders: n ? { inference: providers.map((p) => ({ providerId: p.id, image: p.image })) } : undefined }));
        const first = (pod.initContainers[0] ?? pod.containers[0]).startedAtMs!;
        const server = pod.containers[0];
        toReady.push(server.readyAtMs! - first);
        const sum = (pred: (name: string) => boolean) => pod.initContainers.filter((c) => pred(c.name)).reduce((t, c) => t + c.durationMs!, 0);
        phases.push([sum((x) => x === 'inspect-distribution'), sum((x) => x.startsWith('install-provider-')), sum((x) => x === 'extract-distribution-config'),
          sum((x) => x === 'merge-config'), server.readyAtMs! - server.startedAtMs!].map(fmt).join(' / '));
        await pod.stop();
        pod.dispose();
      }
      const t = median(toReady);
      const target = floor + bareInstall.slice(0, n).reduce((a, b) => a + b, 0);
      startup[n] = { toReadyMs: t, targetMs: target, ratio: t / target, runs: toReady };
      const mid = phases[toReady.indexOf([...toReady].sort((x, y) => x - y)[Math.floor((toReady.length - 1) / 2)])];
      log(`| ${n} | ${fmtRuns(toReady)} | ${fmt(target)} | ${(t / target).toFixed(2)}x | ${n ? fmt((t - floor) / n) : '—'} | ${mid} |`);
    }
    out.startup = startup;
    log();
    log('Install container = bwrap sandbox set-up + install-provider.sh + install-provider.py (metadata check, pip into a staging');
    log('directory, the server\'s packages and conflict checks, move into the shared volume, manifest, metadata copy). The floor is pip');
    log('alone, with the same Python. With no providers the pod has no init containers: the row is the floor again.');
  } finally {
    s.dispose();
  }
  if (JSON_OUT) {
    fs.writeFileSync(JSON_OUT, JSON.stringify(out, null, 2) + '\n');
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
