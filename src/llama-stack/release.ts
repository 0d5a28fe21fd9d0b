import { ProblemCollector } from '../errors';
import { CRD_SECTION_BY_API, LLAMA_STACK_APIS } from '../run-config/apis';
import {
  DEFAULT_LLAMA_STACK_VERSION, findRelease, knownReleasesText, LLAMA_STACK_RELEASES, LlamaStackRelease, releaseName, releaseOfImageTag,
} from '../run-config/releases';

/**
 * The releases this construct renders pods for. From 0.8 the project is published as ogx: its server
 * starts with `ogx stack run` and reads `OGX_CONFIG` and `OGX_PORT` (ogx 0.8.0 cli/stack/run.py,
 * core/server/server.py), while the pod rendered here starts `llama stack run` with `LLAMA_STACK_*`.
 */
export const RENDERABLE_RELEASES: readonly LlamaStackRelease[] = LLAMA_STACK_RELEASES.filter((r) => r.pythonPackage === 'llama_stack');

/** The `externalProviders` sections: those of the APIs of the renderable releases, in processing order. */
export const EXTERNAL_PROVIDER_SECTIONS: readonly string[] = LLAMA_STACK_APIS
  .filter((api) => RENDERABLE_RELEASES.some((r) => r.providerApis.includes(api)))
  .map((api) => CRD_SECTION_BY_API[api]);

/**
 * The release the distribution runs: `llamaStackVersion` when given, otherwise the release the
 * distribution image's tag names (`...:0.2.23` → 0.2), otherwise the default (0.7). Returns
 * undefined, with a problem, when the release is unknown or cannot be rendered.
 */
export function resolveRelease(
  version: string | undefined,
  image: string | undefined,
  problems: ProblemCollector,
  warn: (message: string) => void,
): LlamaStackRelease | undefined {
  const tagged = image === undefined ? undefined : releaseOfImageTag(image);
  if (version === undefined) {
    return tagged === undefined
      ? findRelease(DEFAULT_LLAMA_STACK_VERSION)
      : renderable(tagged, 'distribution', `the image tag of ${image} names ${releaseName(tagged)}`, problems);
  }
  const release = findRelease(version);
  if (release === undefined) {
    problems.add('llamaStackVersion', `'${version}' is not a llama-stack release this construct knows: expected one of `
      + `${knownReleasesText(RENDERABLE_RELEASES)} (a full version such as '0.7.3' names its line).`);
    return undefined;
  }
  if (tagged !== undefined && tagged !== release) {
    warn(`llamaStackVersion is ${release.version}, but the tag of the distribution image ${image} names llama-stack ${tagged.version}: `
      + `the providers and the config are checked against ${release.version}. Make the two agree.`);
  }
  return renderable(release, 'llamaStackVersion', releaseName(release), problems);
}

function renderable(release: LlamaStackRelease, field: string, what: string, problems: ProblemCollector): LlamaStackRelease | undefined {
  if (RENDERABLE_RELEASES.includes(release)) {
    return release;
  }
  problems.add(field, `${what}, which this construct cannot render yet: its server starts with 'ogx stack run' and reads OGX_CONFIG, `
    + `while the pod rendered here starts 'llama stack run'. Use a distribution of llama-stack ${knownReleasesText(RENDERABLE_RELEASES)} `
    + `(set llamaStackVersion when the image tag does not say which); kube-inference merge-config --llama-stack-version ${release.version} merges its configs.`);
  return undefined;
}
