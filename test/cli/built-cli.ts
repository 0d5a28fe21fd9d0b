// The built CLI, run as users run it: the package's `bin` (the launcher, src/cli/launcher.ts, of the bundle of
// lib/cli/main.js), which `npx projen compile` builds. For the CLI run in-process, see ./run.ts.
import { spawn, spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';

const REPO = join(__dirname, '..', '..');

/** The path of the built CLI, as package.json's `bin` names it. */
export const BUILT_CLI: string = join(REPO, (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['kube-inference']);

/** How a run of the built CLI ended. */
export interface BuiltCliResult {
  /** The exit code; null when the run was ended by a signal. */
  readonly code: number | null;
  /** The signal that ended the run (SIGTERM when `timeout` passed), or null. */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface BuiltCliOptions {
  /** Standard input; without it, standard input is empty. */
  readonly input?: string;
  /** Variables set over this process's environment, which the run inherits (`KUBECONFIG: ''` hides the user's kubeconfig). */
  readonly env?: NodeJS.ProcessEnv;
  /** Milliseconds after which the run is killed and reported (its `signal` set), never waited on; no limit without it. */
  readonly timeout?: number;
}

const environment = (env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv => ({ ...process.env, ...env });

/** Runs `kube-inference <args>` (the built CLI, under this node), blocking until it ends. */
export function runBuiltCli(args: readonly string[], options: BuiltCliOptions = {}): BuiltCliResult {
  const r = spawnSync(process.execPath, [BUILT_CLI, ...args], { input: options.input, env: environment(options.env), timeout: options.timeout, encoding: 'utf8' });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs `kube-inference <args>` (the built CLI, under this node) without blocking this process: for a test
 * that answers the CLI from a server of its own, in-process.
 */
export function runBuiltCliAsync(args: readonly string[], options: BuiltCliOptions = {}): Promise<BuiltCliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { env: environment(options.env), timeout: options.timeout });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    // A run may end before reading its input (a refused option, an unreadable kubeconfig): a broken pipe is no failure.
    child.stdin.on('error', (e: NodeJS.ErrnoException) => { if (e.code !== 'EPIPE') reject(e); });
    child.stdin.end(options.input);
  });
}
