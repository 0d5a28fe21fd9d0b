/**
 * A sandboxed pod runner for tests: executes the pod of a rendered Deployment the way the kubelet
 * would, with bubblewrap instead of a container runtime.
 *
 * - Init containers run one after another, each only if the previous one exited 0; then the (first)
 *   main container's start command runs. Each container gets its own sandbox: new user, PID, IPC and
 *   UTS namespaces (hostname = pod name), a cleared environment, all capabilities dropped when its
 *   securityContext drops them, and its runAsUser/runAsGroup (pod or container level).
 * - A container's image is a directory tree. `overlay` images are laid over a read-only view of the
 *   host's root (`/usr`, `/etc`, the host Python's prefix, ...): the host provides `/bin/sh`, `python3`
 *   and `pip`, the tree provides the image's own files. `rootfs` images are a complete root file
 *   system (e.g. an image built by buildah) and see nothing of the host. Either way the root is a
 *   tmpfs (the container's writable layer) and image files are bound read-only.
 * - Every volume is a host directory (emptyDir/PVC: empty; configMap/secret: the keys written with the
 *   kubelet's `..data` symlink layout) bound at each container's `mountPath`, read-only when the mount
 *   says `readOnly` (configMap and secret volumes are always read-only, as in Kubernetes), honouring
 *   `subPath`.
 * - Init containers run with the network unshared (only loopback): an install that tried to download
 *   anything would fail, which is what proves seed 001 NFR-001. With a pod network (`network`) the main
 *   containers and native sidecars share the pod's network namespace and IP; without one they share
 *   the host's network (a pod has a network); pass `mainNetwork: 'none'` to cut it too.
 * - Native sidecars (init containers with `restartPolicy: Always`) start among the init containers,
 *   the next waiting for their startup probe, and run on beside the main containers, started again
 *   when they end (restarting-container.ts).
 * - `$(VAR)` references in env values, command and args are expanded as the kubelet does.
 *
 * The result reads like a pod status: each container's state, reason, exit code, logs, and the
 * termination message `FallbackToLogsOnError` would give.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { hostPython } from './host';
import { registerRunning } from './left-running';
import type { PodAddress, PodNetwork } from './pod-network';
import { RestartingContainer } from './restarting-container';

/** A container image as a directory tree. */
export interface ContainerImage {
  /** The image's files, laid out as in the image (`<dir>/lls-provider/...`, `<dir>/opt/app-root/...`). */
  readonly dir: string;
  /**
   * `overlay`: the tree is laid over a read-only view of the host's root (host `/usr`, `/etc`, Python).
   * `rootfs`: the tree is the whole root file system.
   * @default 'overlay'
   */
  readonly mode?: 'overlay' | 'rootfs';
  /** The image config's environment (`ENV`), e.g. `PATH`; the container's `env` overrides it. */
  readonly env?: Readonly<Record<string, string>>;
  /** The image's `ENTRYPOINT`, used when the container has no `command`. */
  readonly entrypoint?: readonly string[];
  /** The image's `CMD`, used when the container has neither `command` nor `args`. */
  readonly cmd?: readonly string[];
  /** The image's working directory. @default '/' */
  readonly workingDir?: string;
  /** Host files or directories bound read-only into the image (for images assembled from the host). */
  readonly binds?: ReadonlyArray<{ readonly source: string; readonly target: string }>;
}

/** How to run a pod. */
export interface RunPodOptions {
  /** Image reference → image tree. A container whose image is missing fails with `ErrImagePull`. */
  readonly images: Readonly<Record<string, ContainerImage>>;
  /** ConfigMap manifests the pod's configMap volumes refer to (e.g. every manifest the chart rendered). */
  readonly manifests?: readonly any[];
  /** Secret name → data (plain text), for secret volumes and `secretKeyRef`. */
  readonly secrets?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Per-container changes applied before running (e.g. a command override), by container name. */
  readonly overrides?: Readonly<Record<string, { readonly command?: string[]; readonly args?: string[]; readonly env?: Record<string, string> }>>;
  /** Directory for the pod's volumes. @default - a new temporary directory, removed by `dispose()` */
  readonly workDir?: string;
  /** Wall-clock limit of each container; a container over it is killed (`DeadlineExceeded`). @default 120000 */
  readonly timeoutMs?: number;
  /** Network of the main container when there is no `network`. @default 'host' */
  readonly mainNetwork?: 'host' | 'none';
  /**
   * A pod network: the pod gets its own network namespace and IP on it, which its main containers and
   * native sidecars share (one `localhost`, as a pod's containers do); probes and `server` use the IP.
   * @default - no pod network: the main container shares the host's
   */
  readonly network?: PodNetwork;
  /** The pause before a sidecar (or a main container besides the server) that ended is started again. @default 200 */
  readonly restartDelayMs?: number;
  /** Network of init containers. Only a runner self-test should change it. @default 'none' */
  readonly initNetwork?: 'host' | 'none';
  /** Run the main container after the init containers succeed. @default true */
  readonly runMain?: boolean;
  /** Host paths visible (read-only) in overlay images, besides the host Python's prefix. */
  readonly hostRootEntries?: readonly string[];
  /**
   * Keep the main container running as a server: `runPod` returns once its startup probe (or, without
   * one, its readiness probe) succeeds, and `PodRun.server` talks to it; `PodRun.stop()` ends it.
   * Without this the main container runs to completion like a job.
   */
  readonly serve?: ServeOptions;
}

/** How a serving main container is started and judged ready. */
export interface ServeOptions {
  /** How long the probe may keep failing before the pod counts as failed. @default 120000 */
  readonly readyTimeoutMs?: number;
  /** How often the probe is tried (the runner probes faster than `periodSeconds`, to keep tests short). @default 100 */
  readonly probeIntervalMs?: number;
}

/** Why a container is in its state, as `kubectl get pod` shows it. */
export type ContainerReason =
  | 'Completed' | 'Error' | 'DeadlineExceeded' | 'PodInitializing' | 'ErrImagePull'
  | 'CreateContainerConfigError' | 'CreateContainerError'
  /** A serving main container that answered its probe (`serve`). */
  | 'Started'
  /** A serving main container that never answered its probe before the time was up. */
  | 'Unready';

/** One container's status after the run. */
export interface ContainerRun {
  readonly name: string;
  readonly kind: 'init' | 'main';
  readonly image: string;
  /** The process started (after `$(VAR)` expansion), empty when it never started. */
  readonly argv: readonly string[];
  /** `terminated` when it ran; `waiting` when it never started; `running` while it serves (`serve`). */
  readonly state: 'terminated' | 'waiting' | 'running';
  readonly reason: ContainerReason;
  readonly exitCode?: number;
  /** Standard output and error, interleaved in arrival order (what `kubectl logs` shows). */
  readonly logs: string;
  readonly stdout: string;
  readonly stderr: string;
  /** The termination message: with `FallbackToLogsOnError`, the log's last 80 lines / 2048 bytes on failure. */
  readonly message?: string;
  /** Milliseconds since the pod started when the process was spawned / ended. */
  readonly startedAtMs?: number;
  readonly finishedAtMs?: number;
  readonly durationMs?: number;
  /** Milliseconds since the pod started when a serving container first answered its probe. */
  readonly readyAtMs?: number;
  /** Why a serving container's probe never succeeded (what `kubectl describe pod` shows as an event). */
  readonly probe?: string;
  /** How often a container the runner keeps running (a sidecar) was started again. */
  readonly restartCount?: number;
  /** How the previous process of a restarted container ended. */
  readonly lastState?: ContainerRun;
}

/** The pod after the run. */
export class PodRun {
  private inits: readonly ContainerRun[];
  private mains: readonly ContainerRun[];

  public constructor(
    /** `Succeeded` when every container exited 0, `Running` while a server serves (`serve`), else `Failed`. */
    public readonly phase: 'Succeeded' | 'Running' | 'Failed',
    /** `kubectl get pod` style status: `Completed`, `Init:Error`, `Init:ErrImagePull`, `Error`, ... */
    public readonly status: string,
    initContainers: readonly ContainerRun[],
    containers: readonly ContainerRun[],
    /** Volume name → host directory holding its content (inspect files the containers wrote). */
    public readonly volumes: Readonly<Record<string, string>>,
    private readonly ownedWorkDir: string | undefined,
    private readonly context?: PodContext,
    /** The serving main container, while it runs (`serve` option). */
    public readonly server?: RunningServer,
    /** Containers kept running beside the server: native sidecars and the other main containers. */
    private readonly restarting: readonly RestartingContainer[] = [],
  ) {
    this.inits = initContainers;
    this.mains = containers;
  }

  /** The init containers' statuses; a running native sidecar's as it is now. */
  public get initContainers(): readonly ContainerRun[] {
    return this.inits.map((c) => this.live(c));
  }

  /** The main containers' statuses; a running one's as it is now. */
  public get containers(): readonly ContainerRun[] {
    return this.mains.map((c) => this.live(c));
  }

  /** The pod's IP on its pod network (`network` option). */
  public get ip(): string | undefined {
    return this.context?.address?.ip;
  }

  /**
   * Stops the serving main container (SIGTERM, then SIGKILL after `graceMs`), then the containers kept
   * beside it, sidecars last, as the kubelet does; records how each ended. Returns the server's end;
   * does nothing when nothing is serving.
   */
  public async stop(graceMs = 5_000): Promise<ContainerRun | undefined> {
    if (!this.server) return undefined;
    const ended = await this.server.stop(graceMs);
    const others = [];
    for (const r of [...this.restarting].reverse()) others.push(await r.stop(graceMs));
    const endedByName = new Map([ended, ...others].map((c) => [c.name, c]));
    this.inits = this.inits.map((c) => endedByName.get(c.name) ?? c);
    this.mains = this.mains.map((c) => endedByName.get(c.name) ?? c);
    this.releaseAddress();
    return ended;
  }

  /**
   * Kills a container the runner keeps running (a sidecar) as a crash would: SIGKILL. Resolves with
   * how it ended; the runner starts it again after `restartDelayMs`.
   */
  public kill(containerName: string): Promise<ContainerRun> {
    return this.keptRunning(containerName).kill();
  }

  /**
   * Resolves once a container that `kill` ended is running again and answers its startup (else
   * readiness) probe, as the kubelet would see it started.
   */
  public async restarted(containerName: string, readyTimeoutMs = 60_000): Promise<ContainerRun> {
    const kept = this.keptRunning(containerName);
    const next = await kept.restarted();
    const ready = await waitUntilReady(this.containerSpec(containerName), next, { readyTimeoutMs }, this.context!.address);
    if (!ready.ok) throw new Error(`${containerName} was started again and never answered its probe: ${ready.reason}`);
    return kept.status();
  }

  /**
   * Runs a command in a new sandbox made like one of the pod's containers (its image, env, mounts and
   * user) against the pod's volumes as the run left them: `kubectl exec` after the fact.
   */
  public async exec(containerName: string, argv: string[], env: Record<string, string> = {}): Promise<ContainerRun> {
    if (!this.context) {
      throw new Error('exec: the pod never got its volumes');
    }
    const { options } = this.context;
    const c = this.containerSpec(containerName);
    const execOptions: RunPodOptions = { ...options, mainNetwork: 'none', overrides: { [`${c.name}-exec`]: { env } } };
    const execSpec = applyOverride({ ...c, name: `${c.name}-exec`, command: argv, args: [] }, execOptions);
    return runContainer(execSpec, 'main', { ...this.context, options: execOptions, address: undefined });
  }

  /** A container by name (init or main). */
  public container(name: string): ContainerRun {
    const c = [...this.initContainers, ...this.containers].find((x) => x.name === name);
    if (!c) {
      throw new Error(`no container '${name}' in the pod: ${[...this.initContainers, ...this.containers].map((x) => x.name).join(', ')}`);
    }
    return c;
  }

  /** The first container that did not complete, if any. */
  public get failed(): ContainerRun | undefined {
    return [...this.initContainers, ...this.containers].find((c) => c.state === 'terminated' && c.reason !== 'Completed')
      ?? [...this.initContainers, ...this.containers].find((c) => c.state === 'waiting' && c.reason !== 'PodInitializing');
  }

  /** Reads a file from a volume: `volumeFile('external-providers', 'installed-packages.txt')`. */
  public volumeFile(volume: string, file: string): string {
    const dir = this.volumes[volume];
    if (dir === undefined) {
      throw new Error(`no volume '${volume}' in the pod: ${Object.keys(this.volumes).join(', ')}`);
    }
    return fs.readFileSync(path.join(dir, file), 'utf8');
  }

  /** A readable account of the run, for test failure messages. */
  public describe(): string {
    const lines = [`Pod ${this.phase} (${this.status})`];
    for (const c of [...this.initContainers, ...this.containers]) {
      const exit = c.exitCode === undefined ? '' : ` exit ${c.exitCode}`;
      const time = c.durationMs === undefined ? '' : ` in ${Math.round(c.durationMs)} ms`;
      lines.push(`- ${c.kind} ${c.name} [${c.image}]: ${c.state} ${c.reason}${exit}${time}`);
      if (c.logs.trim()) {
        lines.push(...c.logs.trimEnd().split('\n').map((l) => `    | ${l}`));
      }
    }
    return lines.join('\n');
  }

  /** Removes the pod's temporary directory (when the runner created it); kills what still runs. */
  public dispose(): void {
    this.server?.kill();
    this.restarting.forEach((r) => void r.stop(0));
    this.releaseAddress();
    if (this.ownedWorkDir) {
      fs.rmSync(this.ownedWorkDir, { recursive: true, force: true });
    }
  }

  private live(c: ContainerRun): ContainerRun {
    const kept = this.restarting.find((r) => r.name === c.name);
    // readyAtMs stays the first start's.
    return kept && c.state === 'running' ? { ...c, ...kept.status() } : c;
  }

  /** The spec of a container by name (init or main). */
  private containerSpec(containerName: string): any {
    const spec = this.context?.spec ?? {};
    const c = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].find((x: any) => x.name === containerName);
    if (!c) throw new Error(`no container '${containerName}' in the pod`);
    return c;
  }

  private keptRunning(containerName: string): RestartingContainer {
    const kept = this.restarting.find((r) => r.name === containerName);
    if (!kept) throw new Error(`'${containerName}' is not a container the runner keeps running (a native sidecar, or a main container besides the server)`);
    return kept;
  }

  private releaseAddress(): void {
    if (this.context?.address) this.context.options.network?.detach(this.context.address);
  }
}

/** What every container of a pod is started with. */
interface PodContext {
  readonly spec: any;
  readonly podName: string;
  readonly volumes: Record<string, string>;
  readonly workDir: string;
  readonly options: RunPodOptions;
  readonly t0: number;
  /** The pod's place on its pod network (`network` option). */
  readonly address?: PodAddress;
}

/** Host root entries an overlay image sees (read-only) besides the host Python's prefix. */
export const DEFAULT_HOST_ROOT_ENTRIES: readonly string[] = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc'];

/** Paths the runtime provides itself; image content there is hidden. */
const RUNTIME_PATHS = ['/proc', '/dev', '/tmp', '/sys', '/run'];

/**
 * Runs the pod of a Deployment (or Pod, or pod template) in bubblewrap sandboxes.
 *
 * @param workload a rendered `Deployment` manifest (`spec.template.spec` is used), a `Pod`, or a pod spec
 */
export async function runPod(workload: any, options: RunPodOptions): Promise<PodRun> {
  const spec = podSpecOf(workload);
  const podName = String(workload?.metadata?.name ?? 'pod').slice(0, 63);
  const ownedWorkDir = options.workDir ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'kic-pod-'));
  const workDir = options.workDir ?? ownedWorkDir!;
  const t0 = performance.now();

  const initSpecs: any[] = (spec.initContainers ?? []).map((c: any) => applyOverride(c, options));
  const mainSpecs: any[] = (spec.containers ?? []).map((c: any) => applyOverride(c, options));
  const waiting = (c: any, kind: 'init' | 'main', reason: ContainerReason, message?: string): ContainerRun => ({
    name: c.name, kind, image: c.image, argv: [], state: 'waiting', reason, logs: '', stdout: '', stderr: '', message,
  });

  let volumes: Record<string, string>;
  try {
    volumes = prepareVolumes(spec.volumes ?? [], path.join(workDir, 'volumes'), options);
  } catch (e) {
    // The kubelet cannot mount the volumes: no container starts (FailedMount).
    const message = (e as Error).message;
    return new PodRun('Failed', 'ContainerCreating (FailedMount)',
      initSpecs.map((c) => waiting(c, 'init', 'CreateContainerConfigError', message)),
      mainSpecs.map((c) => waiting(c, 'main', 'CreateContainerConfigError', message)), {}, ownedWorkDir);
  }

  const address = options.network?.attach(podName);
  const ctx: PodContext = { spec, podName, volumes, workDir, options, t0, address };
  const restartDelayMs = options.restartDelayMs ?? 200;
  const restarting: RestartingContainer[] = [];
  const keepRunning = (c: any, kind: 'init' | 'main'): RestartingContainer | ContainerRun => {
    const kept = RestartingContainer.start(() => startContainer(c, kind, ctx), restartDelayMs);
    if (!('state' in kept)) restarting.push(kept);
    return kept;
  };

  const inits: ContainerRun[] = [];
  let failedInit: ContainerRun | undefined;
  for (const c of initSpecs) {
    if (failedInit) {
      inits.push(waiting(c, 'init', 'PodInitializing'));
      continue;
    }
    const run = c.restartPolicy === 'Always' ? await startSidecar(c, keepRunning(c, 'init'), ctx) : await runContainer(c, 'init', ctx);
    inits.push(run);
    if (!['Completed', 'Started'].includes(run.reason)) {
      failedInit = run;
    }
  }

  const mains: ContainerRun[] = [];
  let server: RunningServer | undefined;
  for (const [i, c] of mainSpecs.entries()) {
    if (failedInit || options.runMain === false || (i > 0 && !options.serve)) {
      // Without `serve` the pod runs like a job: the first container only.
      mains.push(waiting(c, 'main', 'PodInitializing'));
      continue;
    }
    if (i > 0) {
      // Beside a serving first container, the others run and are started again when they end.
      const kept = keepRunning(c, 'main');
      mains.push('state' in kept ? kept : kept.status());
      continue;
    }
    if (!options.serve) {
      mains.push(await runContainer(c, 'main', ctx));
      continue;
    }
    const started = startContainer(c, 'main', ctx);
    if ('state' in started) {
      mains.push(started);
      continue;
    }
    const ready = await waitUntilReady(c, started, options.serve, address);
    if (ready.ok) {
      server = new RunningServer(c.name, ready.url, started);
      mains.push({ ...started.base, argv: started.argv, state: 'running', reason: 'Started', logs: '', stdout: '', stderr: '', startedAtMs: started.startedAtMs, readyAtMs: performance.now() - t0 });
    } else {
      // Never ready: the kubelet would restart it; the runner ends it and reports why.
      const ended = await started.stop(0);
      mains.push({ ...ended, reason: ready.exited && ended.reason !== 'Completed' ? ended.reason : 'Unready', probe: ready.reason });
    }
  }

  const all = [...inits, ...mains];
  const bad = all.find((c) => !['Completed', 'PodInitializing', 'Started'].includes(c.reason));
  const phase = bad ? 'Failed' : server ? 'Running' : 'Succeeded';
  const status = !bad ? (options.runMain === false ? 'Initialized' : server ? 'Running' : 'Completed')
    : bad.kind === 'init' ? `Init:${bad.reason}` : bad.reason;
  const pod = new PodRun(phase, status, inits, mains, volumes, ownedWorkDir, ctx, server, restarting);
  if (!server) {
    // Nothing serves: what was kept running ends with the run; the records stay those of the run.
    await Promise.all(restarting.map((r) => r.stop(0)));
    options.network?.detach(address!);
  }
  return pod;
}

/**
 * A native sidecar (an init container with `restartPolicy: Always`): started, then, as the kubelet
 * does, the next init container waits until its startup probe succeeds (or only until it started,
 * without one). It runs on beside the main containers.
 */
async function startSidecar(c: any, kept: RestartingContainer | ContainerRun, ctx: PodContext): Promise<ContainerRun> {
  if ('state' in kept) return kept;
  if (!c.startupProbe) return kept.status();
  const ready = await waitUntilReady(c, kept.process, ctx.options.serve ?? {}, ctx.address);
  if (ready.ok) return { ...kept.status(), readyAtMs: performance.now() - ctx.t0 };
  const ended = await kept.stop(0);
  return { ...ended, reason: ready.exited && ended.reason !== 'Completed' ? ended.reason : 'Unready', probe: ready.reason };
}

function podSpecOf(workload: any): any {
  if (workload?.spec?.template?.spec) return workload.spec.template.spec;
  if (workload?.kind === 'Pod') return workload.spec;
  if (workload?.containers) return workload;
  throw new Error('runPod: expected a Deployment (or other workload with spec.template.spec), a Pod, or a pod spec');
}

function applyOverride(c: any, options: RunPodOptions): any {
  const o = options.overrides?.[c.name];
  if (!o) return c;
  const env = [...(c.env ?? [])];
  for (const [name, value] of Object.entries(o.env ?? {})) {
    const i = env.findIndex((e: any) => e.name === name);
    if (i >= 0) env[i] = { name, value };
    else env.push({ name, value });
  }
  return { ...c, ...(o.command ? { command: o.command } : {}), ...(o.args ? { args: o.args } : {}), env };
}

// ------------------------------------------------------------------------------------------------
// Volumes

function prepareVolumes(volumes: any[], dir: string, options: RunPodOptions): Record<string, string> {
  const result: Record<string, string> = {};
  for (const v of volumes) {
    const target = path.join(dir, v.name);
    fs.mkdirSync(target, { recursive: true });
    if (v.emptyDir || v.persistentVolumeClaim || v.ephemeral) {
      // Empty at pod start; size limits are not enforced here.
    } else if (v.configMap) {
      const cm = (options.manifests ?? []).find((m: any) => m?.kind === 'ConfigMap' && m?.metadata?.name === v.configMap.name);
      if (!cm) {
        if (v.configMap.optional) continue;
        throw new Error(`MountVolume.SetUp failed for volume "${v.name}": configmap "${v.configMap.name}" not found`);
      }
      writeProjected(target, { ...(cm.data ?? {}) }, v.configMap.items, v.configMap.defaultMode, `configmap "${v.configMap.name}"`);
    } else if (v.secret) {
      const data = options.secrets?.[v.secret.secretName];
      if (!data) {
        if (v.secret.optional) continue;
        throw new Error(`MountVolume.SetUp failed for volume "${v.name}": secret "${v.secret.secretName}" not found`);
      }
      writeProjected(target, { ...data }, v.secret.items, v.secret.defaultMode, `secret "${v.secret.secretName}"`);
    } else {
      throw new Error(`runPod: volume '${v.name}' has a type the sandbox does not support: ${Object.keys(v).filter((k) => k !== 'name').join(', ')}`);
    }
    result[v.name] = target;
  }
  return result;
}

/** Writes keys like the kubelet's atomic writer: `..<ts>/` holds the files, `..data` points at it, names link through it. */
function writeProjected(dir: string, data: Record<string, string>, items: any[] | undefined, defaultMode: number | undefined, what: string): void {
  const files: Array<{ path: string; text: string; mode: number }> = [];
  if (items && items.length > 0) {
    for (const item of items) {
      if (!(item.key in data)) {
        throw new Error(`MountVolume.SetUp failed: ${what} has no key "${item.key}"`);
      }
      files.push({ path: item.path, text: data[item.key], mode: item.mode ?? defaultMode ?? 0o644 });
    }
  } else {
    for (const [key, text] of Object.entries(data)) {
      files.push({ path: key, text, mode: defaultMode ?? 0o644 });
    }
  }
  const stamp = '..2024_01_01_00_00_00.000000001';
  for (const f of files) {
    const file = path.join(dir, stamp, f.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, f.text);
    fs.chmodSync(file, f.mode);
  }
  fs.mkdirSync(path.join(dir, stamp), { recursive: true });
  fs.symlinkSync(stamp, path.join(dir, '..data'));
  for (const top of new Set(files.map((f) => f.path.split('/')[0]))) {
    fs.symlinkSync(path.join('..data', top), path.join(dir, top));
  }
}

// ------------------------------------------------------------------------------------------------
// Containers

/** Runs a container to completion. */
async function runContainer(c: any, kind: 'init' | 'main', ctx: PodContext): Promise<ContainerRun> {
  const started = startContainer(c, kind, ctx);
  return 'state' in started ? started : started.ended;
}

/** A container whose process runs. */
export interface StartedContainer {
  readonly base: Pick<ContainerRun, 'name' | 'kind' | 'image'>;
  readonly argv: readonly string[];
  readonly startedAtMs: number;
  /** Resolves when the process has ended, with the container's final status. */
  readonly ended: Promise<ContainerRun>;
  /** Everything the process printed so far. */
  logsSoFar(): string;
  /** SIGTERM to the container's processes, SIGKILL after `graceMs`; resolves with the final status. */
  stop(graceMs: number): Promise<ContainerRun>;
}

/**
 * Starts a container's process in its sandbox; returns the container's `waiting` status instead when
 * it cannot start (image not in the map, env or command it cannot build).
 */
function startContainer(c: any, kind: 'init' | 'main', ctx: PodContext): StartedContainer | ContainerRun {
  const { spec: pod, podName, volumes, workDir, options, t0, address } = ctx;
  const base = { name: c.name as string, kind, image: c.image as string };
  const fail = (reason: ContainerReason, message: string): ContainerRun => ({
    ...base, argv: [], state: 'waiting', reason, logs: '', stdout: '', stderr: '', message,
  });

  const image = options.images[c.image];
  if (!image) {
    return fail('ErrImagePull', `Failed to pull image "${c.image}": not in the sandbox's image map (${Object.keys(options.images).join(', ')})`);
  }

  let env: Map<string, string>;
  try {
    env = containerEnv(c, options);
  } catch (e) {
    return fail('CreateContainerConfigError', (e as Error).message);
  }
  const expand = (s: string) => expandRefs(s, env);
  const argv = c.command
    ? [...c.command, ...(c.args ?? [])].map(expand)
    : [...(image.entrypoint ?? []), ...(c.args ? c.args.map(expand) : image.cmd ?? [])];
  if (argv.length === 0) {
    return fail('CreateContainerError', 'no command specified: the container has no command and the image no entrypoint or cmd');
  }

  const finalEnv = new Map<string, string>(Object.entries(image.env ?? {}));
  finalEnv.set('HOSTNAME', podName);
  for (const [k, v] of env) finalEnv.set(k, v);
  if (!finalEnv.has('PATH')) finalEnv.set('PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');

  const mounts = (c.volumeMounts ?? []).map((m: any) => {
    const source = volumes[m.name];
    if (source === undefined) {
      throw new Error(`container ${c.name} mounts volume '${m.name}', which the pod does not define (or it is an optional volume that is missing)`);
    }
    const podVolume = (pod.volumes ?? []).find((v: any) => v.name === m.name);
    const alwaysReadOnly = Boolean(podVolume?.configMap || podVolume?.secret);
    return {
      source: m.subPath ? path.join(source, m.subPath) : source,
      target: m.mountPath as string,
      readOnly: Boolean(m.readOnly) || alwaysReadOnly,
    };
  });
  for (const m of mounts) {
    if (!fs.existsSync(m.source)) fs.mkdirSync(m.source, { recursive: true }); // subPath is created on demand
  }
  // Init containers other than native sidecars run offline (only loopback): that proves the installs
  // need no network. The others join the pod's network, or the host's without one.
  const joinsPod = kind === 'main' || c.restartPolicy === 'Always';
  const network = !joinsPod ? options.initNetwork ?? 'none' : address ? 'pod' : options.mainNetwork ?? 'host';
  if (network === 'pod') {
    // The kubelet writes each container's /etc/hosts: here with the pod's name and the Services' names.
    mounts.push({ source: address!.hostsFile, target: '/etc/hosts', readOnly: true });
  }

  const security = { ...(pod.securityContext ?? {}), ...(c.securityContext ?? {}) };
  const uid = Number(security.runAsUser ?? 0);
  const args: string[] = [
    '--die-with-parent', '--new-session',
    '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    '--hostname', podName,
    '--uid', String(uid), '--gid', String(security.runAsGroup ?? security.runAsUser ?? 0),
  ];
  if (network === 'none') args.push('--unshare-net');
  if ((c.securityContext?.capabilities?.drop ?? []).includes('ALL') || security.runAsNonRoot) {
    args.push('--cap-drop', 'ALL');
  }
  args.push('--clearenv');
  for (const [k, v] of finalEnv) args.push('--setenv', k, v);

  args.push(...rootFileSystem(image, mounts.map((m: { target: string }) => m.target), options));
  for (const m of mounts) args.push(m.readOnly ? '--ro-bind' : '--bind', m.source, m.target);
  // An image's files belong to root: a non-root user can write only /tmp and its volumes. The
  // sandbox's root is a tmpfs owned by whoever runs it, so it is made read-only for other users.
  if (c.securityContext?.readOnlyRootFilesystem || uid !== 0) args.push('--remount-ro', '/');
  args.push('--chdir', c.workingDir ?? image.workingDir ?? '/');
  args.push('--', ...argv);

  const started = performance.now();
  // bwrap itself joins no namespace that exists: nsenter puts it into the pod's network first.
  const [command, commandArgs] = network === 'pod' ? ['nsenter', [`--net=${address!.netns}`, '--', 'bwrap', ...args]] : ['bwrap', args];
  const proc = spawnProcess(command, commandArgs, options.timeoutMs ?? 120_000, path.join(workDir, 'logs', `${c.name}.log`));
  const status = (out: Collected): ContainerRun => {
    const finished = performance.now();
    const exitCode = out.timedOut ? 137 : out.code ?? 128 + (out.signalNumber ?? 9);
    const reason: ContainerReason = out.timedOut ? 'DeadlineExceeded' : exitCode === 0 ? 'Completed' : 'Error';
    return {
      ...base,
      argv,
      state: 'terminated',
      reason,
      exitCode,
      logs: out.logs,
      stdout: out.stdout,
      stderr: out.stderr,
      message: c.terminationMessagePolicy === 'FallbackToLogsOnError' && exitCode !== 0 ? logTail(out.logs) : undefined,
      startedAtMs: started - t0,
      finishedAtMs: finished - t0,
      durationMs: finished - started,
    };
  };
  const ended = proc.done.then(status);
  return {
    base,
    argv,
    startedAtMs: started - t0,
    ended,
    logsSoFar: proc.logsSoFar,
    stop: (graceMs: number) => {
      proc.terminate(graceMs);
      return ended;
    },
  };
}

/** Whether a serving container answered its probe, and where; or why not. */
type Readiness = { ok: true; url: string } | { ok: false; reason: string; exited: boolean };

/**
 * The kubelet's startup probe, faster: tries the container's `startupProbe` (else `readinessProbe`)
 * on the pod's address (its IP on a pod network, else the host's loopback) until it
 * succeeds (`httpGet`: an answer 200–399; `tcpSocket`: an accepted connection), the process ends, or
 * the time is up.
 */
async function waitUntilReady(c: any, started: StartedContainer, serve: ServeOptions, address?: PodAddress): Promise<Readiness> {
  const declared = c.startupProbe ?? c.readinessProbe;
  const probe = declared?.httpGet ?? declared?.tcpSocket;
  if (!probe) {
    throw new Error(`runPod: container ${c.name} has no httpGet or tcpSocket startup or readiness probe to wait for`);
  }
  const port = typeof probe.port === 'number' ? probe.port
    : /^\d+$/.test(String(probe.port)) ? Number(probe.port)
      : (c.ports ?? []).find((p: any) => p.name === probe.port)?.containerPort;
  if (!port) {
    throw new Error(`runPod: the probe of ${c.name} names port '${probe.port}', which the container does not declare`);
  }
  const scheme = String(probe.scheme ?? 'HTTP').toLowerCase();
  const host = address?.ip ?? '127.0.0.1';
  const url = `${scheme}://${host}:${port}`;
  let exited = false;
  void started.ended.then(() => { exited = true; });
  const deadline = performance.now() + (serve.readyTimeoutMs ?? 120_000);
  let last = 'no answer yet';
  while (!exited && performance.now() < deadline) {
    if (declared.tcpSocket) {
      if (await tcpConnects(port, host)) return { ok: true, url };
      last = `dial tcp ${host}:${port}: connect: connection refused`;
      await new Promise((r) => setTimeout(r, serve.probeIntervalMs ?? 100));
      continue;
    }
    try {
      const status = await probeStatus(url + (probe.path ?? '/'));
      if (status >= 200 && status < 400) return { ok: true, url };
      last = `HTTP probe failed with statuscode: ${status}`;
    } catch (e) {
      last = `Get "${url}${probe.path ?? '/'}": ${(e as Error).message}`;
    }
    await new Promise((r) => setTimeout(r, serve.probeIntervalMs ?? 100));
  }
  return { ok: false, exited, reason: exited ? `the container exited before its probe succeeded (last probe: ${last})` : `Startup probe failed: ${last}` };
}

/**
 * The status of an `httpGet` probe's GET. Over HTTPS the certificate is not verified, as the kubelet
 * does not verify it (its prober sets InsecureSkipVerify: k8s.io/kubernetes pkg/probe/http/request.go).
 */
function probeStatus(url: string): Promise<number> {
  const target = new URL(url);
  const get = target.protocol === 'https:' ? https.get : http.get;
  return new Promise((resolve, reject) => {
    // A connection of its own, closed after the answer, as the kubelet's prober (DisableKeepAlives).
    const req = get(target, { agent: false, rejectUnauthorized: false, timeout: 2_000, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Whether a TCP connection to the port is accepted (as the kubelet's `tcpSocket` probe: opened, then closed). */
export function tcpConnects(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(2_000);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(false));
  });
}

/** The serving main container of a pod started with `serve`. */
export class RunningServer {
  private stopped?: Promise<ContainerRun>;

  public constructor(
    public readonly name: string,
    /** The pod's address for the probed port, e.g. `http://127.0.0.1:8321`. */
    public readonly url: string,
    private readonly process: StartedContainer,
  ) {}

  /**
   * `GET`/`POST` JSON on the server; returns the status and the parsed body (text when not JSON). Each
   * request on a connection of its own: a kept-alive connection the server closes as the next request
   * goes out is reset (ECONNRESET), and a POST is not retried. The deadline is far beyond any answer of a
   * loaded machine (a first request can take tens of seconds): it turns a hang into a failure that names
   * the request and shows the server's last lines.
   */
  public async request(method: 'GET' | 'POST' | 'DELETE', route: string, body?: unknown, deadlineMs = 300_000): Promise<{ status: number; body: any }> {
    const target = new URL(this.url + route);
    const send = target.protocol === 'https:' ? https.request : http.request;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { connection: 'close', ...(payload === undefined ? {} : { 'content-type': 'application/json' }) };
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = send(target, { method, agent: false, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      const deadline = setTimeout(() => req.destroy(new Error(
        `${method} ${route} on ${this.name}: no answer in ${deadlineMs / 1000} s; its last lines:\n${logTail(this.logs())}`)), deadlineMs);
      req.on('close', () => clearTimeout(deadline));
      req.on('error', reject);
      req.end(payload);
    });
    try {
      return { status, body: JSON.parse(text) };
    } catch {
      return { status, body: text };
    }
  }

  /** What the server printed so far. */
  public logs(): string {
    return this.process.logsSoFar();
  }

  public stop(graceMs: number): Promise<ContainerRun> {
    this.stopped ??= this.process.stop(graceMs);
    return this.stopped;
  }

  /** Ends the server at once (cleanup). */
  public kill(): void {
    void this.stop(0);
  }
}

/** The container's environment (name → value), with `$(VAR)` references expanded in order. */
function containerEnv(c: any, options: RunPodOptions): Map<string, string> {
  const env = new Map<string, string>();
  for (const e of c.env ?? []) {
    if (e.value !== undefined) {
      env.set(e.name, expandRefs(String(e.value), env));
    } else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      const value = options.secrets?.[ref.name]?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        throw new Error(`secret "${ref.name}" (key "${ref.key}") not found for env ${e.name}`);
      }
      env.set(e.name, value);
    } else if (e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.configMapKeyRef;
      const cm = (options.manifests ?? []).find((m: any) => m?.kind === 'ConfigMap' && m?.metadata?.name === ref.name);
      const value = cm?.data?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        throw new Error(`configmap "${ref.name}" (key "${ref.key}") not found for env ${e.name}`);
      }
      env.set(e.name, value);
    } else if (e.valueFrom?.fieldRef) {
      env.set(e.name, e.valueFrom.fieldRef.fieldPath === 'metadata.name' ? 'pod' : '');
    } else {
      env.set(e.name, '');
    }
  }
  return env;
}

/** The kubelet's `$(VAR)` expansion: defined names are replaced, `$$` escapes, others stay as written. */
export function expandRefs(text: string, env: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => {
    if (m === '$$') return '$';
    return env.has(name!) ? env.get(name!)! : m;
  });
}

function logTail(logs: string): string {
  const lines = logs.trimEnd().split('\n').slice(-80).join('\n');
  return Buffer.byteLength(lines) > 2048 ? Buffer.from(lines).subarray(-2048).toString('utf8') : lines;
}

// ------------------------------------------------------------------------------------------------
// Root file system: the image tree over the host (overlay) or alone (rootfs), as bubblewrap binds

/**
 * The bwrap arguments that build the container's root: a tmpfs, then the layers merged by binding.
 * A directory that exists in more than one layer (or must hold a mount point) is created in the tmpfs
 * and its children are merged one level down; anything else is bound read-only from the topmost layer.
 */
export function rootFileSystem(image: ContainerImage, mountTargets: readonly string[], options: Pick<RunPodOptions, 'hostRootEntries'> = {}): string[] {
  const args = ['--tmpfs', '/'];
  const layers: Array<{ root: string; only?: readonly string[] }> = [];
  const extraBinds: Array<{ source: string; target: string }> = [...(image.binds ?? [])];
  if ((image.mode ?? 'overlay') === 'overlay') {
    layers.push({ root: '/', only: options.hostRootEntries ?? DEFAULT_HOST_ROOT_ENTRIES });
    const py = hostPython();
    if (!DEFAULT_HOST_ROOT_ENTRIES.some((e) => py.prefix === `/${e}` || py.prefix.startsWith(`/${e}/`))) {
      extraBinds.unshift({ source: py.prefix, target: py.prefix });
    }
  }
  layers.push({ root: image.dir });

  const mountPoints = [...RUNTIME_PATHS, ...mountTargets, ...extraBinds.map((b) => b.target)].map((p) => path.posix.normalize(p));
  const isMountPoint = (p: string) => mountPoints.includes(p);
  const holdsMountPoint = (p: string) => mountPoints.some((m) => m.startsWith(p === '/' ? '/' : `${p}/`) && m !== p);

  const merge = (target: string, sources: string[]) => {
    const top = sources[sources.length - 1];
    const st = fs.lstatSync(top);
    if (st.isSymbolicLink()) {
      args.push('--symlink', fs.readlinkSync(top), target);
      return;
    }
    if (!st.isDirectory()) {
      args.push('--ro-bind', top, target);
      return;
    }
    // The directories of this path, from the top layer down to the first layer where it is not a directory.
    const dirs: string[] = [];
    for (let i = sources.length - 1; i >= 0; i--) {
      const s = fs.lstatSync(sources[i]);
      if (!s.isDirectory()) break;
      dirs.unshift(sources[i]);
    }
    if (dirs.length === 1 && !holdsMountPoint(target)) {
      args.push('--ro-bind', top, target);
      return;
    }
    args.push('--perms', (st.mode % 0o10000).toString(8).padStart(4, '0'), '--dir', target);
    mergeChildren(target, dirs.map((d) => ({ root: d })));
  };

  const mergeChildren = (target: string, dirLayers: Array<{ root: string; only?: readonly string[] }>) => {
    const names = new Set<string>();
    for (const l of dirLayers) {
      for (const n of l.only ?? safeReaddir(l.root)) names.add(n);
    }
    for (const name of [...names].sort()) {
      const child = path.posix.join(target, name);
      if (isMountPoint(child)) continue;
      const sources = dirLayers
        .filter((l) => !l.only || l.only.includes(name))
        .map((l) => path.join(l.root, name))
        .filter((p) => lexists(p));
      if (sources.length > 0) merge(child, sources);
    }
  };

  mergeChildren('/', layers);
  // /tmp is its own file system: it stays writable for every user when the root is made read-only.
  args.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/tmp');
  for (const b of extraBinds) args.push('--ro-bind', b.source, b.target);
  return args;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function lexists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------------------------------------
// Processes

interface Collected {
  readonly code: number | null;
  readonly signalNumber?: number;
  readonly timedOut: boolean;
  readonly logs: string;
  readonly stdout: string;
  readonly stderr: string;
}

interface SpawnedProcess {
  readonly done: Promise<Collected>;
  logsSoFar(): string;
  /** SIGTERM to the process group, SIGKILL after `graceMs` (at once when 0). */
  terminate(graceMs: number): void;
}

function spawnProcess(command: string, args: string[], timeoutMs: number, logFile: string): SpawnedProcess {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const all: Buffer[] = [];
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => { out.push(d); all.push(d); });
  child.stderr.on('data', (d: Buffer) => { err.push(d); all.push(d); });
  let timedOut = false;
  let closed = false;
  const signal = (sig: NodeJS.Signals) => {
    if (closed) return;
    try {
      process.kill(-child.pid!, sig);
    } catch {
      child.kill(sig);
    }
  };
  const forget = registerRunning(`${path.basename(logFile, '.log')} (pid ${child.pid})`, () => signal('SIGKILL'));
  const timer = setTimeout(() => {
    timedOut = true;
    signal('SIGKILL');
  }, timeoutMs);
  let killTimer: NodeJS.Timeout | undefined;
  const done = new Promise<Collected>((resolve, reject) => {
    child.on('error', (e) => {
      clearTimeout(timer);
      forget();
      reject(new Error(`cannot start bwrap: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      closed = true;
      forget();
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      const logs = Buffer.concat(all).toString('utf8');
      try {
        fs.writeFileSync(logFile, logs);
      } catch {
        // The pod's directory is gone: a server ended by dispose() after its test.
      }
      resolve({
        code,
        signalNumber: sig ? os.constants.signals[sig] : undefined,
        timedOut,
        logs,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
  return {
    done,
    logsSoFar: () => Buffer.concat(all).toString('utf8'),
    terminate: (graceMs: number) => {
      if (graceMs <= 0) {
        signal('SIGKILL');
        return;
      }
      signal('SIGTERM');
      killTimer ??= setTimeout(() => signal('SIGKILL'), graceMs);
    },
  };
}
