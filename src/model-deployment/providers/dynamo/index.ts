export * from './provider';
export * from './plan';
export * from './status';
export type { DynamoPodSettings, DynamoTransformer } from './transformer';
export * from './transformer-v1alpha1';
export * from './transformer-v1beta1';
export type { DynamoRole } from './roles';
