// Level 2a (seed 002): a provider's service as a sidecar of the server's pod, as rendered. The objects
// rendered here also go through the real API servers (test/apiserver/rendered-by-tests.after.ts).
import { parse } from 'yaml';
import { errorOf, find, podSpec, render } from './helpers';
import { LlamaStackWithProvidersProps } from '../../src';

const VECTOR_METADATA = {
  apiVersion: 'llamastack.io/v1alpha1',
  kind: 'ProviderPackage',
  metadata: { name: 'acme-vectors', version: '1.0.0', vendor: 'acme' },
  spec: { packageName: 'acme_vectors', providerType: 'remote::acme_vectors', api: 'vector_io', wheelPath: '/lls-provider/packages/acme_vectors-1.0.0-py3-none-any.whl' },
};
const ECHO = 'quay.io/acme/echo-provider:0.1.0';
const VECTORS = 'quay.io/acme/vector-provider:1.0.0';

const props = (extra: Partial<LlamaStackWithProvidersProps> = {}): LlamaStackWithProvidersProps => ({
  distribution: { name: 'starter' },
  externalProviders: {
    inference: [
      { providerId: 'echo', image: ECHO, sidecar: {} },
      { providerId: 'inline-only', image: 'quay.io/acme/inline:1.0' },
    ],
    vectorIo: [{ providerId: 'vectors', image: VECTORS, imagePullPolicy: 'Always', config: { collection: 'docs' }, sidecar: { path: '/v1', resources: { requests: { cpu: '500m', memory: '1Gi' } } } }],
  },
  ...extra,
});

/** The provider entry the in-pod merge is given (the install container's PROVIDER_CRD_CONFIG). */
const crdConfigOf = (pod: any, key: string) => JSON.parse(pod.initContainers.find((c: any) => c.name === `install-provider-${key}`).env.find((e: any) => e.name === 'PROVIDER_CRD_CONFIG').value);

describe('native sidecars (Kubernetes 1.29 and later, the default)', () => {
  const pod = podSpec(render(props()));

  test('each runs after the installs and the merge as an init container that restarts: started before the server', () => {
    expect(pod.initContainers.map((c: any) => c.name)).toEqual([
      'inspect-distribution', 'install-provider-echo', 'install-provider-inline-only', 'install-provider-vectors', 'extract-distribution-config', 'merge-config',
      'provider-echo', 'provider-vectors',
    ]);
    expect(pod.containers.map((c: any) => c.name)).toEqual(['llama-stack']);
    const echo = pod.initContainers.find((c: any) => c.name === 'provider-echo');
    expect(echo).toEqual({
      name: 'provider-echo',
      image: ECHO,
      imagePullPolicy: 'IfNotPresent',
      restartPolicy: 'Always',
      env: [{ name: 'PROVIDER_PORT', value: '18000' }],
      ports: [{ name: 'p-18000', containerPort: 18000, protocol: 'TCP' }],
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true },
      startupProbe: { tcpSocket: { port: 'p-18000' }, periodSeconds: 1, failureThreshold: 120 },
      readinessProbe: { tcpSocket: { port: 'p-18000' }, periodSeconds: 10 },
      livenessProbe: { tcpSocket: { port: 'p-18000' }, periodSeconds: 10, failureThreshold: 3 },
    });
  });

  test('ports follow spec order from 18000; each adapter\'s config gets its service\'s address', () => {
    const vectors = pod.initContainers.find((c: any) => c.name === 'provider-vectors');
    expect(vectors).toMatchObject({ image: VECTORS, imagePullPolicy: 'Always', env: [{ name: 'PROVIDER_PORT', value: '18001' }], resources: { requests: { cpu: '500m', memory: '1Gi' } } });
    expect(crdConfigOf(pod, 'echo').config).toEqual({ url: 'http://localhost:18000' });
    expect(crdConfigOf(pod, 'vectors').config).toEqual({ collection: 'docs', url: 'http://localhost:18001/v1' });
    expect(crdConfigOf(pod, 'inline-only').config).toBeUndefined();
  });
});

test('the address reaches the config merged at synth time too, at the key asked for', () => {
  const manifests = render({
    distribution: { name: 'starter' },
    userConfig: { config: 'version: 2\napis: [vector_io]\nproviders: {}\n' },
    externalProviders: { vectorIo: [{ providerId: 'vectors', image: VECTORS, metadata: VECTOR_METADATA, sidecar: { port: 19000, configKey: 'endpoint' } }] },
  });
  const config = parse(find(manifests.filter((m) => m.metadata.name === 'stack-config'), 'ConfigMap').data['config.yaml']);
  expect(config.providers.vector_io).toEqual([expect.objectContaining({ provider_id: 'vectors', config: { endpoint: 'http://localhost:19000' } })]);
  expect(podSpec(manifests).initContainers.at(-1)).toMatchObject({ name: 'provider-vectors', env: [{ name: 'PROVIDER_PORT', value: '19000' }] });
});

test('before Kubernetes 1.29 (kubernetesVersion) sidecars are regular containers beside the server', () => {
  const pod = podSpec(render(props({ kubernetesVersion: 'v1.28.9' })));
  expect(pod.containers.map((c: any) => c.name)).toEqual(['llama-stack', 'provider-echo', 'provider-vectors']);
  expect(pod.containers[1].restartPolicy).toBeUndefined();
  expect(pod.initContainers.map((c: any) => c.name)).not.toContain('provider-echo');
  expect(podSpec(render(props({ kubernetesVersion: '1.30' }))).initContainers.at(-1).name).toBe('provider-vectors');
});

test('the command, args, env and probes given are the sidecar\'s; podReadyWithoutIt leaves out its readiness probe', () => {
  const sidecar = {
    command: ['python', '-m', 'acme_echo_service'],
    args: ['--workers', '2'],
    env: [{ name: 'LOG_LEVEL', value: 'debug' }],
    livenessProbe: { httpGet: { path: '/health', port: 18000 }, periodSeconds: 5 },
    podReadyWithoutIt: true,
  };
  const pod = podSpec(render({ distribution: { name: 'starter' }, externalProviders: { inference: [{ providerId: 'echo', image: ECHO, sidecar }] } }));
  const echo = pod.initContainers.find((c: any) => c.name === 'provider-echo');
  expect(echo).toMatchObject({ command: sidecar.command, args: sidecar.args, env: [{ name: 'PROVIDER_PORT', value: '18000' }, ...sidecar.env], livenessProbe: sidecar.livenessProbe });
  expect(echo.readinessProbe).toBeUndefined();
});

describe('refused at synth, naming the field', () => {
  const one = (sidecar: object, extra: Partial<LlamaStackWithProvidersProps> = {}, config?: object) => errorOf({
    distribution: { name: 'starter' },
    ...extra,
    externalProviders: { inference: [{ providerId: 'echo', image: ECHO, sidecar, config }, { providerId: 'other', image: ECHO, sidecar: { port: 18000 } }] },
  });

  test.each([
    ['the server\'s port', { port: 8321 }, {}, undefined, 'externalProviders.inference[0].sidecar.port: 8321 is already the server\'s port in this pod'],
    ['another sidecar\'s port', { port: 18000 }, {}, undefined, 'externalProviders.inference[1].sidecar.port: 18000 is already the sidecar of externalProviders.inference[0]\'s port'],
    ['a privileged port', { port: 80 }, {}, undefined, 'externalProviders.inference[0].sidecar.port: 80 is not a port the sidecar can listen on: expected an integer from 1024 to 65535'],
    ['an address key the config sets', {}, {}, { url: 'http://elsewhere' }, 'externalProviders.inference[0].config.url: is set, and the sidecar\'s address (http://localhost:18001) goes there'],
    ['a path without its slash', { path: 'v1' }, {}, undefined, 'externalProviders.inference[0].sidecar.path: \'v1\' must start with \'/\''],
    ['an unknown option', { prot: 19000 }, {}, undefined, 'externalProviders.inference[0].sidecar.prot'],
    ['a kubernetesVersion that is none', {}, { kubernetesVersion: 'latest' }, undefined, 'kubernetesVersion: \'latest\' is not a Kubernetes version'],
    ['the server container\'s name', {}, { containerName: 'provider-echo' }, undefined, 'containerName: \'provider-echo\' is the name of one of the pod\'s other containers'],
  ])('%s', (_, sidecar, extra, config, message) => {
    expect(one(sidecar, extra, config)).toContain(message);
  });
});
