// The validated spec with every default applied: what providers translate.
import { nameOf } from '../object-reference';
import { EnvVar, Toleration } from '../pod-spec';
import { EngineType, ModelDeploymentSpec, ModelSource, ServingMode } from './types';

/** The GPU resource name used when `gpu.type` is omitted. */
export const DEFAULT_GPU_TYPE = 'nvidia.com/gpu';

/** GPUs with defaults applied. */
export interface ResolvedGpu {
  /** GPUs per pod (0 = none). */
  readonly count: number;
  /** Extended resource name. */
  readonly type: string;
}

/** One role of a disaggregated deployment. */
export interface ResolvedComponent {
  /** Worker replicas. */
  readonly replicas: number;
  /** GPUs per worker. */
  readonly gpu: ResolvedGpu;
  /** Memory per worker. */
  readonly memory?: string;
  /** CPU per worker. */
  readonly cpu?: string;
}

/**
 * A validated ModelDeployment with defaults applied. Providers translate this; they never see
 * unvalidated input.
 */
export interface ResolvedModelDeployment {
  /** Name of the rendered resources (`metadata.name`). */
  readonly name: string;
  /** Namespace, when one is set explicitly. */
  readonly namespace?: string;
  /** The model. `servedName` is cleared for `source: custom` (it is ignored there). */
  readonly model: { readonly id?: string; readonly servedName?: string; readonly source: ModelSource };
  /** The engine. */
  readonly engine: {
    readonly type: EngineType;
    readonly contextLength?: number;
    readonly trustRemoteCode: boolean;
    readonly args: Readonly<Record<string, string>>;
  };
  /** Serving mode. */
  readonly mode: ServingMode;
  /** Aggregated replicas (`scaling.replicas`). */
  readonly replicas: number;
  /** Per-replica resources in aggregated mode; `gpu.count` is 0 when no GPU was requested. */
  readonly resources: { readonly gpu: ResolvedGpu; readonly memory?: string; readonly cpu?: string };
  /** Prefill workers (disaggregated mode). */
  readonly prefill?: ResolvedComponent;
  /** Decode workers (disaggregated mode). */
  readonly decode?: ResolvedComponent;
  /** Whether any pod gets a GPU (disaggregated mode always uses GPUs). */
  readonly usesGpu: boolean;
  /** Container image override. */
  readonly image?: string;
  /** Environment variables. */
  readonly env: readonly EnvVar[];
  /** Pod labels and annotations. */
  readonly podMetadata: { readonly labels: Readonly<Record<string, string>>; readonly annotations: Readonly<Record<string, string>> };
  /** Name of the Secret with the Hugging Face token. */
  readonly huggingFaceTokenSecret?: string;
  /** Node selector. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Tolerations. */
  readonly tolerations: readonly Toleration[];
  /** Secrets for pulling images. */
  readonly imagePullSecrets: readonly string[];
  /** ServiceAccount of the serving pods. */
  readonly serviceAccountName?: string;
  /** `provider.overrides` as given. */
  readonly overrides: Readonly<Record<string, unknown>>;
  /** The spec as given (what CEL selection rules see as `spec`, with documented defaults filled in). */
  readonly spec: ModelDeploymentSpec;
}

/** Applies the documented defaults to a spec that passed validation. */
export function resolveSpec(spec: ModelDeploymentSpec, name: string, namespace?: string): ResolvedModelDeployment {
  const source = spec.model.source ?? 'huggingface';
  const mode = spec.serving?.mode ?? 'aggregated';
  const gpu = { count: spec.resources?.gpu?.count ?? 0, type: spec.resources?.gpu?.type ?? DEFAULT_GPU_TYPE };
  const component = (c: NonNullable<ModelDeploymentSpec['scaling']>['prefill']): ResolvedComponent | undefined => c && {
    replicas: c.replicas ?? 1,
    gpu: { count: c.gpu?.count ?? 0, type: c.gpu?.type ?? DEFAULT_GPU_TYPE },
    memory: c.memory,
    cpu: c.cpu,
  };
  return {
    name,
    namespace,
    model: { id: spec.model.id, servedName: source === 'custom' ? undefined : spec.model.servedName, source },
    engine: {
      type: spec.engine.type,
      contextLength: spec.engine.contextLength,
      trustRemoteCode: spec.engine.trustRemoteCode ?? false,
      args: spec.engine.args ?? {},
    },
    mode,
    replicas: spec.scaling?.replicas ?? 1,
    resources: { gpu, memory: spec.resources?.memory, cpu: spec.resources?.cpu },
    prefill: mode === 'disaggregated' ? component(spec.scaling?.prefill) : undefined,
    decode: mode === 'disaggregated' ? component(spec.scaling?.decode) : undefined,
    usesGpu: mode === 'disaggregated' || gpu.count > 0,
    image: spec.image,
    env: spec.env ?? [],
    podMetadata: { labels: spec.podTemplate?.metadata?.labels ?? {}, annotations: spec.podTemplate?.metadata?.annotations ?? {} },
    huggingFaceTokenSecret: spec.secrets?.huggingFaceToken === undefined ? undefined : nameOf(spec.secrets.huggingFaceToken),
    nodeSelector: spec.nodeSelector ?? {},
    tolerations: spec.tolerations ?? [],
    imagePullSecrets: (spec.imagePullSecrets ?? []).map(nameOf),
    serviceAccountName: spec.serviceAccountName === undefined ? undefined : nameOf(spec.serviceAccountName),
    // Read as the untyped map it is in a YAML document; checkOverrides has said what is wrong in it.
    overrides: (spec.provider?.overrides ?? {}) as Readonly<Record<string, unknown>>,
    spec,
  };
}

/**
 * The spec as CEL selection rules see it (`spec.*`): the input as given, with the defaults the
 * spec documents for `model.source`, `serving.mode`, `scaling.replicas`, `engine.trustRemoteCode`
 * and `engine.args` filled in, and `resources` present (possibly empty), so rules need no `has()` guard
 * for them. `resources.gpu` is left as given: "omitted" and "count 0" both mean CPU-only, and rules
 * test that with `!has(spec.resources.gpu) || spec.resources.gpu.count == 0`.
 */
export function celSpecView(spec: ModelDeploymentSpec): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(spec)) as Record<string, any>;
  plain.model = { ...plain.model, source: spec.model.source ?? 'huggingface' };
  plain.engine = { ...plain.engine, trustRemoteCode: spec.engine.trustRemoteCode ?? false, args: spec.engine.args ?? {} };
  plain.serving = { ...plain.serving, mode: spec.serving?.mode ?? 'aggregated' };
  plain.scaling = { ...plain.scaling, replicas: spec.scaling?.replicas ?? 1 };
  plain.resources = { ...plain.resources };
  return plain;
}
