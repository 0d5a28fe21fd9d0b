// The unified ModelDeployment spec of seed 003 §4.1, as readonly TypeScript props.
// Field names are the seed's, so a `ModelDeployment` YAML document's `spec` maps onto them 1:1.

import type { ObjectReference } from '../object-reference';
import type { EnvVar, Toleration } from '../pod-spec';

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

/** `provider.overrides` of KAITO (docs/model-deployment.md). */
export interface KaitoOverrides {
  /**
   * How the KAITO install gets nodes: `auto` (node auto-provisioning, needs `instanceType`) or
   * `bring-your-own` (KAITO installed with `disableNodeAutoProvisioning=true`; existing nodes matching the selector).
   * @default - the provider's `nodeProvisioning` option, else `auto`
   */
  readonly nodeProvisioning?: 'auto' | 'bring-your-own';
  /**
   * The node SKU KAITO provisions (`resource.instanceType`), e.g. `Standard_NC24ads_A100_v4`.
   * Required with `nodeProvisioning: auto`; not allowed with `bring-your-own`.
   * @default - none
   */
  readonly instanceType?: string;
  /**
   * llama.cpp only: the GGUF file in the Hugging Face repository to load (`https://huggingface.co/<model.id>/resolve/main/<ggufFile>`),
   * served under its name without `.gguf`.
   * @default - the runner downloads every GGUF file of the repository
   */
  readonly ggufFile?: string;
}

/** CPU and memory requests of a component, e.g. `{ cpu: '1', memory: '2Gi' }`. */
export interface ComponentResourcesOverrides {
  /** @default - the provider's */
  readonly cpu?: string;
  /** @default - the provider's */
  readonly memory?: string;
}

/** The workers of one role of disaggregated serving on Dynamo. */
export interface DynamoRoleOverrides {
  /**
   * Extra worker flags (flag name without dashes → value, `""` for a bare flag); they replace the same
   * flag from `engine.args` and the defaults.
   * @default {}
   */
  readonly args?: { [flag: string]: string };
  /**
   * TensorRT-LLM only: entries of the role's engine configuration file (dotted path → value, typed like
   * `engine.args`), merged over the required settings.
   * @default {}
   */
  readonly engineConfig?: { [path: string]: string };
}

/** `provider.overrides` of Dynamo (docs/model-deployment.md). */
export interface DynamoOverrides {
  /**
   * Request routing strategy of the frontend (`--router-mode`); `none` leaves it unset.
   * @default 'round-robin'
   */
  readonly routerMode?: 'kv' | 'round-robin' | 'random' | 'none';
  /**
   * The frontend (router) component: its pods and their requests.
   * @default - one pod
   */
  readonly frontend?: { readonly replicas?: number; readonly resources?: ComponentResourcesOverrides };
  /** @default - the defaults of the prefill workers */
  readonly prefill?: DynamoRoleOverrides;
  /** @default - the defaults of the decode workers */
  readonly decode?: DynamoRoleOverrides;
  /**
   * The Dynamo release in the images (`major.minor.patch`), for operators from 1.5 that cannot read it from
   * an image tag that is not a version; set on every component.
   * @default - read by the operator from the image tag
   */
  readonly runtimeVersionOverride?: string;
}

/** `provider.overrides` of KubeRay (docs/model-deployment.md). */
export interface KubeRayOverrides {
  /**
   * The Ray head node: its requests, and `ray start` flags (`rayStartParams`).
   * @default - the provider's head
   */
  readonly head?: { readonly resources?: ComponentResourcesOverrides; readonly rayStartParams?: { [flag: string]: string } };
}

/**
 * The overrides of each provider, by its name. A third-party provider adds its own to the type, so
 * that `provider: { name: 'acme', overrides }` type-checks (docs/model-deployment.md):
 *
 * ```ts
 * declare module 'kube-inference-constructs' {
 *   interface ProviderOverridesByName { acme: { tier?: 'gold' | 'silver' } }
 * }
 * ```
 */
export interface ProviderOverridesByName {
  /** KAITO's. */
  readonly kaito: KaitoOverrides;
  /** Dynamo's. */
  readonly dynamo: DynamoOverrides;
  /** KubeRay's. */
  readonly kuberay: KubeRayOverrides;
}

/** A provider named, with its own overrides. */
export type NamedProviderSpec = {
  readonly [N in keyof ProviderOverridesByName]: {
    /** The provider. */
    readonly name: N;
    /**
     * Its settings: only documented keys are used; unknown keys are warnings, wrong types fail synth.
     * @default {}
     */
    readonly overrides?: ProviderOverridesByName[N];
  }
}[keyof ProviderOverridesByName];

/** The provider chosen by the selection rules, with the overrides of whichever is chosen. */
export interface SelectedProviderSpec {
  /** @default - chosen by the selection rules (docs/model-deployment.md); KubeRay is never chosen automatically */
  readonly name?: undefined;
  /**
   * The chosen provider's settings: only its documented keys are used; unknown keys are warnings.
   * @default {}
   */
  readonly overrides?: ProviderOverridesByName[keyof ProviderOverridesByName];
}

/**
 * Which provider renders the deployment, and its overrides, typed by `name`: `kaito`, `dynamo`,
 * `kuberay`, or a third-party provider added to {@link ProviderOverridesByName}.
 */
export type ProviderSpec = NamedProviderSpec | SelectedProviderSpec;

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
   * A Secret holding the Hugging Face token (key `HF_TOKEN`): its name, or a cdk8s-plus `ISecret` /
   * cdk8s `ApiObject`. Every key of it becomes an environment variable where the provider supports that.
   * @default - no token
   */
  readonly huggingFaceToken?: ObjectReference;
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
   * Secrets (in the deployment's namespace) used to pull the serving images from a private registry:
   * their names, or cdk8s-plus `ISecret`s / cdk8s `ApiObject`s.
   * @default []
   */
  readonly imagePullSecrets?: ObjectReference[];
  /**
   * The ServiceAccount the serving pods run as (for registry credentials, workload identity or
   * RBAC): its name, or a cdk8s-plus `IServiceAccount` / cdk8s `ApiObject`. It must exist in the
   * deployment's namespace.
   * @default - the provider's default (usually the namespace's `default` ServiceAccount)
   */
  readonly serviceAccountName?: ObjectReference;
}
