/**
 * What a provider's service part costs, with the real llama-stack server: the sample provider's image
 * (built from its Containerfile with buildah) in one server three ways, on a pod network of network
 * namespaces (test/sandbox/pod-network.ts):
 *
 * 1. latency of one chat completion through the server's route, median and p99 over `--calls` calls
 *    (default 1000) per provider: inline (the floor: the echo in the server's process) vs a sidecar
 *    (one more HTTP hop on the pod's loopback) vs a service in a pod of its own (a hop over veth and a
 *    bridge to the Service's ClusterIP). The calls go round-robin over the three, one at a time, so the
 *    machine's noise falls on all three alike;
 * 2. pod start-up, first container start → server ready, with the provider inline vs the same provider
 *    with a sidecar (a native sidecar: the server waits for its startup probe).
 *
 * Figures are printed as ratios to the floor measured in the same run, never asserted.
 *
 *   npx ts-node --transpile-only --project test/tsconfig.json bench/provider-services/bench.ts [--calls N] [--runs N] [--json FILE]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { deploymentOf, LLAMA_STACK, renderStack, Scenario, serveProviderServices } from '../../test/pod-startup/helpers';
import { buildSampleProviderImage } from '../../test/pod-startup/sample-provider-image';
import { buildahSupport, removeImage } from '../../test/sandbox/buildah';
import { firstUnsupported, sandboxSupport } from '../../test/sandbox/host';
import { PodNetwork, podNetworkSupport } from '../../test/sandbox/pod-network';
import { llamaStackEnv, testEnvsSupport } from '../../test/sandbox/test-envs';
import { quantile } from '../stats';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(args[args.indexOf(name) + 1] || 0) || fallback;
const CALLS = option('--calls', 1000);
const RUNS = option('--runs', 3);
const JSON_OUT = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const IMAGE = `localhost/kic-bench/acme-echo-provider:${process.pid}`;
const MODES = ['inline', 'sidecar', 'service'] as const;

const ms = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : x >= 10 ? `${Math.round(x)} ms` : `${x.toFixed(2)} ms`);

async function main(): Promise<void> {
  const support = firstUnsupported(sandboxSupport, buildahSupport, podNetworkSupport, () => testEnvsSupport(llamaStackEnv(LLAMA_STACK)));
  if (!support.ok) throw new Error(`cannot benchmark: ${support.reason}`);
  const s = new Scenario('bench-services');
  const network = PodNetwork.create();
  const out: Record<string, unknown> = { host: { llamaStack: LLAMA_STACK, cpus: os.cpus().length, loadAverage: os.loadavg(), calls: CALLS, runs: RUNS } };
  const log = (l = '') => console.log(l);
  const serve = async (workload: any, manifests: readonly any[]) => {
    const pod = await s.run(manifests, { serve: { readyTimeoutMs: 300_000 }, network, timeoutMs: 3_600_000 }, workload);
    if (pod.phase !== 'Running') throw new Error(pod.describe());
    return pod;
  };
  const provider = (providerId: string, more: object = {}) => ({ providerId, image: IMAGE, ...more });

  try {
    s.images[IMAGE] = buildSampleProviderImage(s, IMAGE);
    s.distribution();
    log(`# Provider service parts, real llama-stack ${LLAMA_STACK} (${os.cpus().length} CPU(s), load average ${os.loadavg()[0].toFixed(1)})`);
    log();

    // 1. Latency.
    const manifests = renderStack({
      externalProviders: { inference: [provider('bench-inline'), provider('bench-sidecar', { sidecar: {} }), provider('bench-service', { service: {} })] },
    });
    const [servicePod] = await serveProviderServices(manifests, network, serve);
    const server = await serve(deploymentOf(manifests), manifests);
    const call = async (mode: typeof MODES[number]): Promise<number> => {
      const t = performance.now();
      const res = await server.server!.request('POST', '/v1/chat/completions', { model: `bench-${mode}/echo`, messages: [{ role: 'user', content: 'how long does this take' }] });
      const took = performance.now() - t;
      if (res.status !== 200) throw new Error(`${mode}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
      return took;
    };
    for (let i = 0; i < 50; i++) for (const m of MODES) await call(m); // warm-up: connections, imports, caches
    const samples: Record<string, number[]> = { inline: [], sidecar: [], service: [] };
    for (let i = 0; i < CALLS; i++) for (const m of MODES) samples[m].push(await call(m));
    const floor = { median: quantile(samples.inline, 0.5), p99: quantile(samples.inline, 0.99) };
    log(`## One chat completion through the server (${CALLS} calls per provider, round-robin, one at a time)`);
    log();
    log('| provider | median | p99 | median ratio to inline | p99 ratio to inline | median added |');
    log('|---|---|---|---|---|---|');
    const latency: Record<string, unknown> = {};
    for (const m of MODES) {
      const median = quantile(samples[m], 0.5);
      const p99 = quantile(samples[m], 0.99);
      latency[m] = { medianMs: median, p99Ms: p99, medianRatio: median / floor.median, p99Ratio: p99 / floor.p99 };
      log(`| ${m}${m === 'inline' ? ' (floor)' : ''} | ${ms(median)} | ${ms(p99)} | ${(median / floor.median).toFixed(2)} | ${(p99 / floor.p99).toFixed(2)} | ${m === 'inline' ? '—' : ms(median - floor.median)} |`);
    }
    out.latency = latency;
    await server.stop();
    await servicePod.stop();

    // 2. Start-up.
    log();
    log(`## Pod start-up: first container start → server ready (${RUNS} runs, median)`);
    log();
    log('| provider | start → ready | ratio to inline | sidecar started → ready |');
    log('|---|---|---|---|');
    const startup: Record<string, unknown> = {};
    let inlineFloor = 0;
    for (const mode of ['inline', 'sidecar'] as const) {
      const runs: number[] = [];
      const sidecarRuns: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const m = renderStack({ externalProviders: { inference: [provider('bench', mode === 'sidecar' ? { sidecar: {} } : {})] } });
        const pod = await serve(deploymentOf(m), m);
        const first = pod.initContainers[0].startedAtMs!;
        runs.push(pod.container('llama-stack').readyAtMs! - first);
        if (mode === 'sidecar') {
          const sc = pod.container('provider-bench');
          sidecarRuns.push(sc.readyAtMs! - sc.startedAtMs!);
        }
        await pod.stop();
        pod.dispose();
      }
      const median = quantile(runs, 0.5);
      if (mode === 'inline') inlineFloor = median;
      startup[mode] = { toReadyMs: median, ratio: median / inlineFloor, runs, sidecarStartToReadyMs: sidecarRuns };
      log(`| ${mode}${mode === 'inline' ? ' (floor)' : ''} | ${ms(median)} | ${(median / inlineFloor).toFixed(2)} | ${sidecarRuns.length ? ms(quantile(sidecarRuns, 0.5)) : '—'} |`);
    }
    out.startup = startup;
  } finally {
    s.dispose(); // its pods first: they leave the network
    network.dispose();
    removeImage(IMAGE);
  }
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify(out, null, 2) + '\n');
}

main().catch((e) => {
  console.error((e as Error).message);
  process.exit(1);
});
