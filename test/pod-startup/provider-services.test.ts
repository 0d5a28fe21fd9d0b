/**
 * Providers whose service part runs outside the server process, run for real: the sample provider's
 * image, built from its Containerfile, runs its service part as a sidecar of the real llama-stack 0.7.3
 * server's pod on a pod network (network namespaces and veth: test/sandbox/pod-network.ts), killed and
 * restarted, and as a regular container for clusters before native sidecars. A chat completion through
 * the server's route is answered by the service, whose completion id names the pod that answered
 * (`chatcmpl-<hostname>-…`). Inline, sidecar and service providers in one server of each release, and a
 * service's pods gone, are stories of the real cluster (test/cluster/llama-stack.test.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { deploymentOf, env, LLAMA_STACK, renderStack, Scenario } from './helpers';
import { buildSampleProviderImage } from './sample-provider-image';
import { ExternalProvider } from '../../src';
import { buildahSupport, removeImage } from '../sandbox/buildah';
import { describeWhen, firstUnsupported, sandboxSupport } from '../sandbox/host';
import { PodNetwork, podNetworkSupport } from '../sandbox/pod-network';
import { PodRun, runPod } from '../sandbox/pod-runner';
import { llamaStackEnv, testEnvsSupport } from '../sandbox/test-envs';

const IMAGE = `localhost/kic-test/acme-echo-provider:services-${process.pid}`;
const HEX = '[0-9a-f]{32}';
const SAMPLE_METADATA = path.relative(process.cwd(), path.join(__dirname, '..', '..', 'examples', 'sample-provider', 'lls-provider-spec.yaml'));

const support = firstUnsupported(sandboxSupport, buildahSupport, podNetworkSupport,
  () => testEnvsSupport(llamaStackEnv(LLAMA_STACK)));

describeWhen(`providers' service parts beside the real server (llama-stack ${LLAMA_STACK})`, support, 'bubblewrap, buildah, a pod network (root, iproute2, iptables) and the llama-stack test environments', () => {
  let s: Scenario;
  let network: PodNetwork;

  beforeAll(() => {
    s = new Scenario('provider-services');
    s.images[IMAGE] = buildSampleProviderImage(s, IMAGE);
    s.distribution();
    network = PodNetwork.create();
  });
  afterAll(() => {
    s?.dispose(); // its pods first: they leave the network
    network?.dispose();
    removeImage(IMAGE);
  });

  /** Runs a Deployment of the manifests on the pod network, serving; fails with the pod's account when it does not come up. */
  const serve = async (deployment: any, manifests: readonly any[]): Promise<PodRun> => {
    const pod = await s.run(manifests, { serve: {}, network, restartDelayMs: 100 }, deployment);
    if (pod.phase !== 'Running') throw new Error(`${deployment.metadata.name} did not come up:\n${pod.describe()}`);
    return pod;
  };
  const chat = (pod: PodRun, model: string, text: string) =>
    pod.server!.request('POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: text }] });
  const provider = (providerId: string, more: Partial<ExternalProvider> = {}): ExternalProvider =>
    ({ providerId, image: IMAGE, config: { prefix: `${providerId}> ` }, ...more });

  test('the service part refuses to start without a port to listen on', async () => {
    const pod = await runPod({ kind: 'Pod', metadata: { name: 'no-port' }, spec: { containers: [{ name: 'provider', image: IMAGE }] } }, { images: s.images, network });
    expect(pod.container('provider')).toMatchObject({ state: 'terminated', exitCode: 1 });
    expect(pod.container('provider').logs).toContain("PROVIDER_PORT must be a port number (1-65535), got ''");
    pod.dispose();
  });

  test('a sidecar answers through the server; killed, the server stays up and answers again once it is restarted', async () => {
    const manifests = renderStack({ externalProviders: { inference: [provider('acme-sidecar', { sidecar: {} })] } });
    const pod = await serve(deploymentOf(manifests), manifests);
    // A native sidecar: started, and its startup probe passed, before the server started.
    const sidecar = pod.container('provider-acme-sidecar');
    expect(sidecar).toMatchObject({ kind: 'init', state: 'running', restartCount: 0 });
    expect(sidecar.readyAtMs!).toBeLessThan(pod.container('llama-stack').startedAtMs!);

    const answer = await chat(pod, 'acme-sidecar/echo', 'hello   sidecar');
    expect(answer.status).toBe(200);
    expect(answer.body.choices[0].message.content).toBe('acme-sidecar> hello sidecar');
    expect(answer.body.id).toMatch(new RegExp(`^chatcmpl-stack-${HEX}$`)); // answered in the server's pod

    await pod.kill('provider-acme-sidecar');
    const down = await chat(pod, 'acme-sidecar/echo', 'anyone?');
    // llama-stack 0.7 answers a provider's ConnectionError with 502 (llama_stack/core/exceptions/mapping.py).
    expect(down).toMatchObject({ status: 502, body: { error: { message: expect.stringContaining('acme-echo: the service at http://localhost:18000/v1 did not answer: ') } } });
    expect((await pod.server!.request('GET', '/v1/health')).body).toEqual({ status: 'OK' });

    expect(await pod.restarted('provider-acme-sidecar')).toMatchObject({ state: 'running', restartCount: 1, lastState: { exitCode: 137 } });
    const again = await chat(pod, 'acme-sidecar/echo', 'back again');
    expect(again.status).toBe(200);
    expect(again.body.choices[0].message.content).toBe('acme-sidecar> back again');
    expect(pod.container('llama-stack')).toMatchObject({ state: 'running' });
    expect(pod.server!.logs()).toContain('did not answer');
    await pod.stop();
  });

  test('before native sidecars (kubernetesVersion 1.28): a regular container, and the server starts beside it; merged at synth time', async () => {
    // The metadata and the base config given: the config is merged at synth time, the address at the key
    // and path the metadata names (the other tests merge in the pod, from the image's metadata).
    const manifests = renderStack({
      kubernetesVersion: '1.28',
      userConfig: { config: fs.readFileSync(env().starterConfig, 'utf8') },
      externalProviders: { inference: [provider('acme-sidecar', { sidecar: {}, metadataFile: SAMPLE_METADATA })] },
    });
    const merged = parse(manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === 'stack-config').data['config.yaml']);
    expect(merged.providers.inference.find((p: any) => p.provider_id === 'acme-sidecar').config).toEqual({ prefix: 'acme-sidecar> ', url: 'http://localhost:18000/v1' });
    const pod = await serve(deploymentOf(manifests), manifests);
    expect(pod.initContainers.map((c) => c.name)).not.toContain('merge-config');
    expect(pod.container('provider-acme-sidecar')).toMatchObject({ kind: 'main', state: 'running' });
    // The server may be up before the sidecar answers: ask until it does.
    let answer = await chat(pod, 'acme-sidecar/echo', 'old cluster');
    for (let i = 0; i < 50 && answer.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await chat(pod, 'acme-sidecar/echo', 'old cluster');
    }
    expect(answer.body.choices[0].message.content).toBe('acme-sidecar> old cluster');
    await pod.stop();
  });
});
