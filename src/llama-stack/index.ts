export * from './llama-stack-with-providers';
export * from './distribution';
export * from './external-providers';
export * from './options';
export type { HealthCheck } from './health-check';
export type { ResourceRequirements } from './pod';
export { MAX_NAME_LENGTH } from './validate';
