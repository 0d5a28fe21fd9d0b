import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CRD_SECTION_BY_API, LlamaStackApi } from '../../src/run-config/apis';
import { RunConfigError } from '../../src/run-config/errors';
import { ResolvedExternalProvider } from '../../src/run-config/external-providers';
import { providerKey } from '../../src/run-config/provider-id';
import { parseProviderMetadata } from '../../src/run-config/provider-metadata';
import { renderJson } from '../../src/run-config/render';
import type { ServiceAddress } from '../../src/run-config/service-address';

/** The reference configs of real distributions (test inputs copied from shared/reference/llama-stack). */
export const FIXTURES_DIR = path.join(__dirname, '..', 'fixtures', 'llama-stack');
export const REFERENCE_CONFIGS = fs.readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.yaml')).sort();
export const readFixture = (name: string): string => fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8');
/** The llama-stack release line each reference config was written for (the ODH config names `responses`: 0.7). */
export const REFERENCE_RELEASES: Readonly<Record<string, string>> = {
  'odh-distribution-config.yaml': '0.7',
  'starter-config-v0.7.1.yaml': '0.7',
  'starter-run-v0.2.23.yaml': '0.2',
  'starter-run-v0.3.0.yaml': '0.3',
};

/** Fields of a metadata file a test may change. */
export interface MetadataFields {
  readonly api?: string;
  readonly providerType?: string;
  readonly packageName?: string;
  readonly name?: string;
  /** `spec.serviceAddress`, as YAML flow text, e.g. `{configKey: endpoint}`. */
  readonly serviceAddress?: string;
}

/** A valid `lls-provider-spec.yaml`. */
export function metadataYaml(fields: MetadataFields = {}): string {
  return [
    'apiVersion: llamastack.io/v1alpha1',
    'kind: ProviderPackage',
    'metadata:',
    `  name: ${fields.name ?? 'custom-vllm'}`,
    '  version: "1.2.0"',
    '  vendor: acme',
    '  description: A custom vLLM provider',
    'spec:',
    `  packageName: ${fields.packageName ?? 'acme_custom.vllm'}`,
    `  providerType: "${fields.providerType ?? 'remote::custom-vllm'}"`,
    `  api: ${fields.api ?? 'inference'}`,
    '  wheelPath: /lls-provider/packages/acme_custom-1.2.0-py3-none-any.whl',
    ...(fields.serviceAddress !== undefined ? [`  serviceAddress: ${fields.serviceAddress}`] : []),
    '',
  ].join('\n');
}

/** Options of {@link provider}. */
export interface ProviderOptions extends MetadataFields {
  readonly image?: string;
  readonly config?: Record<string, unknown>;
  /** Its service part's address, as the construct planned it. */
  readonly address?: ServiceAddress;
  /** Section it is placed under; defaults to the section of `placedApi` (or of the metadata API). */
  readonly placedApi?: LlamaStackApi;
}

/** An external provider as the merge receives it. */
export function provider(providerId: string, options: ProviderOptions = {}): ResolvedExternalProvider {
  const metadata = parseProviderMetadata(metadataYaml(options), `${providerId}/lls-provider-spec.yaml`);
  const api = options.placedApi ?? metadata.spec.api;
  return {
    providerId,
    api,
    crdSection: CRD_SECTION_BY_API[api],
    image: options.image ?? `quay.io/acme/${providerId}:1.0`,
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.address !== undefined ? { serviceAddress: options.address } : {}),
    metadata,
  };
}

/** Runs `fn` and returns the error of class `type` it throws (failing the test when it throws nothing or another error). */
export function thrown<E extends Error>(fn: () => unknown, type: new (...args: any[]) => E): E {
  try {
    fn();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`expected a ${type.name}, but nothing was thrown`);
}

/** Runs `fn` and returns the RunConfigError it throws (failing the test when it throws nothing else). */
export function runConfigError(fn: () => unknown): RunConfigError {
  return thrown(fn, RunConfigError);
}

const tempDirs: string[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(prefix = 'merge-config-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Removes every directory {@link tempDir} made (call it from `afterAll`). */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Writes what the install init containers would leave in the metadata directory (one directory per provider key). */
export function writeMetadataDir(dir: string, providers: ReadonlyArray<ResolvedExternalProvider & { readonly metadataText?: string }>): void {
  providers.forEach((p, order) => {
    const providerDir = path.join(dir, providerKey(p.providerId));
    fs.mkdirSync(providerDir, { recursive: true });
    fs.writeFileSync(path.join(providerDir, 'lls-provider-spec.yaml'), p.metadataText ?? metadataYaml({
      api: p.metadata.spec.api,
      providerType: p.metadata.spec.providerType,
      packageName: p.metadata.spec.packageName,
      ...(p.metadata.spec.serviceAddress !== undefined ? { serviceAddress: JSON.stringify(p.metadata.spec.serviceAddress) } : {}),
    }));
    // As the install init container writes it: the JSON the construct renders with renderJson.
    fs.writeFileSync(path.join(providerDir, 'crd-config.yaml'), renderJson({
      providerId: p.providerId,
      api: p.api,
      crdSection: p.crdSection,
      image: p.image,
      order,
      ...(p.config !== undefined ? { config: p.config } : {}),
      ...(p.serviceAddress !== undefined ? { serviceAddress: p.serviceAddress } : {}),
    }));
  });
}
