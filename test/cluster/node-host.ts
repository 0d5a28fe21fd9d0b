/**
 * What the single-node cluster changes on this machine, and how all of it is undone: every file under
 * one directory (CLUSTER_DIR), the processes it starts (the control plane, containerd and its shims, the
 * containers in the `kubepods` cgroups), the mounts the kubelet and containerd make under that directory,
 * the node's bridge, the iptables chains kube-proxy and the kubelet write (`KUBE-*`), the `kubepods`
 * cgroups and the sysctls the kubelet, kube-proxy and the harness set. `sweepNodeHost` undoes it from
 * the state alone, so that it also cleans what a crashed test process left (the next start runs it).
 * One cluster per machine at a time: `acquireClusterLock` waits for the holder.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where everything of the cluster lives while it runs (fixed, so that a later start finds what a crash left). */
export const CLUSTER_DIR = '/var/lib/kube-inference-tests/cluster';
const LOCK = '/var/lib/kube-inference-tests/cluster.lock';
/**
 * What the host had before the cluster, restored by the sweep: `sysctls` (name → value) and `absent`,
 * the paths of RUNTIME_PATHS that did not exist.
 */
const SAVED_STATE = path.join(CLUSTER_DIR, 'host-state.json');

/** The Kubernetes minor the cluster runs (scripts/test-setup/kubernetes-programs.mjs, CLUSTER_MINORS). */
export const CLUSTER_MINOR = '1.37';

/** The node's bridge (the CNI bridge plugin's `bridge`), its address (the node IP) and the pods' subnet. */
export const NODE_BRIDGE = 'kicnode0';
export const NODE_IP = '10.215.0.1';
export const POD_SUBNET = '10.215.0.0/24';
export const SERVICE_SUBNET = '10.216.0.0/24';

/**
 * The sysctls changed while the cluster runs: ip_forward by the harness (a pod's packet to a Service is
 * routed from the bridge back to it); the rest by the kubelet (`protectKernelDefaults: false`, its
 * default: kubelet's setupKernelTunables) and kube-proxy (route_localnet for node ports on loopback).
 */
const SYSCTLS = [
  'net/ipv4/ip_forward', 'net/ipv4/conf/all/route_localnet', 'net/bridge/bridge-nf-call-iptables',
  'vm/overcommit_memory', 'vm/panic_on_oom', 'kernel/panic', 'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys', 'kernel/keys/root_maxbytes',
];

/**
 * Paths outside CLUSTER_DIR that the runtime writes and no setting moves: the shims' sockets
 * (/run/containerd/s, containerd 1.6's defaults.DefaultStateDir), libcni's result cache (/var/lib/cni),
 * the kubelet's links to the containers' logs (/var/log/containers, kubelet's ContainerLogsDir) and its
 * device plugins' socket directory (/var/lib/kubelet/device-plugins whatever --root-dir says:
 * pkg/kubelet/apis/deviceplugin's DevicePluginPath).
 */
export const RUNTIME_PATHS = ['/run/containerd', '/var/lib/cni', '/var/log/containers', '/var/lib/kubelet'];

/**
 * Takes the machine's cluster lock for this process, waiting (up to `waitMs`) while another live process
 * holds it; a lock whose holder is gone is taken over (its leftovers are then swept by the caller). When
 * this process holds it already, it keeps it.
 */
export async function acquireClusterLock(waitMs: number): Promise<void> {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(readOrEmpty(LOCK));
    if (!Number.isInteger(holder) || holder <= 0 || !alive(holder)) {
      fs.rmSync(LOCK, { force: true });
      continue;
    }
    if (holder === process.pid) return;
    if (Date.now() > deadline) throw new Error(`the single-node cluster is in use by process ${holder} (${LOCK}) for longer than ${waitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/** Gives the lock back (only when this process holds it). */
export function releaseClusterLock(): void {
  if (readOrEmpty(LOCK) === String(process.pid)) fs.rmSync(LOCK, { force: true });
}

/** Records what the host has before the cluster starts (the sysctls, which RUNTIME_PATHS exist) for the sweep. */
export function saveHostState(): void {
  const sysctls = Object.fromEntries(SYSCTLS.filter((s) => fs.existsSync(`/proc/sys/${s}`)).map((s) => [s, readOrEmpty(`/proc/sys/${s}`).trim()]));
  const absent = RUNTIME_PATHS.filter((p) => !fs.existsSync(p));
  fs.mkdirSync(CLUSTER_DIR, { recursive: true });
  fs.writeFileSync(SAVED_STATE, JSON.stringify({ sysctls, absent }));
}

/** Sets a sysctl (`net/ipv4/ip_forward`); saveHostState must have recorded it first. */
export function setSysctl(name: string, value: string): void {
  fs.writeFileSync(`/proc/sys/${name}`, value);
}

/**
 * Undoes everything the cluster changed, from what is on the machine (not from a live harness): ends
 * its processes, unmounts what is mounted under CLUSTER_DIR, removes the bridge, the `KUBE-*` iptables
 * chains and the `kubepods` cgroups, restores the sysctls and removes CLUSTER_DIR. Returns what it found
 * left (empty when the machine was clean), so that a start after a crash can say so.
 */
export function sweepNodeHost(): string[] {
  const found: string[] = [];
  const killed = endClusterProcesses();
  if (killed.length > 0) found.push(`processes ${killed.join(', ')}`);
  const mounts = mountsUnder(CLUSTER_DIR);
  for (const m of mounts) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
  if (mounts.length > 0) found.push(`${mounts.length} mount(s) under ${CLUSTER_DIR}`);
  if (fs.existsSync(`/sys/class/net/${NODE_BRIDGE}`)) {
    spawnSync('ip', ['link', 'del', NODE_BRIDGE], { stdio: 'ignore' });
    found.push(`bridge ${NODE_BRIDGE}`);
  }
  for (const tool of ['iptables', 'ip6tables']) {
    const chains = removeKubeChains(tool);
    if (chains > 0) found.push(`${chains} ${tool} chain(s) KUBE-*`);
  }
  const cgroups = removeKubepodsCgroups();
  if (cgroups > 0) found.push(`${cgroups} kubepods cgroup(s)`);
  const saved = JSON.parse(readOrEmpty(SAVED_STATE) || '{}') as { sysctls?: Record<string, string>; absent?: string[] };
  for (const [name, value] of Object.entries(saved.sysctls ?? {})) {
    try {
      setSysctl(name, value);
    } catch {
      // read-only on this kernel: it was never changed
    }
  }
  const left = mountsUnder(CLUSTER_DIR);
  if (left.length > 0) throw new Error(`cannot unmount ${left.join(', ')}: ${CLUSTER_DIR} is not removed`);
  for (const p of saved.absent ?? []) removeTree(p);
  for (const link of safeList('/var/log/containers')) {
    const file = path.join('/var/log/containers', link);
    if (safeReadlink(file).startsWith(CLUSTER_DIR + '/')) fs.rmSync(file, { force: true });
  }
  removeTree(CLUSTER_DIR);
  return found;
}

/** `rm -rf` that never goes through a mount point (should one have appeared since the unmount). */
function removeTree(dir: string): void {
  if (!fs.existsSync(dir)) return;
  const rm = spawnSync('rm', ['-rf', '--one-file-system', dir], { encoding: 'utf8' });
  if (rm.status !== 0) throw new Error(`cannot remove ${dir}: ${rm.stderr}`);
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function safeReadlink(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return '';
  }
}

/**
 * Ends the cluster's processes: those whose command line names CLUSTER_DIR (every program the harness
 * starts, containerd's shims) and those in the kubelet's `kubepods` cgroup (the containers), until none
 * is left. The kubelet (cgroupfs driver) makes `kubepods` at the top of the hierarchy mounted at
 * /sys/fs/cgroup, which a container's own cgroup is when the tests run in one: a test runner that is
 * itself a pod of another cluster (its cgroup `/kubepods/…`) is never taken for ours.
 */
function endClusterProcesses(): string[] {
  const top = cgroupMountRoot();
  const kubepods = top === undefined ? undefined : `${top === '/' ? '' : top}/kubepods`;
  const inOurKubepods = (pid: string) => {
    const cgroup = cgroupOf(pid);
    return kubepods !== undefined && cgroup !== undefined && (cgroup === kubepods || cgroup.startsWith(`${kubepods}/`));
  };
  const killed = new Set<string>();
  for (let round = 0; round < 50; round++) {
    const pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
      .filter((pid) => readOrEmpty(`/proc/${pid}/cmdline`).includes(CLUSTER_DIR) || inOurKubepods(pid));
    const living = pids.filter((pid) => !readOrEmpty(`/proc/${pid}/stat`).includes(') Z '));
    if (living.length === 0) break;
    for (const pid of living) {
      killed.add(path.basename(readOrEmpty(`/proc/${pid}/cmdline`).split('\0')[0] || pid));
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    spawnSync('sleep', ['0.1']);
  }
  return [...killed].sort();
}

/**
 * A process's cgroup path in the hierarchy the kubelet uses: cgroup v1's memory controller's, else the
 * unified (v2) one; undefined when the process is gone.
 */
function cgroupOf(pid: string): string | undefined {
  const lines = readOrEmpty(`/proc/${pid}/cgroup`).split('\n');
  const line = lines.find((l) => /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:/.test(l)) ?? lines.find((l) => l.startsWith('0::'));
  return line?.split(':').slice(2).join(':');
}

/** Which part of the hierarchy of `cgroupOf` is mounted under /sys/fs/cgroup (a container sees its own). */
function cgroupMountRoot(): string | undefined {
  const mounts = readOrEmpty('/proc/self/mountinfo').split('\n').map((line) => {
    const [before, after = ''] = line.split(' - ');
    const [fstype, , superOptions = ''] = after.split(' ');
    return { root: before.split(' ')[3], fstype, superOptions: superOptions.split(',') };
  });
  const mount = mounts.find((m) => m.fstype === 'cgroup' && m.superOptions.includes('memory')) ?? mounts.find((m) => m.fstype === 'cgroup2');
  return mount?.root;
}

/** Mount points at or below `dir`, deepest first. */
function mountsUnder(dir: string): string[] {
  return readOrEmpty('/proc/self/mountinfo').split('\n')
    .map((line) => line.split(' ')[4])
    .filter((m): m is string => m !== undefined && (m === dir || m.startsWith(dir + '/')))
    .map((m) => m.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .sort((a, b) => b.length - a.length);
}

/**
 * Removes every `KUBE-*` chain of every table, and every rule that jumps to one, in one
 * `iptables-restore` per table of the table's saved rules without them (rules keep their exact text,
 * quoted comments included). Returns the number of chains removed.
 */
function removeKubeChains(tool: string): number {
  let removed = 0;
  for (const table of ['filter', 'nat', 'mangle']) {
    const saved = spawnSync(`${tool}-save`, ['-t', table], { encoding: 'utf8' });
    if (saved.status !== 0) continue;
    const lines = saved.stdout.split('\n');
    const ours = (line: string) => /^:KUBE-/.test(line) || /^-A KUBE-/.test(line) || / -j KUBE-/.test(line);
    const count = lines.filter((l) => /^:KUBE-/.test(l)).length;
    if (!lines.some(ours)) continue;
    const restore = spawnSync(`${tool}-restore`, ['-w'], { input: lines.filter((l) => !ours(l)).join('\n'), encoding: 'utf8' });
    if (restore.status !== 0) throw new Error(`${tool}-restore of table ${table} without KUBE-* failed: ${restore.stderr}`);
    removed += count;
  }
  return removed;
}

/** Removes the `kubepods` cgroup trees of every hierarchy (v1 controllers, or v2), deepest first. */
function removeKubepodsCgroups(): number {
  const roots = ['/sys/fs/cgroup/kubepods', ...fs.readdirSync('/sys/fs/cgroup').map((c) => path.join('/sys/fs/cgroup', c, 'kubepods'))];
  let removed = 0;
  const remove = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) remove(path.join(dir, entry.name));
    }
    fs.rmdirSync(dir);
    removed++;
  };
  for (const root of new Set(roots)) {
    if (fs.existsSync(root) && fs.statSync(root).isDirectory()) remove(root);
  }
  return removed;
}

/** Runs a host command (no shell); throws with its standard error when it fails. */
export function run(command: string, args: readonly string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${r.status}): ${r.error?.message ?? ''}${r.stderr}`);
  return r.stdout;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
