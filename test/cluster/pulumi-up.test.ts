/**
 * `pulumi up` of a Pulumi program with the LlamaStackWithProviders component, on the real single-node
 * cluster: the real Pulumi CLI, its language host and Kubernetes provider (test/pulumi-cli/pulumi-program.ts),
 * with none of the `skipAwait` the bare API server needs (test/apiserver/pulumi-up.test.ts). The provider's
 * own await logic waits for the rollout on a real kubelet: `pulumi up` returns when the server's Deployment is
 * available, and its Service answers a chat through the sample provider. A changed user ConfigMap of the
 * program, `pulumi up` again, with the provider's defaults: the ConfigMap is replaced (the provider treats
 * its data as immutable) and the Deployment with it, the Service and ServiceAccount are left alone, and the
 * new pod serves the new config; with the provider's `enableConfigMapMutable`, both are updated in place.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { clusterSupport, KubeCluster } from './cluster';
import { request } from './http';
import { clusterImagesSupport, distributionImageOf, loadServerImages, SAMPLE_PROVIDER_IMAGE } from './images';
import { SERVER_CONFIG } from './server-stack';
import { OGX } from '../pod-startup/helpers';
import { Built, builtPrograms, diagnostics, installProgram, newStack, pulumiSupport, run } from '../pulumi-cli/pulumi-program';
import { describeWhen, firstUnsupported } from '../sandbox/host';
import { llamaStackEnv, testEnvsSupport } from '../sandbox/test-envs';

const NAMESPACE = 'pulumi-stories';
const programs = builtPrograms();
const env = llamaStackEnv(OGX);

/** The program (index.ts); the test writes the inputs it reads. */
const PROGRAM = `// The cluster stories' server as a Pulumi program (test/cluster/pulumi-up.test.ts): the Pulumi component
// LlamaStackWithProviders with the sample provider in the server's process, the user's config a
// ConfigMap of the program (so that changing it rolls the pods), in a namespace enforcing Pod Security
// \`restricted\`. The test writes inputs.json: the images built for the cluster and the config.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as k8s from '@pulumi/kubernetes';
import { LlamaStackWithProviders } from 'kube-inference-constructs/pulumi';

interface Inputs {
  readonly namespace: string;
  readonly image: string;
  readonly serverVersion: string;
  readonly providerImage: string;
  /** The user's config, as YAML. */
  readonly config: string;
}
const inputs = JSON.parse(fs.readFileSync(path.join(__dirname, 'inputs.json'), 'utf8')) as Inputs;

const namespace = new k8s.core.v1.Namespace('stories', {
  metadata: { name: inputs.namespace, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
});
const userConfig = new k8s.core.v1.ConfigMap('user-config', {
  metadata: { namespace: namespace.metadata.name, name: 'server-user-config' },
  data: { 'config.yaml': inputs.config },
});
const server = new LlamaStackWithProviders('server', {
  namespace: namespace.metadata.name,
  distribution: { image: inputs.image },
  serverVersion: inputs.serverVersion,
  userConfig: { configMap: userConfig },
  externalProviders: { inference: [{ providerId: 'acme-echo', image: inputs.providerImage, config: { prefix: 'pulumi> ' } }] },
});

export const serviceName = server.serviceName;
export const servicePort = server.servicePort;
`;

describeWhen(`pulumi up of LlamaStackWithProviders on a real cluster (ogx ${OGX})`,
  firstUnsupported(clusterSupport, clusterImagesSupport, () => testEnvsSupport(env), () => pulumiSupport(programs)),
  'the single-node cluster, the ogx test environment, the Pulumi CLI, language host and Kubernetes provider, and the npm registry', () => {
    let cluster: KubeCluster;
    let work: string;
    let program: string;
    let pulumi: NodeJS.ProcessEnv;

    /** Writes the program's inputs with the user's `config` and runs `pulumi up`; returns what it printed. */
    const up = async (config: object) => {
      fs.writeFileSync(path.join(program, 'inputs.json'), JSON.stringify({
        namespace: NAMESPACE, image: distributionImageOf(OGX), serverVersion: OGX, providerImage: SAMPLE_PROVIDER_IMAGE, config: stringify(config),
      }));
      return (await run('pulumi', ['up', '--yes', '--non-interactive', '--color', 'never'], program, pulumi, 900_000)).output;
    };
    const deployment = () => cluster.get(['deployment', 'server', '-n', NAMESPACE]);
    const chat = async (model: string, text: string) => {
      const service = cluster.get(['service', 'server-service', '-n', NAMESPACE]);
      return request(`http://${service.spec.clusterIP}:${service.spec.ports[0].port}/v1/chat/completions`, { model, messages: [{ role: 'user', content: text }] });
    };

    /** The uids of the Service, ServiceAccount, Deployment and user ConfigMap: a replaced object has a new one. */
    const uids = () => ['service/server-service', 'serviceaccount/server-sa', 'deployment/server', 'configmap/server-user-config']
      .map((o) => cluster.get([o, '-n', NAMESPACE]).metadata.uid);
    /** The user's config registering the provider's echo model as `modelId`; ogx 1.5 prefixes it with the provider's id. */
    const registering = (modelId: string) => ({
      ...SERVER_CONFIG, registered_resources: { models: [{ model_id: modelId, provider_id: 'acme-echo', provider_model_id: 'echo', model_type: 'llm' }] },
    });
    /**
     * The answer of the new pod through the Service. Its endpoints follow the rollout a moment later (the
     * EndpointSlice controller, then kube-proxy): right after `pulumi up` returned, the Service once refused
     * the connection here.
     */
    const chatOnceServing = (model: string, text: string) => cluster.waitFor('the new pod answering through the Service', async () => {
      const a = await chat(model, text);
      if (a.status !== 200) throw new Error(`${a.status} ${JSON.stringify(a.body)}`);
      return a.body.choices[0].message.content as string;
    }, 60_000);

    beforeAll(async () => {
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-cluster-pulumi-'));
      program = await installProgram(work, path.join(__dirname, 'pulumi-server'), { 'index.ts': PROGRAM }, 'index.ts');
      cluster = await KubeCluster.start();
      loadServerImages(cluster, [{ install: env.value!, version: OGX }]);
      pulumi = await newStack(programs as Built, work, program, cluster.kubeconfig);
    });
    afterAll(async () => {
      await cluster?.stop();
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    test('pulumi up returns once the server is available, and its Service answers through the provider', async () => {
      const output = await up(SERVER_CONFIG);
      expect(diagnostics(output, 'error')).toEqual([]);
      // Read as `pulumi up` returned: the provider waited for the rollout, no test did.
      const status = deployment().status;
      expect(status).toMatchObject({ availableReplicas: 1, updatedReplicas: 1 });
      const answer = await chat('acme-echo/echo', 'hello   pulumi');
      expect(answer).toMatchObject({ status: 200 });
      expect(answer.body.choices[0].message.content).toBe('pulumi> hello pulumi');
    });

    test('a changed user ConfigMap of the program, pulumi up again: the ConfigMap and the Deployment are replaced, the Service and '
      + 'ServiceAccount left alone; pulumi up returns with the new pod serving', async () => {
      const hash = (d: any) => d.spec.template.metadata.annotations['kube-inference.io/configmaps-hash'];
      const before = deployment();
      const [service, account] = uids();
      const output = await up(registering('greeter'));
      expect(diagnostics(output, 'error')).toEqual([]);
      // The Kubernetes provider replaces a ConfigMap whose data changed (pulumi-kubernetes#1567), a named
      // one deleted first. The engine then replaces each dependent whose replace-triggering property comes
      // from the ConfigMap's outputs, a whole top-level property at a time: the Deployment's `spec` (its
      // config volume and hash annotation), which holds the immutable `selector`. Nothing else depends on
      // the ConfigMap (DeferredValues.substitute): the Service and ServiceAccount, which did before, are
      // left alone. (`enableConfigMapMutable` updates both in place instead: docs/llama-stack-operator.md.)
      const touched = new Set(output.split('\n').map((l) => /\s(kubernetes:\S+)\s+(\S+)/.exec(l)).filter((m) => m !== null).map((m) => `${m![1]} ${m![2]}`));
      expect([...touched].sort()).toEqual(['kubernetes:apps/v1:Deployment server-deployment-server', 'kubernetes:core/v1:ConfigMap user-config']);
      expect(output.slice(output.indexOf('Updating ('))).toMatch(/\+-2 replaced\s+5 unchanged/);
      const [serviceAfter, accountAfter] = uids();
      expect([serviceAfter, accountAfter]).toEqual([service, account]);
      const after = deployment();
      expect(hash(after)).not.toBe(hash(before));
      expect(after.status).toMatchObject({ availableReplicas: 1, updatedReplicas: 1, observedGeneration: after.metadata.generation });
      expect(await chatOnceServing('acme-echo/greeter', 'hello again')).toBe('pulumi> hello again');
    });

    test('with the provider\'s enableConfigMapMutable, a changed user ConfigMap updates it and the Deployment in place, and rolls the pod', async () => {
      await run('pulumi', ['config', 'set', 'kubernetes:enableConfigMapMutable', 'true'], program, pulumi);
      const before = uids();
      const output = await up(registering('greeter-2'));
      expect(diagnostics(output, 'error')).toEqual([]);
      const update = output.slice(output.indexOf('Updating ('));
      expect(update).toMatch(/~ 2 updated\s+5 unchanged/);
      expect(update).not.toMatch(/replac/);
      expect(uids()).toEqual(before);
      expect(await chatOnceServing('acme-echo/greeter-2', 'in place')).toBe('pulumi> in place');
    });
  });
