// Level 2b (seed 002): a provider's service in pods of its own, as rendered. The objects rendered here
// also go through the real API servers (test/apiserver/rendered-by-tests.after.ts).
import { errorOf, podSpec, render } from './helpers';
import { LlamaStackWithProvidersProps } from '../../src';
import { providerServiceName } from '../../src/llama-stack/providers/service';

const VECTORS = 'quay.io/acme/vector-provider:1.0.0';

const props = (service: object = {}, extra: Partial<LlamaStackWithProvidersProps> = {}): LlamaStackWithProvidersProps => ({
  distribution: { name: 'starter' },
  namespace: 'ai',
  labels: { team: 'search' },
  externalProviders: { vectorIo: [{ providerId: 'vectors', image: VECTORS, config: { collection: 'docs' }, service }] },
  ...extra,
});

const named = (manifests: any[], kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);
const crdConfigOf = (pod: any, key: string) => JSON.parse(pod.initContainers.find((c: any) => c.name === `install-provider-${key}`).env.find((e: any) => e.name === 'PROVIDER_CRD_CONFIG').value);

describe('a provider\'s service in its own Deployment and Service', () => {
  const manifests = render(props({ replicas: 2, path: '/v1', resources: { requests: { cpu: '2', memory: '4Gi' } } }));
  const labels = {
    'team': 'search',
    'app.kubernetes.io/name': 'llama-stack-provider',
    'app.kubernetes.io/instance': 'stack-vectors',
    'app.kubernetes.io/component': 'provider-service',
    'app.kubernetes.io/managed-by': 'kube-inference-constructs',
    'kube-inference.io/server': 'stack',
  };
  const selector = { 'app.kubernetes.io/name': 'llama-stack-provider', 'app.kubernetes.io/instance': 'stack-vectors' };

  test('a Deployment `<server>-<provider key>` runs the provider\'s image as the server\'s pods run, its port as PROVIDER_PORT', () => {
    const deployment = named(manifests, 'Deployment', 'stack-vectors');
    expect(deployment.metadata).toEqual({ name: 'stack-vectors', namespace: 'ai', labels });
    expect(deployment.spec).toMatchObject({ replicas: 2, selector: { matchLabels: selector }, template: { metadata: { labels } } });
    const pod = deployment.spec.template.spec;
    expect(pod).toMatchObject({
      serviceAccountName: 'stack-vectors-sa',
      automountServiceAccountToken: false,
      securityContext: { runAsUser: 1001, runAsGroup: 1001, fsGroup: 1001, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    });
    expect(pod.containers).toEqual([{
      name: 'provider',
      image: VECTORS,
      imagePullPolicy: 'IfNotPresent',
      env: [{ name: 'PROVIDER_PORT', value: '8080' }],
      ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
      resources: { requests: { cpu: '2', memory: '4Gi' } },
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true },
      readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 10 },
      livenessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 10, failureThreshold: 3 },
    }]);
    expect(named(manifests, 'ServiceAccount', 'stack-vectors-sa').metadata.labels).toEqual(labels);
  });

  test('a Service in front of it, whose address the merge is given for the adapter; only the server\'s pods may call it', () => {
    expect(named(manifests, 'Service', 'stack-vectors').spec).toEqual({ selector, ports: [{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }] });
    expect(crdConfigOf(podSpec(manifests), 'vectors')).toMatchObject({
      config: { collection: 'docs' }, serviceAddress: { mode: 'service', base: 'http://stack-vectors:8080', path: '/v1' },
    });
    expect(named(manifests, 'NetworkPolicy', 'stack-vectors').spec).toEqual({
      podSelector: { matchLabels: selector },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'llama-stack', 'app.kubernetes.io/instance': 'stack' } } }], ports: [{ protocol: 'TCP', port: 8080 }] }],
    });
  });

  test('the server\'s pod has no sidecar for it', () => {
    const pod = podSpec(manifests);
    expect([...pod.initContainers, ...pod.containers].map((c: any) => c.name)).not.toContain('provider-vectors');
  });
});

test('a service account given is used, none made; the port, probes and config key given are the service\'s', () => {
  const readinessProbe = { httpGet: { path: '/ready', port: 'http' } };
  const manifests = render(props({ port: 9090, serviceAccountName: 'vectors', configKey: 'endpoint', readinessProbe }));
  expect(manifests.filter((m) => m.kind === 'ServiceAccount').map((m) => m.metadata.name)).toEqual(['stack-sa']);
  const container = named(manifests, 'Deployment', 'stack-vectors').spec.template.spec.containers[0];
  expect(container).toMatchObject({ env: [{ name: 'PROVIDER_PORT', value: '9090' }], ports: [{ containerPort: 9090 }], readinessProbe });
  expect(crdConfigOf(podSpec(manifests), 'vectors').serviceAddress).toEqual({ mode: 'service', base: 'http://stack-vectors:9090', configKey: 'endpoint' });
});

test('removing the provider removes its objects: nothing stale is rendered', () => {
  const without = render({ ...props(), externalProviders: {} });
  expect(without.filter((m) => m.metadata.labels?.['kube-inference.io/server'] === 'stack')).toEqual([]);
});

test('a name too long for a Service is shortened with a hash, still a DNS-1035 label', () => {
  const name = providerServiceName('a'.repeat(55), 'b'.repeat(20));
  expect(name).toHaveLength(63);
  expect(name).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
  expect(providerServiceName('a'.repeat(55), 'b'.repeat(20))).toBe(name);
  expect(providerServiceName('a'.repeat(55), 'c'.repeat(20))).not.toBe(name);
});

test.each([
  ['a privileged port', { port: 443 }, 'externalProviders.vectorIo[0].service.port: 443 is not a port the service can listen on'],
  ['negative replicas', { replicas: -1 }, 'externalProviders.vectorIo[0].service.replicas: -1 is not a replica count: expected a whole number ≥ 0.'],
  ['an address key the config sets', { configKey: 'collection' },
    'externalProviders.vectorIo[0].config.collection: config.collection is set, and the service\'s address (http://stack-vectors:8080) goes to that key (service.configKey)'],
  ['a service account that is not a name', { serviceAccountName: 'Bad SA' }, 'externalProviders.vectorIo[0].service.serviceAccountName'],
  ['an unknown option', { replica: 2 }, 'externalProviders.vectorIo[0].service.replica'],
])('refused at synth: %s', (_, service, message) => {
  expect(errorOf(props(service))).toContain(message);
});

test('a sidecar and a service for one provider are refused', () => {
  expect(errorOf({ distribution: { name: 'starter' }, externalProviders: { vectorIo: [{ providerId: 'vectors', image: VECTORS, sidecar: {}, service: {} }] } }))
    .toContain('externalProviders.vectorIo[0]: provider \'vectors\' has both a sidecar and a service: its service runs in one place; keep one of them.');
});
