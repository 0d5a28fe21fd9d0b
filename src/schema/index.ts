export * from './cel';
export * from './crd-validator';
export type { SchemaViolation } from './schema-violation';
