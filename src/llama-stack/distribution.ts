/**
 * Named Llama Stack distributions and their images (as the upstream operator maps them).
 * A distribution can always be given by image instead.
 */
export const DISTRIBUTION_IMAGES: Readonly<Record<string, string>> = {
  'starter': 'docker.io/llamastack/distribution-starter:latest',
  'remote-vllm': 'docker.io/llamastack/distribution-remote-vllm:latest',
  'meta-reference-gpu': 'docker.io/llamastack/distribution-meta-reference-gpu:latest',
  'postgres-demo': 'docker.io/llamastack/distribution-postgres-demo:latest',
};

/**
 * Where distribution images keep their built-in config, searched in order. Upstream renamed
 * `run.yaml` to `config.yaml` (llama-stack 0.4), so both names are candidates.
 */
export const DEFAULT_DISTRIBUTION_CONFIG_PATHS: readonly string[] = [
  '/opt/app-root/config.yaml',
  '/opt/app-root/run.yaml',
  '/etc/llama-stack/config.yaml',
  '/etc/llama-stack/run.yaml',
  '/app/run.yaml',
];

/** The Llama Stack distribution to run: exactly one of `name` or `image`. */
export interface Distribution {
  /**
   * A named distribution: `starter`, `remote-vllm`, `meta-reference-gpu` or `postgres-demo`,
   * mapped to `docker.io/llamastack/distribution-<name>:latest`.
   * @default - none; give `image` instead
   */
  readonly name?: string;
  /**
   * A distribution image reference. Prefer a digest (`...@sha256:...`) or a fixed tag in production.
   * @default - none; give `name` instead
   */
  readonly image?: string;
}

/** The image of a distribution, or undefined when it names no known distribution. */
export function distributionImage(distribution: Distribution): string | undefined {
  if (distribution.image !== undefined) {
    return distribution.image;
  }
  // Own keys only: a name such as `constructor` must not find Object.prototype's.
  const name = distribution.name;
  return name !== undefined && Object.prototype.hasOwnProperty.call(DISTRIBUTION_IMAGES, name) ? DISTRIBUTION_IMAGES[name] : undefined;
}
