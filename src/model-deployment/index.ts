// ModelDeployment: one model-serving spec rendered into KAITO, Dynamo or KubeRay resources.
export * from './types';
export * from './model-deployment';
export * from './provider';
export * from './registry';
export * from './selection';
export * from './resolved-spec';
export * from './status';
export * from './translate-status';
export * from './validation';
export * from './engine-flags';
export * from './overrides';
export * from './metadata';
export * from './document';
export * from './providers/kaito';
export * from './providers/dynamo';
export * from './providers/kuberay';
