// Pulumi components of kube-inference-constructs: `import { … } from 'kube-inference-constructs/pulumi'`.
// They render through the cdk8s constructs, so both front ends produce the same objects.
export * from './llama-stack-args';
export * from './llama-stack-with-providers';
export * from './model-deployment';
export { ConfigValue } from './provider-config';
export type { PulumiProviderConfigValue, PulumiSecretKeyReference } from './provider-config';
