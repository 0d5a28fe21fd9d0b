// Translation into a KubeRay `RayService` (`ray.io/v1`): a Ray cluster (a CPU head plus GPU worker
// groups sized from the spec) running the Serve application of serve-config.ts.
import { ApiObject } from 'cdk8s';
import { RAY_SERVE_PORT, serveConfigV2 } from './serve-config';
import type {
  RayServiceProps,
  RayServiceSpecRayClusterConfigHeadGroupSpecTemplateSpecContainersResourcesLimits as HeadQuantity,
  RayServiceSpecRayClusterConfigWorkerGroupSpecs,
  RayServiceSpecRayClusterConfigWorkerGroupSpecsTemplateSpecContainersResourcesLimits as WorkerQuantity,
} from '../../../imports/ray-service.generated';
import { defineCustomResource } from '../../../kubernetes-objects';
import { overrideValue } from '../../overrides';
import { RenderContext } from '../../provider';
import { ResolvedComponent } from '../../resolved-spec';
import { KubePodIdentity, kubeEnv, kubeTolerations, nonEmpty, podIdentity } from '../common';

/** Resources of the head unless overridden. */
export const RAY_HEAD_DEFAULTS = { cpu: '2', memory: '4Gi' };

/**
 * `rayStartParams` of the head unless overridden key by key: no CPUs for Ray's scheduler, so no Serve
 * replica (nor the OpenAI ingress) lands on the CPU-only head, as in KubeRay's own LLM sample
 * (ray-operator/config/samples/ray-service.llm-serve.yaml).
 */
export const RAY_HEAD_START_PARAMS: Readonly<Record<string, string>> = { 'num-cpus': '0' };

/** What the provider was configured with. */
export interface RayServiceSettings {
  /** Ray version of the image (`rayClusterConfig.rayVersion`). */
  readonly rayVersion: string;
  /** Default image, used unless `image` is set. */
  readonly image: string;
  /** Whether the deployment runs the vLLM whose argument types are known (engine-args.ts `vllmArgsKnown`). */
  readonly vllmArgsKnown: boolean;
}

/** Renders the RayService. */
export function renderRayService(context: RenderContext, settings: RayServiceSettings): ApiObject {
  const d = context.deployment;
  const image = d.image ?? settings.image;
  const pod = podSettings(context);
  const workerGroups = d.mode === 'disaggregated'
    ? [workerGroup('prefill-workers', d.prefill!, image, pod), workerGroup('decode-workers', d.decode!, image, pod)]
    : [workerGroup('gpu-workers', { replicas: d.replicas, gpu: d.resources.gpu, memory: d.resources.memory, cpu: d.resources.cpu }, image, pod)];
  const headCpu = (overrideValue(d.overrides, ['head', 'resources', 'cpu']) as string | undefined) ?? RAY_HEAD_DEFAULTS.cpu;
  const headMemory = (overrideValue(d.overrides, ['head', 'resources', 'memory']) as string | undefined) ?? RAY_HEAD_DEFAULTS.memory;
  const headQuantities = { cpu: headCpu, memory: headMemory };
  return defineCustomResource<RayServiceProps>(context.scope, 'Resource', { apiVersion: 'ray.io/v1', kind: 'RayService' }, {
    metadata: context.metadata,
    spec: {
      serveConfigV2: serveConfigV2(d, settings.vllmArgsKnown),
      rayClusterConfig: {
        rayVersion: settings.rayVersion,
        // Replicas are fixed by the spec: the unified spec has no autoscaling.
        enableInTreeAutoscaling: false,
        headGroupSpec: {
          rayStartParams: { ...RAY_HEAD_START_PARAMS, ...(overrideValue(d.overrides, ['head', 'rayStartParams']) as Record<string, string> | undefined ?? {}) },
          template: {
            metadata: pod.metadata,
            spec: {
              containers: [{
                name: 'ray-head',
                image,
                ports: [
                  { containerPort: 6379, name: 'gcs-server' },
                  { containerPort: 8265, name: 'dashboard' },
                  { containerPort: 10001, name: 'client' },
                  { containerPort: RAY_SERVE_PORT, name: 'serve' },
                ],
                env: pod.env,
                envFrom: pod.envFrom,
                // Ray reads the CPUs and memory it may use from the container's limits: keep them equal to the requests.
                resources: {
                  requests: quantities<HeadQuantity>(headQuantities),
                  limits: quantities<HeadQuantity>(headQuantities),
                },
              }],
              ...pod.identity,
              nodeSelector: pod.nodeSelector,
              tolerations: pod.tolerations,
            },
          },
        },
        workerGroupSpecs: workerGroups,
      },
    },
  });
}

interface PodSettings {
  readonly metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  readonly env?: ReturnType<typeof kubeEnv>;
  readonly envFrom?: { secretRef: { name: string } }[];
  readonly nodeSelector?: Record<string, string>;
  readonly tolerations?: ReturnType<typeof kubeTolerations>;
  readonly identity: KubePodIdentity;
}

function podSettings(context: RenderContext): PodSettings {
  const d = context.deployment;
  const labels = nonEmpty(context.podLabels);
  const annotations = nonEmpty(context.podAnnotations);
  return {
    metadata: labels || annotations ? { labels, annotations } : undefined,
    env: kubeEnv(d.env),
    // Every key of the token Secret becomes an environment variable (HF_TOKEN among them).
    envFrom: d.huggingFaceTokenSecret ? [{ secretRef: { name: d.huggingFaceTokenSecret } }] : undefined,
    nodeSelector: nonEmpty(d.nodeSelector),
    tolerations: kubeTolerations(d.tolerations),
    identity: podIdentity(d),
  };
}

function workerGroup(groupName: string, c: ResolvedComponent, image: string, pod: PodSettings): RayServiceSpecRayClusterConfigWorkerGroupSpecs {
  const limits: Record<string, string> = {};
  if (c.cpu) limits.cpu = c.cpu;
  if (c.memory) limits.memory = c.memory;
  if (c.gpu.count > 0) limits[c.gpu.type] = String(c.gpu.count);
  return {
    groupName,
    replicas: c.replicas,
    minReplicas: c.replicas,
    maxReplicas: c.replicas,
    template: {
      metadata: pod.metadata,
      spec: {
        containers: [{
          name: 'ray-worker',
          image,
          env: pod.env,
          envFrom: pod.envFrom,
          resources: Object.keys(limits).length > 0
            ? { requests: quantities<WorkerQuantity>(limits), limits: quantities<WorkerQuantity>(limits) }
            : undefined,
        }],
        ...pod.identity,
        nodeSelector: pod.nodeSelector,
        tolerations: pod.tolerations,
      },
    },
  };
}

/**
 * A resource map as the API server reads it: quantity strings. The generated types wrap each quantity
 * in a class of their own (one per place in the schema), whose JSON is the string itself.
 */
function quantities<Q>(values: Readonly<Record<string, string>>): Record<string, Q> {
  return { ...values } as unknown as Record<string, Q>;
}
