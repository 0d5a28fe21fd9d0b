export * from './cel';
export * from './crd-validator';
