/**
 * A real single-node Kubernetes cluster for the tests, on this machine: etcd, kube-apiserver
 * (`Node,RBAC`, NodeRestriction), kube-controller-manager, kube-scheduler, the kubelet, kube-proxy
 * (iptables) and kubectl of one release, built from the Go module proxy (scripts/test-setup/kubernetes.mjs);
 * CoreDNS behind the `kube-dns` Service (cluster-dns.ts); containerd and runc from Debian; the CNI bridge
 * and host-local plugins from Debian's containernetworking-plugins. Images come from buildah
 * (`loadImage`), never from a registry.
 *
 * Everything listens on the node's bridge address or on loopback, with free ports; everything lives
 * under CLUSTER_DIR and is undone by `stop` (node-host.ts), also after a crash (the next start sweeps).
 * Needs root. Identities are static tokens, one per component, as kubeadm's certificates name them
 * (`system:node:<node>` in `system:nodes` for the kubelet, so the Node authorizer and NodeRestriction
 * judge it as they would a real node).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLUSTER_DNS_IP, CLUSTER_DOMAIN, clusterDnsObjects, corednsBuild, corefile, COREDNS_USER } from './cluster-dns';
import { request } from './http';
import { buildPauseImage, containerdConfig, cniConfig } from './node-config';
import {
  acquireClusterLock, CLUSTER_DIR, CLUSTER_MINOR, NODE_BRIDGE, NODE_IP, POD_SUBNET, releaseClusterLock, saveHostState, SERVICE_SUBNET, setSysctl,
  run, sweepNodeHost,
} from './node-host';
import { buildahSupport } from '../sandbox/buildah';
import { goBuild, GoBuild } from '../sandbox/go-builds';
import { firstUnsupported, freePort, SandboxSupport } from '../sandbox/host';
import { registerRunning } from '../sandbox/left-running';

export const NODE_NAME = 'kic-node';
const SETUP = 'node scripts/test-setup/kubernetes.mjs';
const PROGRAMS = ['kubelet', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'kubectl'];

const apiServerBuild = () => goBuild(`kube-apiserver-${CLUSTER_MINOR}`, ['kube-apiserver', 'etcd'], SETUP);
const clusterBuild = () => goBuild(`kube-cluster-${CLUSTER_MINOR}`, PROGRAMS, SETUP);

/** For `describeWhen`: whether the cluster can run here (root, its programs, containerd, runc, the CNI plugins, buildah). */
export function clusterSupport(): SandboxSupport {
  return firstUnsupported(
    () => (process.getuid?.() === 0 ? { ok: true } : { ok: false, reason: 'the single-node cluster needs root (a kubelet, containerd, a bridge, iptables)' }),
    () => {
      const b = [apiServerBuild(), clusterBuild(), corednsBuild()].find((x) => 'reason' in x) as { reason: string } | undefined;
      return b ? { ok: false, reason: b.reason } : { ok: true };
    },
    () => {
      const missing = ['containerd', 'containerd-shim-runc-v2', 'runc', 'ctr', 'conntrack'].filter((c) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', c]).status !== 0);
      return missing.length > 0 ? { ok: false, reason: `${missing.join(', ')} not found: apt-get install containerd runc conntrack` } : { ok: true };
    },
    () => (['bridge', 'host-local', 'loopback'].every((p) => fs.existsSync(path.join(CNI_BIN_DIR, p)))
      ? { ok: true } : { ok: false, reason: `the CNI plugins are not in ${CNI_BIN_DIR}: apt-get install containernetworking-plugins` }),
    buildahSupport,
  );
}

/** Where Debian's containernetworking-plugins puts the plugins. */
export const CNI_BIN_DIR = '/usr/lib/cni';

/** A container's process started or exited, as containerd published it. */
export interface TaskEvent {
  readonly event: 'start' | 'exit';
  /** As a pod's status names it: `containerd://<id>`. */
  readonly containerID: string;
  /** When containerd published it, in milliseconds since the epoch (to the microsecond). */
  readonly at: number;
}

/**
 * The task events of `ctr events` lines (`<yyyy-mm-dd hh:mm:ss.nnnnnnnnn> +0000 UTC <namespace>
 * /tasks/<event> <JSON>`): the containers' own processes, not the processes `exec` adds to them (their
 * `id` is not the container's).
 */
function taskEvents(lines: string): TaskEvent[] {
  return [...lines.matchAll(/^(\S+) (\d\d:\d\d:\d\d)(\.\d+)? \+0000 UTC k8s\.io \/tasks\/(start|exit) (\{.*\})$/gm)].flatMap(([, day, time, fraction, event, json]) => {
    const e = JSON.parse(json);
    const at = Date.parse(`${day}T${time}Z`) + Number(fraction ?? 0) * 1000;
    return e.id === undefined || e.id === e.container_id ? [{ event: event as TaskEvent['event'], containerID: `containerd://${e.container_id}`, at }] : [];
  });
}

/** The static tokens: user → [token, groups]. */
interface Identity { readonly user: string; readonly groups: string; readonly token: string }

/** A running single-node cluster. */
export class KubeCluster {
  /**
   * Starts the cluster (waiting up to 20 minutes for another test file's cluster to stop), resolving
   * once the node is Ready and the `default` ServiceAccount exists.
   */
  public static async start(): Promise<KubeCluster> {
    if (KubeCluster.running) throw new Error('this process runs a single-node cluster already: stop it first');
    await acquireClusterLock(20 * 60_000);
    const leftovers = sweepNodeHost();
    if (leftovers.length > 0) process.stderr.write(`single-node cluster: swept what an earlier run left: ${leftovers.join('; ')}\n`);
    const cluster = new KubeCluster();
    KubeCluster.running = true;
    try {
      await cluster.bringUp();
      return cluster;
    } catch (e) {
      cluster.stopNow();
      throw e;
    }
  }

  private static running = false;

  /** The admin kubeconfig (a member of `system:masters`), for kubectl and the CLI under test. */
  public readonly kubeconfig = path.join(CLUSTER_DIR, 'admin.kubeconfig');
  private readonly processes = new Map<string, ChildProcess>();
  private readonly forget: () => void;
  private stopped = false;

  private constructor() {
    // A test file that loses the cluster (a timeout in beforeAll) still gets its host back.
    this.forget = registerRunning('single-node cluster', () => this.stopNow());
  }

  /** Runs the built kubectl with the admin kubeconfig; throws with its output when it fails. */
  public kubectl(args: readonly string[], input?: string): string {
    // Its discovery cache under CLUSTER_DIR, not in ~/.kube.
    const r = spawnSync(clusterBinary('kubectl'), ['--kubeconfig', this.kubeconfig, '--cache-dir', path.join(CLUSTER_DIR, 'kubectl-cache'), ...args], { input, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    if (r.error || r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed (exit ${r.status}): ${r.error?.message ?? ''}${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /** `kubectl get -o json` of one object or list. */
  public get(args: readonly string[]): any {
    return JSON.parse(this.kubectl(['get', ...args, '-o', 'json']));
  }

  /**
   * Polls `check` (every second) until it returns a value, up to `timeoutMs`; a check that throws counts as
   * not yet. The error then says what was awaited, the last error, and what `describe` (a kubectl command) shows.
   */
  public async waitFor<T>(
    what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 300_000, describe?: readonly string[],
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      try {
        const value = await check();
        if (value !== undefined) return value;
      } catch (e) {
        last = (e as Error).message;
      }
      if (Date.now() > deadline) {
        const shown = describe ? safely(() => this.kubectl(describe)) : '';
        throw new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (last: ${last})` : ''}\n${shown}\n${this.logTails()}`);
      }
      this.assertRunning();
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** Imports a buildah image into the node's containerd under its own name (or `as`), as if pulled. */
  public loadImage(image: string, as = image): void {
    const archive = path.join(CLUSTER_DIR, 'images', `${randomBytes(6).toString('hex')}.tar`);
    fs.mkdirSync(path.dirname(archive), { recursive: true });
    try {
      run('buildah', ['push', '--quiet', image, `docker-archive:${archive}:${as}`]);
      run('ctr', ['--address', containerdSocket(), '--namespace', 'k8s.io', 'images', 'import', '--no-unpack', archive]);
    } finally {
      fs.rmSync(archive, { force: true });
    }
  }

  /**
   * Kills every process of a container (its id from a pod's status, `containerd://<id>`) with SIGKILL, as
   * the kernel's OOM killer or a crash would end it; returns how many were killed.
   */
  public killContainer(containerID: string): number {
    const id = containerID.replace(/^containerd:\/\//, '');
    const pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && safely(() => fs.readFileSync(`/proc/${p}/cgroup`, 'utf8')).includes(id));
    for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
    return pids.length;
  }

  /**
   * Records the node's container starts and exits as containerd publishes them (`ctr events`), in the
   * order they happen, until `stop` resolves to them: which container started or stopped before which,
   * finer than the seconds of a pod's status.
   */
  public recordTaskEvents(): { stop(): Promise<TaskEvent[]> } {
    const child = spawn('ctr', ['--address', containerdSocket(), 'events'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    return {
      stop: () => new Promise((resolve) => {
        child.on('exit', () => resolve(taskEvents(text)));
        child.kill();
      }),
    };
  }

  /**
   * Runs a controller (an operator's manager) on the node as the ServiceAccount `namespace/name`, which
   * it makes: authenticated by a token from the TokenRequest API, as a pod of that ServiceAccount would
   * be, through a kubeconfig `args` receives. Its output goes to logs/<controller>.log; it stops with the
   * cluster, and its unexpected exit fails the next `waitFor`.
   */
  public startController(
    controller: string, command: string, serviceAccount: { namespace: string; name: string }, args: (kubeconfig: string) => string[],
  ): void {
    const { namespace, name } = serviceAccount;
    this.kubectl(['apply', '--server-side', '-f', '-'], [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
    ].map((o) => JSON.stringify(o)).join('\n'));
    const token = this.kubectl(['create', 'token', name, '-n', namespace, '--duration', '24h']).trim();
    const admin = JSON.parse(fs.readFileSync(this.kubeconfig, 'utf8'));
    const kubeconfig = path.join(CLUSTER_DIR, `${controller}.kubeconfig`);
    fs.writeFileSync(kubeconfig, JSON.stringify({ ...admin, users: [{ name: 'user', user: { token } }] }), { mode: 0o600 });
    this.launch(controller, command, args(kubeconfig));
  }

  /** Stops everything and gives the host back as it was. */
  public async stop(): Promise<void> {
    this.stopNow();
  }

  private stopNow(): void {
    if (this.stopped) return;
    this.stopped = true;
    KubeCluster.running = false;
    for (const p of this.processes.values()) p.removeAllListeners('exit');
    if (process.env.KIC_CLUSTER_KEEP === '1') {
      // For a look inside after the test: the next start (or test/cluster/sweep.ts) sweeps it.
      process.stderr.write(`KIC_CLUSTER_KEEP=1: the single-node cluster keeps running: kubectl --kubeconfig ${this.kubeconfig} get pods -A; `
        + `its components' logs are in ${path.join(CLUSTER_DIR, 'logs')}; remove it with: npx ts-node test/cluster/sweep.ts\n`);
      this.forget();
      for (const p of this.processes.values()) p.unref();
      return;
    }
    try {
      sweepNodeHost();
    } finally {
      releaseClusterLock();
      this.forget();
    }
  }

  private async bringUp(): Promise<void> {
    const apiserver = apiServerBuild();
    if ('reason' in apiserver) throw new Error(apiserver.reason);
    fs.mkdirSync(path.join(CLUSTER_DIR, 'logs'), { recursive: true });
    saveHostState();
    // A pod's packet to a Service's ClusterIP is DNATed to a pod on the same bridge: routed, not bridged.
    setSysctl('net/ipv4/ip_forward', '1');
    makeBridge();

    const identities = {
      admin: identity('kube-inference-tests', 'system:masters'),
      controllerManager: identity('system:kube-controller-manager', ''),
      scheduler: identity('system:kube-scheduler', ''),
      kubelet: identity(`system:node:${NODE_NAME}`, 'system:nodes'),
      proxy: identity('system:kube-proxy', ''),
      coredns: identity(COREDNS_USER.user, COREDNS_USER.groups),
    };
    const pki = path.join(CLUSTER_DIR, 'pki');
    fs.mkdirSync(pki, { recursive: true });
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    fs.writeFileSync(path.join(pki, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    fs.writeFileSync(path.join(pki, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    fs.writeFileSync(path.join(pki, 'tokens.csv'), Object.values(identities).map((i) => `${i.token},${i.user},${i.user},"${i.groups}"\n`).join(''), { mode: 0o600 });

    const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
    const apiPort = await freePort();
    this.launch('etcd', apiserver.binaries.etcd, [
      '--name', 'node', '--data-dir', path.join(CLUSTER_DIR, 'etcd'),
      '--listen-client-urls', `http://127.0.0.1:${etcdClient}`, '--advertise-client-urls', `http://127.0.0.1:${etcdClient}`,
      '--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`,
      '--initial-cluster', `node=http://127.0.0.1:${etcdPeer}`, '--log-level', 'warn',
    ]);
    const certDir = path.join(pki, 'apiserver');
    this.launch('kube-apiserver', apiserver.binaries['kube-apiserver'], [
      '--etcd-servers', `http://127.0.0.1:${etcdClient}`,
      // On the node's address, which the pods reach as the `kubernetes` Service's endpoint.
      '--bind-address', NODE_IP, '--advertise-address', NODE_IP, '--secure-port', String(apiPort), '--cert-dir', certDir,
      '--service-account-issuer', 'https://kubernetes.default.svc.cluster.local',
      '--service-account-key-file', path.join(pki, 'sa.pub'), '--service-account-signing-key-file', path.join(pki, 'sa.key'),
      '--service-cluster-ip-range', SERVICE_SUBNET,
      '--token-auth-file', path.join(pki, 'tokens.csv'), '--authorization-mode', 'Node,RBAC',
      '--enable-admission-plugins', 'NodeRestriction',
      '--allow-privileged=true',
      // The node's name resolves nowhere: logs and exec go to the address the kubelet registered.
      '--kubelet-preferred-address-types', 'InternalIP',
    ]);
    const ca = path.join(certDir, 'apiserver.crt');
    await this.waitFor('kube-apiserver serving', () => (fs.existsSync(ca) ? true : undefined), 180_000);
    const kubeconfigOf = (name: string, who: Identity) => writeKubeconfig(path.join(CLUSTER_DIR, `${name}.kubeconfig`), apiPort, ca, who.token);
    writeKubeconfig(this.kubeconfig, apiPort, ca, identities.admin.token);
    await this.waitFor('kube-apiserver ready', () => (this.kubectl(['get', '--raw', '/readyz']).trim() === 'ok' ? true : undefined), 180_000);
    const dns = { address: NODE_IP, port: await freePort(), health: await freePort(), ready: await freePort() };
    // Once the API server has made kube-system.
    await this.waitFor('the cluster DNS objects applied', () => this.kubectl(['apply', '--server-side', '-f', '-'],
      clusterDnsObjects(dns).map((o) => JSON.stringify(o)).join('\n')), 60_000);
    this.launch('coredns', binaryOf(corednsBuild(), 'coredns'), ['-conf', writeFile('coredns/Corefile', corefile(dns, kubeconfigOf('coredns', identities.coredns)))]);

    this.launch('containerd', 'containerd', ['--config', writeFile('containerd/config.toml', containerdConfig())]);
    await this.waitFor('containerd serving', () => (spawnSync('ctr', ['--address', containerdSocket(), 'version'], { stdio: 'ignore' }).status === 0 ? true : undefined), 60_000);
    this.loadImage(buildPauseImage());
    writeFile('cni/net.d/10-kic-bridge.conflist', cniConfig());

    this.launch('kube-controller-manager', clusterBinary('kube-controller-manager'), [
      '--kubeconfig', kubeconfigOf('controller-manager', identities.controllerManager),
      '--authentication-kubeconfig', kubeconfigOf('controller-manager', identities.controllerManager),
      '--authorization-kubeconfig', kubeconfigOf('controller-manager', identities.controllerManager),
      '--bind-address', '127.0.0.1', '--secure-port', String(await freePort()), '--leader-elect=false',
      '--use-service-account-credentials=true', '--root-ca-file', ca,
      '--service-account-private-key-file', path.join(pki, 'sa.key'), '--service-cluster-ip-range', SERVICE_SUBNET,
      // The node's pod subnet is the CNI configuration's, not one the controller manager hands out.
      '--controllers', '*,-nodeipam',
    ]);
    this.launch('kube-scheduler', clusterBinary('kube-scheduler'), [
      '--kubeconfig', kubeconfigOf('scheduler', identities.scheduler),
      '--authentication-kubeconfig', kubeconfigOf('scheduler', identities.scheduler),
      '--authorization-kubeconfig', kubeconfigOf('scheduler', identities.scheduler),
      '--bind-address', '127.0.0.1', '--secure-port', String(await freePort()), '--leader-elect=false',
    ]);
    const [kubeletPort, kubeletHealthz] = [await freePort(), await freePort()];
    this.launch('kubelet', clusterBinary('kubelet'), [
      '--config', writeFile('kubelet/config.yaml', kubeletConfig(kubeletPort, kubeletHealthz)),
      '--kubeconfig', kubeconfigOf('kubelet', identities.kubelet),
      '--root-dir', path.join(CLUSTER_DIR, 'kubelet'), '--cert-dir', path.join(CLUSTER_DIR, 'kubelet', 'pki'),
      '--hostname-override', NODE_NAME, '--node-ip', NODE_IP,
    ]);
    this.launch('kube-proxy', clusterBinary('kube-proxy'), [
      '--config', writeFile('kube-proxy/config.yaml', kubeProxyConfig(kubeconfigOf('kube-proxy', identities.proxy), await freePort(), await freePort())),
    ]);

    await this.waitFor('CoreDNS ready', () => request(`http://127.0.0.1:${dns.ready}/ready`, undefined, 5000).then((a) => (a.status === 200 ? true : undefined)), 120_000);
    await this.waitFor(`node ${NODE_NAME} Ready`, () => {
      const node = this.get(['node', NODE_NAME]);
      return node.status?.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True' ? true : undefined;
    }, 300_000, ['describe', 'node', NODE_NAME]);
    await this.waitFor('the default ServiceAccount', () => (this.get(['serviceaccount', 'default', '-n', 'default']) ? true : undefined), 120_000);
  }

  /** Starts a program with its output in logs/<name>.log; its unexpected exit is reported by `assertRunning`. */
  private launch(name: string, command: string, args: readonly string[]): void {
    const log = fs.openSync(path.join(CLUSTER_DIR, 'logs', `${name}.log`), 'a');
    const child = spawn(command, args, { stdio: ['ignore', log, log], env: { ...process.env, PATH: `${CNI_BIN_DIR}:${process.env.PATH}` } });
    fs.closeSync(log);
    this.processes.set(name, child);
  }

  private assertRunning(): void {
    for (const [name, p] of this.processes) {
      if (p.exitCode !== null || p.signalCode !== null) {
        throw new Error(`${name} of the single-node cluster exited (${p.exitCode ?? p.signalCode}):\n${tail(name, 40)}`);
      }
    }
  }

  /** The end of every component's log, for an error message. */
  public logTails(lines = 15): string {
    return [...this.processes.keys()].map((name) => `--- ${name} (${path.join(CLUSTER_DIR, 'logs', `${name}.log`)}):\n${tail(name, lines)}`).join('\n');
  }
}

function identity(user: string, groups: string): Identity {
  return { user, groups, token: randomBytes(24).toString('hex') };
}

/** A program of a build, or why it is not there. */
function binaryOf(build: GoBuild | { reason: string }, name: string): string {
  if ('reason' in build) throw new Error(build.reason);
  return build.binaries[name];
}

const clusterBinary = (name: string) => binaryOf(clusterBuild(), name);

export function containerdSocket(): string {
  return path.join(CLUSTER_DIR, 'containerd', 'containerd.sock');
}

/** The node's bridge, made before the kubelet starts (its `--node-ip` must be an address of the host). */
function makeBridge(): void {
  run('ip', ['link', 'add', NODE_BRIDGE, 'type', 'bridge']);
  // Its MAC address pinned, so that it does not change with the pods' veths (test/sandbox/pod-network.ts).
  run('ip', ['link', 'set', NODE_BRIDGE, 'address', fs.readFileSync(`/sys/class/net/${NODE_BRIDGE}/address`, 'utf8').trim()]);
  run('ip', ['addr', 'add', `${NODE_IP}/24`, 'dev', NODE_BRIDGE]);
  run('ip', ['link', 'set', NODE_BRIDGE, 'up']);
}

/**
 * The kubelet's configuration: the cgroupfs driver on whatever cgroup version the host has, swap and
 * cgroup v1 allowed (CI machines have both), eviction and image garbage collection that never remove the
 * locally loaded images, anonymous read access for the API server (logs, exec) on the node address.
 */
function kubeletConfig(port: number, healthzPort: number): string {
  return JSON.stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: NODE_IP,
    port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort,
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
    containerRuntimeEndpoint: `unix://${containerdSocket()}`,
    cgroupDriver: 'cgroupfs',
    failSwapOn: false,
    failCgroupV1: false,
    podLogsDir: path.join(CLUSTER_DIR, 'pod-logs'),
    clusterDomain: CLUSTER_DOMAIN,
    clusterDNS: [CLUSTER_DNS_IP],
    evictionHard: { 'memory.available': '1Mi', 'nodefs.available': '1%', 'imagefs.available': '1%', 'nodefs.inodesFree': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    serializeImagePulls: false,
    // Status reported often, so that a test sees a pod's change within a second or two.
    nodeStatusUpdateFrequency: '2s',
    syncFrequency: '5s',
    fileCheckFrequency: '5s',
  });
}

/** kube-proxy in iptables mode, leaving conntrack's sysctls as they are (maxPerCore 0, timeouts 0). */
function kubeProxyConfig(kubeconfig: string, healthzPort: number, metricsPort: number): string {
  return JSON.stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig },
    mode: 'iptables',
    hostnameOverride: NODE_NAME,
    clusterCIDR: POD_SUBNET,
    healthzBindAddress: `127.0.0.1:${healthzPort}`,
    metricsBindAddress: `127.0.0.1:${metricsPort}`,
    nodePortAddresses: [`${NODE_IP}/32`],
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    iptables: { syncPeriod: '5s', minSyncPeriod: '0s' },
  });
}

function writeKubeconfig(file: string, port: number, ca: string, token: string): string {
  fs.writeFileSync(file, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kic', cluster: { 'server': `https://${NODE_IP}:${port}`, 'certificate-authority': ca } }],
    users: [{ name: 'user', user: { token } }],
    contexts: [{ name: 'kic', context: { cluster: 'kic', user: 'user' } }],
    ['current-context']: 'kic',
  }), { mode: 0o600 });
  return file;
}

/** Writes `relative` under CLUSTER_DIR; returns its path. */
function writeFile(relative: string, text: string): string {
  const file = path.join(CLUSTER_DIR, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function tail(name: string, lines: number): string {
  return safely(() => fs.readFileSync(path.join(CLUSTER_DIR, 'logs', `${name}.log`), 'utf8').split('\n').slice(-lines).join('\n'));
}

function safely(f: () => string): string {
  try {
    return f();
  } catch (e) {
    return `(${(e as Error).message})`;
  }
}
