// The server's pod: its containers, volumes and scaling, the ConfigMaps it reads, and its status as `kube-inference status` reads it.
export { BASE_CONFIG_DIR, MERGED_CONFIG_DIR, METADATA_DIR, SCRIPTS_DIR } from './paths';
export { llamaStackPodStatus } from './status';
export type { LlamaStackStatus } from './status';
export { appConfigMaps, CONFIG_MAPS_HASH_ANNOTATION, hashOfConfigMaps } from './used-config-maps';
