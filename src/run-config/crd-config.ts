import { isRecord } from '../checks';
import { apiForCrdSection, CRD_SECTION_BY_API, CRD_SECTIONS, isLlamaStackApi, LlamaStackApi } from './apis';
import { RunConfigError } from './errors';
import { clip, describe, PlainMap, readString, unknownKeys } from './fields';
import { providerIdProblem, providerKey } from './provider-id';
import { allApisText } from './releases';
import { CONFIG_LIMITS, readUntrustedYaml } from '../io';
import { readServiceAddress, ServiceAddress } from './service-address';

/** Name of the provider-settings file each install init container writes next to the metadata. */
export const CRD_CONFIG_FILE = 'crd-config.yaml';

/**
 * The settings of one external provider as the spec gave them, written by its install init container
 * to `metadata/<providerKey>/crd-config.yaml` (a JSON document; the spec names the directory after the
 * provider id itself, which is accepted too). The spec's own shape is
 * `providerId`, `api` and `config`; `crdSection`, `image`, `order` and `serviceAddress` are optional extras this
 * library's install containers add.
 */
export interface CrdProviderConfig {
  /** User-assigned provider id. */
  readonly providerId: string;
  /** The Llama Stack API of the section the provider was placed under. */
  readonly api: LlamaStackApi;
  /** The camelCase `externalProviders` section it was placed under, e.g. `vectorIo`: as written, or that of `api`. */
  readonly crdSection: string;
  /** The provider's image, when the file gives it. */
  readonly image?: string;
  /**
   * 0-based position in spec order (sections in {@link CRD_SECTIONS} order, then list order), when the
   * file gives it; providers without one follow, in directory-name order.
   */
  readonly order?: number;
  /** Provider configuration from the spec; absent when none was given. */
  readonly config?: PlainMap;
  /** Its service part's address, which the merge writes into `config`, when it has a sidecar or a Service. */
  readonly serviceAddress?: ServiceAddress;
  /** Fields this version does not know, ignored. */
  readonly unknownFields: readonly string[];
}

const RESOLUTION = `${CRD_CONFIG_FILE} is written by the provider's install init container from the rendered spec; `
  + 'render the manifests and the merge image with the same kube-inference-constructs version, then redeploy.';

/**
 * Parses and validates a `crd-config.yaml`.
 *
 * @param text the file's content (JSON or YAML)
 * @param source label of the file in messages
 * @param directoryName the name of the directory holding the file, when known: it must be the file's
 *   provider id or its {@link providerKey}
 * @throws RunConfigError listing every problem found
 */
export function parseCrdConfig(text: string, source: string, directoryName?: string): CrdProviderConfig {
  const value = readUntrustedYaml(text, CONFIG_LIMITS, {
    source, providerId: directoryName, resolution: RESOLUTION,
  });
  const problems: string[] = [];
  const map: PlainMap = isRecord(value) ? value : {};
  if (!isRecord(value)) {
    problems.push(`The document must be a mapping with providerId, api and config; found ${describe(value)}.`);
  }
  let providerId = readString(map, 'providerId', 'providerId', { expected: 'the provider id' }, problems);
  const idProblem = providerId === undefined ? undefined : providerIdProblem(providerId);
  if (idProblem !== undefined) {
    problems.push(`providerId: ${idProblem}.`);
    providerId = undefined;
  }
  const image = readString(map, 'image', 'image', {
    optional: true, pattern: /^[^\x00-\x20\x7f]+$/, expected: 'an image reference without spaces',
  }, problems);
  const api = map.api;
  if (!isLlamaStackApi(api)) {
    problems.push(`api: found ${describe(api)}; expected one of ${allApisText()}.`);
  }
  const crdSection = map.crdSection ?? (isLlamaStackApi(api) ? CRD_SECTION_BY_API[api] : undefined);
  if (map.crdSection !== undefined && (typeof crdSection !== 'string' || apiForCrdSection(crdSection) === undefined)) {
    problems.push(`crdSection: found ${describe(crdSection)}; expected one of ${CRD_SECTIONS.join(', ')}, or no crdSection.`);
  } else if (isLlamaStackApi(api) && CRD_SECTION_BY_API[api] !== crdSection) {
    problems.push(`crdSection: '${clip(String(crdSection))}' holds ${apiForCrdSection(String(crdSection))} providers, but api is '${api}'.`);
  }
  const order = map.order;
  if (order !== undefined && (typeof order !== 'number' || !Number.isSafeInteger(order) || order < 0)) {
    problems.push(`order: found ${describe(order)}; expected a whole number from 0, or no order.`);
  }
  const config = map.config;
  if (config !== undefined && config !== null && !isRecord(config)) {
    problems.push(`config: found ${describe(config)}; expected a mapping of provider settings.`);
  }
  const unknownAddressFields: string[] = [];
  const serviceAddress = readServiceAddress(map, problems, unknownAddressFields);
  // This library's install containers name the directory after the key; the spec names it after the id.
  if (providerId !== undefined && directoryName !== undefined && directoryName !== providerKey(providerId) && directoryName !== providerId) {
    problems.push(`providerId: found '${clip(providerId)}', but the file is in directory '${clip(directoryName)}', `
      + `which is neither that id nor its key '${providerKey(providerId)}'.`);
  }

  if (problems.length > 0) {
    throw new RunConfigError([{
      title: `Invalid provider settings in ${CRD_CONFIG_FILE}`,
      providerId: providerId ?? directoryName,
      image,
      source,
      details: problems.map((p) => `  - ${p}`),
      resolution: RESOLUTION,
    }]);
  }
  return {
    providerId: providerId!,
    api: api as LlamaStackApi,
    crdSection: crdSection as string,
    ...(image !== undefined ? { image } : {}),
    ...(order !== undefined ? { order: order as number } : {}),
    ...(isRecord(config) ? { config } : {}),
    ...(serviceAddress !== undefined ? { serviceAddress } : {}),
    unknownFields: [...unknownKeys(map, ['providerId', 'api', 'crdSection', 'image', 'order', 'config', 'serviceAddress'], ''), ...unknownAddressFields],
  };
}
