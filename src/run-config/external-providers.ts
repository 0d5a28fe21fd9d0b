import { CRD_SECTION_BY_API, LlamaStackApi } from './apis';
import { IssueCollector } from './errors';
import { PlainMap } from './fields';
import { PROVIDER_METADATA_FILE, ProviderMetadata } from './provider-metadata';
import { verifyReadBack } from './read-back';
import { acceptedApisText, acceptedSectionsText, DEFAULT_SERVER_VERSION, missingApiFix, releaseName, requireRelease } from './releases';
import { renderYaml, UnwritableValueError } from './render';
import { addressKeyConflict, placeServiceAddress, ServiceAddress } from './service-address';
import { formatPath } from '../io/scalars';

/** `apiVersion` of `extra-providers.yaml`. */
export const EXTERNAL_PROVIDERS_API_VERSION = 'llamastack.io/v1alpha1';
/** `kind` of `extra-providers.yaml`. */
export const EXTERNAL_PROVIDERS_KIND = 'ExternalProviders';
/** File name of the generated external-providers document. */
export const EXTRA_PROVIDERS_FILE = 'extra-providers.yaml';

/**
 * One external provider with everything the merge needs: where the spec placed it and what its image
 * declares (its validated metadata). The construct's props describe the provider; this is it resolved.
 */
export interface ResolvedExternalProvider {
  /** User-assigned provider id. */
  readonly providerId: string;
  /** The Llama Stack API of the `externalProviders` section it was placed under. */
  readonly api: LlamaStackApi;
  /** That section's camelCase name, e.g. `vectorIo`. */
  readonly crdSection: string;
  /** The provider's image; unknown when the provider settings do not say. */
  readonly image?: string;
  /** Provider configuration from the spec (JSON data; `${env.NAME}` strings pass through); absent when none. */
  readonly config?: PlainMap;
  /** Its service part's address, written into its config at the key the props or its metadata name. */
  readonly serviceAddress?: ServiceAddress;
  /** The image's validated `lls-provider-spec.yaml`. */
  readonly metadata: ProviderMetadata;
}

/** A provider entry as llama-stack's config and `extra-providers.yaml` write it. */
export interface ProviderEntry {
  readonly provider_id: string;
  readonly provider_type: string;
  readonly module: string;
  readonly config?: PlainMap;
}

/**
 * Checks what can be checked across providers before any merge: the targeted llama-stack release
 * has the API each image declares and the API of the section it was placed under, the two match, each
 * config is plain data the config writer can write and leaves the key its service's address goes to free,
 * and no two external providers share a provider id
 * (ids must be unique across all sections).
 *
 * @param serverVersion the release line the distribution runs, e.g. `1.5` (ogx) or `0.7` (llama-stack)
 * @throws RunConfigError listing every problem, each naming the provider, its image and the fix
 */
export function checkExternalProviders(
  providers: readonly ResolvedExternalProvider[], serverVersion: string = DEFAULT_SERVER_VERSION,
): void {
  const release = requireRelease(serverVersion);
  const issues = new IssueCollector();
  const placements = placementsOf(providers);

  providers.forEach((p, i) => {
    const declared = p.metadata.spec.api;
    if (!release.providerApis.includes(declared)) {
      issues.add({
        title: `Provider image serves an API ${releaseName(release)} does not have`,
        providerId: p.providerId,
        image: p.image,
        details: [
          `declares api=${declared} in ${PROVIDER_METADATA_FILE} (placed at ${placements[i]})`,
          `${releaseName(release)} accepts providers for: ${acceptedApisText(release)}`,
        ],
        resolution: `${missingApiFix(declared, release)}.`,
      });
    } else if (!release.providerApis.includes(p.api)) {
      issues.add({
        title: `Provider placed under a section ${releaseName(release)} does not have`,
        providerId: p.providerId,
        image: p.image,
        details: [
          `is placed at ${placements[i]} (api ${p.api}), which ${releaseName(release)} does not have`,
          `the sections of ${releaseName(release)}: ${acceptedSectionsText(release)}`,
        ],
        resolution: `Move the provider to externalProviders.${CRD_SECTION_BY_API[declared]}, the section of the api its `
          + `${PROVIDER_METADATA_FILE} declares (${declared}).`,
      });
    } else if (CRD_SECTION_BY_API[p.api] !== p.crdSection) {
      issues.add({
        title: 'Provider placed under an inconsistent section',
        providerId: p.providerId,
        image: p.image,
        details: [`is placed under externalProviders.${p.crdSection}, which does not hold ${p.api} providers.`],
        resolution: `Place it under externalProviders.${CRD_SECTION_BY_API[p.api]}.`,
      });
    } else if (declared !== p.api) {
      issues.add({
        title: 'Provider API type mismatch',
        providerId: p.providerId,
        image: p.image,
        details: [
          `declares api=${declared} in ${PROVIDER_METADATA_FILE}`,
          `but is placed under externalProviders.${p.crdSection}`,
        ],
        resolution: `Move the provider to externalProviders.${CRD_SECTION_BY_API[declared]} section in the LlamaStackWithProviders spec.`,
      });
    }
  });

  providers.forEach((p) => {
    const address = p.serviceAddress;
    const conflict = address && addressKeyConflict(p.config, address, placeServiceAddress(address, p.metadata.spec.serviceAddress));
    if (conflict) {
      issues.add({
        title: 'Provider config sets the key its service\'s address goes to',
        providerId: p.providerId,
        image: p.image,
        details: [`${conflict.detail}.`],
        resolution: `In the provider's entry of the LlamaStackWithProviders spec, ${conflict.fix}.`,
      });
    }
    const problem = unwritableIn(p.config);
    if (problem) {
      issues.add({
        title: 'Provider settings that cannot be written into the config',
        providerId: p.providerId,
        image: p.image,
        details: [`config${formatPath(problem.path)}: ${problem.found} cannot be written so that llama-stack reads the same value.`],
        resolution: `In the provider's config in the LlamaStackWithProviders spec, ${problem.fix}.`,
      });
    }
  });

  const byId = new Map<string, number[]>();
  providers.forEach((p, i) => byId.set(p.providerId, [...(byId.get(p.providerId) ?? []), i]));
  for (const [id, indexes] of byId) {
    if (indexes.length < 2) continue;
    issues.add({
      title: `Duplicate external provider id '${id}'`,
      providerId: id,
      image: indexes.map((i) => providers[i].image ?? 'unknown').join(', '),
      details: [
        `is used by ${indexes.length} external providers:`,
        ...indexes.map((i) => `  - ${placements[i]}: image ${providers[i].image ?? 'unknown'}`),
      ],
      resolution: 'Give each external provider a unique providerId (ids must be unique across all externalProviders sections), '
        + 'or remove the duplicate entry.',
    });
  }
  issues.throwIfAny();
}

/** `externalProviders.<section>[<index>]` of each provider, counting positions within each section. */
export function placementsOf(providers: readonly ResolvedExternalProvider[]): string[] {
  const seen = new Map<string, number>();
  return providers.map((p) => {
    const index = seen.get(p.crdSection) ?? 0;
    seen.set(p.crdSection, index + 1);
    return `externalProviders.${p.crdSection}[${index}]`;
  });
}

/**
 * The entry llama-stack reads for a provider: type and module from the image's metadata (the module
 * without its `==version` pin), config from the spec with its service's address added, omitted when
 * there is neither.
 */
export function providerEntry(p: ResolvedExternalProvider): ProviderEntry {
  const config = configOf(p);
  return {
    provider_id: p.providerId,
    provider_type: p.metadata.spec.providerType,
    module: p.metadata.module,
    ...(config !== undefined ? { config } : {}),
  };
}

/** The provider's config with its service's address at the key the props, else its metadata, name. */
function configOf(p: ResolvedExternalProvider): PlainMap | undefined {
  if (p.serviceAddress === undefined) return p.config;
  const placed = placeServiceAddress(p.serviceAddress, p.metadata.spec.serviceAddress);
  return { ...p.config, [placed.key]: placed.value };
}

/** Groups provider entries by API, APIs in order of first appearance (the spec's section order). */
export function entriesByApi(providers: readonly ResolvedExternalProvider[]): Map<LlamaStackApi, ProviderEntry[]> {
  const groups = new Map<LlamaStackApi, ProviderEntry[]>();
  for (const p of providers) {
    groups.set(p.api, [...(groups.get(p.api) ?? []), providerEntry(p)]);
  }
  return groups;
}

/**
 * Builds `extra-providers.yaml` (kind ExternalProviders): the external providers per API, in spec
 * order, in the shape of llama-stack's `providers` section.
 *
 * @param serverVersion the release line the distribution runs, e.g. `1.5` (ogx) or `0.7` (llama-stack)
 * @throws RunConfigError when the providers fail {@link checkExternalProviders}
 */
export function buildExtraProviders(
  providers: readonly ResolvedExternalProvider[], serverVersion: string = DEFAULT_SERVER_VERSION,
): string {
  checkExternalProviders(providers, serverVersion);
  const document = {
    apiVersion: EXTERNAL_PROVIDERS_API_VERSION,
    kind: EXTERNAL_PROVIDERS_KIND,
    providers: Object.fromEntries(entriesByApi(providers)),
  };
  const text = renderYaml(document);
  verifyReadBack(text, document, EXTRA_PROVIDERS_FILE);
  return '# Generated by kube-inference merge-config from the external providers\' metadata; do not edit.\n' + text;
}

/** Why a provider's config cannot be written as YAML, if it cannot (e.g. a date read from a YAML crd-config.yaml). */
function unwritableIn(config: PlainMap | undefined): UnwritableValueError | undefined {
  try {
    renderYaml(config ?? {});
    return undefined;
  } catch (e) {
    if (e instanceof UnwritableValueError) return e;
    throw e;
  }
}
