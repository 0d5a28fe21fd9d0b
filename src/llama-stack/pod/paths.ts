/**
 * Paths inside the pod: where users find the config and the shared provider volume.
 * Kept in one place: the init containers, the merge step and the main container must agree on them.
 */
/** Where install containers write and the main container reads the installed providers. */
export const EXTERNAL_PROVIDERS_DIR = '/opt/llama-stack/external-providers';
/** Installed provider packages; prepended to the main container's PYTHONPATH. */
export const PYTHON_PACKAGES_DIR = `${EXTERNAL_PROVIDERS_DIR}/python-packages`;
/** Per-provider metadata directories (`<providerId>/lls-provider-spec.yaml`, `crd-config.yaml`). */
export const METADATA_DIR = `${EXTERNAL_PROVIDERS_DIR}/metadata`;
/** The base config: extracted from the distribution image or mounted from the user's config. */
export const BASE_CONFIG_DIR = '/opt/llama-stack/base-config';
/** The merged config, `extra-providers.yaml` and `merge-log.txt`. */
export const MERGED_CONFIG_DIR = '/opt/llama-stack/config';
/** Where a user config is mounted when no merge is needed. */
export const USER_CONFIG_DIR = '/etc/llama-stack';
/** Where the init-container scripts are: the scripts volume (written by the merge image, or the stack's ConfigMap). */
export const SCRIPTS_DIR = '/opt/llama-stack/scripts';
/** Where the server's certificate and key are mounted from their Secret (`tls`). */
export const TLS_DIR = '/opt/llama-stack/tls';
