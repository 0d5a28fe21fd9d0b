/**
 * The node's runtime configuration: containerd's (CRI, runc, CNI, all state under CLUSTER_DIR), the CNI
 * network (the node's bridge, host-local addresses) and the sandbox ("pause") image, built from
 * Kubernetes' own build/pause/linux/pause.c in the k8s.io/kubernetes module the cluster is built from, as
 * its build/pause/Makefile compiles it (`gcc -Os -Wall -Werror -static`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLUSTER_DIR, CLUSTER_MINOR, NODE_BRIDGE, NODE_IP, POD_SUBNET, run } from './node-host';

/** The name the pause image has in buildah and in the node's containerd. */
let pauseImage: string | undefined;

/**
 * containerd 1.6's configuration (version 2): its root, state, socket, runc's state and the CNI
 * configuration all under CLUSTER_DIR. `restrict_oom_score_adj`: root on these machines may lack
 * CAP_SYS_RESOURCE, and lowering a sandbox's oom_score_adj then fails; `netns_mounts_under_state_dir`
 * keeps the pods' network namespaces under CLUSTER_DIR too, where the sweep unmounts them.
 */
export function containerdConfig(): string {
  const dir = path.join(CLUSTER_DIR, 'containerd');
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    'version = 2',
    `root = ${toml(path.join(dir, 'root'))}`,
    `state = ${toml(path.join(dir, 'state'))}`,
    'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]',
    '[grpc]',
    `  address = ${toml(path.join(dir, 'containerd.sock'))}`,
    '[ttrpc]',
    `  address = ${toml(path.join(dir, 'containerd.sock.ttrpc'))}`,
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${toml(path.join(dir, 'opt'))}`,
    `[${cri}]`,
    `  sandbox_image = ${toml(sandboxImageName())}`,
    '  restrict_oom_score_adj = true',
    '  netns_mounts_under_state_dir = true',
    '  stream_server_address = "127.0.0.1"',
    `[${cri}.containerd]`,
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    '  SystemdCgroup = false',
    `  Root = ${toml(path.join(dir, 'runc'))}`,
    `[${cri}.cni]`,
    '  bin_dir = "/usr/lib/cni"',
    `  conf_dir = ${toml(path.join(CLUSTER_DIR, 'cni', 'net.d'))}`,
    '',
  ].join('\n');
}

/** The pod network: the node's bridge as the pods' gateway, addresses from POD_SUBNET kept under CLUSTER_DIR. */
export function cniConfig(): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'kic',
    plugins: [{
      type: 'bridge',
      bridge: NODE_BRIDGE,
      isGateway: true,
      ipMasq: false,
      // A pod that reaches itself through its own Service.
      hairpinMode: true,
      ipam: {
        type: 'host-local',
        ranges: [[{ subnet: POD_SUBNET, gateway: NODE_IP }]],
        routes: [{ dst: '0.0.0.0/0' }],
        dataDir: path.join(CLUSTER_DIR, 'cni', 'ipam'),
      },
    }],
  }, null, 2);
}

/** The sandbox image's name, from the pause.c it is built of. */
function sandboxImageName(): string {
  if (!pauseImage) {
    const source = fs.readFileSync(pauseSource());
    pauseImage = `localhost/kube-inference-tests/pause:${createHash('sha256').update(source).digest('hex').slice(0, 12)}`;
  }
  return pauseImage;
}

/** Builds the pause image into buildah's storage when it is not there yet; returns its name. */
export function buildPauseImage(): string {
  const image = sandboxImageName();
  if (spawnSync('buildah', ['inspect', '--type', 'image', image], { stdio: 'ignore' }).status === 0) return image;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-pause-'));
  let container: string | undefined;
  try {
    run('gcc', ['-Os', '-Wall', '-Werror', '-static', '-DVERSION=kic', '-o', path.join(work, 'pause'), pauseSource()]);
    container = run('buildah', ['from', '--quiet', 'scratch']).trim();
    run('buildah', ['copy', '--quiet', '--chmod', '0755', container, path.join(work, 'pause'), '/pause']);
    // As the upstream image: build/pause/Dockerfile_windows aside, `ENTRYPOINT ["/pause"]`, user 65535.
    run('buildah', ['config', '--entrypoint', '["/pause"]', '--user', '65535:65535', container]);
    run('buildah', ['commit', '--quiet', container, image]);
  } finally {
    if (container) spawnSync('buildah', ['rm', container], { stdio: 'ignore' });
    fs.rmSync(work, { recursive: true, force: true });
  }
  return image;
}

/** build/pause/linux/pause.c of the k8s.io/kubernetes module in Go's module cache (the cluster's build downloaded it). */
function pauseSource(): string {
  const go = process.env.KIC_GO ?? 'go';
  const modcache = spawnSync(go, ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout?.trim();
  const goMod = fs.readFileSync(path.join(__dirname, '..', 'kubernetes', CLUSTER_MINOR, 'go.mod'), 'utf8');
  const version = /^require k8s\.io\/kubernetes (v\S+)/m.exec(goMod)?.[1];
  const file = path.join(modcache ?? '', `k8s.io/kubernetes@${version}`, 'build', 'pause', 'linux', 'pause.c');
  if (!modcache || !version || !fs.existsSync(file)) throw new Error(`Kubernetes' pause.c is not at ${file}: run node scripts/test-setup/kubernetes.mjs`);
  return file;
}

/** A TOML basic string. */
function toml(text: string): string {
  return JSON.stringify(text);
}
