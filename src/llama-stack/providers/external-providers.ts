import type { ExternalProvider, ExternalProviders } from './options';
import { apiForCrdSection, LlamaStackApi } from '../../run-config/apis';
import type { ImagePullPolicy } from '../options';
import { EXTERNAL_PROVIDER_SECTIONS } from '../server/release';

/** The pull policies, for validation of untyped input. */
export const IMAGE_PULL_POLICIES: readonly ImagePullPolicy[] = ['Always', 'IfNotPresent', 'Never'];

/** An external provider with its place in the spec. */
export interface PlacedProvider {
  readonly provider: ExternalProvider;
  /** The camelCase section it is placed under, e.g. `vectorIo`. */
  readonly section: string;
  /** The Llama Stack API of that section, e.g. `vector_io`. */
  readonly api: LlamaStackApi;
  /** Its 0-based position in spec order (section order, then list order). */
  readonly order: number;
  /** Its field path in the props, e.g. `externalProviders.vectorIo[1]`. */
  readonly field: string;
}

/** Every provider in spec order: section order (as {@link ExternalProviders} lists them), then list order. */
export function providersInSpecOrder(providers: ExternalProviders | undefined): PlacedProvider[] {
  const placed: PlacedProvider[] = [];
  for (const section of EXTERNAL_PROVIDER_SECTIONS) {
    const list = (providers as Record<string, unknown> | undefined)?.[section];
    (Array.isArray(list) ? (list as ExternalProvider[]) : []).forEach((provider, index) => {
      placed.push({
        provider,
        section,
        api: apiForCrdSection(section)!,
        order: placed.length,
        field: `externalProviders.${section}[${index}]`,
      });
    });
  }
  return placed;
}
