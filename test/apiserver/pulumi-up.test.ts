/**
 * examples/pulumi-app deployed with the real Pulumi CLI: a copy of the program, with the packed library
 * and the Pulumi SDK and Kubernetes package from the npm registry, goes through `pulumi up` (local file
 * backend, throw-away PULUMI_HOME) against the real API server of the newest minor tested; then every
 * Kubernetes object the stack recorded is read back through the API server (the objects carry one addition,
 * `pulumi.com/skipAwait`: see ENTRY). The CLI, its Node.js language
 * host and the Kubernetes provider are built from the Go module proxy by scripts/test-setup/pulumi-cli.mjs,
 * which says which versions and why.
 *
 * Nothing is destroyed: the API server, which runs no garbage collector, would never finish a Foreground
 * delete; it is thrown away with everything on it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster } from './cluster';
import { ApiServer, apiServerSupport, apiServerVersion, NEWEST_TESTED_MINOR } from './server';
import { initScriptsDigest } from '../../src/llama-stack/scripts';
import { registryProblem, VERSIONS } from '../consumer/npm';
import { goBuild } from '../sandbox/go-builds';
import { describeWhen, SandboxSupport } from '../sandbox/host';

const MINOR = NEWEST_TESTED_MINOR;
const ROOT = path.join(__dirname, '..', '..');
const EXAMPLE = path.join(ROOT, 'examples', 'pulumi-app');
const SETUP = 'node scripts/test-setup/pulumi-cli.mjs';

/**
 * The SDK the program runs on: the newest the consumer tests pin. The lowest the peer ranges allow
 * (3.100.0, this repository's devDependency) runs TypeScript programs with its own TypeScript 3.8, which
 * refuses the example's tsconfig (`module: node16`); later SDKs use the program's TypeScript.
 */
const SDK = {
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
type Built = Record<Binary, { readonly file: string; readonly version: string }>;

/** The three built programs, or why one of them cannot run here. */
function builtPrograms(): Built | { reason: string } {
  const built: Partial<Built> = {};
  for (const [name, binary] of Object.entries(BINARIES)) {
    const b = goBuild(name, [binary], SETUP);
    if ('reason' in b) return { reason: `${name}: ${b.reason}` };
    built[binary] = { file: b.binaries[binary], version: String(b.info.version) };
  }
  return built as Built;
}

const programs = builtPrograms();

/** For `describeWhen`: the API server, the three programs and the npm registry, checked in that order. */
function support(): SandboxSupport {
  const server = apiServerSupport(MINOR);
  if (!server.ok) return server;
  if ('reason' in programs) return { ok: false, reason: programs.reason };
  const problem = registryProblem(`@pulumi/pulumi@${SDK['@pulumi/pulumi']}`);
  return problem === undefined ? { ok: true } : { ok: false, reason: problem };
}

/** What a command that succeeded printed: stdout and stderr interleaved, as a terminal shows them, and stdout. */
interface Ran {
  readonly output: string;
  readonly stdout: string;
}

/**
 * Runs a command without a shell, killed after `timeoutMs`, without blocking the test's event loop;
 * throws with the end of its output when it fails.
 */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Ran> {
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
 * The program Pulumi runs (package.json `main`): the example as it is, after a stack transformation that
 * marks every Kubernetes object `pulumi.com/skipAwait`. The provider waits for a Deployment to become
 * available and for a Service to get endpoints, which only the controllers and kubelets a bare API server
 * lacks would bring: without it `pulumi up` would time out after ten minutes. The objects are still created,
 * with that annotation added. A transformation of the SDK, not a transform of the engine
 * (`registerResourceTransform`): the language host proxies the engine's resource monitor, and this
 * release's proxy does not know the method that registers transforms.
 */
const ENTRY = `import * as pulumi from '@pulumi/pulumi';

pulumi.runtime.registerStackTransformation(({ type, props, opts }) => {
  if (!type.startsWith('kubernetes:')) return undefined;
  const metadata = pulumi.output(props.metadata).apply((m) => ({ ...m, annotations: { ...m?.annotations, 'pulumi.com/skipAwait': 'true' } }));
  return { props: { ...props, metadata }, opts };
});

module.exports = require('./index');
`;

/** Copies the example into `work` with the packed library and the SDK installed; returns the program's directory. */
async function installProgram(work: string): Promise<string> {
  const program = path.join(work, 'pulumi-app');
  fs.cpSync(EXAMPLE, program, { recursive: true });
  fs.writeFileSync(path.join(program, 'skip-await.ts'), ENTRY);
  fs.writeFileSync(path.join(program, 'package.json'), JSON.stringify({ name: 'pulumi-app', private: true, main: 'skip-await.ts' }, null, 2));
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

/** The distinct messages of a level (`warning`, `error`) in Pulumi's output, from its progress and its diagnostics. */
function diagnostics(output: string, level: 'warning' | 'error'): string[] {
  return [...new Set([...output.matchAll(new RegExp(`\\b${level}: (.*)$`, 'gm'))].map((m) => m[1].trim()))].sort();
}

/** A Kubernetes object of the stack: what the program sent, and what the provider recorded of it. */
interface Recorded {
  readonly inputs: any;
  readonly outputs: any;
}

/** `Kind namespace/name` (`Kind name` when cluster-scoped). */
const nameOf = (kind: string, metadata: any) => `${kind} ${metadata.namespace ? `${metadata.namespace}/` : ''}${metadata.name}`;

/** Whether the Kubernetes provider wrote an object (server-side apply, its field manager `pulumi-kubernetes-<id>`). */
const writtenByPulumi = (o: any) => (o.metadata.managedFields ?? []).some((f: any) => f.manager.startsWith('pulumi-kubernetes-') && f.operation === 'Apply');

describeWhen(`pulumi up of the example program (Pulumi CLI, kube-apiserver ${apiServerVersion(MINOR)})`, support(),
  `Pulumi CLI, language host and Kubernetes provider (built by the test set-up), kube-apiserver ${MINOR} and npm registry`, () => {
    const built = programs as Built;
    let server: ApiServer;
    let cluster: Cluster;
    let work: string;
    let up: Ran;
    let recorded: Recorded[];
    let outputs: Record<string, any>;

    beforeAll(async () => {
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-pulumi-up-'));
      cluster = await Cluster.start(MINOR);
      server = cluster.server;
      const program = await installProgram(work);
      const env = pulumiEnv(built, work, server.kubeconfig());
      fs.mkdirSync(path.join(work, 'state'));
      await run('pulumi', ['stack', 'init', 'dev', '--non-interactive'], program, env);
      up = await run('pulumi', ['up', '--yes', '--non-interactive', '--color', 'never'], program, env, 480_000);
      const state = JSON.parse((await run('pulumi', ['stack', 'export'], program, env)).stdout);
      recorded = (state.deployment.resources as any[]).filter((r) => r.type.startsWith('kubernetes:'));
      outputs = JSON.parse((await run('pulumi', ['stack', 'output', '--json'], program, env)).stdout);
    });
    afterAll(async () => {
      await server?.stop();
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    /** The object as the API server has it now. */
    const live = async (o: any) => {
      const r = await server.request('GET', `${await cluster.collectionOf(o, '')}/${o.metadata.name}`);
      if (r.status !== 200) throw new Error(`${nameOf(o.kind, o.metadata)}: ${r.status} ${r.body?.message}`);
      return r.body;
    };
    const recordedOf = (kind: string) => recorded.filter((r) => r.outputs.kind === kind);

    // Expected on purpose: the programs come from PATH (ambient plugins), and the provider, labelled with the
    // module proxy's pseudo-version, is older than the release @pulumi/kubernetes asks for.
    test('pulumi up reports no error; its only warnings are the ambient programs and the provider\'s version', () => {
      expect(diagnostics(up.output, 'error')).toEqual([]);
      expect(diagnostics(up.output, 'warning')).toEqual([
        `resource plugin kubernetes is expected to have version >=${SDK['@pulumi/kubernetes']}, but has ${built['pulumi-resource-kubernetes'].version}; the wrong version may be on your path, or this may be a bug in the plugin`,
        `using pulumi-language-nodejs from $PATH at ${built['pulumi-language-nodejs'].file}`,
        `using pulumi-resource-kubernetes from $PATH at ${built['pulumi-resource-kubernetes'].file}`,
      ]);
      expect(up.output).toMatch(/Resources:\s+\+ 8 created/);
    });

    test('the stack records the example\'s objects', () => {
      expect(recorded.map((r) => nameOf(r.outputs.kind, r.outputs.metadata)).sort()).toEqual([
        'Deployment llama-stack/llama-stack',
        'DynamoGraphDeployment llama-stack/llama-8b',
        'Namespace llama-stack',
        'Service llama-stack/llama-stack-service',
        'ServiceAccount llama-stack/llama-stack-sa',
      ]);
    });

    test('the API server holds exactly the objects the stack records, each written by the provider', async () => {
      const onServer: string[] = [];
      const collections = new Set<string>();
      for (const r of recorded) collections.add(await cluster.collectionOf(r.outputs, ''));
      for (const collection of collections) {
        const list = await server.request('GET', collection);
        expect(list.status).toBe(200);
        const kind = (list.body.kind as string).replace(/List$/, '');
        onServer.push(...(list.body.items as any[]).filter(writtenByPulumi).map((o) => `${nameOf(kind, o.metadata)} ${o.metadata.uid}`));
      }
      expect(onServer.sort()).toEqual(recorded.map((r) => `${nameOf(r.outputs.kind, r.outputs.metadata)} ${r.outputs.metadata.uid}`).sort());
    });

    test('every field the program sent is stored as sent', async () => {
      for (const { inputs } of recorded) {
        expect(await live(inputs)).toMatchObject(inputs);
      }
    });

    test('the outputs name the live objects, which carry what the program chose', async () => {
      expect(outputs).toEqual({
        // The pod runs the merge image, which writes the init scripts: no ConfigMap of the construct's own.
        configMaps: [],
        modelIds: ['llama-8b/meta-llama/Llama-3.1-8B-Instruct'],
        modelUrl: 'http://llama-8b-frontend.llama-stack.svc.cluster.local:8000/v1',
        modelProvider: 'dynamo',
        modelSelectionReason: expect.stringMatching(/dynamo/),
        serviceName: 'llama-stack-service',
        servicePort: 8321,
      });
      const service = await live({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'llama-stack', name: outputs.serviceName } });
      expect(service.spec.ports.map((p: any) => p.port)).toEqual([outputs.servicePort]);

      const pod = (await live(recordedOf('Deployment')[0].inputs)).spec.template.spec;
      expect(pod.containers.map((c: any) => c.image)).toEqual(['docker.io/ogxai/distribution-starter:1.5.0']);
      // `providerTag` is not set in the stack's config: the program's default tag.
      expect(pod.initContainers.map((c: any) => c.image)).toEqual(expect.arrayContaining([
        'quay.io/acme/search-provider:0.3.0', 'ghcr.io/kube-inference/merge:0.1.0',
      ]));
      expect(pod.initContainers[0].args).toEqual(['write-init-scripts', '--sha256', initScriptsDigest(), '--dir', '/opt/llama-stack/scripts']);
      const dgd = await live(recordedOf('DynamoGraphDeployment')[0].inputs);
      expect(JSON.stringify(dgd.spec)).toContain('meta-llama/Llama-3.1-8B-Instruct');
    });
  });
