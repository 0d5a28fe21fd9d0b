// The public cdk8s API of kube-inference-constructs: what API.md documents and what a user may rely
// on between releases. Everything else in lib/ is internal (the package's `exports` map keeps deep
// imports out); the Pulumi components are at `kube-inference-constructs/pulumi`.

// Errors and warnings every construct reports.
export { ValidationError } from './errors';
export type { Problem } from './errors';
export { warningsOf, COLLECT_WARNINGS_CONTEXT } from './warnings';
export { synthForSnapshot } from './snapshot';
export { LABEL_DOMAIN } from './labels';
// Pod-level values both constructs take, as the API server reads them, and references to objects by name.
export type {
  EnvValue, EnvVar, EnvVarSource, KeySelector, Probe, Toleration, TopologySpreadConstraint, Volume, VolumeMount,
} from './pod-spec';
export type { NamedObject, ObjectReference } from './object-reference';
export type { CdkPlusModule, PlusServiceProps } from './plus-service';

// LlamaStackWithProviders: an OGX (formerly Llama Stack) server with deploy-time external providers.
export { LlamaStackWithProviders } from './llama-stack/llama-stack-with-providers';
export type { LlamaStackWithProvidersProps } from './llama-stack/props';
export { DISTRIBUTION_IMAGES, DEFAULT_DISTRIBUTION_CONFIG_PATHS, distributionImage } from './llama-stack/server/distribution';
export type { Distribution } from './llama-stack/options';
export { ConfigValue } from './llama-stack/providers/options';
export type { ExternalProvider, ExternalProviders, SecretKeyReference } from './llama-stack/providers/options';
export type {
  AllowedFrom, AutoscalingOptions, CaBundleOptions, ExposeAs, ImagePullPolicy, NetworkOptions, PodDisruptionBudgetOptions, PodSecurityOptions,
  ServerTlsOptions, StackModel, StorageOptions, UserConfig,
} from './llama-stack/options';
export type { HealthCheck, ResourceRequirements } from './llama-stack/options';
export type { ProviderServicePart, ProviderSidecar, ProviderService } from './llama-stack/providers/options';
export { SERVER_RELEASES, DEFAULT_SERVER_VERSION, LLAMA_STACK_RELEASES, DEFAULT_LLAMA_STACK_VERSION } from './run-config/releases';
export type { DistributionImages, LlamaStackRelease, ServerEnvNames, ServerRelease } from './run-config/releases';
export { providerKey, MAX_PROVIDER_KEY_LENGTH } from './run-config/provider-id';
export { defaultMergeImage, MERGE_IMAGE_REPOSITORY } from './run-config/merge-image';
// The merge functions the merge-config step runs, free of file-system access (docs/merge-config.md).
export { mergeRunConfig } from './run-config/merge';
export type { MergeChange, MergeOptions, MergeResult, MergeWarning, ReplacedProvider, ServedModelChange } from './run-config/merge';
export { parseProviderMetadata } from './run-config/provider-metadata';
export type { MetadataOwner, ProviderMetadata, ProviderPackageInfo, ProviderPackageSpec } from './run-config/provider-metadata';
export { CRD_SECTION_BY_API, LLAMA_STACK_APIS } from './run-config/apis';
export type { LlamaStackApi } from './run-config/apis';
export type { ResolvedExternalProvider } from './run-config/external-providers';
export type { ServedModel } from './run-config/served-models';
export type { ServerTransport, TlsFiles } from './run-config/server-transport';
export type { PlacedServiceAddress, ProviderServiceAddressSpec, ServiceAddress, ServicePartMode } from './run-config/service-address';
export { RunConfigError } from './run-config/errors';
export type { RunConfigIssue } from './run-config/errors';
export { UnwritableValueError } from './run-config/render';
export type { PathSegment } from './io/scalars';

// ModelDeployment: one model-serving spec rendered into KAITO, Dynamo or KubeRay resources.
export { ModelDeployment } from './model-deployment/model-deployment';
export type { ModelDeploymentProps, ModelEndpoint } from './model-deployment/model-deployment';
export { ENGINE_TYPES, MODEL_SOURCES, SERVING_MODES } from './model-deployment/types';
export type {
  ComponentScalingSpec, EngineSpec, EngineType, GpuSpec, ModelDeploymentSpec, ModelSource, ModelSpec,
  PodMetadataSpec, PodTemplateSpec, ProviderSpec, ResourcesSpec,
  KaitoOverrides, DynamoOverrides, DynamoRoleOverrides, KubeRayOverrides, ComponentResourcesOverrides, ProviderOverridesByName,
  NamedProviderSpec, SelectedProviderSpec, ScalingSpec, SecretsSpec, ServingMode, ServingSpec,
} from './model-deployment/types';
export { PROVIDER_ANNOTATION, PROVIDER_LABEL, MODEL_DEPLOYMENT_LABEL, SELECTION_REASON_ANNOTATION } from './model-deployment/metadata';
export { translateStatus } from './model-deployment/translate-status';
export { OPENAI_BASE_PATH } from './model-deployment/status';
export type {
  DeploymentPhase, EndpointStatus, ModelDeploymentStatus, ProviderStatus, ReplicaStatus, StatusCondition, UpstreamResource,
} from './model-deployment/status';
export { renderModelDeploymentDocument, MODEL_DEPLOYMENT_API_VERSIONS, MODEL_DEPLOYMENT_KIND } from './model-deployment/document';
export type { ModelDeploymentDocumentOptions } from './model-deployment/document';

// Providers: the built-in ones, their options, and the interface a third-party provider implements.
export { ProviderRegistry } from './model-deployment/registry';
export type { BuiltInProviderOptions } from './model-deployment/registry';
export type { InferenceProvider, ProviderCapabilities, RenderContext, ResourceType, SelectionRule } from './model-deployment/provider';
export type { OverrideField, OverrideFieldType, OverrideSchema } from './model-deployment/overrides';
export type { ResolvedComponent, ResolvedGpu, ResolvedModelDeployment } from './model-deployment/resolved-spec';
export { KaitoProvider } from './model-deployment/providers/kaito/provider';
export type { KaitoProviderOptions } from './model-deployment/providers/kaito/provider';
export type { KaitoApiVersion } from './model-deployment/providers/kaito/api-version';
export type { KaitoNodeProvisioning } from './model-deployment/providers/kaito/overrides';
export type { KaitoCloudProvider } from './model-deployment/providers/kaito/skus';
export { DynamoProvider, DEFAULT_DYNAMO_VERSION } from './model-deployment/providers/dynamo/provider';
export type { DynamoProviderOptions } from './model-deployment/providers/dynamo/provider';
export { KubeRayProvider, DEFAULT_RAY_VERSION } from './model-deployment/providers/kuberay/provider';
export type { KubeRayProviderOptions } from './model-deployment/providers/kuberay/provider';
