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
      'write-init-scripts', 'inspect-distribution', 'install-provider-echo', 'install-provider-inline-only', 'install-provider-vectors', 'extract-distribution-config',
      'merge-config', 'provider-echo', 'provider-vectors',
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

  test('ports follow spec order from 18000; each merge is given its service\'s address beside the config', () => {
    const vectors = pod.initContainers.find((c: any) => c.name === 'provider-vectors');
    expect(vectors).toMatchObject({ image: VECTORS, imagePullPolicy: 'Always', env: [{ name: 'PROVIDER_PORT', value: '18001' }], resources: { requests: { cpu: '500m', memory: '1Gi' } } });
    // The merge writes it into the config at the key the metadata names (only known in the pod), else url.
    expect(crdConfigOf(pod, 'echo')).toMatchObject({ serviceAddress: { mode: 'sidecar', base: 'http://localhost:18000' } });
    expect(crdConfigOf(pod, 'echo').config).toBeUndefined();
    expect(crdConfigOf(pod, 'vectors')).toMatchObject({ config: { collection: 'docs' }, serviceAddress: { mode: 'sidecar', base: 'http://localhost:18001', path: '/v1' } });
    expect(crdConfigOf(pod, 'inline-only').serviceAddress).toBeUndefined();
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

describe('the address\'s key and path at synth time: the props\', else the metadata\'s, else url', () => {
  const merged = (sidecar: object, serviceAddress?: object) => {
    const metadata = { ...VECTOR_METADATA, spec: { ...VECTOR_METADATA.spec, ...(serviceAddress ? { serviceAddress } : {}) } };
    const manifests = render({
      distribution: { name: 'starter' },
      userConfig: { config: 'version: 2\napis: [vector_io]\nproviders: {}\n' },
      externalProviders: { vectorIo: [{ providerId: 'vectors', image: VECTORS, metadata, config: { collection: 'docs' }, sidecar }] },
    });
    return parse(find(manifests.filter((m) => m.metadata.name === 'stack-config'), 'ConfigMap').data['config.yaml']).providers.vector_io[0].config;
  };

  test.each([
    ['neither names them', {}, undefined, { url: 'http://localhost:18000' }],
    ['the metadata names them', {}, { configKey: 'endpoint', path: '/v1' }, { endpoint: 'http://localhost:18000/v1' }],
    ['the props name them, over the metadata', { configKey: 'base_url', path: '/v2' }, { configKey: 'endpoint', path: '/v1' }, { base_url: 'http://localhost:18000/v2' }],
    ['the metadata names the path, the props the key', { configKey: 'base_url' }, { path: '/v1' }, { base_url: 'http://localhost:18000/v1' }],
  ])('%s', (_, sidecar, serviceAddress, address) => {
    expect(merged(sidecar, serviceAddress)).toEqual({ collection: 'docs', ...address });
  });

  test('a config that sets the metadata\'s key is refused, naming the provider, the key and who chose it', () => {
    const message = errorOf({
      distribution: { name: 'starter' },
      externalProviders: {
        vectorIo: [{
          providerId: 'vectors',
          image: VECTORS,
          config: { endpoint: 'x' },
          sidecar: {},
          metadata: { ...VECTOR_METADATA, spec: { ...VECTOR_METADATA.spec, serviceAddress: { configKey: 'endpoint' } } },
        }],
      },
    });
    expect(message).toContain('externalProviders.vectorIo[0]: Provider config sets the key its service\'s address goes to (provider \'vectors\'');
    expect(message).toContain('config.endpoint is set, and the sidecar\'s address (http://localhost:18000) goes to that key (spec.serviceAddress.configKey of the provider\'s metadata).');
    expect(message).toContain('remove config.endpoint, or name another key with sidecar.configKey.');
  });

  test('without the metadata, a config that leaves url free is taken: the metadata in the pod may name url or not', () => {
    expect(() => render(props({ externalProviders: { inference: [{ providerId: 'echo', image: ECHO, config: { url: 'x' }, sidecar: {} }] } }))).not.toThrow();
  });
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
    // As cdk8s's typed imports write a port: the rendered probe holds the number.
    livenessProbe: { httpGet: { path: '/health', port: 18000 }, periodSeconds: 5 },
    podReadyWithoutIt: true,
  };
  const pod = podSpec(render({ distribution: { name: 'starter' }, externalProviders: { inference: [{ providerId: 'echo', image: ECHO, sidecar }] } }));
  const echo = pod.initContainers.find((c: any) => c.name === 'provider-echo');
  expect(echo).toMatchObject({ command: sidecar.command, args: sidecar.args, env: [{ name: 'PROVIDER_PORT', value: '18000' }, ...sidecar.env] });
  expect(echo.livenessProbe).toEqual({ httpGet: { path: '/health', port: 18000 }, periodSeconds: 5 });
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
    ['a port above 65535', { port: 70000 }, {}, undefined, 'externalProviders.inference[0].sidecar.port: 70000 is not a port the sidecar can listen on: expected an integer from 1024 to 65535'],
    ['a port that is no integer', { port: 18000.5 }, {}, undefined, 'externalProviders.inference[0].sidecar.port: expected an integer, got'],
    ['an address key named that the config sets', { configKey: 'url' }, {}, { url: 'http://elsewhere' },
      'externalProviders.inference[0].config.url: config.url is set, and the sidecar\'s address (http://localhost:18001) goes to that key (sidecar.configKey): '
      + 'remove config.url, or name another key with sidecar.configKey.'],
    ['an address key that is no identifier', { configKey: 'a b' }, {}, undefined,
      'externalProviders.inference[0].sidecar.configKey: \'a b\' is not usable: expected a key of the provider\'s config: a Python identifier such as url or base_url;'],
    ['a path without its slash', { path: 'v1' }, {}, undefined, 'externalProviders.inference[0].sidecar.path: \'v1\' is not usable: expected a URL path from \'/\''],
    ['a path with a query', { path: '/v1?x=1' }, {}, undefined, 'externalProviders.inference[0].sidecar.path: \'/v1?x=1\' is not usable'],
    ['an unknown option', { prot: 19000 }, {}, undefined, 'externalProviders.inference[0].sidecar.prot'],
    ['a kubernetesVersion that is none', {}, { kubernetesVersion: 'latest' }, undefined, 'kubernetesVersion: \'latest\' is not a Kubernetes version'],
    ['the server container\'s name', {}, { containerName: 'provider-echo' }, undefined, 'containerName: \'provider-echo\' is the name of one of the pod\'s other containers'],
  ])('%s', (_, sidecar, extra, config, message) => {
    expect(one(sidecar, extra, config)).toContain(message);
  });
});
