/**
 * The runner's pod network and the containers it keeps running: native sidecars started before the
 * main container and sharing its localhost, restarted after a crash, and a Service's ClusterIP leading
 * from one pod to another. Small Python servers stand in for the real ones here; the pod tests run the
 * real Llama Stack server this way (test/pod-startup/provider-*.test.ts).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeWhen, sandboxSupport } from './host';
import { pythonImageEnv } from './images';
import { PodNetwork, podNetworkSupport } from './pod-network';
import { PodRun, runPod, RunPodOptions } from './pod-runner';

const BASE = 'registry.test/base:1';

/** Answers every GET with the body of `GET <UPSTREAM><path>` (502 when that fails), and /healthz itself. */
const PROXY = `
import os, sys, urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            status, body = 200, b"ok" if self.path == "/healthz" else urllib.request.urlopen(os.environ["UPSTREAM"] + self.path, timeout=2).read()
        except Exception as e:
            status, body = 502, str(e).encode()
        self.send_response(status); self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
HTTPServer(("", int(sys.argv[1])), H).serve_forever()
`;

const sandbox = sandboxSupport();
describeWhen('runPod on a pod network', sandbox.ok ? podNetworkSupport() : sandbox, sandbox.ok ? 'root, iproute2 and iptables' : 'bubblewrap', () => {
  let work: string;
  let base: string;
  let network: PodNetwork;
  const runs: PodRun[] = [];

  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-podnet-'));
    base = path.join(work, 'base-image');
    fs.mkdirSync(path.join(base, 'app'), { recursive: true });
    fs.writeFileSync(path.join(base, 'app', 'hello.txt'), 'from the sidecar\n');
    fs.writeFileSync(path.join(base, 'app', 'proxy.py'), PROXY);
    network = PodNetwork.create();
  });
  afterAll(() => {
    runs.forEach((r) => r.dispose());
    network?.dispose();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const go = async (name: string, spec: any, options: Partial<RunPodOptions> = {}) => {
    const workload = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { template: { spec } } };
    const images = { [BASE]: { dir: base, env: pythonImageEnv() } };
    const r = await runPod(workload, { images, timeoutMs: 60_000, network, restartDelayMs: 100, serve: { readyTimeoutMs: 20_000 }, ...options });
    runs.push(r);
    return r;
  };
  const files = (port: number, name = 'files') => ({
    name,
    image: BASE,
    command: ['python3', '-m', 'http.server', String(port), '--directory', '/app'],
    ports: [{ name: 'files', containerPort: port }],
    startupProbe: { tcpSocket: { port: 'files' }, periodSeconds: 1, failureThreshold: 30 },
  });
  const proxy = (port: number, upstream: string) => ({
    name: 'proxy',
    image: BASE,
    command: ['python3', '/app/proxy.py', String(port)],
    env: [{ name: 'UPSTREAM', value: upstream }],
    ports: [{ name: 'http', containerPort: port }],
    startupProbe: { httpGet: { path: '/healthz', port: 'http' } },
  });

  test('a native sidecar starts before the main container, which reaches it on localhost', async () => {
    const pod = await go('sidecar-pod', {
      initContainers: [
        { name: 'setup', image: BASE, command: ['/bin/sh', '-c', 'echo set up'] },
        { ...files(18000, 'sidecar'), restartPolicy: 'Always' },
      ],
      containers: [proxy(8000, 'http://localhost:18000')],
    });
    expect(pod.phase).toBe('Running');
    expect(pod.ip).toMatch(/^10\.213\.\d+\.\d+$/);
    expect(pod.server!.url).toBe(`http://${pod.ip}:8000`);
    const sidecar = pod.container('sidecar');
    expect(sidecar).toMatchObject({ kind: 'init', state: 'running', reason: 'Started', restartCount: 0 });
    // The kubelet starts the main container once the sidecar's startup probe has passed.
    expect(sidecar.readyAtMs!).toBeLessThan(pod.container('proxy').startedAtMs!);
    expect(await pod.server!.request('GET', '/hello.txt')).toEqual({ status: 200, body: 'from the sidecar\n' });

    // A crash: the sidecar is started again, and meanwhile the main container keeps serving.
    const killed = await pod.kill('sidecar');
    expect(killed).toMatchObject({ state: 'terminated', exitCode: 137 });
    const during = await pod.server!.request('GET', '/hello.txt');
    expect(during.status).toBe(502);
    const again = await pod.restarted('sidecar');
    expect(again).toMatchObject({ state: 'running', restartCount: 1, lastState: { exitCode: 137 } });
    expect(await pod.server!.request('GET', '/hello.txt')).toEqual({ status: 200, body: 'from the sidecar\n' });

    await pod.stop();
    expect(pod.container('sidecar')).toMatchObject({ state: 'terminated', restartCount: 1 });
  });

  test('each pod has its own localhost: the same port serves in two pods at once', async () => {
    const a = await go('pod-a', { containers: [files(9000)] });
    const b = await go('pod-b', { containers: [files(9000)] });
    expect(a.ip).not.toBe(b.ip);
    expect((await a.server!.request('GET', '/hello.txt')).status).toBe(200);
    expect((await b.server!.request('GET', '/hello.txt')).status).toBe(200);
    await a.stop();
    await b.stop();
  });

  test('a Service\'s ClusterIP and name lead to the other pod, in pods started before and after it', async () => {
    const client = await go('client', { containers: [proxy(8000, 'http://backend.default.svc.cluster.local:80')] });
    const backend = await go('backend', { containers: [files(9000)] });
    const service = network.addService({ metadata: { name: 'backend' }, spec: { ports: [{ port: 80, targetPort: 'files' }] } }, backend.ip!, { files: 9000 });
    expect(service.clusterIP).toMatch(/^10\.214\.\d+\.1$/);
    expect(await client.server!.request('GET', '/hello.txt')).toEqual({ status: 200, body: 'from the sidecar\n' });
    const later = await go('client-later', { containers: [proxy(8000, 'http://backend:80')] });
    expect(await later.server!.request('GET', '/hello.txt')).toEqual({ status: 200, body: 'from the sidecar\n' });
    for (const p of [client, backend, later]) await p.stop();
  });

  test('installs stay offline: init containers other than sidecars have no network', async () => {
    const pod = await go('offline', {
      initContainers: [{ name: 'install', image: BASE, command: ['python3', '-c', `import socket; socket.create_connection(("${network.nodeIP}", 9), timeout=2)`] }],
      containers: [files(9000)],
    });
    expect(pod.status).toBe('Init:Error');
    expect(pod.container('install').logs).toContain('Network is unreachable');
  });

  test('a sidecar whose startup probe never passes fails the pod\'s initialisation', async () => {
    const pod = await go('bad-sidecar', {
      initContainers: [{ ...files(18000, 'sidecar'), command: ['sleep', '60'], restartPolicy: 'Always' }],
      containers: [files(9000)],
    }, { serve: { readyTimeoutMs: 1_500 } });
    expect(pod.status).toBe('Init:Unready');
    expect(pod.container('sidecar').probe).toMatch(/^Startup probe failed: dial tcp 10\.213\.\d+\.\d+:18000/);
    expect(pod.container('files')).toMatchObject({ state: 'waiting', reason: 'PodInitializing' });
  });
});

describeWhen('the pod network\'s bridge', podNetworkSupport(), 'root, iproute2 and iptables', () => {
  test('keeps its MAC address while pods come and go (the pods\' ARP caches stay right)', () => {
    const network = PodNetwork.create();
    try {
      const bridge = execFileSync('ip', ['-o', 'addr', 'show', 'to', network.nodeIP], { encoding: 'utf8' }).split(/\s+/)[1];
      const mac = () => fs.readFileSync(`/sys/class/net/${bridge}/address`, 'utf8').trim();
      const first = mac();
      const pods = [1, 2, 3, 4, 5].map((i) => network.attach(`pod-${i}`));
      expect(mac()).toBe(first);
      for (const pod of pods) {
        network.detach(pod);
        expect(mac()).toBe(first);
      }
    } finally {
      network.dispose();
    }
  });
});
