/**
 * From `kubectl apply` to the server answering, on the real single-node cluster (test/cluster): what
 * LlamaStackWithProviders renders with 0, 1 and 5 providers (the sample provider's image, each in the
 * server's process) against the floor, the same distribution image's server started alone by its own
 * entrypoint with the same config, probes and resources (test/cluster/server-stack.ts `serverAlone`).
 *
 * Two times per run, both from just before `kubectl apply --server-side`:
 * - the server healthy: `GET /v1/health` on the pod's IP answers 200 (polled every 100 ms): the start-up
 *   itself, init containers and server;
 * - the Service answering: the same through the Service's ClusterIP, once the kubelet's readiness probe
 *   passed and kube-proxy wrote the rules: what a client sees, in steps of the startup probe's period.
 *
 * With, for the median run, where the time to the server healthy went (containerd's task events): the
 * apply to the first container's start, the init containers' own run times, the kubelet's turns between
 * them, the server's start to healthy.
 *
 * Each run in a namespace of its own, deleted (and waited for) before the next. Target: ≤ 1.2× the floor.
 * Timings are printed, never asserted. Needs root and the test set-up (`npm run test:setup`).
 *
 *   npx ts-node --transpile-only --project test/tsconfig.json bench/cluster/bench.ts [--runs N] [--json FILE]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { clusterSupport, KubeCluster, TaskEvent } from '../../test/cluster/cluster';
import { request } from '../../test/cluster/http';
import { clusterImagesSupport, loadServerImages, SAMPLE_PROVIDER_IMAGE } from '../../test/cluster/images';
import { manifestText, serverAlone, serverStack } from '../../test/cluster/server-stack';
import { OGX } from '../../test/pod-startup/helpers';
import { firstUnsupported } from '../../test/sandbox/host';
import { llamaStackEnv } from '../../test/sandbox/test-envs';
import { median } from '../stats';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] || 0) || 3;
const JSON_OUT = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const NAME = 'server';

/** One run's times from the apply, and where the time to the server healthy went. */
interface Run {
  readonly healthyMs: number;
  readonly serviceMs: number;
  /** The apply to the first container's start: scheduling, the pod's sandbox and network, its volumes. */
  readonly toFirstStartMs: number;
  /** The init containers' own run times (start to exit, as containerd reports them), summed. */
  readonly initRunMs: number;
  /** Between one init container's exit and the next container's start: the kubelet's turn. */
  readonly initGapsMs: number;
  /** The server container's start to its health check answering. */
  readonly serverMs: number;
}

const CASES: ReadonlyArray<{ readonly label: string; readonly objects: () => any[] }> = [
  { label: 'server alone (floor)', objects: () => serverAlone(NAME) },
  ...[0, 1, 5].map((n) => ({
    label: `${n} provider${n === 1 ? '' : 's'}`,
    objects: () => serverStack(NAME, Array.from({ length: n }, (_, i) => ({ providerId: `acme-${i + 1}`, image: SAMPLE_PROVIDER_IMAGE }))),
  })),
];

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Applies `objects` into a new namespace and times the server becoming healthy and its Service answering. */
async function measure(cluster: KubeCluster, namespace: string, objects: readonly any[]): Promise<Run> {
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } };
  cluster.kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(ns));
  const events = cluster.recordTaskEvents();
  const applied = Date.now();
  const started = performance.now();
  cluster.kubectl(['apply', '--server-side', '-n', namespace, '-f', '-'], manifestText(objects));
  const service = cluster.get(['service', `${NAME}-service`, '-n', namespace]);
  const health = (host: string) => request(`http://${host}:${service.spec.ports[0].port}/v1/health`, undefined, 1000).then((a) => a.status === 200, () => false);
  let podIP: string | undefined;
  let healthyMs: number | undefined;
  const deadline = started + 600_000;
  while (performance.now() < deadline) {
    if (podIP === undefined) {
      podIP = (cluster.get(['pods', '-n', namespace, '-l', `app.kubernetes.io/instance=${NAME}`]).items as any[]).find((p) => p.status?.podIP)?.status.podIP;
    } else if (healthyMs === undefined) {
      if (await health(podIP)) healthyMs = performance.now() - started;
    } else if (await health(service.spec.clusterIP)) {
      const serviceMs = performance.now() - started;
      const [pod] = cluster.get(['pods', '-n', namespace, '-l', `app.kubernetes.io/instance=${NAME}`]).items;
      return { healthyMs, serviceMs, ...phases(pod, await events.stop(), applied, applied + healthyMs) };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server in ${namespace} did not answer within 600 s:\n${cluster.kubectl(['describe', 'pods', '-n', namespace])}`);
}

/** Where the time from the apply to the server healthy went, from containerd's task events of the pod's containers. */
function phases(pod: any, events: readonly TaskEvent[], applied: number, healthy: number): Omit<Run, 'healthyMs' | 'serviceMs'> {
  const at = (status: any, event: TaskEvent['event']) => {
    const e = events.find((x) => x.event === event && x.containerID === status.containerID);
    if (e === undefined) throw new Error(`no ${event} event of container ${status.name} (${status.containerID})`);
    return e.at;
  };
  const inits = (pod.status.initContainerStatuses ?? []).map((c: any) => ({ start: at(c, 'start'), exit: at(c, 'exit') }));
  const serverStart = at(pod.status.containerStatuses[0], 'start');
  const starts = [...inits.map((c: any) => c.start), serverStart];
  return {
    toFirstStartMs: starts[0] - applied,
    initRunMs: inits.reduce((t: number, c: any) => t + c.exit - c.start, 0),
    initGapsMs: inits.reduce((t: number, c: any, i: number) => t + starts[i + 1] - c.exit, 0),
    serverMs: healthy - serverStart,
  };
}

async function main(): Promise<void> {
  const support = firstUnsupported(clusterSupport, clusterImagesSupport);
  if (!support.ok) throw new Error(`cannot benchmark: ${support.reason}`);
  const install = llamaStackEnv(OGX).value;
  if (!install) throw new Error(`cannot benchmark: ${llamaStackEnv(OGX).reason}`);
  const cluster = await KubeCluster.start();
  const results: Record<string, Run[]> = {};
  try {
    loadServerImages(cluster, [{ install, version: OGX }]);
    // One run of the largest case first, not counted: the page cache, containerd's snapshots.
    let n = 0;
    const run = async (objects: readonly any[]) => {
      const namespace = `bench-${++n}`;
      try {
        return await measure(cluster, namespace, objects);
      } finally {
        cluster.kubectl(['delete', 'namespace', namespace, '--wait=true', '--timeout=300s']);
      }
    };
    await run(CASES[CASES.length - 1].objects());
    // Interleaved, so that a change of the machine's load touches every case alike.
    for (let r = 0; r < RUNS; r++) {
      for (const c of CASES) (results[c.label] ??= []).push(await run(c.objects()));
    }
  } finally {
    await cluster.stop();
  }

  const floor = results[CASES[0].label];
  const [floorHealthy, floorService] = [median(floor.map((r) => r.healthyMs)), median(floor.map((r) => r.serviceMs))];
  console.log(`# From kubectl apply to the server answering, on the single-node cluster (ogx ${OGX}; ${RUNS} runs each, median (min); ${os.cpus().length} CPU(s), load average ${os.loadavg()[0].toFixed(1)})`);
  console.log();
  console.log('| server | apply → server healthy (pod IP) | ratio | apply → Service answers | ratio | apply → first start / init containers / kubelet between / server → healthy |');
  console.log('|---|---|---|---|---|---|');
  for (const c of CASES) {
    const runs = results[c.label];
    const healthy = runs.map((r) => r.healthyMs);
    const service = runs.map((r) => r.serviceMs);
    const mid = runs.find((r) => r.healthyMs === median(healthy))!;
    const split = [mid.toFirstStartMs, mid.initRunMs, mid.initGapsMs, mid.serverMs].map(seconds).join(' / ');
    console.log(`| ${c.label} | ${seconds(median(healthy))} (${seconds(Math.min(...healthy))}) | ${(median(healthy) / floorHealthy).toFixed(2)}x `
      + `| ${seconds(median(service))} (${seconds(Math.min(...service))}) | ${(median(service) / floorService).toFixed(2)}x | ${split} |`);
  }
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify({ ogx: OGX, runs: RUNS, cpus: os.cpus().length, results }, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
