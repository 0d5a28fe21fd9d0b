// Public cdk8s API of kube-inference-constructs.
export * from './errors';
export * from './warnings';
export * from './labels';
export * from './llama-stack';
export * from './model-deployment';
export * from './run-config';
