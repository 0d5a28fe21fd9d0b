import { isRecord } from '../checks';
import { acceptedApisText, apiForCrdSection, CRD_SECTION_BY_API, CRD_SECTIONS, isLlamaStackApi, LlamaStackApi } from './apis';
import { RunConfigError } from './errors';
import { describe, PlainMap, readString, unknownKeys } from './fields';
import { CONFIG_LIMITS, parseUntrustedYaml } from './safe-yaml';

/** Name of the provider-settings file each install init container writes next to the metadata. */
export const CRD_CONFIG_FILE = 'crd-config.yaml';

/**
 * The settings of one external provider as the spec gave them, written by its install init container
 * to `metadata/<providerId>/crd-config.yaml` (a JSON document).
 */
export interface CrdProviderConfig {
  /** User-assigned provider id. */
  readonly providerId: string;
  /** The Llama Stack API of the section the provider was placed under. */
  readonly api: LlamaStackApi;
  /** The camelCase `externalProviders` section it was placed under, e.g. `vectorIo`. */
  readonly crdSection: string;
  /** The provider's image. */
  readonly image: string;
  /** 0-based position in spec order (sections in {@link CRD_SECTIONS} order, then list order). */
  readonly order: number;
  /** Provider configuration from the spec; absent when none was given. */
  readonly config?: PlainMap;
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
 * @param expectedProviderId the provider id the file must carry (its directory name), when known
 * @throws RunConfigError listing every problem found
 */
export function parseCrdConfig(text: string, source: string, expectedProviderId?: string): CrdProviderConfig {
  const { value } = parseUntrustedYaml(text, CONFIG_LIMITS, {
    source, providerId: expectedProviderId, resolution: RESOLUTION,
  });
  const problems: string[] = [];
  const map: PlainMap = isRecord(value) ? value : {};
  if (!isRecord(value)) {
    problems.push(`The document must be a mapping with providerId, api, crdSection, image and order; found ${describe(value)}.`);
  }
  const providerId = readString(map, 'providerId', 'providerId', {
    pattern: /^[^\x00-\x20\x7f/]+$/, expected: 'the provider id (no spaces or "/")',
  }, problems);
  const image = readString(map, 'image', 'image', {
    pattern: /^[^\x00-\x20\x7f]+$/, expected: 'an image reference without spaces',
  }, problems);
  const api = map.api;
  if (!isLlamaStackApi(api)) {
    problems.push(`api: found ${describe(api)}; expected one of ${acceptedApisText()}.`);
  }
  const crdSection = map.crdSection;
  if (typeof crdSection !== 'string' || apiForCrdSection(crdSection) === undefined) {
    problems.push(`crdSection: found ${describe(crdSection)}; expected one of ${CRD_SECTIONS.join(', ')}.`);
  } else if (isLlamaStackApi(api) && CRD_SECTION_BY_API[api] !== crdSection) {
    problems.push(`crdSection: '${crdSection}' holds ${apiForCrdSection(crdSection)} providers, but api is '${api}'.`);
  }
  const order = map.order;
  if (typeof order !== 'number' || !Number.isSafeInteger(order) || order < 0) {
    problems.push(`order: found ${describe(order)}; expected a whole number from 0.`);
  }
  const config = map.config;
  if (config !== undefined && config !== null && !isRecord(config)) {
    problems.push(`config: found ${describe(config)}; expected a mapping of provider settings.`);
  }
  if (providerId !== undefined && expectedProviderId !== undefined && providerId !== expectedProviderId) {
    problems.push(`providerId: found '${providerId}', but the file is in the directory of provider '${expectedProviderId}'.`);
  }

  if (problems.length > 0) {
    throw new RunConfigError([{
      title: `Invalid provider settings in ${CRD_CONFIG_FILE}`,
      providerId: providerId ?? expectedProviderId,
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
    image: image!,
    order: order as number,
    ...(isRecord(config) ? { config } : {}),
    unknownFields: unknownKeys(map, ['providerId', 'api', 'crdSection', 'image', 'order', 'config'], ''),
  };
}
