export * from './provider';
export * from './status';
export * from './inference-config';
export type { KaitoApiVersion } from './api-version';
export type { KaitoNodeProvisioning } from './overrides';
export { KAITO_INFERENCE_PORT } from './inference';
export { INFERENCE_SET_LABEL } from './inference-set';
