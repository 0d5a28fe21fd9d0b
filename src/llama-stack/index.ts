// The LlamaStackWithProviders construct: an OGX (formerly Llama Stack) server with deploy-time external providers.
export * from './llama-stack-with-providers';
export * from './props';
export * from './options';
export * from './providers';
export * from './server';
export { MAX_NAME_LENGTH } from './validate';
