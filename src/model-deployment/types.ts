// The unified ModelDeployment spec of seed 003 §4.1, as readonly TypeScript props.
// Field names are the seed's, so a `ModelDeployment` YAML document's `spec` maps onto them 1:1.

/** Where the model weights come from. */
export type ModelSource = 'huggingface' | 'custom';

/** The inference engine that serves the model. */
export type EngineType = 'vllm' | 'sglang' | 'trtllm' | 'llamacpp';

/** Whether prefill and decode run in the same workers or in separate ones. */
export type ServingMode = 'aggregated' | 'disaggregated';

/** Every {@link ModelSource}, in documentation order. */
export const MODEL_SOURCES: readonly ModelSource[] = ['huggingface', 'custom'];
/** Every {@link EngineType}, in documentation order. */
export const ENGINE_TYPES: readonly EngineType[] = ['vllm', 'sglang', 'trtllm', 'llamacpp'];
/** Every {@link ServingMode}, in documentation order. */
export const SERVING_MODES: readonly ServingMode[] = ['aggregated', 'disaggregated'];

/** The model to serve. */
export interface ModelSpec {
  /**
   * Hugging Face model id, e.g. `meta-llama/Llama-3.1-8B-Instruct`.
   * Required when `source` is `huggingface`; for `custom` it is passed to the engine when given
   * (for example a path inside the image).
   * @default - none
   */
  readonly id?: string;
  /**
   * The model name the OpenAI-compatible API serves. Ignored (with a warning) for `source: custom`,
   * where the image defines the name.
   * @default - the engine's default (the model id)
   */
  readonly servedName?: string;
  /**
   * `huggingface` downloads the weights at start-up; `custom` means they are in the image.
   * @default 'huggingface'
   */
  readonly source?: ModelSource;
}

/** Which provider renders the deployment. */
export interface ProviderSpec {
  /**
   * A registered provider: `kaito`, `dynamo`, `kuberay`, or a third-party name.
   * @default - chosen by the selection rules (docs/model-deployment.md); KubeRay is never chosen automatically
   */
  readonly name?: string;
  /**
   * Provider-specific settings. Only documented keys are used; unknown keys are
   * reported as warnings, wrong types fail synth.
   * @default {}
   */
  readonly overrides?: Record<string, unknown>;
}

/** The inference engine and its options. */
export interface EngineSpec {
  /** The engine. */
  readonly type: EngineType;
  /**
   * Maximum context length in tokens: vLLM `--max-model-len`, SGLang `--context-length`,
   * llama.cpp `--context-size` (the LocalAI runner KAITO's template runs). Ignored with a warning for TensorRT-LLM (fixed when the engine is built).
   * @default - the model's default
   */
  readonly contextLength?: number;
  /**
   * Lets vLLM/SGLang run code shipped with the model (`--trust-remote-code`).
   * @default false
   */
  readonly trustRemoteCode?: boolean;
  /**
   * Extra engine flags, without leading dashes: `{ 'gpu-memory-utilization': '0.9' }` renders
   * `--gpu-memory-utilization 0.9`; an empty value renders a bare flag (`--enforce-eager`).
   * Emitted in sorted key order.
   * @default {}
   */
  readonly args?: Record<string, string>;
}

/** How requests are served. */
export interface ServingSpec {
  /**
   * `disaggregated` runs prefill and decode in separate workers (`scaling.prefill` / `scaling.decode`).
   * @default 'aggregated'
   */
  readonly mode?: ServingMode;
}

/** GPUs per pod. */
export interface GpuSpec {
  /** GPUs per replica; 0 means CPU-only. */
  readonly count: number;
  /**
   * Extended resource name of the GPU.
   * @default 'nvidia.com/gpu'
   */
  readonly type?: string;
}

/** One role of a disaggregated deployment (prefill or decode workers). */
export interface ComponentScalingSpec {
  /**
   * Worker replicas for this role.
   * @default 1
   */
  readonly replicas?: number;
  /** GPUs per worker (required, count > 0). */
  readonly gpu?: GpuSpec;
  /**
   * Memory per worker, a Kubernetes quantity such as `64Gi`.
   * @default - no memory request
   */
  readonly memory?: string;
  /**
   * CPU per worker, a Kubernetes quantity such as `8`.
   * @default - no CPU request
   */
  readonly cpu?: string;
}

/** How many replicas run. */
export interface ScalingSpec {
  /**
   * Replicas in aggregated mode; 0 scales to zero.
   * @default 1
   */
  readonly replicas?: number;
  /** Prefill workers (disaggregated mode only). */
  readonly prefill?: ComponentScalingSpec;
  /** Decode workers (disaggregated mode only). */
  readonly decode?: ComponentScalingSpec;
}

/** Resources per replica in aggregated mode (not allowed with disaggregated GPUs). */
export interface ResourcesSpec {
  /**
   * GPUs per replica. Omitted means CPU-only (`count: 0`).
   * @default - no GPU
   */
  readonly gpu?: GpuSpec;
  /**
   * Memory per replica, e.g. `32Gi`.
   * @default - no memory request
   */
  readonly memory?: string;
  /**
   * CPU per replica, e.g. `4`.
   * @default - no CPU request
   */
  readonly cpu?: string;
}

/** Selects a key of a Secret or ConfigMap. */
export interface KeySelector {
  /** Name of the Secret or ConfigMap. */
  readonly name: string;
  /** The key. */
  readonly key: string;
  /**
   * Whether the object or key may be missing.
   * @default false
   */
  readonly optional?: boolean;
}

/** Where an environment variable's value comes from. */
export interface EnvVarSource {
  /** A key of a Secret. */
  readonly secretKeyRef?: KeySelector;
  /** A key of a ConfigMap. */
  readonly configMapKeyRef?: KeySelector;
  /** A field of the pod, e.g. `metadata.name`. */
  readonly fieldRef?: { readonly fieldPath: string; readonly apiVersion?: string };
}

/** An environment variable of the serving containers. */
export interface EnvVar {
  /** Variable name. */
  readonly name: string;
  /**
   * Literal value.
   * @default - none (use valueFrom)
   */
  readonly value?: string;
  /**
   * Value from a Secret, ConfigMap or pod field.
   * @default - none
   */
  readonly valueFrom?: EnvVarSource;
}

/** Labels and annotations for the pods. */
export interface PodMetadataSpec {
  /** @default {} */
  readonly labels?: Record<string, string>;
  /** @default {} */
  readonly annotations?: Record<string, string>;
}

/** What reaches the pods of the deployment. */
export interface PodTemplateSpec {
  /** Pod labels and annotations. */
  readonly metadata?: PodMetadataSpec;
}

/** Secrets the deployment uses. */
export interface SecretsSpec {
  /**
   * Name of a Secret holding the Hugging Face token (key `HF_TOKEN`); every key of it becomes an
   * environment variable where the provider supports that.
   * @default - no token
   */
  readonly huggingFaceToken?: string;
}

/** A Kubernetes toleration. */
export interface Toleration {
  /** @default - all keys (with operator Exists) */
  readonly key?: string;
  /** @default 'Equal' */
  readonly operator?: 'Exists' | 'Equal';
  /** @default - none */
  readonly value?: string;
  /** @default - all effects */
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  /** @default - forever */
  readonly tolerationSeconds?: number;
}

/**
 * The unified spec: the `spec` of a `ModelDeployment` document.
 */
export interface ModelDeploymentSpec {
  /** The model. */
  readonly model: ModelSpec;
  /**
   * Provider choice and provider-specific overrides.
   * @default - auto-selected, no overrides
   */
  readonly provider?: ProviderSpec;
  /** The engine. */
  readonly engine: EngineSpec;
  /**
   * Serving mode.
   * @default - aggregated
   */
  readonly serving?: ServingSpec;
  /**
   * Replicas.
   * @default - 1 replica
   */
  readonly scaling?: ScalingSpec;
  /**
   * Resources per replica (aggregated mode).
   * @default - CPU-only, no requests
   */
  readonly resources?: ResourcesSpec;
  /**
   * Container image for the model server.
   * @default - the provider's default for the engine (KAITO's llama.cpp has none: required there)
   */
  readonly image?: string;
  /**
   * Environment variables of the serving containers.
   * @default []
   */
  readonly env?: EnvVar[];
  /**
   * Pod labels and annotations.
   * @default - none
   */
  readonly podTemplate?: PodTemplateSpec;
  /**
   * Secret references.
   * @default - none
   */
  readonly secrets?: SecretsSpec;
  /**
   * Node labels the pods must run on.
   * @default {}
   */
  readonly nodeSelector?: Record<string, string>;
  /**
   * Tolerations of the pods.
   * @default []
   */
  readonly tolerations?: Toleration[];
  /**
   * Names of Secrets (in the deployment's namespace) used to pull the serving images from a
   * private registry.
   * @default []
   */
  readonly imagePullSecrets?: string[];
  /**
   * The ServiceAccount the serving pods run as (for registry credentials, workload identity or
   * RBAC). It must exist in the deployment's namespace.
   * @default - the provider's default (usually the namespace's `default` ServiceAccount)
   */
  readonly serviceAccountName?: string;
}
