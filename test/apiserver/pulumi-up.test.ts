/**
 * examples/pulumi-app deployed with the real Pulumi CLI: a copy of the program, with the packed library
 * and the Pulumi SDK and Kubernetes package from the npm registry, goes through `pulumi up` (local file
 * backend, throw-away PULUMI_HOME) against the real API server of the newest minor tested; then every
 * Kubernetes object the stack recorded is read back through the API server (the objects carry one addition,
 * `pulumi.com/skipAwait`: see ENTRY). The CLI, its language host and the Kubernetes provider are built from
 * the Go module proxy (test/pulumi-cli/pulumi-program.ts).
 *
 * Nothing is destroyed: the API server, which runs no garbage collector, would never finish a Foreground
 * delete; it is thrown away with everything on it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster } from './cluster';
import { ApiServer, apiServerSupport, apiServerVersion, NEWEST_TESTED_MINOR } from './server';
import { initScriptsDigest } from '../../src/llama-stack/scripts';
import { Built, builtPrograms, diagnostics, installProgram, newStack, pulumiSupport, Ran, run, SDK } from '../pulumi-cli/pulumi-program';
import { describeWhen, SandboxSupport } from '../sandbox/host';

const MINOR = NEWEST_TESTED_MINOR;
const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'pulumi-app');

const programs = builtPrograms();

/** For `describeWhen`: the API server, the three programs and the npm registry, checked in that order. */
function support(): SandboxSupport {
  const server = apiServerSupport(MINOR);
  if (!server.ok) return server;
  return pulumiSupport(programs);
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
      const program = await installProgram(work, EXAMPLE, { 'skip-await.ts': ENTRY }, 'skip-await.ts');
      const env = await newStack(built, work, program, server.kubeconfig());
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
