import * as fs from 'node:fs';
import * as path from 'node:path';
import { CRD_CONFIG_FILE, CrdProviderConfig, parseCrdConfig } from './crd-config';
import { IssueCollector, RunConfigError } from './errors';
import { ResolvedExternalProvider } from './external-providers';
import { parseProviderMetadata, PROVIDER_METADATA_FILE } from './provider-metadata';
import { describeFsError, readRegularFileCapped, CONFIG_LIMITS, METADATA_LIMITS } from '../io';

/**
 * Reads the external providers the install init containers left in the shared metadata directory:
 * one directory per provider holding `lls-provider-spec.yaml` (from the image) and `crd-config.yaml`
 * (from the spec). Every provider is read before failing, so one run reports every broken provider.
 * Entries whose name starts with `.` are skipped (Kubernetes volume bookkeeping such as `..data`), and
 * so are plain files.
 *
 * Each directory is named after its provider's key (`providerKey` of its id, which is the id itself
 * when the id is a DNS-1123 label) or, as the spec has it, after the id.
 *
 * @param metadataDir the directory, e.g. `/opt/llama-stack/external-providers/metadata`
 * @returns the providers in spec order: those whose crd-config.yaml gives an `order` by it, then those
 *   without one by directory name (the spec's minimal crd-config.yaml has no `order`)
 * @throws RunConfigError naming each broken provider, its image when known, and the fix
 */
export function readExternalProviders(metadataDir: string): ResolvedExternalProvider[] {
  let names: string[];
  try {
    names = fs.readdirSync(metadataDir, { withFileTypes: true })
      .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || (e.isSymbolicLink() && isDirectory(path.join(metadataDir, e.name)))))
      .map((e) => e.name)
      .sort();
  } catch (e) {
    throw new RunConfigError([{
      title: 'Cannot read the external provider metadata directory',
      source: metadataDir,
      details: [describeFsError(e)],
      resolution: 'Mount the shared external-providers volume in the merge init container (read-only) and make sure '
        + 'the provider install init containers ran before it.',
    }]);
  }

  const issues = new IssueCollector();
  const found: Array<{ settings: CrdProviderConfig; provider: ResolvedExternalProvider }> = [];
  for (const name of names) {
    try {
      found.push(readProvider(metadataDir, name));
    } catch (e) {
      issues.addFrom(e);
    }
  }
  issues.throwIfAny();

  const ordered = found.filter((f) => f.settings.order !== undefined);
  const byOrder = new Map<number, string[]>();
  for (const { settings } of ordered) {
    byOrder.set(settings.order!, [...(byOrder.get(settings.order!) ?? []), settings.providerId]);
  }
  for (const [order, ids] of byOrder) {
    if (ids.length > 1) {
      issues.add({
        title: `Two external providers claim position ${order}`,
        providerId: ids.join(', '),
        image: ordered.filter((f) => f.settings.order === order).map((f) => f.settings.image ?? 'unknown').join(', '),
        details: [`${CRD_CONFIG_FILE} of providers ${ids.map((i) => `'${i}'`).join(' and ')} both give order ${order}.`],
        resolution: 'Render the manifests again so that each provider\'s install init container writes its own position.',
      });
    }
  }
  issues.throwIfAny();
  // Directory-name order for the rest: `found` follows the sorted names.
  const unordered = found.filter((f) => f.settings.order === undefined);
  return [...ordered.sort((a, b) => a.settings.order! - b.settings.order!), ...unordered].map((f) => f.provider);
}

function readProvider(metadataDir: string, name: string): { settings: CrdProviderConfig; provider: ResolvedExternalProvider } {
  const dir = path.join(metadataDir, name);
  const settingsFile = path.join(dir, CRD_CONFIG_FILE);
  const settingsText = readProviderFile(settingsFile, CONFIG_LIMITS.maxBytes, name, undefined,
    `The install init container of provider '${name}' writes ${CRD_CONFIG_FILE}; check its log for the reason it did not.`);
  const settings = parseCrdConfig(settingsText, settingsFile, name);

  const metadataFile = path.join(dir, PROVIDER_METADATA_FILE);
  const metadataText = readProviderFile(metadataFile, METADATA_LIMITS.maxBytes, name, settings.image,
    `The image must contain /lls-provider/${PROVIDER_METADATA_FILE}, which its install init container copies here; `
      + 'check that container\'s log, and the image.');
  const metadata = parseProviderMetadata(metadataText, metadataFile, { providerId: settings.providerId, image: settings.image });

  return {
    settings,
    provider: {
      providerId: settings.providerId,
      api: settings.api,
      crdSection: settings.crdSection,
      ...(settings.image !== undefined ? { image: settings.image } : {}),
      ...(settings.config !== undefined ? { config: settings.config } : {}),
      ...(settings.serviceAddress !== undefined ? { serviceAddress: settings.serviceAddress } : {}),
      metadata,
    },
  };
}

function readProviderFile(file: string, maxBytes: number, providerId: string, image: string | undefined, resolution: string): string {
  try {
    // Only a regular file: a FIFO or a device the image put there would block the merge or never end.
    return readRegularFileCapped(file, maxBytes);
  } catch (e) {
    throw new RunConfigError([{
      title: `Cannot read ${path.basename(file)} of provider '${providerId}'`,
      providerId,
      image,
      source: file,
      details: [describeFsError(e, '')],
      resolution,
    }]);
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
