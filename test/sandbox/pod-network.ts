/**
 * A pod network for the sandboxed pods, made of Linux network namespaces the way a CNI bridge plugin
 * and kube-proxy make one on a node:
 *
 * - one bridge on the host, `kicbr<N>`, holding `10.213.<N>.1/24` (the node's address on it);
 * - per pod a network namespace `kic-<random>` with loopback and `eth0`, one end of a veth pair whose other end is
 *   on the bridge, holding the pod's IP `10.213.<N>.<2..254>` and a default route via the node. Every
 *   container of the pod joins that namespace, so they share `localhost` as a pod's containers do;
 * - per Service a virtual IP `10.214.<N>.<k>` (the ClusterIP) that only DNAT rules know, written in
 *   each pod's namespace as kube-proxy writes them in the node's (`-t nat OUTPUT`, destination
 *   ClusterIP:port → pod IP:targetPort), so a Service's address stays the same when its pod changes;
 * - per pod an `/etc/hosts` with the pod's name and each Service's names (`<name>`,
 *   `<name>.<namespace>.svc.cluster.local`), standing for the cluster DNS that resolves them.
 *
 * The test process reaches every pod at its IP, as the kubelet's probes reach it. Nothing is routed
 * beyond the bridge (no NAT to the outside), so pods reach only each other and the node.
 * It needs root (or CAP_NET_ADMIN), `ip` from iproute2 and `iptables`: `podNetworkSupport()` says
 * whether they are there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SandboxSupport } from './host';

/** A pod's place on the network. */
export interface PodAddress {
  /** The pod's name (its hostname). */
  readonly podName: string;
  /** The pod's IP. */
  readonly ip: string;
  /** The network namespace's path, for `nsenter --net=<path>`. */
  readonly netns: string;
  /** The pod's `/etc/hosts`, bound read-only into each of its containers. */
  readonly hostsFile: string;
}

/** A Service on the network: its ClusterIP and where its ports lead. */
export interface ServiceAddress {
  readonly name: string;
  readonly namespace: string;
  readonly clusterIP: string;
  readonly ports: ReadonlyArray<{ readonly port: number; readonly targetIP: string; readonly targetPort: number }>;
}

const FIRST_SUBNET = 0;
const LAST_SUBNET = 249;

export class PodNetwork {
  /**
   * Makes a network with a bridge of its own. The subnet is the first free one: creating the bridge
   * is what claims it, so test processes running at once never share one.
   */
  public static create(): PodNetwork {
    for (let n = FIRST_SUBNET; n <= LAST_SUBNET; n++) {
      const bridge = `kicbr${n}`;
      if (spawnSync('ip', ['link', 'add', bridge, 'type', 'bridge'], { stdio: 'ignore' }).status !== 0) continue;
      // Its MAC address set, so that it stays: a bridge with a random one takes the lowest of its ports',
      // and a pod leaving with that port changed the node's MAC under the pods' ARP caches, so answers to
      // the node went nowhere (seen: a test's request to the server never answered, after another pod
      // was stopped). Bridges of CNI plugins and Docker pin theirs the same way.
      ip('link', 'set', bridge, 'address', fs.readFileSync(`/sys/class/net/${bridge}/address`, 'utf8').trim());
      ip('addr', 'add', `10.213.${n}.1/24`, 'dev', bridge);
      ip('link', 'set', bridge, 'up');
      return new PodNetwork(n, bridge);
    }
    throw new Error(`no free pod network: bridges kicbr${FIRST_SUBNET}..kicbr${LAST_SUBNET} all exist`);
  }

  private readonly pods = new Map<string, PodAddress>();
  private readonly services: ServiceAddress[] = [];
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-net-'));
  private nextHost = 2;

  private constructor(private readonly subnet: number, private readonly bridge: string) {}

  /** The node's address on the bridge. */
  public get nodeIP(): string {
    return `10.213.${this.subnet}.1`;
  }

  /** Gives a pod its network namespace and IP; the namespace already holds every Service's rules. */
  public attach(podName: string): PodAddress {
    const host = this.nextHost++;
    if (host > 254) throw new Error('the pod network is full (253 pods)');
    // Unique names, not derived from the subnet: a namespace outlives its name while a process of a
    // pod already disposed is still ending, and its veth with it.
    const id = randomBytes(4).toString('hex');
    const ns = `kic-${id}`;
    const veth = `kicv${id}`;
    ip('netns', 'add', ns);
    ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
    ip('link', 'set', veth, 'master', this.bridge, 'up');
    const podIP = `10.213.${this.subnet}.${host}`;
    ip('-n', ns, 'addr', 'add', `${podIP}/24`, 'dev', 'eth0');
    ip('-n', ns, 'link', 'set', 'eth0', 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'route', 'add', 'default', 'via', this.nodeIP);
    const address: PodAddress = { podName, ip: podIP, netns: `/run/netns/${ns}`, hostsFile: path.join(this.dir, `${ns}.hosts`) };
    this.pods.set(ns, address);
    this.writeHosts(address);
    for (const s of this.services) this.addRules(address, s);
    return address;
  }

  /** Removes a pod's namespace (its veth goes with it). */
  public detach(address: PodAddress): void {
    const ns = path.basename(address.netns);
    if (!this.pods.delete(ns)) return;
    spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  }

  /**
   * Gives a Service (the manifest as rendered) a ClusterIP whose ports lead to the pod at `targetIP`, in every
   * pod's namespace, and its names in every pod's `/etc/hosts`. `targetPort` may name a port of the
   * target pod's containers (`containerPorts`), as a Service's may.
   */
  public addService(service: any, targetIP: string, containerPorts: Readonly<Record<string, number>> = {}): ServiceAddress {
    const clusterIP = `10.214.${this.subnet}.${this.services.length + 1}`;
    const ports = (service.spec?.ports ?? []).map((p: any) => {
      const targetPort = p.targetPort === undefined ? p.port
        : typeof p.targetPort === 'number' ? p.targetPort
          : containerPorts[p.targetPort];
      if (targetPort === undefined) {
        throw new Error(`Service ${service.metadata?.name}: targetPort '${p.targetPort}' names no port of the target pod (${Object.keys(containerPorts).join(', ')})`);
      }
      return { port: Number(p.port), targetIP, targetPort: Number(targetPort) };
    });
    const address: ServiceAddress = { name: service.metadata.name, namespace: service.metadata.namespace ?? 'default', clusterIP, ports };
    this.services.push(address);
    for (const pod of this.pods.values()) {
      this.addRules(pod, address);
      this.writeHosts(pod);
    }
    return address;
  }

  /** Removes every pod namespace, the bridge and the hosts files. */
  public dispose(): void {
    for (const pod of [...this.pods.values()]) this.detach(pod);
    spawnSync('ip', ['link', 'del', this.bridge], { stdio: 'ignore' });
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private addRules(pod: PodAddress, s: ServiceAddress): void {
    for (const p of s.ports) {
      execFileSync('nsenter', [`--net=${pod.netns}`, '--', 'iptables', '-w', '-t', 'nat', '-A', 'OUTPUT',
        '-d', `${s.clusterIP}/32`, '-p', 'tcp', '--dport', String(p.port),
        '-j', 'DNAT', '--to-destination', `${p.targetIP}:${p.targetPort}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    }
  }

  /** Written in place: the file is bound into running containers, which must see new Services. */
  private writeHosts(pod: PodAddress): void {
    const lines = ['127.0.0.1\tlocalhost', '::1\tlocalhost', `${pod.ip}\t${pod.podName}`];
    for (const s of this.services) {
      lines.push(`${s.clusterIP}\t${s.name} ${s.name}.${s.namespace} ${s.name}.${s.namespace}.svc ${s.name}.${s.namespace}.svc.cluster.local`);
    }
    fs.writeFileSync(pod.hostsFile, lines.join('\n') + '\n');
  }
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

let support: SandboxSupport | undefined;

/** Whether pod networks can be made here (root, iproute2, iptables), and why not when they cannot. */
export function podNetworkSupport(): SandboxSupport {
  if (!support) {
    try {
      const network = PodNetwork.create();
      try {
        const a = network.attach('probe');
        network.addService({ metadata: { name: 'probe' }, spec: { ports: [{ port: 80 }] } }, a.ip);
      } finally {
        network.dispose();
      }
      support = { ok: true };
    } catch (e) {
      const why = (e as { stderr?: Buffer }).stderr?.toString().trim() || (e as Error).message;
      support = { ok: false, reason: `cannot make a pod network (network namespaces, veth, a bridge and iptables DNAT; needs root): ${why}. Install iproute2 and iptables and run as root` };
    }
  }
  return support;
}
