export * from './provider';
export * from './plan';
export * from './status';
export * from './transformer-v1alpha1';
export type { DynamoRole } from './roles';
