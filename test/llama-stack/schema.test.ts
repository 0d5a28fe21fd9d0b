import { render, THREE_PROVIDERS } from './helpers';
import { ManifestValidator } from '../../src/schema/manifest-validator';

// Every object the construct renders, across the shapes it can take, must be valid against the
// Kubernetes OpenAPI schema of its kind.
const validator = ManifestValidator.withVendoredCrds();
const CASES: Record<string, Parameters<typeof render>[0]> = {
  'plain server': { distribution: { name: 'starter' } },
  'inline config and a persistent claim': { distribution: { name: 'starter' }, userConfig: { config: { version: 2 } }, storage: { size: '5Gi' } },
  'providers merged in the pod': THREE_PROVIDERS,
  'providers with a user ConfigMap, secrets and GPU resources': {
    ...THREE_PROVIDERS,
    userConfig: { configMapName: 'mine' },
    resources: { requests: { 'cpu': '2', 'memory': '8Gi', 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } },
    externalProviders: { inference: [{ providerId: 'p', image: 'quay.io/a/p:1', config: { token: { secretKeyRef: { name: 's', key: 'k' } } } }] },
  },
  'relaxed security, no preflight': { ...THREE_PROVIDERS, podSecurity: { restricted: false }, preflight: false },
  'ids from the platform (OpenShift restricted-v2)': { ...THREE_PROVIDERS, podSecurity: { idsFromPlatform: true } },
  'TCP health checks': { distribution: { name: 'starter' }, healthCheck: 'tcp' },
  'HTTPS health checks': { distribution: { name: 'starter' }, healthCheck: 'https', userConfig: { configMapName: 'tls-config' } },
  'TLS from a Secret, with metrics': { distribution: { name: 'starter' }, serverVersion: '1.5', tls: { secretName: 'stack-tls', clientCaKey: 'ca.crt' }, metricsPort: 9464, network: { expose: true, allowedFrom: {} } },
  'exposed through an Ingress, isolated by a NetworkPolicy': {
    distribution: { name: 'starter' },
    network: { expose: true, ingressClassName: 'nginx', allowedFrom: { namespaces: ['web'], labels: ['example.com/llama-clients'] } },
  },
  'a NetworkPolicy admitting every namespace': { distribution: { name: 'starter' }, network: { allowedFrom: { namespaces: ['*'] } } },
  'three replicas: disruption budget, spread and anti-affinity': { distribution: { name: 'starter' }, replicas: 3 },
  'a CA bundle of several keys, joined at start': { ...THREE_PROVIDERS, caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', 'b.crt'] } },
  'more volumes and mounts, a grace period': {
    ...THREE_PROVIDERS,
    volumes: [{ name: 'certs', secret: { secretName: 'certs' } }],
    volumeMounts: [{ name: 'certs', mountPath: '/etc/certs', readOnly: true }],
    terminationGracePeriodSeconds: 60,
  },
  'autoscaled on CPU and memory, with a budget given': {
    distribution: { name: 'starter' },
    autoscaling: { maxReplicas: 4, targetCPUUtilizationPercentage: 60, targetMemoryUtilizationPercentage: 70 },
    podDisruptionBudget: { minAvailable: '50%' },
  },
};

test.each(Object.entries(CASES))('%s: every object is schema-valid', (_, props) => {
  for (const object of render(props)) {
    const result = validator.validate(object);
    expect({ object: `${object.kind}/${object.metadata.name}`, against: result.against, violations: result.violations })
      .toEqual({ object: `${object.kind}/${object.metadata.name}`, against: 'kubernetes', violations: [] });
  }
});
