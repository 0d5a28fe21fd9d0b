/**
 * The sandboxed processes of the current test file that still run, so that none outlives the file
 * (test/sandbox/environment.cjs ends them). A test stopped by its timeout in the middle of starting a
 * pod never got the pod to dispose of: its processes would run on, and jest, waiting on their pipes,
 * would never exit (seen: a CI run that ended at its own time limit). The registry is made by the
 * environment on the test file's global object, under the key below.
 */
const KEY = Symbol.for('kube-inference-constructs.left-running');

/** What environment.cjs puts on the test file's global object. */
export interface LeftRunningRegistry {
  readonly testPath: string;
  /** Each running process's description (container and pid) → how to end it at once. */
  readonly running: Map<string, () => void>;
  /** Set once the file's tests and clean-up have ended: a process started later is ended at once. */
  closed: boolean;
}

/**
 * Records a process as running; the returned function forgets it once it ended. After the file's end
 * (a pod of a timed-out test going on with its next container), the process is ended at once.
 */
export function registerRunning(description: string, kill: () => void): () => void {
  const registry = leftRunningRegistry();
  if (!registry) return () => undefined; // another jest environment, or no jest: nothing to end them
  if (registry.closed) {
    kill();
    process.stderr.write(`${registry.testPath}: ended ${description}, started after its tests had ended\n`);
    return () => undefined;
  }
  let key = description;
  for (let n = 2; registry.running.has(key); n++) key = `${description} #${n}`;
  registry.running.set(key, kill);
  return () => registry.running.delete(key);
}

/** The registry environment.cjs made for the current test file; undefined under another environment. */
export function leftRunningRegistry(): LeftRunningRegistry | undefined {
  return (globalThis as { [KEY]?: LeftRunningRegistry })[KEY];
}
