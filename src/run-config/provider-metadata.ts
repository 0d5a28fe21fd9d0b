import { isRecord } from '../checks';
import { isLlamaStackApi, LlamaStackApi } from './apis';
import { RunConfigError } from './errors';
import { clip, describe, PlainMap, readMap, readString, unknownKeys } from './fields';
import { allApisText } from './releases';
import { METADATA_LIMITS, readUntrustedYaml } from '../io';
import { ProviderServiceAddressSpec, readServiceAddressSpec } from './service-address';

/** `apiVersion` of a provider metadata file. */
export const PROVIDER_PACKAGE_API_VERSION = 'llamastack.io/v1alpha1';
/** `kind` of a provider metadata file. */
export const PROVIDER_PACKAGE_KIND = 'ProviderPackage';
/** Name of the metadata file in a provider image (`/lls-provider/`) and in the shared metadata directory. */
export const PROVIDER_METADATA_FILE = 'lls-provider-spec.yaml';

/**
 * `providerType`: `remote::` or `inline::` and a lowercase name. Real names contain underscores
 * (`remote::trustyai_fms`), which a stricter `[a-z0-9-]+` would wrongly exclude.
 */
export const PROVIDER_TYPE_PATTERN = /^(remote|inline)::[a-z0-9][a-z0-9_-]*$/;

/** A version as Python packages and semver write it: `1.2.0`, `0.4.0rc1`, `1.0.0-beta.2`, `2.1.0+local`. */
const VERSION = '[0-9][0-9A-Za-z.!+_-]*';
const VERSION_PATTERN = new RegExp(`^v?${VERSION}$`);
const IDENTIFIER = '[A-Za-z_][A-Za-z0-9_]*';
/** `packageName`: a dotted Python module path with an optional `==version` pin (as llama-stack accepts in `module`). */
export const PACKAGE_NAME_PATTERN = new RegExp(`^(${IDENTIFIER}(?:\\.${IDENTIFIER})*)(?:==(${VERSION}))?$`);
const NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const SINGLE_LINE = /^[^\x00-\x1f\x7f]+$/;
const WHEEL_PATTERN = /^[^\x00-\x1f\x7f]+\.whl$/;

/** `metadata` of a provider package. */
export interface ProviderPackageInfo {
  /** Package identifier. */
  readonly name: string;
  /** Package version. */
  readonly version: string;
  /** Organization that publishes the package. */
  readonly vendor: string;
  /** Human-readable description. */
  readonly description?: string;
  /** Contact address. */
  readonly maintainer?: string;
}

/** `spec` of a provider package. */
export interface ProviderPackageSpec {
  /** Python module path, possibly pinned (`my_org.custom_vllm==1.2.0`), as written in the file. */
  readonly packageName: string;
  /** Provider type, e.g. `remote::custom-vllm`. */
  readonly providerType: string;
  /** The Llama Stack API the provider serves (whether the targeted release has it is checked by the merge). */
  readonly api: LlamaStackApi;
  /** Path of the main wheel in the image. */
  readonly wheelPath: string;
  /** Paths of dependency wheels in the image. */
  readonly dependencyWheels?: readonly string[];
  /**
   * Where the adapter reads its service part's address (for a provider with a sidecar or a Service):
   * the config key (`url` when not given) and a path appended to `http://<host>:<port>`.
   */
  readonly serviceAddress?: ProviderServiceAddressSpec;
}

/** A validated `lls-provider-spec.yaml`. */
export interface ProviderMetadata {
  /** Always `llamastack.io/v1alpha1`. */
  readonly apiVersion: string;
  /** Always `ProviderPackage`. */
  readonly kind: string;
  /** Package description. */
  readonly metadata: ProviderPackageInfo;
  /** What the package provides. */
  readonly spec: ProviderPackageSpec;
  /** The Python module llama-stack imports: `spec.packageName` without its `==version` pin. */
  readonly module: string;
  /** The version `spec.packageName` is pinned to, when it carries `==version`. */
  readonly modulePin?: string;
  /** Fields the schema does not define, as dotted paths; ignored, reported as warnings by the merge. */
  readonly unknownFields: readonly string[];
}

/** Who the metadata belongs to, when known, so that errors name the provider and image. */
export interface MetadataOwner {
  /** The provider's `providerId`. */
  readonly providerId?: string;
  /** The provider's image. */
  readonly image?: string;
}

const RESOLUTION = `Fix /lls-provider/${PROVIDER_METADATA_FILE} in the provider image so that it follows the `
  + 'ProviderPackage schema (see docs/merge-config.md), rebuild and push the image, then redeploy.';

/**
 * Parses and validates a provider metadata file (untrusted YAML from a provider image).
 *
 * @param text the file's content
 * @param source label of the file in messages, e.g. `metadata/custom-vllm/lls-provider-spec.yaml`
 * @param owner the provider the file belongs to, for messages
 * @throws RunConfigError listing every problem found, with line and column for YAML syntax errors
 */
export function parseProviderMetadata(text: string, source: string, owner: MetadataOwner = {}): ProviderMetadata {
  const value = readUntrustedYaml(text, METADATA_LIMITS, { source, ...owner, resolution: RESOLUTION });
  return validateProviderMetadata(value, source, owner);
}

/**
 * Validates provider metadata that is already plain data (for example read by the caller from YAML).
 *
 * @throws RunConfigError listing every problem found
 */
export function validateProviderMetadata(value: unknown, source: string, owner: MetadataOwner = {}): ProviderMetadata {
  const problems: string[] = [];
  if (!isRecord(value)) {
    problems.push(`The document must be a mapping with apiVersion, kind, metadata and spec; found ${describe(value)}.`);
    throw metadataError(problems, source, owner);
  }

  checkConstant(value, 'apiVersion', PROVIDER_PACKAGE_API_VERSION, problems);
  checkConstant(value, 'kind', PROVIDER_PACKAGE_KIND, problems);

  const info = readMap(value, 'metadata', 'metadata', problems);
  const name = readString(info, 'name', 'metadata.name', {
    pattern: NAME_PATTERN, expected: 'a package identifier such as custom-vllm (letters, digits, ".", "_", "-")',
  }, problems);
  const version = readString(info, 'version', 'metadata.version', {
    pattern: VERSION_PATTERN, expected: 'a version string such as "1.2.0"',
  }, problems);
  const vendor = readString(info, 'vendor', 'metadata.vendor', {
    pattern: SINGLE_LINE, expected: 'the publishing organization, one line of text',
  }, problems);
  const description = readString(info, 'description', 'metadata.description', {
    optional: true, expected: 'text',
  }, problems);
  const maintainer = readString(info, 'maintainer', 'metadata.maintainer', {
    optional: true, pattern: SINGLE_LINE, expected: 'a contact address, one line of text',
  }, problems);

  const spec = readMap(value, 'spec', 'spec', problems);
  const packageName = readPackageName(spec, problems);
  const providerType = readString(spec, 'providerType', 'spec.providerType', {
    pattern: PROVIDER_TYPE_PATTERN,
    expected: 'remote::<name> or inline::<name> with a lowercase name of letters, digits, "_" and "-" (e.g. remote::custom_vllm)',
  }, problems);
  const api = readApi(spec, problems);
  const wheelPath = readString(spec, 'wheelPath', 'spec.wheelPath', {
    pattern: WHEEL_PATTERN, expected: 'the path of the provider\'s wheel file (ending in .whl)',
  }, problems);
  const dependencyWheels = readWheelList(spec, problems);
  const unknownServiceFields: string[] = [];
  const serviceAddress = readServiceAddressSpec(spec, problems, unknownServiceFields);

  if (problems.length > 0) {
    throw metadataError(problems, source, owner);
  }
  const pinned = PACKAGE_NAME_PATTERN.exec(packageName!)!;
  return {
    apiVersion: PROVIDER_PACKAGE_API_VERSION,
    kind: PROVIDER_PACKAGE_KIND,
    metadata: {
      name: name!,
      version: version!,
      vendor: vendor!,
      ...(description !== undefined ? { description } : {}),
      ...(maintainer !== undefined ? { maintainer } : {}),
    },
    spec: {
      packageName: packageName!,
      providerType: providerType!,
      api: api!,
      wheelPath: wheelPath!,
      ...(dependencyWheels !== undefined ? { dependencyWheels } : {}),
      ...(serviceAddress !== undefined ? { serviceAddress } : {}),
    },
    module: pinned[1],
    ...(pinned[2] !== undefined ? { modulePin: pinned[2] } : {}),
    unknownFields: [
      ...unknownKeys(value, ['apiVersion', 'kind', 'metadata', 'spec'], ''),
      ...unknownKeys(info, ['name', 'version', 'vendor', 'description', 'maintainer'], 'metadata'),
      ...unknownKeys(spec, ['packageName', 'providerType', 'api', 'wheelPath', 'dependencyWheels', 'serviceAddress'], 'spec'),
      ...unknownServiceFields,
    ],
  };
}

function metadataError(problems: readonly string[], source: string, owner: MetadataOwner): RunConfigError {
  return new RunConfigError([{
    title: `Invalid provider metadata in ${PROVIDER_METADATA_FILE}`,
    providerId: owner.providerId,
    image: owner.image,
    source,
    details: problems.map((p) => `  - ${p}`),
    resolution: RESOLUTION,
  }]);
}

function checkConstant(map: PlainMap, key: string, expected: string, problems: string[]): void {
  if (map[key] !== expected) {
    problems.push(`${key}: found ${describe(map[key])}; expected '${expected}'.`);
  }
}

function readPackageName(spec: PlainMap, problems: string[]): string | undefined {
  const value = readString(spec, 'packageName', 'spec.packageName', {
    expected: 'a Python module path such as my_org.custom_vllm, optionally pinned as my_org.custom_vllm==1.2.0',
  }, problems);
  if (value === undefined) return undefined;
  if (!PACKAGE_NAME_PATTERN.test(value)) {
    const hint = value.includes('-') && !value.includes('==') ? ' Python module names use "_" where package names use "-".' : '';
    problems.push(`spec.packageName: found '${clip(value)}'; expected a Python module path such as my_org.custom_vllm, `
      + `optionally pinned as my_org.custom_vllm==1.2.0.${hint}`);
    return undefined;
  }
  return value;
}

function readApi(spec: PlainMap, problems: string[]): LlamaStackApi | undefined {
  const value = spec.api;
  if (isLlamaStackApi(value)) return value;
  // Which of these the targeted llama-stack release has is checked where the release is known (the merge).
  problems.push(value === undefined || value === null
    ? `spec.api: missing; expected one of ${allApisText()}.`
    : `spec.api: found ${describe(value)}, which is not an API any known llama-stack release accepts providers for; expected one of ${allApisText()}.`);
  return undefined;
}

function readWheelList(spec: PlainMap, problems: string[]): string[] | undefined {
  const value = spec.dependencyWheels;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    problems.push(`spec.dependencyWheels: found ${describe(value)}; expected a list of wheel paths.`);
    return undefined;
  }
  const bad = value.findIndex((w) => typeof w !== 'string' || !WHEEL_PATTERN.test(w));
  if (bad >= 0) {
    problems.push(`spec.dependencyWheels[${bad}]: found ${describe(value[bad])}; expected the path of a wheel file (ending in .whl).`);
    return undefined;
  }
  return value as string[];
}
