// Where a provider's service part listens, and where its adapter reads that address. The construct
// plans the address (a sidecar's localhost port, or its Service's name and port); the user's props may
// name the config key and a path; otherwise the provider's metadata may (`spec.serviceAddress`);
// otherwise the address goes to `url`. The merge places it, so it follows the metadata also when the
// metadata is only known in the pod.
import { isRecord } from '../checks';
import { clip, describe, PlainMap, readString, unknownKeys } from './fields';

/** The config key that receives the address when neither the props nor the metadata name one. */
export const DEFAULT_ADDRESS_KEY = 'url';

/** Where a provider's service part runs. */
export type ServicePartMode = 'sidecar' | 'service';

/** A service part's address as the construct planned it, written to `crd-config.yaml`. */
export interface ServiceAddress {
  /** Where the service part runs: a sidecar of the server pod, or pods of its own behind a Service. */
  readonly mode: ServicePartMode;
  /** `http://localhost:<port>` for a sidecar, `http://<service>:<port>` for a Service. */
  readonly base: string;
  /** The config key the props name; it wins over the metadata's. */
  readonly configKey?: string;
  /** The path the props name (appended to `base`); it wins over the metadata's. */
  readonly path?: string;
}

/** `spec.serviceAddress` of a provider's metadata: where its adapter reads its service's address. */
export interface ProviderServiceAddressSpec {
  /** The key of the adapter's config that receives the address. */
  readonly configKey?: string;
  /** Appended to the address, e.g. `/v1`. */
  readonly path?: string;
}

/** A config key the adapter's pydantic model can declare: a Python identifier (dashes allowed, as aliases). */
const CONFIG_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/;
/** A URL path: from `/`, printable, no spaces, no query or fragment (the adapter appends its own routes). */
const PATH_PATTERN = /^\/[!$&'()*+,\-./0-9:;=@A-Z_a-z~%]{0,255}$/;
/** A TCP port, 1 to 65535, in digits without a leading zero. */
const PORT = '(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
/** `http://<host>:<port>`, as the construct writes it: localhost or a Service name. */
const BASE_PATTERN = new RegExp(`^http://[a-z0-9](?:[a-z0-9.-]{0,252}[a-z0-9])?:${PORT}$`);

/** What a config key must be, for messages. */
const CONFIG_KEY_EXPECTED = 'a key of the provider\'s config: a Python identifier such as url or base_url';
/** What a path must be, for messages. */
const PATH_EXPECTED = 'a URL path from \'/\', such as /v1, without spaces, \'?\' or \'#\'';

/** Why a config key is not usable, or undefined when it is. */
export function configKeyProblem(key: string): string | undefined {
  return CONFIG_KEY_PATTERN.test(key) ? undefined : `'${clip(key)}' is not usable: expected ${CONFIG_KEY_EXPECTED}`;
}

/** Why a path is not usable, or undefined when it is. */
export function pathProblem(path: string): string | undefined {
  return PATH_PATTERN.test(path) ? undefined : `'${clip(path)}' is not usable: expected ${PATH_EXPECTED}`;
}

/** An address placed in a provider's config. */
export interface PlacedServiceAddress {
  /** The config key it went to. */
  readonly key: string;
  /** The address with its path. */
  readonly value: string;
  /** Who chose the key. */
  readonly keyFrom: 'props' | 'metadata' | 'default';
}

/** The address and the key it goes to: the props' choice, else the metadata's, else the default. */
export function placeServiceAddress(address: ServiceAddress, spec: ProviderServiceAddressSpec | undefined): PlacedServiceAddress {
  const keyFrom = address.configKey !== undefined ? 'props' : spec?.configKey !== undefined ? 'metadata' : 'default';
  const key = address.configKey ?? spec?.configKey ?? DEFAULT_ADDRESS_KEY;
  return { key, value: `${address.base}${address.path ?? spec?.path ?? ''}`, keyFrom };
}

/**
 * Why the provider's config cannot take the address at `key`: it sets that key already. The fix names
 * the props field that chooses another key.
 */
export function addressKeyConflict(
  config: PlainMap | undefined, address: ServiceAddress, placed: PlacedServiceAddress,
): { readonly detail: string; readonly fix: string } | undefined {
  if (config === undefined || !Object.prototype.hasOwnProperty.call(config, placed.key)) return undefined;
  const chosenBy = placed.keyFrom === 'default' ? '' : ` (${keyChooser(address.mode, placed)})`;
  return {
    detail: `config.${placed.key} is set, and the ${address.mode}'s address (${placed.value}) goes to that key${chosenBy}`,
    fix: `remove config.${placed.key}, or name another key with ${address.mode}.configKey`,
  };
}

/** Who chose the key, for messages and the merge log. */
export function keyChooser(mode: ServicePartMode, placed: PlacedServiceAddress): string {
  return placed.keyFrom === 'props' ? `${mode}.configKey`
    : placed.keyFrom === 'metadata' ? 'spec.serviceAddress.configKey of the provider\'s metadata' : `the default key ${DEFAULT_ADDRESS_KEY}`;
}

/** Reads `spec.serviceAddress` of provider metadata; records problems as `spec.serviceAddress.<key>: ...`. */
export function readServiceAddressSpec(
  spec: PlainMap, problems: string[], unknown: string[],
): ProviderServiceAddressSpec | undefined {
  const value = spec.serviceAddress;
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    problems.push(`spec.serviceAddress: found ${describe(value)}; expected a mapping with configKey and/or path.`);
    return undefined;
  }
  const configKey = readString(value, 'configKey', 'spec.serviceAddress.configKey', {
    optional: true, pattern: CONFIG_KEY_PATTERN, expected: CONFIG_KEY_EXPECTED,
  }, problems);
  const path = readString(value, 'path', 'spec.serviceAddress.path', { optional: true, pattern: PATH_PATTERN, expected: PATH_EXPECTED }, problems);
  unknown.push(...unknownKeys(value, ['configKey', 'path'], 'spec.serviceAddress'));
  return { ...(configKey !== undefined ? { configKey } : {}), ...(path !== undefined ? { path } : {}) };
}

/** Reads `serviceAddress` of `crd-config.yaml`; records problems as `serviceAddress.<key>: ...`. */
export function readServiceAddress(map: PlainMap, problems: string[], unknown: string[]): ServiceAddress | undefined {
  const value = map.serviceAddress;
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    problems.push(`serviceAddress: found ${describe(value)}; expected a mapping with mode and base.`);
    return undefined;
  }
  const mode = value.mode;
  if (mode !== 'sidecar' && mode !== 'service') {
    problems.push(`serviceAddress.mode: found ${describe(mode)}; expected 'sidecar' or 'service'.`);
  }
  const base = readString(value, 'base', 'serviceAddress.base', {
    pattern: BASE_PATTERN, expected: 'http://<host>:<port>, as the construct writes it, with a port from 1 to 65535',
  }, problems);
  const configKey = readString(value, 'configKey', 'serviceAddress.configKey', {
    optional: true, pattern: CONFIG_KEY_PATTERN, expected: CONFIG_KEY_EXPECTED,
  }, problems);
  const path = readString(value, 'path', 'serviceAddress.path', { optional: true, pattern: PATH_PATTERN, expected: PATH_EXPECTED }, problems);
  unknown.push(...unknownKeys(value, ['mode', 'base', 'configKey', 'path'], 'serviceAddress'));
  if (base === undefined || (mode !== 'sidecar' && mode !== 'service')) return undefined;
  return { mode, base, ...(configKey !== undefined ? { configKey } : {}), ...(path !== undefined ? { path } : {}) };
}
