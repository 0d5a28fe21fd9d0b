/**
 * Pulumi programs deployed with the real Pulumi CLI in the tests: the CLI, its Node.js language host and
 * the Kubernetes provider built from the Go module proxy by scripts/test-setup/pulumi-cli.mjs (which says
 * which versions and why), a program installed with the packed library and the Pulumi SDK from the npm
 * registry, and the environment the CLI runs in (local file backend, throw-away PULUMI_HOME, no plugin
 * downloads). Used by test/apiserver/pulumi-up.test.ts (a bare API server) and test/cluster/pulumi-up.test.ts
 * (the single-node cluster).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { registryProblem, VERSIONS } from '../consumer/npm';
import { goBuild } from '../sandbox/go-builds';
import { SandboxSupport } from '../sandbox/host';

const ROOT = path.join(__dirname, '..', '..');

const SETUP = 'node scripts/test-setup/pulumi-cli.mjs';

/**
 * The SDK the program runs on: the newest the consumer tests pin. The lowest the peer ranges allow
 * (3.100.0, this repository's devDependency) runs TypeScript programs with its own TypeScript 3.8, which
 * refuses the example's tsconfig (`module: node16`); later SDKs use the program's TypeScript.
 */
export const SDK = {
  '@pulumi/pulumi': VERSIONS.newest['@pulumi/pulumi'], '@pulumi/kubernetes': VERSIONS.newest['@pulumi/kubernetes'], 'typescript': '~5.9.3', '@types/node': '^20',
} as const;

/** The index each program's build writes, and its binary. */
const BINARIES = {
  'pulumi-cli': 'pulumi',
  'pulumi-language-host': 'pulumi-language-nodejs',
  'pulumi-kubernetes-provider': 'pulumi-resource-kubernetes',
} as const;
type Binary = typeof BINARIES[keyof typeof BINARIES];

/** Each built program: its path and the version it was built from. */
export type Built = Record<Binary, { readonly file: string; readonly version: string }>;

/** The three built programs, or why one of them cannot run here. */
export function builtPrograms(): Built | { reason: string } {
  const built: Partial<Built> = {};
  for (const [name, binary] of Object.entries(BINARIES)) {
    const b = goBuild(name, [binary], SETUP);
    if ('reason' in b) return { reason: `${name}: ${b.reason}` };
    built[binary] = { file: b.binaries[binary], version: String(b.info.version) };
  }
  return built as Built;
}

/** What a command that succeeded printed: stdout and stderr interleaved, as a terminal shows them, and stdout. */
export interface Ran {
  readonly output: string;
  readonly stdout: string;
}

/**
 * Runs a command without a shell, killed after `timeoutMs`, without blocking the test's event loop;
 * throws with the end of its output when it fails.
 */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ output, stdout });
      const end = output.trim().split('\n').slice(-40).join('\n');
      reject(new Error(`${command} ${args.join(' ')} exited ${code ?? `on a signal (killed after ${timeoutMs / 1000} s?)`}:\n${end}`));
    });
  });
}

/**
 * Copies the program `source` (a directory) into `work`, adds `files` (name → text), and installs the packed
 * library and the SDK, the program's entry being `main`; returns the program's directory.
 */
export async function installProgram(work: string, source: string, files: Readonly<Record<string, string>>, main: string): Promise<string> {
  const program = path.join(work, path.basename(source));
  fs.cpSync(source, program, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(program, name), text);
  fs.writeFileSync(path.join(program, 'package.json'), JSON.stringify({ name: path.basename(source), private: true, main }, null, 2));
  // `npm pack` of the compiled package (the test task compiles first): the library as a user installs it.
  const packed = JSON.parse((await run('npm', ['pack', '--json', '--pack-destination', work], ROOT, process.env)).stdout) as { filename: string }[];
  // No install scripts: @pulumi/kubernetes's would download the provider from GitHub; the test runs the
  // one built from the module proxy. The npm cache makes later installs fast.
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel', 'error',
    path.join(work, packed[0].filename), ...Object.entries(SDK).map(([name, version]) => `${name}@${version}`)], program, { ...process.env, NODE_OPTIONS: '' });
  return program;
}

/**
 * The environment of the Pulumi commands: the built programs first on PATH, where the CLI finds its
 * language host and, as an ambient plugin, the provider: ambient plugins are used whatever their version.
 * An installed one (`pulumi plugin install --file`) is not: it is selected by version, this one's own is
 * not the release @pulumi/kubernetes asks for, and the CLI would fail to download that (get.pulumi.com).
 * Plugin downloads are off: nothing may be fetched.
 */
function pulumiEnv(built: Built, work: string, kubeconfig: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [...Object.values(built).map((b) => path.dirname(b.file)), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(work, 'pulumi-home'),
    PULUMI_BACKEND_URL: `file://${path.join(work, 'state')}`,
    PULUMI_CONFIG_PASSPHRASE: 'test',
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: 'true',
    KUBECONFIG: kubeconfig,
    NODE_OPTIONS: '',
  };
  delete env.PULUMI_IGNORE_AMBIENT_PLUGINS;
  return env;
}

/**
 * A new stack `dev` of the program in `program`, its state in `work` (a file backend, as `pulumiEnv`
 * sets it), deploying to the cluster of `kubeconfig`; returns the environment its commands run with.
 */
export async function newStack(built: Built, work: string, program: string, kubeconfig: string): Promise<NodeJS.ProcessEnv> {
  const env = pulumiEnv(built, work, kubeconfig);
  fs.mkdirSync(path.join(work, 'state'));
  await run('pulumi', ['stack', 'init', 'dev', '--non-interactive'], program, env);
  return env;
}

/** The distinct messages of a level (`warning`, `error`) in Pulumi's output, from its progress and its diagnostics. */
export function diagnostics(output: string, level: 'warning' | 'error'): string[] {
  return [...new Set([...output.matchAll(new RegExp(`\\b${level}: (.*)$`, 'gm'))].map((m) => m[1].trim()))].sort();
}

/** For `describeWhen`: the three programs built (`builtPrograms()`), and the npm registry serving the SDK. */
export function pulumiSupport(programs: Built | { reason: string }): SandboxSupport {
  if ('reason' in programs) return { ok: false, reason: programs.reason };
  const problem = registryProblem(`@pulumi/pulumi@${SDK['@pulumi/pulumi']}`);
  return problem === undefined ? { ok: true } : { ok: false, reason: problem };
}
