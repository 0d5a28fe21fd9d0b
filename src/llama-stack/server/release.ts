import { ProblemCollector } from '../../errors';
import { CRD_SECTION_BY_API, LLAMA_STACK_APIS } from '../../run-config/apis';
import {
  DEFAULT_SERVER_VERSION, findRelease, knownReleasesText, releaseName, releaseOfImageTag, SERVER_RELEASES, ServerRelease,
} from '../../run-config/releases';

/** The `externalProviders` sections: those of the APIs of the known releases, in processing order. */
export const EXTERNAL_PROVIDER_SECTIONS: readonly string[] = LLAMA_STACK_APIS
  .filter((api) => SERVER_RELEASES.some((r) => r.providerApis.includes(api)))
  .map((api) => CRD_SECTION_BY_API[api]);

/**
 * The release the distribution runs: `serverVersion` (or its deprecated name `llamaStackVersion`)
 * when given, otherwise the release the distribution image's tag names (`...:0.2.23` → 0.2,
 * `...:1.5.0` → 1.5), otherwise the default (the newest OGX line). Returns undefined, with a problem,
 * when the release is unknown.
 */
export function resolveRelease(
  given: { readonly serverVersion?: string; readonly llamaStackVersion?: string },
  image: string | undefined,
  problems: ProblemCollector,
  warn: (message: string) => void,
): ServerRelease | undefined {
  const version = givenVersion(given, problems, warn);
  const tagged = image === undefined ? undefined : releaseOfImageTag(image);
  if (version === undefined) {
    if (image !== undefined && tagged === undefined) {
      // As render warns about a document's image: the pod's commands and environment are those of one release.
      warn(`distribution.image: the tag of ${image} does not say which server release it runs; the pod is rendered for `
        + `${releaseName(findRelease(DEFAULT_SERVER_VERSION)!)}, the default (its command, environment and APIs). Set serverVersion to the `
        + 'release the image runs (e.g. \'1.5\', or \'0.7\' for llama-stack), or use an image tagged with its version.');
    }
    return tagged ?? findRelease(DEFAULT_SERVER_VERSION);
  }
  const release = findRelease(version.value);
  if (release === undefined) {
    problems.add(version.field, `'${version.value}' is not a llama-stack or ogx release this construct knows: expected one of `
      + `${knownReleasesText()} (a full version such as '1.5.0' names its line).`);
    return undefined;
  }
  if (tagged !== undefined && tagged !== release) {
    warn(`${version.field} is ${release.version}, but the tag of the distribution image ${image} names ${releaseName(tagged)}: `
      + `the pod is rendered for ${releaseName(release)}. Make the two agree.`);
  }
  return release;
}

/** The version given and the field it came from; a warning for the deprecated name, a problem for two different values. */
function givenVersion(
  given: { readonly serverVersion?: string; readonly llamaStackVersion?: string }, problems: ProblemCollector, warn: (message: string) => void,
): { readonly field: string; readonly value: string } | undefined {
  const { serverVersion, llamaStackVersion } = given;
  if (llamaStackVersion === undefined) return serverVersion === undefined ? undefined : { field: 'serverVersion', value: serverVersion };
  if (serverVersion !== undefined && serverVersion !== llamaStackVersion) {
    problems.add('llamaStackVersion', `is '${llamaStackVersion}' while serverVersion is '${serverVersion}': llamaStackVersion is the old name of serverVersion. Remove llamaStackVersion.`);
    return undefined;
  }
  warn('llamaStackVersion is deprecated: llama-stack was renamed OGX, and the field serverVersion names a release of either. Rename llamaStackVersion to serverVersion.');
  return { field: 'llamaStackVersion', value: llamaStackVersion };
}
