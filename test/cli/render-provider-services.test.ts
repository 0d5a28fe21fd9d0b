// A LlamaStackDistribution document's providers may run their services in sidecars or in pods of their
// own (seed 002, Level 2), as the construct's props say: `render` passes `sidecar` and `service` through.
import { parseAllDocuments } from 'yaml';
import { cli } from './run';

const DOCUMENT = `apiVersion: llamastack.io/v1alpha1
kind: LlamaStackDistribution
metadata: {name: team-a, namespace: ai, annotations: {kube-inference.io/server-version: "0.7"}}
spec:
  server:
    distribution: {name: starter}
    externalProviders:
      inference:
      - {providerId: echo, image: quay.io/acme/echo:1, sidecar: {port: 18500, path: /v1}}
      vectorIo:
      - {providerId: vectors, image: quay.io/acme/vectors:1, service: {replicas: 2}}
`;

test('render: a provider\'s sidecar and another\'s service of its own', async () => {
  const r = await cli(['render', '-'], { stdin: DOCUMENT });
  expect(r).toMatchObject({ code: 0, stderr: '' });
  const objects = parseAllDocuments(r.stdout).map((d) => d.toJS());
  expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
    'ServiceAccount/team-a-sa', 'Deployment/team-a', 'Service/team-a-service',
    'ServiceAccount/team-a-vectors-sa', 'Deployment/team-a-vectors', 'Service/team-a-vectors', 'NetworkPolicy/team-a-vectors',
  ]);
  const pod = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'team-a').spec.template.spec;
  expect(pod.initContainers.at(-1)).toMatchObject({ name: 'provider-echo', restartPolicy: 'Always', env: [{ name: 'PROVIDER_PORT', value: '18500' }] });
  const bad = await cli(['render', '-'], { stdin: DOCUMENT.replace('port: 18500', 'port: 8321') });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('spec.server.externalProviders.inference[0].sidecar.port: 8321 is already the server\'s port in this pod');
});

test('render: the annotation kube-inference.io/kubernetes-version picks the sidecar\'s form, and a bad one is named', async () => {
  const old = await cli(['render', '-'], { stdin: DOCUMENT.replace('annotations: {', 'annotations: {kube-inference.io/kubernetes-version: "1.28", ') });
  expect(old).toMatchObject({ code: 0, stderr: '' });
  const pod = parseAllDocuments(old.stdout).map((d) => d.toJS()).find((o) => o.kind === 'Deployment' && o.metadata.name === 'team-a').spec.template.spec;
  expect(pod.initContainers.map((c: any) => c.name)).not.toContain('provider-echo');
  expect(pod.containers.map((c: any) => c.name)).toEqual(['llama-stack', 'provider-echo']);
  const bad = await cli(['render', '-'], { stdin: DOCUMENT.replace('annotations: {', 'annotations: {kube-inference.io/kubernetes-version: "one-twenty-nine", ') });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('metadata.annotations.kube-inference.io/kubernetes-version: ');
});
