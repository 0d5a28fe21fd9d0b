/**
 * Every sample of the llama-stack operator's `config/samples/` (test/fixtures/operator-samples, with
 * their sources) renders as it is, and each test states what the operator creates for it and checks
 * that `render` creates the same, or warns naming the field. What the operator creates follows its
 * controllers (llama-stack-k8s-operator controllers/resource_helper.go, kubebuilder manifests of
 * controllers/manifests/, controllers/llamastackdistribution_controller.go): a Deployment `<name>`, a
 * Service `<name>-service`, a ServiceAccount `<name>-sa`, and, as the spec asks, a PVC `<name>-pvc`,
 * an HPA `<name>-hpa`, a PDB `<name>-pdb`, an Ingress `<name>-ingress` and a NetworkPolicy
 * `<name>-network-policy`.
 */
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { cli } from './run';

const SAMPLES = join(__dirname, '..', 'fixtures', 'operator-samples');

async function render(file: string): Promise<{ objects: any[]; warnings: string[] }> {
  const r = await cli(['render', join(SAMPLES, file)]);
  if (r.code !== 0) throw new Error(`render failed:\n${r.stderr}`);
  return {
    objects: parseAllDocuments(r.stdout).map((d) => d.toJS()),
    warnings: r.stderr.split('\n').filter(Boolean).map((l) => l.replace(/^warning: \S+ document \d+ \([^)]*\): /, '')),
  };
}

const names = (objects: any[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`);
const byKind = (objects: any[], kind: string, name?: string) =>
  objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
const server = (objects: any[], name?: string) => byKind(objects, 'Deployment', name).spec.template.spec.containers[0];
const envOf = (container: any) => Object.fromEntries(container.env.map((e: any) => [e.name, e.value]));

describe('the llama-stack operator\'s samples, rendered as they are', () => {
  test('v1alpha1/llamastackdistribution.yaml: workers, autoscaling, disruption budget, spread, storage', async () => {
    const { objects, warnings } = await render('v1alpha1/llamastackdistribution.yaml');
    expect(warnings).toEqual([]);
    const n = 'llamastackdistribution-sample';
    expect(names(objects)).toEqual([
      `PersistentVolumeClaim/${n}-pvc`, `ServiceAccount/${n}-sa`, `Deployment/${n}`, `Service/${n}-service`,
      `HorizontalPodAutoscaler/${n}-hpa`, `PodDisruptionBudget/${n}-pdb`,
    ]);
    // The operator: LLS_WORKERS=2 and uvicorn with two workers; one CPU per worker and 1Gi requested, limits equal.
    const c = server(objects);
    expect(c.name).toBe('llama-stack');
    expect(envOf(c)).toMatchObject({ LLS_WORKERS: '2', HF_HOME: '/home/lls/.lls', OLLAMA_INFERENCE_MODEL: 'llama3.2:1b' });
    expect(c.resources).toEqual({ requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } });
    expect(c.volumeMounts).toContainEqual({ name: 'llama-storage', mountPath: '/home/lls/.lls' });
    expect(byKind(objects, 'PersistentVolumeClaim').spec.resources.requests.storage).toBe('20Gi');
    const deployment = byKind(objects, 'Deployment');
    // The HPA owns the replica count; the operator's CPU and memory targets.
    expect(deployment.spec.replicas).toBeUndefined();
    expect(byKind(objects, 'HorizontalPodAutoscaler').spec).toMatchObject({
      minReplicas: 1,
      maxReplicas: 5,
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: n },
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 75 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } },
      ],
    });
    expect(byKind(objects, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1);
    expect(deployment.spec.template.spec.topologySpreadConstraints).toEqual([{
      maxSkew: 1,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: { 'app.kubernetes.io/instance': n } },
    }]);
    // A ReadWriteOnce claim: the old pod must go before the new one mounts it.
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
  });

  test('_v1alpha1_llamastackdistribution.yaml (the same before the move): minAvailable', async () => {
    const { objects, warnings } = await render('_v1alpha1_llamastackdistribution.yaml');
    expect(warnings).toEqual([]);
    expect(byKind(objects, 'PodDisruptionBudget').spec).toMatchObject({ minAvailable: 1 });
  });

  test('v1alpha1/example-with-ca-bundle.yaml: its ConfigMap passes through and rolls the pods; the CA bundle is trusted', async () => {
    const { objects, warnings } = await render('v1alpha1/example-with-ca-bundle.yaml');
    expect(warnings).toEqual([]);
    const n = 'llamastack-with-config';
    expect(names(objects)).toEqual(['ConfigMap/llama-stack-config', `ServiceAccount/${n}-sa`, `Deployment/${n}`, `Service/${n}-service`]);
    const c = server(objects);
    // The operator mounts the user ConfigMap whole at /etc/llama-stack and starts the server with config.yaml.
    expect(c.volumeMounts).toContainEqual({ name: 'user-config', mountPath: '/etc/llama-stack', readOnly: true });
    expect(envOf(c)).toMatchObject({ LLAMA_STACK_CONFIG: '/etc/llama-stack/config.yaml', SSL_CERT_FILE: '/etc/ssl/certs/ca-bundle/ca-bundle.crt' });
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8321, protocol: 'TCP' }]);
    const pod = byKind(objects, 'Deployment').spec.template;
    expect(pod.spec.volumes).toContainEqual({ name: 'user-config', configMap: { name: 'llama-stack-config' } });
    expect(pod.spec.volumes).toContainEqual(expect.objectContaining({ configMap: expect.objectContaining({ name: 'custom-ca-bundle' }) }));
    // The ConfigMap given beside the document: its content is in the pods' template, so changing it rolls them.
    expect(pod.metadata.annotations['kube-inference.io/configmaps-hash']).toMatch(/^[0-9a-f]{64}$/);
    expect(byKind(objects, 'ConfigMap').data['config.yaml']).toContain('provider_type: "remote::ollama"');
  });

  test('example-with-configmap.yaml: the run.yaml of an older release is read by that name, with a warning', async () => {
    const { objects, warnings } = await render('example-with-configmap.yaml');
    expect(warnings).toEqual([
      'spec.server.userConfig: the ConfigMap \'llama-stack-config\' has no key config.yaml, the config file of this server release; the server reads its run.yaml. '
      + 'Set userConfig.configMapKey to run.yaml to say so, or rename the key.',
    ]);
    expect(envOf(server(objects)).LLAMA_STACK_CONFIG).toBe('/etc/llama-stack/run.yaml');
  });

  test('v1alpha1/example-with-network-config.yaml: a NetworkPolicy for each, an Ingress where exposeRoute', async () => {
    const { objects, warnings } = await render('v1alpha1/example-with-network-config.yaml');
    // The sample's namespace names have capitals: the operator renders them, and they match no namespace.
    expect(warnings).toEqual(['nsA', 'nsB'].map((ns, i) => `spec.network.allowedFrom.namespaces[${i}]: "${ns}" is not a namespace name `
      + '(lower-case letters, digits and \'-\'): no namespace can match it, so the NetworkPolicy admits nobody from it. Write the namespace\'s name as it is.'));
    const [a, b] = ['llamastackdistribution-network-example', 'llamastackdistribution-public'];
    expect(names(objects)).toEqual([
      `ServiceAccount/${a}-sa`, `Deployment/${a}`, `Service/${a}-service`, `NetworkPolicy/${a}-network-policy`,
      `ServiceAccount/${b}-sa`, `Deployment/${b}`, `Service/${b}-service`, `Ingress/${b}-ingress`, `NetworkPolicy/${b}-network-policy`,
    ]);
    const from = (name: string) => byKind(objects, 'NetworkPolicy', name).spec.ingress[0].from;
    expect(from(`${a}-network-policy`)).toEqual(expect.arrayContaining([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nsA' } } },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nsB' } } },
      { namespaceSelector: { matchExpressions: [{ key: 'myproject/lls-allowed', operator: 'Exists' }] } },
      { namespaceSelector: { matchExpressions: [{ key: 'team/authorized', operator: 'Exists' }] } },
    ]));
    expect(from(`${b}-network-policy`)).toContainEqual({ namespaceSelector: {} });
    expect(byKind(objects, 'Ingress').spec.rules[0].http.paths[0]).toMatchObject({
      path: '/', pathType: 'Prefix', backend: { service: { name: `${b}-service`, port: { number: 8321 } } },
    });
  });

  test('v1alpha1/example-withoutconfigmap.yaml: the image\'s own config, on a 10Gi claim', async () => {
    const { objects, warnings } = await render('v1alpha1/example-withoutconfigmap.yaml');
    expect(warnings).toEqual([]);
    const n = 'llamastack-without-userconfig';
    expect(names(objects)).toEqual([`PersistentVolumeClaim/${n}-pvc`, `ServiceAccount/${n}-sa`, `Deployment/${n}`, `Service/${n}-service`]);
    // As the operator: no command, the image's entrypoint starts its own config.
    expect(server(objects).command).toBeUndefined();
    expect(byKind(objects, 'PersistentVolumeClaim').spec.resources.requests.storage).toBe('10Gi');
  });

  test('llamastackdistribution-with-external-configmaps.yaml: the unmerged PR\'s field is named; the other namespace\'s ConfigMap passes through', async () => {
    const { objects, warnings } = await render('llamastackdistribution-with-external-configmaps.yaml');
    expect(warnings).toEqual([
      'spec.server.envFromExternalConfigMaps exists only in pull request #166 of the llama-stack operator, which was not merged; it is not rendered and is ignored.',
    ]);
    expect(names(objects)).toContain('ConfigMap/trustyai-service-operator-config');
    expect(byKind(objects, 'ConfigMap').metadata.namespace).toBe('redhat-ods-applications');
  });
});
