import { DEFAULT_SERVER_VERSION, distributionImageOf, findRelease, ServerRelease } from '../../run-config/releases';
import type { Distribution } from '../options';

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
