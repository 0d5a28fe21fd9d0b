import { DEFAULT_SERVER_VERSION, distributionImageOf, findRelease, ServerRelease } from '../run-config/releases';

/** The release line whose images the bare {@link DISTRIBUTION_IMAGES} map names: the default one. */
const DEFAULT_RELEASE = findRelease(DEFAULT_SERVER_VERSION)!;

/**
 * The named distributions of the default server release (the newest OGX line) and their images,
 * `docker.io/ogxai/distribution-<name>:<version>`. Each release line has its own
 * (`SERVER_RELEASES[i].images`); a distribution can always be given by image instead.
 */
export const DISTRIBUTION_IMAGES: Readonly<Record<string, string>> = Object.fromEntries(
  DEFAULT_RELEASE.images.distributions.map((name) => [name, distributionImageOf(DEFAULT_RELEASE, name)!]),
);

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

/** The distribution to run: exactly one of `name` or `image`. */
export interface Distribution {
  /**
   * A named distribution, mapped to upstream's image of the server release (`serverVersion`):
   * `docker.io/ogxai/distribution-<name>:<version>` for OGX (`starter`, `postgres-demo`, `nvidia`,
   * `oci`, `open-benchmark`, `watsonx`), `docker.io/llamastack/distribution-<name>:<version>` for
   * llama-stack (`starter`, `remote-vllm`, `meta-reference-gpu`, `postgres-demo`), tagged with the
   * newest patch release this library verified.
   * @default - none; give `image` instead
   */
  readonly name?: string;
  /**
   * A distribution image reference. Prefer a digest (`...@sha256:...`) or a fixed tag in production.
   * @default - none; give `name` instead
   */
  readonly image?: string;
}

/**
 * The image of a distribution in a server release (by default the newest OGX line), or undefined when
 * it names no distribution the release publishes.
 */
export function distributionImage(distribution: Distribution, release: ServerRelease = DEFAULT_RELEASE): string | undefined {
  if (distribution.image !== undefined) {
    return distribution.image;
  }
  const name = distribution.name;
  return name !== undefined ? distributionImageOf(release, name) : undefined;
}
