import { Construct } from 'constructs';
import { isRecord } from '../checks';
import { ProblemCollector, ValidationError } from '../errors';
import { LABEL_DOMAIN } from '../labels';
import { DocumentFields } from './document-fields';
import { checkDocumentFields } from './llama-stack-document-fields';
import { MetadataFiles } from './metadata-files';
import { LlamaStackWithProvidersProps, LlamaStackWithProviders } from '../llama-stack';
import { releaseOfImageTag } from '../run-config/releases';
import { addWarning } from '../warnings';

/**
 * The annotation naming the server release a document's distribution runs (`serverVersion`): an ogx
 * or a llama-stack release. The operators' CRDs have no such field: they know the release only from
 * the distribution image's tag.
 */
export const SERVER_VERSION_ANNOTATION = `${LABEL_DOMAIN}/server-version`;

/**
 * The release a LlamaStackDistribution document runs when neither the annotation nor the image's tag
 * names one: the last llama-stack line, which the llama-stack operator served. OGX (from 0.8) is
 * served by the OGX operator's OGXServer.
 */
export const LLSD_SERVER_VERSION = '0.7';

/** The old name of {@link SERVER_VERSION_ANNOTATION}, from before llama-stack was renamed OGX; still read, with a warning. */
export const LLAMA_STACK_VERSION_ANNOTATION = `${LABEL_DOMAIN}/llama-stack-version`;

/**
 * The annotation naming the oldest Kubernetes minor the cluster runs (`kubernetesVersion`): from 1.29
 * providers' sidecars are native sidecars. The operator's CRD has no such field.
 */
export const KUBERNETES_VERSION_ANNOTATION = `${LABEL_DOMAIN}/kubernetes-version`;

/**
 * The annotation asking for the operator's pod selector (`operatorSelector`), to take over in place a
 * Deployment the operator created from this very document.
 */
export const OPERATOR_SELECTOR_ANNOTATION = `${LABEL_DOMAIN}/operator-selector`;

/**
 * The annotation naming the merge image (`mergeImage`): the image built from this repository's
 * release, pushed where the cluster pulls from. The operators' CRDs have no such field.
 */
export const MERGE_IMAGE_ANNOTATION = `${LABEL_DOMAIN}/merge-image`;

/** The props fields a server document (a LlamaStackDistribution, an OGXServer) holds in its metadata. */
export const METADATA_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['name', 'metadata.name'],
  ['namespace', 'metadata.namespace'],
  ['labels', 'metadata.labels'],
  ['serverVersion', `metadata.annotations.${SERVER_VERSION_ANNOTATION}`],
  ['kubernetesVersion', `metadata.annotations.${KUBERNETES_VERSION_ANNOTATION}`],
  ['mergeImage', `metadata.annotations.${MERGE_IMAGE_ANNOTATION}`],
];

// Props fields and where they live in a LlamaStackDistribution document, so that validation messages
// name the field the user actually wrote; other fields are under spec.server.
const FIELDS = new DocumentFields([
  ...METADATA_FIELDS,
  ['llamaStackVersion', `metadata.annotations.${LLAMA_STACK_VERSION_ANNOTATION}`],
  ['replicas', 'spec.replicas'],
  ['distribution', 'spec.server.distribution'],
  ['port', 'spec.server.containerSpec.port'],
  ['containerName', 'spec.server.containerSpec.name'],
  ['command', 'spec.server.containerSpec.command'],
  ['args', 'spec.server.containerSpec.args'],
  ['env', 'spec.server.containerSpec.env'],
  ['resources', 'spec.server.containerSpec.resources'],
  ['serviceAccountName', 'spec.server.podOverrides.serviceAccountName'],
  ['caBundle', 'spec.server.tlsConfig.caBundle'],
  ['volumes', 'spec.server.podOverrides.volumes'],
  ['volumeMounts', 'spec.server.podOverrides.volumeMounts'],
  ['terminationGracePeriodSeconds', 'spec.server.podOverrides.terminationGracePeriodSeconds'],
  ['userConfig', 'spec.server.userConfig'],
  ['storage', 'spec.server.storage'],
  ['externalProviders', 'spec.server.externalProviders'],
  ['models', 'spec.server.models'],
  ['network.expose', 'spec.network.exposeRoute'],
  ['network', 'spec.network'],
], (field) => `spec.server.${field}`);

/** Where a props field lives in the document. */
export function documentField(field: string): string {
  return FIELDS.field(field);
}

/**
 * A warning of the construct as the document's reader needs it: one that starts with a props field
 * (`storage: …`, `command replaces …`) names the document's field instead.
 */
export function documentWarning(message: string): string {
  return FIELDS.message(message);
}

/**
 * Renders one `LlamaStackDistribution` document (the operator's CRD shape, with
 * `spec.server.externalProviders`) into `scope` through the construct. Each provider's `config` is taken
 * from `exact`, the document with its numbers as written: an integer beyond 2^53 keeps its digits and a
 * float of whole value (`1.0`) stays a float in the provider's settings.
 */
export function renderLlamaStackDocument(
  scope: Construct, doc: Record<string, any>, label: string, baseDir: string, exact: Record<string, any> = doc,
): void {
  const problems = new ProblemCollector();
  // Unknown keys are problems; operator fields that are not translated are warned about once the
  // document is known to render.
  const untranslated: string[] = [];
  checkDocumentFields(doc, problems, (m) => untranslated.push(m));
  const metadata = asObject(doc.metadata, 'metadata', problems);
  const spec = asObject(doc.spec, 'spec', problems);
  const server = asObject(spec?.server, 'spec.server', problems);
  if (typeof metadata?.name !== 'string' || metadata.name === '') {
    problems.add('metadata.name', 'missing: every document needs metadata.name; the rendered objects are named after it.');
  }
  const containerSpec = asObject(server?.containerSpec ?? {}, 'spec.server.containerSpec', problems) ?? {};
  const podOverrides = asObject(server?.podOverrides ?? {}, 'spec.server.podOverrides', problems) ?? {};
  const userConfig = asObject(server?.userConfig, 'spec.server.userConfig', problems, true);
  const tlsConfig = asObject(server?.tlsConfig ?? {}, 'spec.server.tlsConfig', problems) ?? {};
  const caBundle = asObject(tlsConfig.caBundle, 'spec.server.tlsConfig.caBundle', problems, true);
  for (const [field, ref] of [['spec.server.userConfig', userConfig], ['spec.server.tlsConfig.caBundle', caBundle]] as const) {
    if (ref?.configMapNamespace !== undefined && ref.configMapNamespace !== metadata?.namespace) {
      problems.add(`${field}.configMapNamespace`, `'${ref.configMapNamespace}' differs from the document's namespace: a pod can only mount a ConfigMap of its own namespace. Copy the ConfigMap into '${metadata?.namespace ?? 'default'}' and drop configMapNamespace.`);
    }
  }
  const takeOver = operatorSelector(metadata?.annotations?.[OPERATOR_SELECTOR_ANNOTATION], problems);
  const deprecations: string[] = [];
  const annotated = releaseAnnotation(metadata?.annotations, problems, (m) => deprecations.push(m));
  const metadataFiles = new MetadataFiles(baseDir);
  const givenProviders = withExactConfig(server?.externalProviders, exact.spec?.server?.externalProviders);
  const externalProviders = metadataFiles.read(givenProviders, problems, documentField);
  problems.throwIfAny(label);

  const warn = (message: string) => addWarning(scope, message);
  untranslated.forEach(warn);
  deprecations.forEach(warn);
  const image = typeof server?.distribution?.image === 'string' ? server.distribution.image : undefined;
  const tagged = image !== undefined && releaseOfImageTag(image) !== undefined;
  // A document of the llama-stack operator's kind describes a llama-stack server: unless told otherwise,
  // the last llama-stack line, not the newest ogx one (an OGXServer document is for that).
  const serverVersion = annotated ?? (tagged ? undefined : LLSD_SERVER_VERSION);
  if (annotated === undefined && image !== undefined && !tagged && hasProviders(server?.externalProviders)) {
    warn(`spec.server.distribution: the tag of ${image} does not say which server release it runs; the pod is rendered for llama-stack `
      + `${LLSD_SERVER_VERSION} and the external providers are checked against it. Name the release with the annotation `
      + `${SERVER_VERSION_ANNOTATION} (e.g. "0.6", or "1.5" for ogx), or use an image tagged with its version.`);
  }

  const props: LlamaStackWithProvidersProps = {
    name: metadata!.name,
    namespace: metadata!.namespace,
    distribution: server!.distribution ?? {},
    serverVersion,
    kubernetesVersion: metadata?.annotations?.[KUBERNETES_VERSION_ANNOTATION],
    mergeImage: metadata?.annotations?.[MERGE_IMAGE_ANNOTATION],
    replicas: spec!.replicas,
    port: containerSpec.port,
    containerName: containerSpec.name,
    command: containerSpec.command,
    args: containerSpec.args,
    workers: server!.workers,
    env: containerSpec.env,
    resources: stringQuantities(containerSpec.resources),
    serviceAccountName: podOverrides.serviceAccountName,
    healthCheck: server!.healthCheck,
    podSecurity: server!.podSecurity,
    caBundle: caBundle && { configMapName: caBundle.configMapName, configMapKeys: caBundle.configMapKeys },
    volumes: podOverrides.volumes,
    volumeMounts: podOverrides.volumeMounts,
    terminationGracePeriodSeconds: podOverrides.terminationGracePeriodSeconds,
    labels: metadata!.labels,
    operatorSelector: takeOver,
    network: networkProps(spec!.network),
    autoscaling: server!.autoscaling,
    podDisruptionBudget: server!.podDisruptionBudget,
    topologySpreadConstraints: server!.topologySpreadConstraints,
    userConfig: userConfig && { configMapName: userConfig.configMapName, configMapKey: userConfig.configMapKey, config: userConfig.config },
    storage: server!.storage,
    externalProviders: externalProviders as LlamaStackWithProvidersProps['externalProviders'],
    models: server!.models,
    // The operator's shape is a list of { name }; the construct takes the names.
    imagePullSecrets: Array.isArray(server!.imagePullSecrets)
      ? server!.imagePullSecrets.map((s: unknown) => (typeof s === 'object' && s !== null ? (s as { name?: unknown }).name : s))
      : server!.imagePullSecrets,
  };
  try {
    new LlamaStackWithProviders(scope, metadata!.name, props);
  } catch (e) {
    if (e instanceof ValidationError) {
      const found = e.problems.map((p) => metadataFiles.problem(p));
      throw new ValidationError(label, found.map((p) => ({ field: documentField(p.field), message: p.message })));
    }
    throw e;
  }
}

/**
 * The server release the annotations name: `kube-inference.io/server-version`, or its old name
 * `kube-inference.io/llama-stack-version` with a warning; both with different values are a problem.
 */
function releaseAnnotation(
  annotations: Record<string, unknown> | undefined, problems: ProblemCollector, warn: (message: string) => void,
): string | undefined {
  const current = annotations?.[SERVER_VERSION_ANNOTATION] as string | undefined;
  const old = annotations?.[LLAMA_STACK_VERSION_ANNOTATION] as string | undefined;
  if (old === undefined) return current;
  if (current !== undefined && current !== old) {
    problems.add(`metadata.annotations.${LLAMA_STACK_VERSION_ANNOTATION}`, `is ${JSON.stringify(old)} while ${SERVER_VERSION_ANNOTATION} is `
      + `${JSON.stringify(current)}: it is the old name of ${SERVER_VERSION_ANNOTATION}. Remove it.`);
    return undefined;
  }
  warn(`metadata.annotations.${LLAMA_STACK_VERSION_ANNOTATION} is deprecated: llama-stack was renamed OGX, and ${SERVER_VERSION_ANNOTATION} `
    + `names a release of either. Rename the annotation to ${SERVER_VERSION_ANNOTATION}.`);
  return old;
}

/** The operator's `spec.network` as the construct's `network` (its `exposeRoute` is `expose`). */
function networkProps(network: unknown): LlamaStackWithProvidersProps['network'] {
  if (!isRecord(network)) return network as LlamaStackWithProvidersProps['network'];
  const { exposeRoute, ...rest } = network;
  return { ...rest, ...(exposeRoute !== undefined ? { expose: exposeRoute } : {}) } as LlamaStackWithProvidersProps['network'];
}

/** The operator-selector annotation: "true" or "false", as annotations are strings. */
function operatorSelector(value: unknown, problems: ProblemCollector): boolean | undefined {
  if (value === undefined || value === 'false') return value === undefined ? undefined : false;
  if (value !== 'true') problems.add(`metadata.annotations.${OPERATOR_SELECTOR_ANNOTATION}`, `expected "true" or "false", got ${JSON.stringify(value)}.`);
  return value === 'true';
}

/** True when the document lists at least one external provider. */
function hasProviders(providers: unknown): boolean {
  return typeof providers === 'object' && providers !== null
    && Object.values(providers).some((list) => Array.isArray(list) && list.length > 0);
}

function asObject(value: unknown, field: string, problems: ProblemCollector, optional = false): Record<string, any> | undefined {
  if (value === undefined && optional) {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.add(field, value === undefined ? 'missing: expected a mapping.' : `expected a mapping, not ${Array.isArray(value) ? 'a list' : typeof value}.`);
    return undefined;
  }
  return value as Record<string, any>;
}

/** YAML quantities may be numbers (`cpu: 1`); Kubernetes quantities are strings. */
function stringQuantities(resources: any): LlamaStackWithProvidersProps['resources'] {
  if (resources === undefined || resources === null) {
    return undefined;
  }
  if (!isRecord(resources)) return resources; // the construct refuses it, naming the field
  // Only numbers are converted: anything else reaches the construct's checks as written.
  const convert = (m: unknown) => (isRecord(m) ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v])) : m);
  // `claims` is warned about by the field check and not rendered.
  return { requests: convert(resources.requests), limits: convert(resources.limits) } as LlamaStackWithProvidersProps['resources'];
}

/** `providers` (`spec.server.externalProviders`) with each provider's `config` as `exact` has it. */
function withExactConfig(providers: unknown, exact: unknown): unknown {
  if (!isRecord(providers) || !isRecord(exact)) return providers;
  return Object.fromEntries(Object.entries(providers).map(([section, list]) => {
    const exactList = exact[section];
    if (!Array.isArray(list) || !Array.isArray(exactList)) return [section, list];
    return [section, list.map((p, i) => (isRecord(p) && isRecord(exactList[i]) && 'config' in p ? { ...p, config: exactList[i].config } : p))];
  }));
}
