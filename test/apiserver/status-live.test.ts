/**
 * `kube-inference status` on live objects of a real API server (the newest minor tested): the model
 * deployments of the example are created for real, their status subresources written as KAITO, Dynamo
 * and KubeRay write them (the API server checks each against its CRD's status schema), a pod of a
 * LlamaStackWithProviders server created from its Deployment's template with its status written in the
 * kubelet's shapes (the controllers and the kubelet do not run here); then each is read back as
 * `kubectl get -o yaml` prints it (a List) and given to `status`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { Cluster } from './cluster';
import { ApiServer, describeWithApiServer, NEWEST_TESTED_MINOR } from './server';
import { cli } from '../cli/run';
import { find, render, THREE_PROVIDERS } from '../llama-stack/helpers';

const MINOR = NEWEST_TESTED_MINOR;
const NAMESPACE = 'kube-inference-status';
const MODELS = path.join(__dirname, '..', '..', 'examples', 'model-deployment-app', 'dist', 'models.k8s.yaml');
const since = '2026-11-25T10:00:00Z';
const condition = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastTransitionTime: since });

describeWithApiServer(MINOR, 'status of live objects', () => {
  let server: ApiServer;
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await Cluster.start(MINOR);
    server = cluster.server;
    await cluster.createNamespaces([NAMESPACE]);
  }, 180_000);
  afterAll(async () => server?.stop());

  /** Creates an object for real; returns it as stored. */
  const create = async (collection: string, object: any) => {
    const r = await server.request('POST', collection, { ...object, metadata: { ...object.metadata, namespace: NAMESPACE } });
    if (r.status !== 201) throw new Error(`creating ${object.kind} ${object.metadata.name}: ${r.status} ${r.body?.message}`);
    return r.body;
  };
  /** Writes the status subresource, as an operator or the kubelet does. */
  const writeStatus = async (item: string, stored: any, status: object) => {
    const r = await server.request('PUT', `${item}/status`, { ...stored, status });
    if (r.status !== 200) throw new Error(`writing the status of ${item}: ${r.status} ${r.body?.message}`);
  };
  /** `kubectl get <plural> -o yaml` through the CLI's status. */
  const statusOf = async (collection: string, selector = '') => {
    const list = await server.request('GET', `${collection}${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`);
    expect(list.status).toBe(200);
    const r = await cli(['status', '-'], { stdin: stringify({ apiVersion: 'v1', kind: 'List', items: list.body.items.map((i: any) => ({ apiVersion: list.body.apiVersion, kind: list.body.kind.replace(/List$/, ''), ...i })) }) });
    if (r.code !== 0) throw new Error(r.stderr);
    return parseAllDocuments(r.stdout).map((d) => d.toJS());
  };

  test('model deployments: the operators\' status subresources, read back through status', async () => {
    const objects = parseAllDocuments(fs.readFileSync(MODELS, 'utf8')).map((d) => d.toJS());
    const workspace = objects.find((o) => o.kind === 'Workspace');
    const dgd = objects.find((o) => o.kind === 'DynamoGraphDeployment');
    const rayService = objects.find((o) => o.kind === 'RayService');
    for (const o of objects.filter((x) => x.kind === 'ConfigMap')) await create(`/api/v1/namespaces/${NAMESPACE}/configmaps`, o);

    const workspaces = `/apis/kaito.sh/v1beta1/namespaces/${NAMESPACE}/workspaces`;
    await writeStatus(`${workspaces}/${workspace.metadata.name}`, await create(workspaces, workspace), {
      conditions: [
        condition('ResourceReady', 'True', 'workspaceResourceStatusSuccess', 'workspace resource is ready'),
        condition('InferenceReady', 'False', 'WorkspaceInferenceStatusPending', 'Inference workload is not ready'),
        condition('WorkspaceSucceeded', 'False', 'workspacePending', 'workspace is waiting for inference workload readiness'),
      ],
    });
    const dgds = `/apis/${dgd.apiVersion}/namespaces/${NAMESPACE}/dynamographdeployments`;
    await writeStatus(`${dgds}/${dgd.metadata.name}`, await create(dgds, dgd), {
      state: 'successful',
      conditions: [condition('Ready', 'True', 'AllReady', 'All resources are ready')],
    });
    const rayServices = `/apis/ray.io/v1/namespaces/${NAMESPACE}/rayservices`;
    await writeStatus(`${rayServices}/${rayService.metadata.name}`, await create(rayServices, rayService), {
      activeServiceStatus: { applicationStatuses: { llm: { status: 'DEPLOY_FAILED', message: 'replica crashed: CUDA out of memory' } } },
      conditions: [condition('Ready', 'False', 'UnhealthyServe', 'application llm failed')],
    });

    const [ws] = await statusOf(workspaces);
    expect(ws).toMatchObject({ phase: 'Deploying', message: 'Inference workload is not ready', provider: { name: 'kaito', resourceKind: 'Workspace', resourceName: workspace.metadata.name } });
    const [dynamo] = await statusOf(dgds);
    expect(dynamo).toMatchObject({ phase: 'Running', provider: { name: 'dynamo', resourceKind: 'DynamoGraphDeployment', resourceName: dgd.metadata.name } });
    const [ray] = await statusOf(rayServices);
    expect(ray).toMatchObject({ phase: 'Failed', provider: { name: 'kuberay', resourceKind: 'RayService', resourceName: rayService.metadata.name } });
    expect(ray.message).toContain('CUDA out of memory');
  });

  test('a LlamaStackWithProviders pod: its status in the kubelet\'s shapes, read back through status', async () => {
    // The rendered objects applied for real (the pod runs as their ServiceAccount), then the pod the
    // Deployment's ReplicaSet would create.
    const objects = render(THREE_PROVIDERS);
    for (const o of objects) await create(await cluster.collectionOf(o, NAMESPACE), o);
    const deployment = find(objects, 'Deployment');
    const template = deployment.spec.template;
    const pods = `/api/v1/namespaces/${NAMESPACE}/pods`;
    const name = `${deployment.metadata.name}-7c9f8d5b6-x2x4q`;
    const stored = await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: template.metadata.labels }, spec: template.spec });
    const inits: any[] = template.spec.initContainers;
    const failing = inits.findIndex((c) => c.name === 'install-provider-custom-vllm');
    expect(failing).toBeGreaterThan(0);
    const state = (i: number) => (i < failing
      ? { terminated: { exitCode: 0, reason: 'Completed', startedAt: since, finishedAt: since } }
      : i === failing
        ? { terminated: { exitCode: 1, reason: 'Error', message: 'ERROR: no wheel in /lls-provider/wheels of quay.io/acme/vllm-provider:1.2.0', startedAt: since, finishedAt: since } }
        : { waiting: { reason: 'PodInitializing' } });
    await writeStatus(`${pods}/${name}`, stored, {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: since }, { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', lastTransitionTime: since }],
      initContainerStatuses: inits.map((c, i) => ({ name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, state: state(i) })),
      containerStatuses: template.spec.containers.map((c: any) => ({ name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } })),
    });

    const [status] = await statusOf(pods, `app.kubernetes.io/instance=${deployment.metadata.labels['app.kubernetes.io/instance']}`);
    expect(status).toMatchObject({ name: deployment.metadata.name, namespace: NAMESPACE, pod: name, phase: 'Failed' });
    expect(status.message).toBe('init container install-provider-custom-vllm failed: Error (exit code 1): ERROR: no wheel in /lls-provider/wheels of quay.io/acme/vllm-provider:1.2.0');
    // In the order their init containers run.
    expect(status.providers.map((p: any) => [p.providerId, p.phase])).toEqual([['custom-vllm', 'Failed'], ['ollama', 'Pending'], ['trustyai-fms', 'Pending']]);
    expect(parse(stringify(status))).toEqual(status);
  });

  test('a provider with a service of its own: the server\'s pod and the service\'s Deployment, read back through status', async () => {
    const objects = render({ name: 'vectors-stack', distribution: { name: 'starter' }, externalProviders: { vectorIo: [{ providerId: 'vectors', image: 'quay.io/acme/vectors:1', service: { replicas: 2 } }] } });
    for (const o of objects) await create(await cluster.collectionOf(o, NAMESPACE), o);
    const deployments = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;
    const service = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'vectors-stack-vectors');
    // As the Deployment controller writes it: one of the two pods available.
    const stored = (await server.request('GET', `${deployments}/${service.metadata.name}`)).body;
    await writeStatus(`${deployments}/${service.metadata.name}`, stored, { observedGeneration: 1, replicas: 2, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 2 });
    const template = find(objects.filter((o) => o.metadata.name === 'vectors-stack'), 'Deployment').spec.template;
    const pods = `/api/v1/namespaces/${NAMESPACE}/pods`;
    const podName = 'vectors-stack-7c9f8d5b6-x2x4q';
    const pod = await create(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: podName, labels: template.metadata.labels }, spec: template.spec });
    const done = { terminated: { exitCode: 0, reason: 'Completed', startedAt: since, finishedAt: since } };
    await writeStatus(`${pods}/${podName}`, pod, {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: since }],
      initContainerStatuses: template.spec.initContainers.map((c: any) => ({ name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, state: done })),
      containerStatuses: [{ name: 'llama-stack', image: template.spec.containers[0].image, imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: since } } }],
    });

    // `kubectl get pods,deployments -l kube-inference.io/server=vectors-stack … -o yaml`, and the server's pod.
    const serviceList = (await server.request('GET', `${deployments}?labelSelector=${encodeURIComponent('kube-inference.io/server=vectors-stack')}`)).body;
    const podList = (await server.request('GET', `${pods}?labelSelector=${encodeURIComponent('app.kubernetes.io/instance=vectors-stack')}`)).body;
    const items = [...podList.items.map((i: any) => ({ apiVersion: 'v1', kind: 'Pod', ...i })), ...serviceList.items.map((i: any) => ({ apiVersion: 'apps/v1', kind: 'Deployment', ...i }))];
    const r = await cli(['status', '-'], { stdin: stringify({ apiVersion: 'v1', kind: 'List', items }) });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const [status] = parseAllDocuments(r.stdout).map((d) => d.toJS());
    expect(status).toMatchObject({ name: 'vectors-stack', phase: 'Ready' });
    expect(status.providers).toEqual([{
      providerId: 'vectors',
      api: 'vector_io',
      image: 'quay.io/acme/vectors:1',
      mode: 'service',
      phase: 'Ready',
      service: { name: 'vectors-stack-vectors', replicas: { desired: 2, available: 1 } },
    }]);
  });
});
