import { resolve } from 'path';
import { ProblemCollector } from '../errors';
import { describeFsError, readRegularFileCapped, METADATA_LIMITS } from '../io';
import {
  checkExternalProviders,
  formatMergeLog,
  MERGE_LOG_FILE,
  mergeRunConfig,
  EXTRA_PROVIDERS_FILE,
  parseProviderMetadata,
  ResolvedExternalProvider,
  RunConfigError,
  describeIssue,
  validateProviderMetadata,
} from '../run-config';
import type { ValidatedProvider } from './providers/validated-provider';
import type { ServedModel } from '../run-config/served-models';
import type { ServerTransport } from '../run-config/server-transport';
import { addressKeyConflict, placeServiceAddress } from '../run-config/service-address';

/** The config assembled at synth time: what the merge init container would have written. */
export interface SynthTimeConfig {
  /**
   * File name → content: the merged config, and with providers `extra-providers.yaml` and `merge-log.txt`.
   */
  readonly files: Record<string, string>;
  /** True when external providers were merged (not only the server's transport settings). */
  readonly mergedProviders: boolean;
  /** The merged config alone. */
  readonly configText: string;
  /** The merge's warnings (e.g. an external provider overriding a base provider). */
  readonly warnings: string[];
}

/**
 * Uses the providers' metadata where the props hand it over: validates each metadata and its API
 * placement against the server release at synth time, and, when every provider's metadata and the base
 * config are known, merges the config now so the pod needs neither the extraction nor the merge step.
 * A config known at synth time without providers gets the server's transport settings the same way.
 * Problems are recorded against the offending provider's field.
 */
export function mergeAtSynthTime(
  providers: readonly ValidatedProvider[],
  baseConfigText: string | undefined,
  configFileName: string,
  serverVersion: string,
  transport: ServerTransport | undefined,
  servedModels: readonly ServedModel[],
  problems: ProblemCollector,
): SynthTimeConfig | undefined {
  if (providers.length === 0) {
    if (baseConfigText === undefined || (transport === undefined && servedModels.length === 0)) return undefined;
    return withoutExternalProviders(baseConfigText, configFileName, serverVersion, transport, servedModels, problems);
  }
  const resolved: ResolvedExternalProvider[] = [];
  for (const p of providers) {
    const metadata = loadMetadata(p, problems);
    if (metadata) {
      resolved.push({
        providerId: p.provider.providerId,
        api: p.api,
        crdSection: p.section,
        image: p.provider.image,
        config: p.config,
        ...(p.serviceAddress !== undefined ? { serviceAddress: p.serviceAddress } : {}),
        metadata,
      });
    } else {
      checkAddressKeyNamedInProps(p, problems);
    }
  }
  if (resolved.length === 0) {
    return undefined;
  }
  const fieldOf = (providerId: string | undefined) => providers.find((p) => p.provider.providerId === providerId)?.field ?? 'externalProviders';
  if (!record(problems, fieldOf, () => checkExternalProviders(resolved, serverVersion))) {
    return undefined;
  }
  if (resolved.length < providers.length || baseConfigText === undefined) {
    return undefined; // something is only known in the pod: the merge runs there
  }
  let files: SynthTimeConfig | undefined;
  record(problems, () => 'userConfig.config', () => {
    const result = mergeRunConfig(baseConfigText, resolved, { baseConfigSource: 'userConfig.config', serverVersion, transport, servedModels });
    const log = formatMergeLog(result, { baseConfig: 'userConfig.config (merged at synth time)', outputs: [configFileName, EXTRA_PROVIDERS_FILE] });
    files = {
      configText: result.configText,
      files: { [configFileName]: result.configText, [EXTRA_PROVIDERS_FILE]: result.extraProvidersText, [MERGE_LOG_FILE]: log },
      mergedProviders: true,
      warnings: result.warnings.map((w) => w.message),
    };
  });
  return files;
}

/**
 * The user's config with the server's transport settings (`server.insecure`, `server.tls_*`) and the
 * served models, written by the merge; its log beside it when models were added.
 */
function withoutExternalProviders(
  baseConfigText: string, configFileName: string, serverVersion: string, transport: ServerTransport | undefined,
  servedModels: readonly ServedModel[], problems: ProblemCollector,
): SynthTimeConfig | undefined {
  let files: SynthTimeConfig | undefined;
  record(problems, () => 'userConfig.config', () => {
    const result = mergeRunConfig(baseConfigText, [], { baseConfigSource: 'userConfig.config', serverVersion, transport, servedModels });
    const log: Record<string, string> = servedModels.length === 0 ? {}
      : { [MERGE_LOG_FILE]: formatMergeLog(result, { baseConfig: 'userConfig.config (merged at synth time)', outputs: [configFileName] }) };
    files = {
      configText: result.configText,
      files: { [configFileName]: result.configText, ...log },
      mergedProviders: false,
      warnings: result.warnings.map((w) => w.message),
    };
  });
  return files;
}

/**
 * Without the metadata, the key of the service's address is known at synth time only when the props
 * name it: then the config must leave it free (the merge checks the metadata's key in the pod).
 */
function checkAddressKeyNamedInProps(p: ValidatedProvider, problems: ProblemCollector): void {
  const address = p.serviceAddress;
  if (address?.configKey === undefined) return;
  const conflict = addressKeyConflict(p.config, address, placeServiceAddress(address, undefined));
  if (conflict) problems.add(`${p.field}.config.${address.configKey}`, `${conflict.detail}: ${conflict.fix}.`);
}

function loadMetadata(p: ValidatedProvider, problems: ProblemCollector) {
  const { metadata, metadataFile, providerId, image } = p.provider;
  if (metadata === undefined && metadataFile === undefined) {
    return undefined;
  }
  const owner = { providerId, image };
  if (metadata !== undefined && metadataFile !== undefined) {
    problems.add(`${p.field}.metadata`, `provider '${providerId}' (image ${image}) gives both metadata and metadataFile: give one of them.`);
    return undefined;
  }
  if (metadataFile !== undefined) {
    let text: string;
    try {
      // A regular file only (a FIFO would block synth), and no more than metadata may hold.
      text = readRegularFileCapped(resolve(metadataFile), METADATA_LIMITS.maxBytes);
    } catch (e) {
      problems.add(`${p.field}.metadataFile`, `cannot read '${metadataFile}' for provider '${providerId}' (image ${image}): ${describeFsError(e)} Give the path of the image's lls-provider-spec.yaml, relative to the directory synth runs in.`);
      return undefined;
    }
    return attempt(problems, `${p.field}.metadataFile`, () => parseProviderMetadata(text, metadataFile, owner));
  }
  const source = `${p.field}.metadata`;
  return attempt(problems, source, () => (typeof metadata === 'string'
    ? parseProviderMetadata(metadata, source, owner)
    : validateProviderMetadata(metadata, source, owner)));
}

function attempt<T>(problems: ProblemCollector, field: string, fn: () => T): T | undefined {
  let value: T | undefined;
  record(problems, () => field, () => {
    value = fn();
  });
  return value;
}

/** Runs `fn`; its RunConfigError issues become problems on the field of the provider they name. */
function record(problems: ProblemCollector, fieldOf: (providerId: string | undefined) => string, fn: () => void): boolean {
  try {
    fn();
    return true;
  } catch (e) {
    if (!(e instanceof RunConfigError)) {
      throw e;
    }
    for (const issue of e.issues) {
      problems.add(fieldOf(issue.providerId), describeIssue(issue));
    }
    return false;
  }
}
