// cdk8s's typed Kubernetes imports wrap int-or-string and quantity fields in classes whose JSON is
// {"value": ...}; what LlamaStackWithProviders renders holds the plain value, as the API server reads it.
import * as k8s from 'cdk8s-plus-28/lib/imports/k8s';
import { podSpec, render } from './helpers';

test('the typed fields of the props and of the providers\' service parts render as values', () => {
  const manifests = render({
    distribution: { name: 'starter' },
    env: [{ name: 'MEMORY', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: k8s.Quantity.fromString('1Mi') } } }],
    volumes: [{ name: 'scratch', emptyDir: { sizeLimit: k8s.Quantity.fromString('1Gi') } }],
    volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
    externalProviders: {
      inference: [
        {
          providerId: 'echo',
          image: 'quay.io/acme/echo:1',
          service: {
            env: [{ name: 'CPUS', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: k8s.Quantity.fromString('1m') } } }],
            readinessProbe: { httpGet: { path: '/ready', port: k8s.IntOrString.fromString('http') } },
          },
        },
        { providerId: 'side', image: 'quay.io/acme/echo:1', sidecar: { startupProbe: { tcpSocket: { port: k8s.IntOrString.fromNumber(18000) } } } },
      ],
    },
  });
  const pod = podSpec(manifests);
  expect(pod.volumes).toContainEqual({ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } });
  expect(pod.containers[0].env).toContainEqual({ name: 'MEMORY', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } });
  expect(pod.initContainers.find((c: any) => c.name === 'provider-side').startupProbe).toEqual({ tcpSocket: { port: 18000 } });
  const service = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'stack-echo').spec.template.spec.containers[0];
  expect(service.readinessProbe).toEqual({ httpGet: { path: '/ready', port: 'http' } });
  expect(service.env).toContainEqual({ name: 'CPUS', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } });
});
