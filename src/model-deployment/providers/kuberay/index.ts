export * from './provider';
export * from './ray-service';
export * from './serve-config';
export * from './status';
