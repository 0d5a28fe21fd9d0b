/**
 * Llama Stack runtime-config logic with no Kubernetes dependency: provider-package metadata,
 * `extra-providers.yaml`, and the merge of external providers into a base config. The construct calls
 * it at synth time, the `kube-inference merge-config` command in the merge init container.
 */
export * from './apis';
export { SERVER_RELEASES, DEFAULT_SERVER_VERSION, LLAMA_STACK_RELEASES, DEFAULT_LLAMA_STACK_VERSION, findRelease, releaseOfImageTag } from './releases';
export type { LlamaStackRelease, ServerRelease } from './releases';
export { providerKey, providerIdProblem, MAX_PROVIDER_KEY_LENGTH } from './provider-id';
export * from './errors';
export * from './provider-metadata';
export * from './crd-config';
export type { ServiceAddress, ServicePartMode, ProviderServiceAddressSpec } from './service-address';
export * from './external-providers';
export * from './merge';
export type { ServedModel } from './served-models';
export { SERVED_MODEL_PROVIDER_TYPE, servedModelId } from './served-models';
export * from './merge-log';
export * from './merge-image';
export { renderYaml, renderJson, LLAMA_STACK_LAYOUT, UnwritableValueError } from './render';
export type { YamlLayout, PathSegment } from './render';
export { METADATA_LIMITS, CONFIG_LIMITS, parseUntrustedYaml } from '../io';
export type { YamlLimits, ParsedYaml, YamlSource } from '../io';
export { readExternalProviders } from './metadata-dir';
