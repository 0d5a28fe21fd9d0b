export * from './provider';
export * from './status';
export * from './inference-config';
export type { KaitoApiVersion } from './workspace';
export { LLAMACPP_PORT } from './workspace';
