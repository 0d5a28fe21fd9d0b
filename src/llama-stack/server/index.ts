// The server: its release line (OGX or llama-stack), distribution, config, process, TLS, health check and network exposure.
export { DISTRIBUTION_IMAGES, DEFAULT_DISTRIBUTION_CONFIG_PATHS, distributionImage } from './distribution';
