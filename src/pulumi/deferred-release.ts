import type { LlamaStackWithProvidersArgs } from './llama-stack-args';
import { ProblemCollector } from '../errors';
import type { LlamaStackWithProvidersProps } from '../llama-stack';
import { DEFAULT_SERVER_VERSION, findRelease, releaseName, releaseOfImageTag } from '../run-config/releases';

/**
 * A distribution image given as an output renders for the default release, or `serverVersion`: its
 * tag, which names the release otherwise (`…:0.7.3`), is not known while rendering. Once it is, a tag
 * naming another release fails the update, as the pod rendered would not start that server.
 */
export function checkDeferredRelease(
  args: Pick<LlamaStackWithProvidersArgs, 'distribution' | 'serverVersion' | 'llamaStackVersion'>, resolved: Pick<LlamaStackWithProvidersProps, 'distribution'>, name: string,
): void {
  if (args.distribution.image === undefined || typeof args.distribution.image === 'string') return;
  if (args.serverVersion !== undefined || args.llamaStackVersion !== undefined) return;
  const tagged = resolved.distribution.image === undefined ? undefined : releaseOfImageTag(resolved.distribution.image);
  const rendered = findRelease(DEFAULT_SERVER_VERSION)!;
  if (tagged === undefined || tagged === rendered) return;
  const problems = new ProblemCollector();
  problems.add('distribution.image', `'${resolved.distribution.image}' names ${releaseName(tagged)} by its tag, but it was an output not known while `
    + `rendering, so the pod was rendered for ${releaseName(rendered)} (the default). Set serverVersion: '${tagged.version}'.`);
  problems.throwIfAny(`LlamaStackWithProviders '${name}'`);
}
