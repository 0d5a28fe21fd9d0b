/**
 * A container the sandboxed kubelet keeps running: a native sidecar (an init container with
 * `restartPolicy: Always`) or a main container of a serving pod besides the server. When its process
 * ends and the pod is not stopping, it is started again after a pause, and `restartCount` grows, as
 * `kubectl get pod` shows it. The kubelet's pause starts at 10 s and doubles (CrashLoopBackOff); the
 * runner's is short and fixed, to keep tests short.
 */
import type { ContainerRun, StartedContainer } from './pod-runner';

export class RestartingContainer {
  /**
   * Starts the container; returns its `waiting` status instead when it cannot start at all (an image
   * not in the map, say), as the kubelet would leave it.
   */
  public static start(start: () => StartedContainer | ContainerRun, restartDelayMs: number): RestartingContainer | ContainerRun {
    const first = start();
    return 'state' in first ? first : new RestartingContainer(start, first, restartDelayMs);
  }

  private restarts = 0;
  private restartsAtKill = 0;
  private lastState?: ContainerRun;
  private stopping = false;
  private waiters: Array<(started: StartedContainer) => void> = [];

  private constructor(
    private readonly startProcess: () => StartedContainer | ContainerRun,
    private current: StartedContainer,
    private readonly restartDelayMs: number,
  ) {
    this.watch();
  }

  public get name(): string {
    return this.current.base.name;
  }

  /** The process running now (a new one after each restart). */
  public get process(): StartedContainer {
    return this.current;
  }

  /** Its status now: running, with its restart count and how the previous process ended. */
  public status(): ContainerRun {
    const logs = this.current.logsSoFar();
    return {
      ...this.current.base,
      argv: this.current.argv,
      state: 'running',
      reason: 'Started',
      logs,
      stdout: '',
      stderr: '',
      startedAtMs: this.current.startedAtMs,
      restartCount: this.restarts,
      lastState: this.lastState,
    };
  }

  /** Kills the process (SIGKILL, as when it crashes); resolves with how it ended. It is restarted. */
  public kill(): Promise<ContainerRun> {
    this.restartsAtKill = this.restarts;
    return this.current.stop(0);
  }

  /**
   * Resolves with the process started after the last `kill` (at once when that has happened already:
   * the restart may be quicker than the caller).
   */
  public restarted(): Promise<StartedContainer> {
    if (this.restarts > this.restartsAtKill) return Promise.resolve(this.current);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends it for good (the pod is stopping): SIGTERM, then SIGKILL after `graceMs`. */
  public stop(graceMs: number): Promise<ContainerRun> {
    this.stopping = true;
    return this.current.stop(graceMs).then((ended) => ({ ...ended, restartCount: this.restarts, lastState: this.lastState }));
  }

  private watch(): void {
    void this.current.ended.then((ended) => {
      if (this.stopping) return;
      this.lastState = ended;
      setTimeout(() => this.restart(), this.restartDelayMs);
    });
  }

  private restart(): void {
    if (this.stopping) return;
    const next = this.startProcess();
    this.restarts++;
    if ('state' in next) {
      // It could not start this time (CreateContainerError and the like): the kubelet tries again.
      this.lastState = next;
      setTimeout(() => this.restart(), this.restartDelayMs);
      return;
    }
    this.current = next;
    this.watch();
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w(next));
  }
}
