// A kubeconfig's exec credential plugin (`users[].user.exec`), run as client-go runs it
// (k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go): with this process's environment, the kubeconfig's
// `env` and KUBERNETES_EXEC_INFO, no standard input (not interactive), its ExecCredential read from standard
// output, whose apiVersion must be the one the kubeconfig names. Unlike client-go's and
// @kubernetes/client-node's runs, this one is bounded: a plugin that never ends is killed after a time and
// one that writes without end is killed past a size, each named in the error.
import { spawn } from 'child_process';
import { isRecord } from '../checks';

/** What an ExecCredential gives a request: a bearer token, or a client certificate and its key (PEM). */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
}

/** Bounds of one run of the plugin. */
export interface ExecBounds {
  /** The longest it may run, in milliseconds. */
  readonly timeoutMs: number;
  /** The most it may write, standard output and error together, in bytes. */
  readonly maxBytes: number;
}

/**
 * Runs the plugin `exec` describes and returns its credential.
 *
 * @param execInfo the ExecCredential given in KUBERNETES_EXEC_INFO
 * @throws Error naming the plugin and what went wrong: a field of `exec`, its start, its exit, a bound, its output
 */
export function runExecPlugin(exec: Record<string, unknown>, execInfo: object, bounds: ExecBounds): Promise<ExecCredential> {
  const { command, args, env } = execCommand(exec);
  const name = `the exec credential plugin ${JSON.stringify(command)}`;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env, KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    let stopped: string | undefined;
    const stop = (why: string) => {
      stopped ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(`did not finish within ${bounds.timeoutMs / 1000} s`), bounds.timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > bounds.maxBytes) stop(`wrote more than ${bounds.maxBytes / 1024 / 1024} MiB`);
      else into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`${name} could not be started: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const said = Buffer.concat(stderr).toString('utf8').trim().slice(0, 500);
      if (stopped !== undefined) return reject(new Error(`${name} ${stopped}`));
      if (code !== 0) return reject(new Error(`${name} failed (${signal ?? `exit ${code}`})${said ? `: ${said}` : ''}`));
      try {
        return resolve(readCredential(Buffer.concat(stdout).toString('utf8'), exec.apiVersion));
      } catch (e) {
        return reject(new Error(`${name} ${(e as Error).message}`));
      }
    });
  });
}

/** The command, its arguments and its extra environment, as the kubeconfig gives them. */
function execCommand(exec: Record<string, unknown>): { command: string; args: string[]; env: Record<string, string> } {
  const { command, args = [], env = [] } = exec;
  if (typeof command !== 'string' || command === '') throw new Error('the kubeconfig\'s exec credential plugin has no command');
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new Error('the kubeconfig\'s exec.args must be a list of strings');
  if (!Array.isArray(env) || !env.every((e) => isRecord(e) && typeof e.name === 'string' && typeof e.value === 'string')) {
    throw new Error('the kubeconfig\'s exec.env must be a list of name and value strings');
  }
  return { command, args, env: Object.fromEntries(env.map((e) => [e.name, e.value])) };
}

/** The credential of the plugin's output: an ExecCredential of the kubeconfig's apiVersion with a token or a certificate. */
function readCredential(output: string, apiVersion: unknown): ExecCredential {
  let credential: unknown;
  try {
    credential = JSON.parse(output);
  } catch (e) {
    throw new Error(`wrote no ExecCredential JSON: ${(e as Error).message}`);
  }
  if (!isRecord(credential) || credential.kind !== 'ExecCredential' || !isRecord(credential.status)) {
    throw new Error('wrote no ExecCredential with a status');
  }
  if (apiVersion !== undefined && credential.apiVersion !== apiVersion) {
    throw new Error(`is configured to use API version ${String(apiVersion)}, but wrote version ${String(credential.apiVersion)}`);
  }
  const { token, clientCertificateData, clientKeyData } = credential.status;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const result = { token: text(token), clientCertificateData: text(clientCertificateData), clientKeyData: text(clientKeyData) };
  if (result.token === undefined && (result.clientCertificateData === undefined || result.clientKeyData === undefined)) {
    throw new Error('gave neither a token nor a client certificate and key');
  }
  return result;
}
