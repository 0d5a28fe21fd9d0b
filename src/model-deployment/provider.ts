// The provider interface (seed 003 §3.13 `SemanticTranslator` plus the `InferenceProviderConfig`
// of §3.9): capabilities, selection rules, compatibility check, spec translation and status
// translation. KAITO, Dynamo and KubeRay implement it; a third party implements it too and
// registers the result in a `ProviderRegistry`, without changing the core.
import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import { Problem } from '../errors';
import { OverrideSchema } from './overrides';
import { ResolvedModelDeployment } from './resolved-spec';
import { EndpointStatus, ModelDeploymentStatus, UpstreamResource } from './status';
import { EngineType, ServingMode } from './types';

/** What a provider can run (`spec.capabilities` of an `InferenceProviderConfig`). */
export interface ProviderCapabilities {
  /** Engines it can run. */
  readonly engines: readonly EngineType[];
  /** Serving modes it supports. */
  readonly servingModes: readonly ServingMode[];
  /** Whether it runs deployments without GPUs. */
  readonly cpuSupport: boolean;
  /** Whether it runs deployments with GPUs. */
  readonly gpuSupport: boolean;
}

/**
 * One selection rule (`spec.selectionRules[]` of an `InferenceProviderConfig`): when `condition` holds, the provider
 * is a candidate with `priority`; the highest priority among providers that support the spec wins.
 */
export interface SelectionRule {
  /**
   * A CEL expression over `spec` (the ModelDeployment spec, with defaults for `model.source`,
   * `serving.mode`, `scaling.replicas`, `engine.trustRemoteCode`, `engine.args` and `resources`),
   * e.g. `spec.model.id.startsWith('acme/')`. It must evaluate to a bool.
   */
  readonly condition: string;
  /** Higher wins. */
  readonly priority: number;
  /**
   * Why this rule picks the provider; recorded in the `kube-inference.io/selection-reason`
   * annotation of the rendered resource.
   * @default - "selection rule <condition> (priority <n>) → <provider>"
   */
  readonly reason?: string;
}

/** An API group/version and kind. */
export interface ResourceType {
  /** e.g. `kaito.sh/v1beta1`. */
  readonly apiVersion: string;
  /** e.g. `Workspace`. */
  readonly kind: string;
}

/** What a provider gets to render one deployment. */
export interface RenderContext {
  /** Where to create the API objects (the ModelDeployment construct). */
  readonly scope: Construct;
  /** The validated deployment, defaults applied. */
  readonly deployment: ResolvedModelDeployment;
  /** Name, namespace, labels and annotations for the primary upstream resource. */
  readonly metadata: ApiObjectMetadata;
  /** Labels every pod gets (`podTemplate.metadata.labels` plus ours). */
  readonly podLabels: Readonly<Record<string, string>>;
  /** Annotations every pod gets (`podTemplate.metadata.annotations`). */
  readonly podAnnotations: Readonly<Record<string, string>>;
  /** Labels for secondary objects (ConfigMaps and the like). */
  readonly commonLabels: Readonly<Record<string, string>>;
  /** Records a non-blocking warning (printed at synth). */
  warn(message: string): void;
}

/** A model-serving backend that renders the unified spec into its own custom resource. */
export interface InferenceProvider {
  /** Registry name, lower-case: `kaito`, `dynamo`, `kuberay`. */
  readonly name: string;
  /** Name used in messages: `KAITO`, `Dynamo`, `KubeRay`. */
  readonly displayName: string;
  /** What it can run. */
  readonly capabilities: ProviderCapabilities;
  /** When it is chosen automatically; none means only when named in `provider.name`. */
  readonly selectionRules: readonly SelectionRule[];
  /** Its documented `provider.overrides` keys. */
  readonly overrides: OverrideSchema;
  /** The custom resource it renders (for the "CRD installed" check and status dispatch). */
  readonly resourceType: ResourceType;
  /** Documentation link. */
  readonly documentation?: string;

  /**
   * The problems that make this provider unable to run the deployment (the provider-capability checks),
   * with fields as spec paths. Empty when compatible.
   */
  checkCompatibility(deployment: ResolvedModelDeployment): Problem[];

  /** Creates the upstream resource (and anything it needs) in `context.scope`; returns the primary resource. */
  render(context: RenderContext): ApiObject;

  /** The Service that serves the OpenAI-compatible API of the rendered deployment. */
  endpoint(deployment: ResolvedModelDeployment): EndpointStatus;

  /**
   * The model's name on that API (what `GET /v1/models` lists), when the provider's runtime names it
   * otherwise than `model.servedName`, else `model.id`; undefined when it cannot be known at synth.
   * @default - `model.servedName`, else `model.id`
   */
  servedModelName?(deployment: ResolvedModelDeployment): string | undefined;

  /** Whether {@link translateStatus} understands resources of this type. */
  handlesResource(type: ResourceType): boolean;

  /** Maps the upstream resource, with its `status`, to the unified status. A pure function. */
  translateStatus(resource: UpstreamResource): ModelDeploymentStatus;
}
