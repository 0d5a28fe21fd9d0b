/**
 * The KubeRay operator reconciles what ModelDeployment renders for KubeRay, on the real single-node
 * cluster: KubeRay 1.6.2's own manager (github.com/ray-project/kuberay/ray-operator, built from the Go
 * module proxy: scripts/test-setup/kubernetes.mjs), with its release's CRDs and ClusterRole, running as
 * its ServiceAccount. It makes the RayCluster of the RayService, the head and worker pods from the
 * groups we render and the head's Service, and writes the RayService's status, which
 * `kube-inference status` reads. The node has no GPU and no registry: the GPU workers wait for a node
 * that has one, as the scheduler says, and the default Ray LLM image cannot be pulled (KubeRay 1.7.0's
 * module is refused by the proxy here).
 *
 * Then a RayService of a CPU Ray image really starts: the image is built here from PyPI's `ray[serve]`
 * (images.ts rayImage), named as upstream's `rayproject/ray:<version>-py312-cpu`, and the node advertises
 * a GPU as an extended resource so that the worker is scheduled and KubeRay starts Ray on it with one GPU.
 * The head comes up Ready and the worker joins its Ray cluster, KubeRay hands the Serve application to
 * Ray, and Ray's own report of its failure is what `kube-inference status` says: the image has Ray Serve but not what Ray
 * Serve LLM imports (`ray[llm]`: pyarrow, vLLM). The image Serve LLM really runs in (vLLM and torch with
 * its CUDA libraries, 9.4 GB installed) does not fit this machine's disk, so a replica failing on a
 * missing GPU is not shown.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Testing } from 'cdk8s';
import { stringify } from 'yaml';
import { clusterSupport, KubeCluster, NODE_NAME } from './cluster';
import { clusterImagesSupport, rayCpuImageName, rayImage } from './images';
import { ModelDeployment } from '../../src/model-deployment';
import { cli } from '../cli/run';
import { goBuild } from '../sandbox/go-builds';
import { describeWhen, firstUnsupported, freePort, SandboxSupport } from '../sandbox/host';
import { testEnvsSupport, toolEnv } from '../sandbox/test-envs';

const NAMESPACE = 'models';
const rayServe = toolEnv('ray-serve');
const operatorBuild = () => goBuild('kuberay-operator', ['ray-operator'], 'node scripts/test-setup/kubernetes.mjs');
const operatorSupport = (): SandboxSupport => {
  const b = operatorBuild();
  return 'reason' in b ? { ok: false, reason: b.reason } : { ok: true };
};

describeWhen('KubeRay reconciles a rendered RayService on a real cluster',
  firstUnsupported(clusterSupport, operatorSupport, clusterImagesSupport, () => testEnvsSupport(rayServe)),
  'the single-node cluster, the KubeRay operator built from its Go module and the ray-serve environment of the test set-up', () => {
    let cluster: KubeCluster;
    let rayService: any;

    beforeAll(async () => {
      cluster = await KubeCluster.start();
      const build = operatorBuild();
      if ('reason' in build) throw new Error(build.reason);
      const moduleDir = String(build.info.moduleDir);
      // The release's own CRDs and ClusterRole (config/ in its module), bound to its ServiceAccount as its kustomization binds it.
      const crds = fs.readdirSync(path.join(moduleDir, 'config', 'crd', 'bases')).map((f) => fs.readFileSync(path.join(moduleDir, 'config', 'crd', 'bases', f), 'utf8'));
      cluster.kubectl(['apply', '--server-side', '-f', '-'], crds.join('\n---\n'));
      // The API server serves a CRD's kind only once it is Established: a RayService applied before is refused.
      // Polled rather than `kubectl wait`, which fails outright on a CRD whose status has no conditions yet.
      await cluster.waitFor('the KubeRay CRDs Established', () => (['rayclusters.ray.io', 'rayservices.ray.io'].every((crd) =>
        (cluster.get(['crd', crd]).status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True')) ? true : undefined), 120_000);
      cluster.kubectl(['apply', '--server-side', '-f', '-'], [
        fs.readFileSync(path.join(moduleDir, 'config', 'rbac', 'role.yaml'), 'utf8'),
        stringify({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'kuberay-operator' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kuberay-operator' },
          subjects: [{ kind: 'ServiceAccount', name: 'kuberay-operator', namespace: 'ray-system' }],
        }),
      ].join('\n---\n'));
      const [metrics, probes] = [await freePort(), await freePort()];
      // The operator runs on the host, outside the cluster's DNS and network: it reaches the Ray dashboard
      // through the API server's service proxy, its own flag for that (main.go `--use-kubernetes-proxy`).
      cluster.startController('kuberay-operator', build.binaries['ray-operator'], { namespace: 'ray-system', name: 'kuberay-operator' }, (kubeconfig) => [
        '--kubeconfig', kubeconfig, '--enable-leader-election=false', '--use-kubernetes-proxy',
        '--metrics-addr', `127.0.0.1:${metrics}`, '--health-probe-bind-address', `127.0.0.1:${probes}`,
      ]);

      const chart = Testing.chart();
      new ModelDeployment(chart, 'qwen', {
        metadata: { name: 'qwen' },
        provider: { name: 'kuberay' },
        model: { id: 'Qwen/Qwen3-8B' },
        engine: { type: 'vllm' },
        resources: { gpu: { count: 1 }, memory: '24Gi', cpu: '4' },
      });
      const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } };
      cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], [namespace, ...Testing.synth(chart)].map((o) => JSON.stringify(o)).join('\n'));
      rayService = cluster.get(['rayservice', 'qwen', '-n', NAMESPACE]);
      await cluster.waitFor('the RayCluster, its head and worker pods, and the RayService\'s status', () => {
        const s = cluster.get(['rayservice', 'qwen', '-n', NAMESPACE]);
        const pods = cluster.get(['pods', '-n', NAMESPACE]).items as any[];
        return s.status?.conditions?.length > 0 && pods.length >= 2 ? s : undefined;
      }, 300_000, ['get', 'rayservices,rayclusters,pods,services', '-n', NAMESPACE, '-o', 'wide']);
    });

    afterAll(async () => {
      await cluster?.stop();
    });

    test('the operator makes the RayCluster of the RayService from the groups we render', () => {
      const [rayCluster] = cluster.get(['rayclusters', '-n', NAMESPACE]).items;
      expect(rayCluster.metadata.ownerReferences).toMatchObject([{ kind: 'RayService', name: 'qwen', controller: true }]);
      const rendered = rayService.spec.rayClusterConfig;
      expect(rayCluster.spec.headGroupSpec.template.spec.containers[0].image).toBe(rendered.headGroupSpec.template.spec.containers[0].image);
      expect(rayCluster.spec.workerGroupSpecs.map((g: any) => [g.groupName, g.replicas, g.template.spec.containers[0].resources.limits['nvidia.com/gpu']]))
        .toEqual(rendered.workerGroupSpecs.map((g: any) => [g.groupName, g.replicas, g.template.spec.containers[0].resources.limits['nvidia.com/gpu']]));
    });

    test('the GPU workers wait for a node with a GPU, as the scheduler says; the head waits for its image', async () => {
      const workers = await cluster.waitFor('the workers unschedulable', () => {
        const pods = cluster.get(['pods', '-n', NAMESPACE, '-l', 'ray.io/node-type=worker']).items as any[];
        const waiting = pods.filter((p) => p.status.conditions?.some((c: any) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'));
        return waiting.length > 0 && waiting.length === pods.length ? waiting : undefined;
      }, 120_000);
      expect(workers[0].status.conditions.find((c: any) => c.type === 'PodScheduled').message).toContain('Insufficient nvidia.com/gpu');
      const head = await cluster.waitFor('the head pod waiting for its image', () => {
        const [pod] = cluster.get(['pods', '-n', NAMESPACE, '-l', 'ray.io/node-type=head']).items;
        const waiting = pod?.status.containerStatuses?.[0]?.state.waiting;
        return ['ErrImagePull', 'ImagePullBackOff'].includes(waiting?.reason) ? pod : undefined;
      }, 300_000);
      expect(head.spec.containers[0].image).toBe(rayService.spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].image);
    });

    test('kube-inference status reads the status the operator wrote', async () => {
      const saved = cluster.kubectl(['get', 'rayservice', 'qwen', '-n', NAMESPACE, '-o', 'yaml']);
      const status = cluster.get(['rayservice', 'qwen', '-n', NAMESPACE]).status;
      const r = await cli(['status', '-o', 'json'], { stdin: saved });
      expect(r.code).toBe(0);
      // KubeRay 1.6.2's words while the Ray cluster is not up (controllers/ray/rayservice_controller.go).
      expect(status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'Initializing', message: 'RayService is initializing' });
      expect(JSON.parse(r.stdout)).toMatchObject({
        provider: { name: 'kuberay', resourceKind: 'RayService', resourceName: 'qwen' },
        endpoint: { service: 'qwen-serve-svc', port: 8000 },
        phase: 'Pending',
        message: 'RayService is initializing',
        replicas: { desired: 1, ready: 0 },
      });
    });

    describe('a RayService of a CPU Ray image', () => {
      const podsOf = (type: 'head' | 'worker') => cluster.get(['pods', '-n', NAMESPACE, '-l', `ray.io/node-type=${type}`]).items as any[];
      const isReady = (pod: any) => pod?.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') === true;

      /** The CPU Ray image of the set-up's `ray-serve` environment, as upstream names it. */
      const rayCpuImage = () => rayCpuImageName(rayServe.value!.version);

      beforeAll(async () => {
        // The GPU RayService above goes first: its head holds the node's two CPUs.
        cluster.kubectl(['delete', 'rayservice', 'qwen', '-n', NAMESPACE, '--wait=true', '--timeout=180s']);
        await cluster.waitFor('the first RayService\'s pods gone', () => (cluster.get(['pods', '-n', NAMESPACE]).items.length === 0 ? true : undefined), 180_000);
        cluster.loadImage(rayImage(rayCpuImage(), rayServe.value!));
        // No device plugin manages a GPU here: the node advertises one as an extended resource, as Kubernetes
        // documents for resources no plugin manages (tasks/administer-cluster/extended-resource-node).
        cluster.kubectl(['patch', 'node', NODE_NAME, '--subresource=status', '--type=json', '-p',
          JSON.stringify([{ op: 'add', path: '/status/capacity/nvidia.com~1gpu', value: '1' }])]);
        const chart = Testing.chart();
        new ModelDeployment(chart, 'qwen-cpu', {
          metadata: { name: 'qwen-cpu' },
          provider: { name: 'kuberay', overrides: { head: { resources: { cpu: '500m', memory: '2Gi' } } } },
          model: { id: 'Qwen/Qwen3-0.6B' },
          engine: { type: 'vllm' },
          image: rayCpuImage(),
          resources: { gpu: { count: 1 }, memory: '3Gi', cpu: '1' },
        });
        cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], Testing.synth(chart).map((o) => JSON.stringify(o)).join('\n'));
      });

      test('the head and the GPU worker start, and Ray counts the worker\'s GPU', async () => {
        // The head is Ready once Ray's health endpoint answers. A worker of a RayService is Ready only with
        // a Serve proxy (pod.go initLivenessAndReadinessProbe), which Serve starts where a replica runs; so
        // the worker counts as started when its raylet has joined the head's cluster.
        const [head, worker] = await cluster.waitFor('the head Ready and the worker running', () => {
          const [h, w] = [podsOf('head')[0], podsOf('worker')[0]];
          return isReady(h) && w?.status.containerStatuses?.[0]?.state.running ? [h, w] : undefined;
        }, 600_000, ['get', 'pods', '-n', NAMESPACE, '-o', 'wide']);
        expect([head, worker].map((p) => p.spec.containers[0].image)).toEqual([rayCpuImage(), rayCpuImage()]);
        // KubeRay starts Ray on the worker with the container's GPU limit (`--num-gpus=1`); `ray status` on
        // the head, Ray's own view of its cluster, counts that GPU.
        const status = await cluster.waitFor('the worker in Ray\'s cluster', () => {
          const text = cluster.kubectl(['exec', '-n', NAMESPACE, head.metadata.name, '-c', 'ray-head', '--', 'bash', '-lc', 'ray status']);
          return /^ 1 gpu-workers$/m.test(text) ? text : undefined;
        }, 300_000);
        expect(status).toMatch(/^ 0\.0\/1\.0 GPU$/m);
      });

      test('the Serve application fails as Ray reports it, and kube-inference status reads exactly that', async () => {
        const service = await cluster.waitFor('Ray\'s report of the Serve application', () => {
          const s = cluster.get(['rayservice', 'qwen-cpu', '-n', NAMESPACE]);
          return s.status?.pendingServiceStatus?.applicationStatuses?.llm?.status === 'DEPLOY_FAILED' ? s : undefined;
        }, 600_000, ['get', 'rayservice', 'qwen-cpu', '-n', NAMESPACE, '-o', 'yaml']);
        // KubeRay reports the applications of a Ray cluster not yet serving under `pendingServiceStatus`: the
        // first cluster of a RayService stays there until its applications run.
        expect(service.status.activeServiceStatus.applicationStatuses).toBeUndefined();
        const app = service.status.pendingServiceStatus.applicationStatuses.llm;
        // The application's import path is Ray Serve LLM's (`ray.serve.llm`), whose modules import what `ray[llm]`
        // brings (pyarrow, vLLM): Ray built the application and reports its import failing on the first one missing.
        expect(app.message).toContain('ray/serve/llm/__init__.py');
        expect(app.message).toMatch(/ModuleNotFoundError: No module named '(pyarrow|vllm)'/);
        const r = await cli(['status', '-o', 'json'], { stdin: JSON.stringify(service) });
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({
          provider: { name: 'kuberay', resourceKind: 'RayService', resourceName: 'qwen-cpu' },
          phase: 'Failed',
          message: app.message,
        });
      });
    });
  });
