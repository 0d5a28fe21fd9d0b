/**
 * Pod start-up benchmark (issue 4): runs the rendered pod in the bubblewrap sandbox and prints
 *
 * 1. per-provider init overhead: wall time of the `install-provider-<id>` init container against a bare
 *    offline `pip install --no-index --target` of the same wheels on the host (the floor), for a
 *    provider with 1 and with 10 dependency wheels;
 * 2. pod start-up: time from the start of the first init container to the start of the server container
 *    (and to the end of preflight + provider loading by the stand-in server) for 1, 5 and 10 providers.
 *
 * Seed 001 target: under 30 s per provider. Timings are printed, never asserted.
 *
 *   npx ts-node --transpile-only --project test/tsconfig.json bench/pod-startup/bench.ts [--runs N] [--json FILE]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { referenceConfig, renderStack, Scenario } from '../../test/pod-startup/helpers';
import { hostPython, sandboxSupport } from '../../test/sandbox/host';
import { mergeImage } from '../../test/sandbox/images';
import { buildSyntheticWheel, providerMetadata, providerPackage, SyntheticPackage } from '../../test/sandbox/wheels';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] || 0) || 5;
const JSON_OUT = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;

/** A dependency package of realistic shape: a package with a dozen small modules. */
function dependency(i: number): SyntheticPackage {
  const mod = `acme_bench_dep_${i}`;
  const files: Record<string, string> = { [`${mod}/__init__.py`]: `"""Benchmark dependency ${i}."""\nVALUE = ${i}\n` };
  for (let m = 0; m < 12; m++) {
    files[`${mod}/module_${m}.py`] = Array.from({ length: 40 }, (_, l) => `def f_${m}_${l}(x):\n    return x + ${l}\n`).join('\n');
  }
  return { name: `acme-bench-dep-${i}`, version: '1.0.0', files };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function fmtRuns(xs: number[]): string {
  return `${fmt(median(xs))} (min ${fmt(Math.min(...xs))})`;
}

function fmt(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** Times `pip install --no-index --target` of the wheels on the host, outside any sandbox. */
function barePip(wheels: string[], dir: string): number {
  const target = path.join(dir, `bare-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const t = performance.now();
  const r = spawnSync(hostPython().executable, ['-m', 'pip', 'install', '--no-index', '--find-links', path.dirname(wheels[0]),
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
  const s = new Scenario('bench');
  const merge = mergeImage();
  s.distribution({ configs: { '/opt/app-root/config.yaml': referenceConfig('starter-config-v0.7.1.yaml') } });
  const out: Record<string, unknown> = {
    host: { python: hostPython().version, cpus: os.cpus().length, loadAverage: os.loadavg(), runs: RUNS, mergeImage: merge.kind, mergeFallbackReason: merge.fallbackReason },
  };
  const lines: string[] = [];
  const log = (l = '') => {
    lines.push(l);
    console.log(l);
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
      s.provider(image, { metadata: providerMetadata({ name, wheels }), wheels });
      return { id, image, wheels };
    };

    log(`# Pod start-up benchmark (${RUNS} runs each, median; host Python ${hostPython().version}, ${(out.host as any).cpus} CPU(s), load average ${os.loadavg()[0].toFixed(1)}; merge container: ${merge.kind}${merge.fallbackReason ? ` — ${merge.fallbackReason}` : ''})`);
    log();
    log('## Per-provider init overhead (install container vs bare offline pip install)');
    log();
    log('| dependency wheels | bare `pip install --no-index --target` (floor) | install-provider container | overhead | ratio |');
    log('|---|---|---|---|---|');
    const overhead: Record<string, unknown> = {};
    for (const depCount of [1, 10]) {
      const p = makeProvider(`deps${depCount}`, depCount);
      const floor: number[] = [];
      const container: number[] = [];
      // One warm-up of each (page cache, pip's own imports), not counted.
      barePip(p.wheels, s.dir);
      (await s.run(renderStack({ externalProviders: { inference: [{ providerId: p.id, image: p.image }] } }), { runMain: false })).dispose();
      for (let r = 0; r < RUNS; r++) {
        floor.push(barePip(p.wheels, s.dir));
        const pod = await s.run(renderStack({ externalProviders: { inference: [{ providerId: p.id, image: p.image }] } }), { runMain: false });
        const c = pod.container(`install-provider-${p.id}`);
        if (c.reason !== 'Completed') throw new Error(pod.describe());
        container.push(c.durationMs!);
        pod.dispose();
      }
      const f = median(floor);
      const c = median(container);
      overhead[depCount] = { floorMs: f, containerMs: c, ratio: c / f, floorRuns: floor, containerRuns: container };
      log(`| ${depCount} | ${fmtRuns(floor)} | ${fmtRuns(container)} | ${fmt(c - f)} | ${(c / f).toFixed(2)}x (min/min ${(Math.min(...container) / Math.min(...floor)).toFixed(2)}x) |`);
    }
    out.perProvider = overhead;

    log();
    log('## Pod start-up: first init container → server container (1 dependency wheel per provider)');
    log();
    log('| providers | → server container start | per provider | → preflight + providers loaded | per provider | install / extract / merge / server (median run) | seed target |');
    log('|---|---|---|---|---|---|---|');
    const all = Array.from({ length: 10 }, (_, i) => makeProvider(`p${i}`, 1, i));
    const startup: Record<string, unknown> = {};
    for (const n of [1, 5, 10]) {
      const providers = all.slice(0, n);
      const toStart: number[] = [];
      const toReady: number[] = [];
      const phases: string[] = [];
      for (let r = 0; r < Math.max(1, Math.ceil(RUNS / 2)); r++) {
        const pod = await s.run(renderStack({ externalProviders: { inference: providers.map((p) => ({ providerId: p.id, image: p.image })) } }));
        if (pod.phase !== 'Succeeded') throw new Error(pod.describe());
        const first = pod.initContainers[0].startedAtMs!;
        const server = pod.containers[0];
        toStart.push(server.startedAtMs! - first);
        toReady.push(server.finishedAtMs! - first);
        const sum = (pred: (name: string) => boolean) => pod.initContainers.filter((c) => pred(c.name)).reduce((t, c) => t + c.durationMs!, 0);
        phases.push([sum((x) => x.startsWith('install-provider-')), sum((x) => x === 'extract-distribution-config'), sum((x) => x === 'merge-config'), server.durationMs!]
          .map(fmt).join(' / '));
        pod.dispose();
      }
      const a = median(toStart);
      const b = median(toReady);
      startup[n] = { toServerStartMs: a, toProvidersLoadedMs: b, perProviderMs: a / n, runs: toStart };
      const mid = phases[toStart.indexOf([...toStart].sort((x, y) => x - y)[Math.floor((toStart.length - 1) / 2)])];
      log(`| ${n} | ${fmtRuns(toStart)} | ${fmt(a / n)} | ${fmt(b)} | ${fmt(b / n)} | ${mid} | ${a / n < 30_000 ? 'met (< 30 s)' : 'MISSED (≥ 30 s)'} |`);
    }
    out.startup = startup;
    log();
    log('Install container = bwrap sandbox set-up + install-provider.sh + install-provider.py (metadata check, pip into a staging');
    log('directory, conflict check, move into the shared volume, manifest, metadata copy). The floor is pip alone, on the host.');
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
