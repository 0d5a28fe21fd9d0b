import { ApiObject } from 'cdk8s';
import { compareVersions, QUANTITY } from '../../../checks';
import { Problem } from '../../../errors';
import { OverrideSchema, overrideValue } from '../../overrides';
import { InferenceProvider, RenderContext, ResourceType, SelectionRule } from '../../provider';
import { ResolvedModelDeployment } from '../../resolved-spec';
import { EndpointStatus, ModelDeploymentStatus, UpstreamResource } from '../../status';
import { argsConflicts, nameLengthProblem } from '../common';
import { engineArgProblems, vllmArgsKnown } from './engine-args';
import { RAY_HEAD_DEFAULTS, renderRayService } from './ray-service';
import { replicaGpuProblems, replicaGpuWarnings } from './replica-gpus';
import { rayServeEndpoint, translateRayServiceStatus } from './status';

/** Options of the KubeRay provider. */
export interface KubeRayProviderOptions {
  /**
   * Ray release: `rayClusterConfig.rayVersion` and the tag of the default image.
   * @default '2.60.0'
   */
  readonly rayVersion?: string;
  /**
   * Default image (any image with Ray Serve LLM and vLLM); `image` in the spec overrides it.
   * @default 'rayproject/ray-llm:<rayVersion>-py312-cu130' (from Ray 2.56; '<rayVersion>-py311-cu128' before)
   */
  readonly image?: string;
}

/** The default Ray release. */
export const DEFAULT_RAY_VERSION = '2.60.0';

/**
 * Ray's own `rayproject/ray-llm` image of a release. The image is built for Python 3.12 on CUDA 13.0 only
 * since Ray moved Ray Serve LLM to CUDA 13 and deprecated the py311/cu128 images (ray-project/ray
 * docker/ray-llm/Dockerfile and cuda.wanda.yaml; ray-project/ray#61497, #62458); 2.56.0-py312-cu130 is the
 * first such tag seen in use, earlier releases are tagged py311-cu128.
 */
function rayLlmImage(rayVersion: string): string {
  return `rayproject/ray-llm:${rayVersion}-${compareVersions(rayVersion, '2.56') >= 0 ? 'py312-cu130' : 'py311-cu128'}`;
}

/** KubeRay's limit: it appends 6 characters to name the RayCluster, whose Services must fit in 63. */
export const MAX_RAY_SERVICE_NAME_LENGTH = 47;

/** The compatibility messages of KubeRay. */
export const KUBERAY_MESSAGES = {
  llamacpp: 'KubeRay does not support llamacpp engine',
  sglang: 'KubeRay does not support sglang engine',
  trtllm: 'KubeRay does not support trtllm engine',
  requiresGpu: 'KubeRay requires GPU (set resources.gpu.count > 0)',
  modelIdRequired: 'KubeRay (Ray Serve LLM) needs model.id: the Hugging Face id, or for source custom the model path inside the image',
  roleReplicas: 'Ray Serve rejects num_replicas 0: disaggregated roles need at least 1 replica on KubeRay',
  zeroReplicas: 'KubeRay cannot scale a RayService to zero: Ray Serve rejects num_replicas 0, and without a Serve application '
    + 'KubeRay never reports the RayService Ready; set scaling.replicas to 1 or more, or delete the ModelDeployment to stop serving',
} as const;

/** Documented `provider.overrides` of KubeRay. */
export const KUBERAY_OVERRIDES: OverrideSchema = {
  head: {
    type: 'object',
    description: 'The Ray head node.',
    properties: {
      resources: {
        type: 'object',
        description: 'Head resources (requests and limits).',
        properties: {
          cpu: { type: 'string', default: RAY_HEAD_DEFAULTS.cpu, description: 'CPU request for the Ray head node.' },
          memory: { type: 'string', default: RAY_HEAD_DEFAULTS.memory, description: 'Memory request for the Ray head node.' },
        },
      },
      rayStartParams: { type: 'stringMap', default: {}, description: 'Ray head start parameters (`ray start` flags).' },
    },
  },
};

/**
 * KubeRay (`RayService`): vLLM on Ray Serve LLM, GPU only, aggregated and disaggregated. Never
 * auto-selected: it has no selection rules, so only `provider.name: kuberay` picks it.
 */
export class KubeRayProvider implements InferenceProvider {
  public readonly name = 'kuberay';
  public readonly displayName = 'KubeRay';
  public readonly documentation = 'https://github.com/ray-project/kuberay';
  public readonly capabilities = {
    engines: ['vllm'] as const,
    servingModes: ['aggregated', 'disaggregated'] as const,
    cpuSupport: false,
    gpuSupport: true,
  };
  public readonly selectionRules: readonly SelectionRule[] = [];
  public readonly overrides = KUBERAY_OVERRIDES;
  public readonly resourceType: ResourceType = { apiVersion: 'ray.io/v1', kind: 'RayService' };
  /** Ray release. */
  public readonly rayVersion: string;
  /** Default image. */
  public readonly image: string;

  public constructor(options: KubeRayProviderOptions = {}) {
    this.rayVersion = options.rayVersion ?? DEFAULT_RAY_VERSION;
    this.image = options.image ?? rayLlmImage(this.rayVersion);
  }

  public checkCompatibility(d: ResolvedModelDeployment): Problem[] {
    const problems: Problem[] = [];
    const engine = d.engine.type;
    if (engine === 'llamacpp' || engine === 'sglang' || engine === 'trtllm') {
      problems.push({ field: 'engine.type', message: KUBERAY_MESSAGES[engine] });
    }
    if (d.mode === 'aggregated' && d.resources.gpu.count === 0) problems.push({ field: 'resources.gpu.count', message: KUBERAY_MESSAGES.requiresGpu });
    // KubeRay counts a RayService with no Serve application as not ready, whatever else runs
    // (ray-operator controllers/ray/rayservice_controller.go getAndCheckServeStatus).
    if (d.mode === 'aggregated' && d.replicas === 0) problems.push({ field: 'scaling.replicas', message: KUBERAY_MESSAGES.zeroReplicas });
    if (d.model.id === undefined) problems.push({ field: 'model.id', message: KUBERAY_MESSAGES.modelIdRequired });
    if (d.mode === 'disaggregated') {
      for (const role of ['prefill', 'decode'] as const) {
        if (d[role]?.replicas === 0) problems.push({ field: `scaling.${role}.replicas`, message: KUBERAY_MESSAGES.roleReplicas });
      }
      problems.push(...argsConflicts(d, { 'kv-transfer-config': 'serving.mode (NIXL KV transfer)', 'kv_transfer_config': 'serving.mode (NIXL KV transfer)' }));
    }
    problems.push(...argsConflicts(d, { 'model': 'model.id', 'served-model-name': 'model.servedName', 'served_model_name': 'model.servedName' }));
    const known = this.vllmArgsKnown(d);
    const argProblems = engineArgProblems(d, known);
    problems.push(...argProblems);
    if (d.resources.gpu.count > 0 || d.mode === 'disaggregated') {
      // A parallel size vLLM's CLI refuses stays text in engine_kwargs: refused once above, for its type, not again here.
      problems.push(...replicaGpuProblems(d, known).filter((p) => !argProblems.some((a) => a.field === p.field)));
    }
    for (const field of ['cpu', 'memory']) {
      const value = overrideValue(d.overrides, ['head', 'resources', field]);
      if (typeof value === 'string' && !QUANTITY.test(value)) {
        problems.push({ field: `provider.overrides.head.resources.${field}`, message: `${JSON.stringify(value)} is not a Kubernetes quantity such as "2" or "4Gi"` });
      }
    }
    problems.push(...nameLengthProblem(d.name, MAX_RAY_SERVICE_NAME_LENGTH, 'KubeRay appends 6 characters for the RayCluster and "-serve-svc" for its Service'));
    return problems;
  }

  public render(context: RenderContext): ApiObject {
    const known = this.vllmArgsKnown(context.deployment);
    replicaGpuWarnings(context.deployment, known).forEach(context.warn);
    return renderRayService(context, { rayVersion: this.rayVersion, image: this.image, vllmArgsKnown: known });
  }

  /** Whether `d` runs the vLLM engine-args.generated.ts was read from: Ray's own image of that release. */
  private vllmArgsKnown(d: ResolvedModelDeployment): boolean {
    return vllmArgsKnown(this.rayVersion, (d.image ?? this.image) === rayLlmImage(this.rayVersion));
  }

  public endpoint(d: ResolvedModelDeployment): EndpointStatus {
    return rayServeEndpoint(d.name);
  }

  public handlesResource(type: ResourceType): boolean {
    return type.kind === 'RayService' && type.apiVersion === 'ray.io/v1';
  }

  public translateStatus(resource: UpstreamResource): ModelDeploymentStatus {
    return translateRayServiceStatus(resource, this.name);
  }
}
