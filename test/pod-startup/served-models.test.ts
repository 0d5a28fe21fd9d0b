/**
 * A model served in the cluster, wired into a stack in one line (`models: [model.endpoint]`), run for
 * real: the model's Service leads to a real ogx 1.5.0 server serving the sample provider's `echo`
 * model over its OpenAI-compatible API — the stand-in for a GPU engine (vLLM, SGLang, Dynamo's
 * frontend, Ray Serve LLM), which cannot run here; it is real upstream code speaking the same API.
 * The stack under test runs each real server release (llama-stack 0.3.5 and 0.7.3, ogx 1.1.3 and
 * 1.5.0) in a pod of its own on the pod network: its built-in `remote::vllm` provider reaches the
 * model through the ModelDeployment's Service name, the model is listed as `<deployment>/<model>`,
 * and a chat completion through the stack is answered by the model server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { deploymentOf, LLAMA_STACK, LLAMA_STACK_RUN_YAML_ERA, OGX, OGX_BEFORE_TLS, renderStack, Scenario, starterImage } from './helpers';
import { ModelDeployment } from '../../src';
import { findRelease } from '../../src/run-config/releases';
import { describeWhen, firstUnsupported, sandboxSupport } from '../sandbox/host';
import { PodNetwork, podNetworkSupport } from '../sandbox/pod-network';
import { PodRun } from '../sandbox/pod-runner';
import { llamaStackEnv, testEnvsSupport } from '../sandbox/test-envs';
import { sampleProviderWheels, SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

const ECHO = 'registry.test/acme/echo-provider:0.1.0';
const SAMPLE_METADATA = readFileSync(join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8');
/** The releases the stack runs: the `url` key (0.3) and `base_url`, llama-stack and ogx. */
const STACK_SERVERS = [LLAMA_STACK_RUN_YAML_ERA, LLAMA_STACK, OGX_BEFORE_TLS, OGX] as const;

const support = firstUnsupported(sandboxSupport, podNetworkSupport, () => testEnvsSupport(...STACK_SERVERS.map((v) => llamaStackEnv(v))));

/** A Dynamo deployment whose frontend serves the model as `acme/echo` (`model.servedName`), in namespace `models`. */
function modelDeployment(): ModelDeployment {
  const chart = Testing.chart();
  return new ModelDeployment(chart, 'model', {
    metadata: { name: 'llama-8b', namespace: 'models' },
    provider: { name: 'dynamo' },
    model: { id: 'meta-llama/Llama-3.1-8B-Instruct', servedName: 'acme/echo' },
    engine: { type: 'vllm' },
    resources: { gpu: { count: 1 } },
  });
}

describeWhen('a ModelDeployment served through the stack (models: [model.endpoint]) on the real servers', support,
  'bubblewrap, a pod network (root, iproute2, iptables) and the llama-stack test environments', () => {
    let s: Scenario;
    let network: PodNetwork;
    let modelServer: PodRun;
    const model = modelDeployment();

    beforeAll(async () => {
      s = new Scenario('served-models');
      STACK_SERVERS.forEach((version) => s.distribution({}, starterImage(version), version));
      s.provider(ECHO, { metadata: SAMPLE_METADATA, wheels: sampleProviderWheels(s.path('wheels')) });
      network = PodNetwork.create();
      // The model server: ogx 1.5.0 serving the echo model as acme/echo, behind the Service the
      // ModelDeployment's endpoint names (Dynamo's operator creates `<name>-frontend`).
      const manifests = renderStack({
        name: 'model-server',
        distribution: { image: starterImage(OGX) },
        serverVersion: OGX,
        externalProviders: { inference: [{ providerId: 'acme', image: ECHO, config: { prefix: 'model server> ' } }] },
      });
      modelServer = await s.run(manifests, { serve: {}, network }, deploymentOf(manifests));
      if (modelServer.phase !== 'Running') throw new Error(`the model server did not come up:\n${modelServer.describe()}`);
      network.addService({
        metadata: { name: model.endpoint.service, namespace: 'models' },
        spec: { ports: [{ port: model.endpoint.port, targetPort: 8321 }] },
      }, modelServer.ip!);
    });
    afterAll(() => {
      s?.dispose();
      network?.dispose();
    });

    test('the endpoint names the Service, the model and the URL the stack reaches', () => {
      expect(model.endpoint).toMatchObject({
        name: 'llama-8b',
        model: 'acme/echo',
        service: 'llama-8b-frontend',
        port: 8000,
        namespace: 'models',
        url: 'http://llama-8b-frontend.models.svc.cluster.local:8000/v1',
      });
    });

    test.each(STACK_SERVERS)('%s: merged in the pod over the image\'s own config; listed as llama-8b/acme/echo and answered by the model server', async (version) => {
      const manifests = renderStack({ distribution: { image: starterImage(version) }, serverVersion: version, models: [model.endpoint] });
      const pod = await s.run(manifests, { serve: {}, network }, deploymentOf(manifests));
      if (pod.phase !== 'Running') throw new Error(`the stack did not come up:\n${pod.describe()}`);
      const release = findRelease(version)!;
      const merged = parse(pod.volumeFile('merged-config', release.configFileName));
      expect(merged.providers.inference.at(-1)).toEqual({
        provider_id: 'llama-8b',
        provider_type: 'remote::vllm',
        config: { [release.remoteVllmUrlKey]: 'http://llama-8b-frontend.models.svc.cluster.local:8000/v1', api_token: 'fake' },
      });
      const models = await pod.server!.request('GET', '/v1/models');
      expect(models.status).toBe(200);
      expect(JSON.stringify(models.body)).toContain('"llama-8b/acme/echo"');
      const answer = await pod.server!.request('POST', '/v1/chat/completions', { model: 'llama-8b/acme/echo', messages: [{ role: 'user', content: 'hello' }] });
      expect({ status: answer.status, content: answer.body?.choices?.[0]?.message?.content }).toEqual({ status: 200, content: 'model server> hello' });
      await pod.stop();
    });

    test('merged at synth time into an inline config (ogx 1.5.0): no merge step in the pod, the same answer', async () => {
      const manifests = renderStack({
        distribution: { image: starterImage(OGX) },
        serverVersion: OGX,
        userConfig: { config: { version: 2, distro_name: 'starter', apis: ['inference'], providers: { inference: [] }, server: { port: 8321 } } },
        models: [{ ...model.endpoint, providerId: 'dynamo' }],
      });
      const config = parse(manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'stack-config').data['config.yaml']);
      expect(config.registered_resources.models).toEqual([
        { model_id: 'acme/echo', provider_id: 'dynamo', provider_model_id: 'acme/echo', model_type: 'llm', metadata: {} },
      ]);
      const pod = await s.run(manifests, { serve: {}, network }, deploymentOf(manifests));
      if (pod.phase !== 'Running') throw new Error(`the stack did not come up:\n${pod.describe()}`);
      expect(pod.initContainers.map((c) => c.name)).not.toContain('merge-config');
      const answer = await pod.server!.request('POST', '/v1/chat/completions', { model: 'dynamo/acme/echo', messages: [{ role: 'user', content: 'again' }] });
      expect(answer.body?.choices?.[0]?.message?.content).toBe('model server> again');
      await pod.stop();
    });
  });
