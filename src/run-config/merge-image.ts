/** Repository the release workflow publishes the merge image to (`.github/workflows/release.yml`). */
export const MERGE_IMAGE_REPOSITORY = 'ghcr.io/kube-inference/merge';

/** The version of this package, read from its package.json at run time (bundled into the merge image's CLI). */
export function packageVersion(): string {
  // A require, not an import: package.json lies outside the compiled source root, and the bundler inlines it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../../package.json') as { version: string }).version;
}

/**
 * The merge image the construct uses by default: the one released with this package version, so the
 * merge in the pod runs exactly the code that rendered the manifests.
 */
export function defaultMergeImage(): string {
  return `${MERGE_IMAGE_REPOSITORY}:${packageVersion()}`;
}
