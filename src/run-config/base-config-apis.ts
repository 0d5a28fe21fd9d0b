import { isRecord } from '../checks';
import { isLlamaStackApi } from './apis';
import { RunConfigError } from './errors';
import { clip, describe } from './fields';
import { acceptedApisText, LlamaStackRelease, MissingApi, releaseName, whyMissing } from './releases';

/**
 * Checks the API names of the base config against the targeted release: each key of `providers:`
 * must be an API the release takes providers for, each entry of `apis:` an API it has. llama-stack
 * refuses any other name at start-up — `Api(name)` raises for a name the release does not have, a
 * routing table (`models`, `shields`, …) "is automatically provided and cannot be overridden"
 * (core/resolver.py `validate_and_prepare_providers`, core/server/server.py, 0.2 to 0.7). A config
 * with `external_apis_dir` may define further APIs, so its names are not checked.
 *
 * @throws RunConfigError listing every name the release would refuse
 */
export function checkBaseConfigApis(value: unknown, release: LlamaStackRelease, source: string): void {
  if (!isRecord(value) || (value.external_apis_dir !== undefined && value.external_apis_dir !== null)) return;
  const details: string[] = [];
  const missing: MissingApi[] = [];
  const name = releaseName(release);
  const note = (api: string) => {
    if (!isLlamaStackApi(api)) return '';
    const why = whyMissing(api, release);
    missing.push(why);
    return ` (${why.fact})`;
  };

  for (const key of isRecord(value.providers) ? Object.keys(value.providers) : []) {
    if (release.providerApis.some((api) => api === key)) continue;
    details.push(release.apis.includes(key)
      ? `  - providers.${key}: ${name} provides ${key} itself; a config cannot list providers for it.`
      : `  - providers.${clip(key)}: ${name} has no ${clip(key)} API${note(key)}.`);
  }
  (Array.isArray(value.apis) ? value.apis : []).forEach((api: unknown, i) => {
    if (typeof api === 'string' && release.apis.includes(api)) return;
    details.push(typeof api === 'string'
      ? `  - apis[${i}]: ${name} has no ${clip(api)} API${note(api)}.`
      : `  - apis[${i}]: found ${describe(api)}; expected an API name.`);
  });
  if (details.length === 0) return;

  const releases = [...new Set(missing.map((m) => m.otherReleases))];
  throw new RunConfigError([{
    title: `The base config names APIs ${name} does not have`,
    source,
    details: [...details, `${name} takes providers for: ${acceptedApisText(release)}.`],
    resolution: 'The base config is written for another server release, or misnames an API. Set serverVersion to the '
      + `release the distribution runs${releases.length > 0 ? ` (${releases.join('; ')})` : ''}, or fix the base config — the user `
      + 'config (its ConfigMap, or userConfig.config in the props) or the config file of the distribution image — and redeploy.',
  }]);
}
