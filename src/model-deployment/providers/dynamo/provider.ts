import { ApiObject } from 'cdk8s';
import { compareVersions, QUANTITY } from '../../../checks';
import { Problem } from '../../../errors';
import { defineObject } from '../../../kubernetes-objects';
import { OverrideSchema, overrideValue } from '../../overrides';
import { InferenceProvider, RenderContext, ResourceType, SelectionRule } from '../../provider';
import { ResolvedModelDeployment } from '../../resolved-spec';
import { EndpointStatus, ModelDeploymentStatus, UpstreamResource } from '../../status';
import { argsConflicts, nameLengthProblem, podIdentity } from '../common';
import { DYNAMO_FRONTEND_DEFAULTS, DynamoBackend, dynamoOwnedFlags, dynamoServiceKeys, planDynamo } from './plan';
import { roleOverrideProblems } from './roles';
import { RUNTIME_VERSION_ADMISSION_SINCE, RUNTIME_VERSION_OVERRIDE, unreadableRuntimeVersion } from './runtime-version';
import { dynamoEndpoint, translateDynamoStatus } from './status';
import { DynamoTransformer } from './transformer';
import { DynamoV1Alpha1Transformer } from './transformer-v1alpha1';
import { DynamoV1Beta1Transformer } from './transformer-v1beta1';

/** Options of the Dynamo provider. */
export interface DynamoProviderOptions {
  /**
   * The Dynamo operator release of the cluster (`major.minor`, as its `dynamo-platform` chart): it decides
   * the schema version rendered by default and which of its webhook's rules apply.
   * @default '1.6'
   */
  readonly operatorVersion?: string;
  /**
   * The DynamoGraphDeployment schema version to render; one transformer exists per version.
   * `nvidia.com/v1alpha1` is deprecated from operator 1.2, which serves `nvidia.com/v1beta1`.
   * @default - 'nvidia.com/v1beta1' from operator 1.2 on, else 'nvidia.com/v1alpha1'
   */
  readonly apiVersion?: string;
  /**
   * Dynamo release of the default runtime images (`nvcr.io/nvidia/ai-dynamo/<engine>-runtime:<version>`).
   * What the workers and frontend are given is checked by the argument parsers of 1.6.1 (vLLM 0.31.0,
   * SGLang 0.5.21) and of 1.0.1 (vLLM 0.16.0, SGLang 0.5.9); releases from 1.0 take the same flags
   * (`--disaggregation-mode`, an explicit `--kv-transfer-config`).
   * @default '1.6.1'
   */
  readonly version?: string;
}

/** The default Dynamo release for images. */
export const DEFAULT_DYNAMO_VERSION = '1.6.1';

/** The default Dynamo operator release: the newest. */
export const DEFAULT_DYNAMO_OPERATOR_VERSION = '1.6';

/** The first operator release serving `nvidia.com/v1beta1` (its release notes: v1.2.0, "DGD/DGDR promoted to v1beta1"). */
const V1BETA1_SINCE = '1.2';

/** Transformers by schema version. */
const TRANSFORMERS: readonly DynamoTransformer[] = [new DynamoV1Alpha1Transformer(), new DynamoV1Beta1Transformer()];

/** True when release `version` (`major.minor[.patch]`) is `since` or later. */
const atLeast = (version: string, since: string) => compareVersions(version, since) >= 0;

/** Why Dynamo cannot run a deployment. */
export const DYNAMO_MESSAGES = {
  llamacpp: 'Dynamo does not support llamacpp engine',
  requiresGpu: 'Dynamo requires GPU (set resources.gpu.count > 0)',
  modelIdRequired: 'Dynamo workers need model.id: the Hugging Face id, or for source custom the model path inside the image',
} as const;

/** The overrides of one disaggregated role. */
function roleOverrides(role: 'prefill' | 'decode'): OverrideSchema[string] {
  return {
    type: 'object',
    description: `The ${role} workers of disaggregated serving.`,
    properties: {
      args: {
        type: 'stringMap',
        description: `Extra ${role} worker flags (flag name without dashes → value, "" for a bare flag); they replace the same flag from engine.args and the defaults.`,
      },
      engineConfig: {
        type: 'stringMap',
        description: `TensorRT-LLM only: entries of the ${role} engine configuration file (dotted path → value, typed like engine.args), merged over the required settings.`,
      },
    },
  };
}

/** Documented `provider.overrides` of Dynamo. */
export const DYNAMO_OVERRIDES: OverrideSchema = {
  routerMode: {
    type: 'string',
    enum: ['kv', 'round-robin', 'random', 'none'],
    default: DYNAMO_FRONTEND_DEFAULTS.routerMode,
    description: 'Request routing strategy of the frontend (`--router-mode`); `none` leaves it unset.',
  },
  frontend: {
    type: 'object',
    description: 'The frontend (router) component.',
    properties: {
      replicas: { type: 'integer', minimum: 1, default: DYNAMO_FRONTEND_DEFAULTS.replicas, description: 'Number of frontend/router pods.' },
      resources: {
        type: 'object',
        description: 'Frontend resource requests.',
        properties: {
          cpu: { type: 'string', default: DYNAMO_FRONTEND_DEFAULTS.cpu, description: 'CPU request for the frontend.' },
          memory: { type: 'string', default: DYNAMO_FRONTEND_DEFAULTS.memory, description: 'Memory request for the frontend.' },
        },
      },
    },
  },
  prefill: roleOverrides('prefill'),
  decode: roleOverrides('decode'),
  runtimeVersionOverride: {
    type: 'string',
    description: 'The Dynamo release in the images (`major.minor.patch`), for operators from 1.5 that cannot read it from an image tag that is not a version; '
      + 'set on every component.',
  },
};

/**
 * NVIDIA Dynamo (`DynamoGraphDeployment`): GPU only; vLLM, SGLang and TensorRT-LLM; aggregated and
 * disaggregated (prefill/decode) serving. The default GPU provider.
 */
export class DynamoProvider implements InferenceProvider {
  public readonly name = 'dynamo';
  public readonly displayName = 'Dynamo';
  public readonly documentation = 'https://github.com/ai-dynamo/dynamo';
  public readonly capabilities = {
    engines: ['vllm', 'sglang', 'trtllm'] as const,
    servingModes: ['aggregated', 'disaggregated'] as const,
    cpuSupport: false,
    gpuSupport: true,
  };
  public readonly selectionRules: readonly SelectionRule[] = [
    { condition: "spec.engine.type == 'trtllm'", priority: 400, reason: 'engine=trtllm → dynamo (only trtllm provider)' },
    { condition: "spec.engine.type == 'sglang'", priority: 400, reason: 'engine=sglang → dynamo (only sglang provider)' },
    { condition: "spec.serving.mode == 'disaggregated'", priority: 200, reason: 'mode=disaggregated → dynamo (best disaggregated support)' },
    { condition: 'true', priority: 100, reason: 'default → dynamo (GPU inference default)' },
  ];
  public readonly overrides = DYNAMO_OVERRIDES;
  public readonly resourceType: ResourceType;
  /** Dynamo release of the default images. */
  public readonly version: string;
  /** The Dynamo operator release targeted. */
  public readonly operatorVersion: string;
  private readonly transformer: DynamoTransformer;

  public constructor(options: DynamoProviderOptions = {}) {
    this.operatorVersion = options.operatorVersion ?? DEFAULT_DYNAMO_OPERATOR_VERSION;
    if (!/^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$/.test(this.operatorVersion)) {
      throw new Error(`Dynamo operatorVersion ${JSON.stringify(this.operatorVersion)} is not a release such as "1.6"`);
    }
    const servesV1Beta1 = atLeast(this.operatorVersion, V1BETA1_SINCE);
    const apiVersion = options.apiVersion ?? (servesV1Beta1 ? 'nvidia.com/v1beta1' : 'nvidia.com/v1alpha1');
    const transformer = TRANSFORMERS.find((t) => t.apiVersion === apiVersion);
    if (!transformer) {
      throw new Error(`Dynamo apiVersion ${JSON.stringify(apiVersion)} has no transformer; supported: ${TRANSFORMERS.map((t) => t.apiVersion).join(', ')}`);
    }
    if (apiVersion === 'nvidia.com/v1beta1' && !servesV1Beta1) {
      throw new Error(`Dynamo operator ${this.operatorVersion} does not serve nvidia.com/v1beta1 (served from ${V1BETA1_SINCE}): use apiVersion nvidia.com/v1alpha1, or target a newer operator`);
    }
    this.transformer = transformer;
    this.resourceType = { apiVersion, kind: 'DynamoGraphDeployment' };
    this.version = options.version ?? DEFAULT_DYNAMO_VERSION;
  }

  public checkCompatibility(d: ResolvedModelDeployment): Problem[] {
    const problems: Problem[] = [];
    if (d.engine.type === 'llamacpp') problems.push({ field: 'engine.type', message: DYNAMO_MESSAGES.llamacpp });
    if (d.mode === 'aggregated' && d.resources.gpu.count === 0) problems.push({ field: 'resources.gpu.count', message: DYNAMO_MESSAGES.requiresGpu });
    if (d.model.id === undefined) problems.push({ field: 'model.id', message: DYNAMO_MESSAGES.modelIdRequired });
    const owned = dynamoOwnedFlags(d.engine.type, d.mode);
    problems.push(...argsConflicts(d, owned), ...roleOverrideProblems(d, owned));
    for (const field of ['cpu', 'memory']) {
      const value = overrideValue(d.overrides, ['frontend', 'resources', field]);
      if (typeof value === 'string' && !QUANTITY.test(value)) {
        problems.push({ field: `provider.overrides.frontend.resources.${field}`, message: `${JSON.stringify(value)} is not a Kubernetes quantity such as "2" or "4Gi"` });
      }
    }
    problems.push(...this.runtimeVersionProblems(d));
    if (this.capabilities.engines.includes(d.engine.type as never)) {
      // The operator names each component's Service `<name>-<service key, lower-cased>`.
      const longest = dynamoServiceKeys(d.engine.type as DynamoBackend, d.mode)
        .map((key) => key.toLowerCase()).reduce((a, b) => b.length > a.length ? b : a);
      problems.push(...nameLengthProblem(d.name, 63 - longest.length - 1, `Dynamo names a Service "<name>-${longest}" (at most 63 characters)`));
    }
    return problems;
  }

  /**
   * Operators from 1.5 refuse a component whose image tag is not a version unless `runtimeVersionOverride`
   * is set; older ones have no such field (their schema refuses it).
   */
  private runtimeVersionProblems(d: ResolvedModelDeployment): Problem[] {
    const override = overrideValue(d.overrides, ['runtimeVersionOverride']);
    const field = 'provider.overrides.runtimeVersionOverride';
    if (!atLeast(this.operatorVersion, RUNTIME_VERSION_ADMISSION_SINCE)) {
      return override === undefined ? [] : [{
        field, message: `Dynamo operator ${this.operatorVersion} has no runtimeVersionOverride (operators from ${RUNTIME_VERSION_ADMISSION_SINCE} have it): remove it`,
      }];
    }
    if (override !== undefined) {
      return typeof override === 'string' && RUNTIME_VERSION_OVERRIDE.test(override) ? [] : [{
        field, message: `${JSON.stringify(override)} is not a Dynamo release as the operator takes it: major.minor.patch, such as "${DEFAULT_DYNAMO_VERSION}"`,
      }];
    }
    const unreadable = d.image === undefined ? undefined : unreadableRuntimeVersion(d.image);
    return unreadable === undefined ? [] : [{
      field: 'image',
      // The operator's message (runtimeVersionOverrideRequiredMessage), with the fix.
      message: `${unreadable}: Dynamo operator ${this.operatorVersion} requires runtimeVersionOverride "when the specified main container image has `
        + `no parseable semantic-version tag". Set provider.overrides.runtimeVersionOverride to the Dynamo release in the image (such as "${DEFAULT_DYNAMO_VERSION}"), `
        + 'or tag the image with it',
    }];
  }

  public render(context: RenderContext): ApiObject {
    const d = context.deployment;
    const plan = planDynamo(d, { version: this.version });
    if (this.resourceType.apiVersion === 'nvidia.com/v1alpha1' && atLeast(this.operatorVersion, V1BETA1_SINCE)) {
      context.warn(`nvidia.com/v1alpha1 DynamoGraphDeployment is deprecated from Dynamo operator ${V1BETA1_SINCE} (the operator's own warning); `
        + `operator ${this.operatorVersion} serves nvidia.com/v1beta1: leave the Dynamo provider's apiVersion unset to render it`);
    }
    for (const [i, configMap] of plan.configMaps.entries()) {
      defineObject(context.scope, `Config${i}`, 'ConfigMap', {
        metadata: { name: configMap.name, namespace: d.namespace, labels: { ...context.commonLabels, 'app.kubernetes.io/component': 'engine-config' } },
        data: { ...configMap.data },
        immutable: false,
      });
    }
    return this.transformer.render(context.scope, context.metadata, plan, {
      labels: context.podLabels,
      annotations: context.podAnnotations,
      nodeSelector: d.nodeSelector,
      tolerations: d.tolerations,
      identity: podIdentity(d),
    });
  }

  public endpoint(d: ResolvedModelDeployment): EndpointStatus {
    return dynamoEndpoint(d.name);
  }

  public handlesResource(type: ResourceType): boolean {
    return type.kind === 'DynamoGraphDeployment' && TRANSFORMERS.some((t) => t.apiVersion === type.apiVersion);
  }

  public translateStatus(resource: UpstreamResource): ModelDeploymentStatus {
    return translateDynamoStatus(resource, this.name);
  }
}
