/**
 * LlamaStackWithProviders on the real single-node cluster: what the construct renders is applied with
 * server-side apply into a namespace that enforces Pod Security `restricted`, the kubelet runs its init
 * containers in order in the real images (the merge image built from this repository, the sample
 * provider's image from its Containerfile, the real ogx server from PyPI in a distribution image laid out
 * as upstream's), the Deployment becomes available through its readiness probe, and the server answers
 * through its Service: health, the provider listed, a chat completion through the sample provider.
 */
import * as http from 'node:http';
import { Testing } from 'cdk8s';
import { clusterSupport, KubeCluster } from './cluster';
import { clusterImagesSupport, distributionServerImage, mergeImageNamed, sampleProviderImage } from './images';
import { LlamaStackWithProviders } from '../../src';
import { defaultMergeImage } from '../../src/run-config/merge-image';
import { OGX } from '../pod-startup/helpers';
import { describeWhen, firstUnsupported } from '../sandbox/host';
import { venvBasePython } from '../sandbox/images';
import { llamaStackEnv, testEnvsSupport } from '../sandbox/test-envs';

const NAMESPACE = 'llama-stack';
/** The provider image as the providers' docs name it (examples/sample-provider). */
const ECHO = 'quay.io/acme/acme-echo-provider:0.1.0';
/** The distribution image of the real ogx server; its tag names the release, as upstream's do. */
const DISTRIBUTION = `localhost/kube-inference-tests/ogx-distribution-starter:${OGX}`;

/** One request to the server through its Service's ClusterIP; the body parsed as JSON. */
function request(url: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, {
      method: payload ? 'POST' : 'GET',
      agent: false,
      timeout: 120_000,
      headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {},
    }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject).on('timeout', () => req.destroy(new Error(`no answer from ${url} in 120 s`)));
    req.end(payload);
  });
}

const env = llamaStackEnv(OGX);
describeWhen(`LlamaStackWithProviders on a real cluster (ogx ${OGX})`, firstUnsupported(clusterSupport, clusterImagesSupport, () => testEnvsSupport(env)),
  'the single-node cluster, debootstrap and the ogx test environment', () => {
    let cluster: KubeCluster;
    let base: string;

    // The images in a hook of their own, before the apply's (cold, the Debian base comes from the mirror).
    beforeAll(async () => {
      cluster = await KubeCluster.start();
      const install = env.value!;
      for (const image of [
        distributionServerImage(DISTRIBUTION, install),
        sampleProviderImage(ECHO, venvBasePython(install.venv)),
        mergeImageNamed(defaultMergeImage()),
      ]) cluster.loadImage(image);
    });

    beforeAll(async () => {
      const chart = Testing.chart();
      new LlamaStackWithProviders(chart, 'stack', {
        name: 'llama-stack',
        distribution: { image: DISTRIBUTION },
        serverVersion: OGX,
        // The distribution's own config serves sentence-transformers, which needs torch, left out of this
        // image (test/cluster/images.ts): a config of the user's with the inference API only.
        userConfig: { config: { version: 2, distro_name: 'starter', apis: ['inference'], providers: { inference: [] }, server: { port: 8321 } } },
        externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO, config: { prefix: '> ' } }] },
      });
      const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } };
      cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], [namespace, ...Testing.synth(chart)].map((o) => JSON.stringify(o)).join('\n'));
      await cluster.waitFor('the server\'s Deployment available', () => {
        const d = cluster.get(['deployment', 'llama-stack', '-n', NAMESPACE]);
        return d.status?.availableReplicas === 1 ? d : undefined;
      }, 480_000, ['describe', 'pods', '-n', NAMESPACE]);
      const service = cluster.get(['service', 'llama-stack-service', '-n', NAMESPACE]);
      base = `http://${service.spec.clusterIP}:${service.spec.ports[0].port}`;
      // kube-proxy writes the Service's rules a moment after the endpoint became ready.
      await cluster.waitFor('the server answering through its Service', () => request(`${base}/v1/health`), 120_000,
        ['get', 'endpointslices', '-n', NAMESPACE, '-o', 'yaml']);
    });

    afterAll(async () => {
      await cluster?.stop();
    });

    test('the init containers ran in order in their images, each once, and the server started', () => {
      const pod = cluster.get(['pods', '-n', NAMESPACE, '-l', 'app.kubernetes.io/instance=llama-stack']).items[0];
      expect(pod.status.initContainerStatuses.map((c: any) => `${c.name}:${c.state.terminated?.reason}:${c.restartCount}`)).toEqual([
        'write-init-scripts:Completed:0', 'inspect-distribution:Completed:0', 'install-provider-acme-echo:Completed:0', 'merge-config:Completed:0',
      ]);
      expect(pod.status.containerStatuses.map((c: any) => `${c.name}:${c.ready}`)).toEqual(['ogx:true']);
      expect(cluster.kubectl(['logs', '-n', NAMESPACE, pod.metadata.name, '-c', 'ogx'])).toContain('Preflight passed: 1 external provider(s) ready');
    });

    test('the server answers through its Service: health, the provider, a chat completion through it', async () => {
      expect(await request(`${base}/v1/health`)).toEqual({ status: 200, body: { status: 'OK' } });
      const providers = (await request(`${base}/v1/providers`)).body.data as any[];
      expect(providers.filter((p) => p.provider_id === 'acme-echo').map((p) => p.provider_type)).toEqual(['remote::acme-echo']);
      const chat = await request(`${base}/v1/chat/completions`, { model: 'acme-echo/echo', messages: [{ role: 'user', content: 'hello   cluster' }] });
      expect(chat.status).toBe(200);
      expect(chat.body.choices[0].message).toMatchObject({ role: 'assistant', content: '> hello cluster' });
    });
  });
