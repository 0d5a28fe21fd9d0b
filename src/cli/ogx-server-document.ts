import { Construct } from 'constructs';
import { isRecord } from '../checks';
import { Problem, ProblemCollector, ValidationError } from '../errors';
import { AllowedFrom, LlamaStackWithProviders, LlamaStackWithProvidersProps } from '../llama-stack';
import { DocumentFields } from './document-fields';
import {
  KUBERNETES_VERSION_ANNOTATION, LLAMA_STACK_VERSION_ANNOTATION, MERGE_IMAGE_ANNOTATION, METADATA_FIELDS, OPERATOR_SELECTOR_ANNOTATION,
  SERVER_VERSION_ANNOTATION,
} from './llama-stack-document';
import { MetadataFiles } from './metadata-files';
import { appConfigMaps } from '../llama-stack/pod';
import { describeIssue, RunConfigError } from '../run-config/errors';
import { generateOgxConfig, hasDeclarativeConfig } from '../run-config/ogx-configgen';
import { expandProviders, SpecFields } from '../run-config/ogx-configgen-providers';
import { DEFAULT_SERVER_VERSION, findRelease, releaseName, releaseOfImageTag, ServerRelease } from '../run-config/releases';
import { checkAgainstCrd } from '../schema/ogx-server-crd';
import { addWarning } from '../warnings';

// Renders an `ogx.io/v1beta1` `OGXServer` document (the OGX operator's CR, ogx-ai/ogx-k8s-operator
// v0.14.0) through LlamaStackWithProviders: the objects the operator's controller would create for it
// (controllers/ogxserver_controller.go, controllers/resource_helper.go, pkg/deploy/kustomizer.go and
// its plugins), rendered at build time. docs/ogx-operator.md says what each field of the CRD becomes.

/** The port of the metrics endpoint when `spec.monitoring.metricsPort` does not say (the operator's `DefaultMetricsPort`). */
const OGX_DEFAULT_METRICS_PORT = 9464;

/** The operator's env variable of `spec.registryRefreshIntervalSeconds` (controllers/resource_helper.go). */
const REGISTRY_REFRESH_ENV = 'OGX_REGISTRY_REFRESH_INTERVAL_SECONDS';

/** The operator's adoption annotations (controllers/legacy_adoption.go): take over a LlamaStackDistribution's PVC or networking. */
const ADOPTION_ANNOTATIONS = ['ogx.io/adopt-storage', 'ogx.io/adopt-networking'];

/** OpenShift labels its router's namespace with this; the construct's NetworkPolicy always admits it. */
const OPENSHIFT_ROUTER_LABEL = 'network.openshift.io/policy-group';

/** Where each field of the construct's props lives in an OGXServer document: the fields every document shares. */
const OGX_SERVER_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ...METADATA_FIELDS,
  ['operatorSelector', `metadata.annotations.${OPERATOR_SELECTOR_ANNOTATION}`],
  ['distribution', 'spec.distribution'],
  ['port', 'spec.network.port'],
  ['replicas', 'spec.workload.replicas'],
  ['workers', 'spec.workload.workers'],
  ['resources', 'spec.workload.resources'],
  ['storage', 'spec.workload.storage'],
  ['podDisruptionBudget', 'spec.workload.podDisruptionBudget'],
  ['topologySpreadConstraints', 'spec.workload.topologySpreadConstraints'],
  ['autoscaling', 'spec.workload.autoscaling'],
  ['command', 'spec.workload.overrides.command'],
  ['args', 'spec.workload.overrides.args'],
  ['env', 'spec.workload.overrides.env'],
  ['serviceAccountName', 'spec.workload.overrides.serviceAccountName'],
  ['volumes', 'spec.workload.overrides.volumes'],
  ['volumeMounts', 'spec.workload.overrides.volumeMounts'],
  ['declarativeConfig', 'spec'],
  ['tls', 'spec.network.tls'],
  ['caBundle', 'spec.tls.trust.caCertificates'],
  ['metricsPort', 'spec.monitoring.metricsPort'],
  ['network', 'spec.network.policy'],
  ['network.allowedFrom', 'spec.network.policy'],
  ['network.expose', 'spec.network.externalAccess.enabled'],
  ['externalProviders', 'spec.externalProviders'],
];

/** A message of the construct as the document's reader needs it, `userConfig.configMapKey` within it included. */
function documentMessage(fields: DocumentFields, message: string): string {
  return fields.message(message).replace(/\buserConfig\.configMapKey\b/g, fields.field('userConfig.configMapKey'));
}

/**
 * Renders one `OGXServer` document into `scope` through the construct, as the OGX operator's controller
 * would create its objects; `spec.externalProviders`, this library's field, adds deploy-time providers.
 * Returns how the constructs' warnings read in the document's terms (naming its fields).
 */
export function renderOgxServerDocument(scope: Construct, doc: Record<string, any>, label: string, baseDir: string): (warning: string) => string {
  const problems = new ProblemCollector();
  // Per document: its config source maps userConfig (below).
  const fields = new DocumentFields(OGX_SERVER_FIELDS, (prop) => prop);
  const given = doc as Record<string, any>;
  if (!isRecord(given.metadata)) {
    problems.add('metadata', 'missing: expected a mapping with name (and namespace).');
  } else if (typeof given.metadata.name !== 'string' || given.metadata.name === '') {
    problems.add('metadata.name', 'missing: every document needs metadata.name; the rendered objects are named after it.');
  }
  if (!isRecord(given.spec)) problems.add('spec', 'missing: expected a mapping with at least distribution.');
  problems.throwIfAny(label);
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  // The document as the API server would take it: strict schema, defaults, CEL rules.
  const stored = checkAgainstCrd(given, problems, warn);
  problems.throwIfAny(label);
  const metadata = stored!.metadata as Record<string, any>;
  const spec = stored!.spec as Record<string, any>;
  const givenSpec = given.spec as Record<string, any>;
  const annotations: Record<string, unknown> = isRecord(metadata.annotations) ? metadata.annotations : {};

  admissionChecks(spec, problems);
  const release = serverRelease(spec, annotations, problems);
  const takeOver = operatorSelector(annotations[OPERATOR_SELECTOR_ANNOTATION], problems);
  for (const a of ADOPTION_ANNOTATIONS.filter((k) => annotations[k] !== undefined)) {
    warn(`metadata.annotations.${a}: the operator's adoption of a LlamaStackDistribution's objects is not rendered: render writes the objects `
      + 'under this document\'s names (docs/ogx-operator.md, "Moving from a LlamaStackDistribution", says how to keep a claim).');
  }
  const metadataFiles = new MetadataFiles(baseDir);
  const externalProviders = metadataFiles.read(givenSpec.externalProviders, problems, (f) => fields.field(f));
  const untagged = distributionImageUntagged(spec) && annotations[SERVER_VERSION_ANNOTATION] === undefined;
  if (release !== undefined && givenSpec.externalProviders !== undefined && untagged) {
    warn(`spec.distribution.image: the tag of ${spec.distribution.image} does not say which ogx release it runs; the pod is rendered for `
      + `${releaseName(release)} and the external providers are checked against it. Name the release with the annotation `
      + `${SERVER_VERSION_ANNOTATION} (e.g. "1.3"), or use an image tagged with its version.`);
  }

  const namespace: string | undefined = metadata.namespace;
  const config = configProps(scope, spec, namespace, fields, problems, warn);
  const network = networkProps(spec, fields, problems, warn);
  const metricsPort = release === undefined ? undefined
    : monitoring(spec, givenSpec, release, network.allowedFrom !== undefined, metadata.name, problems, warn);
  const workload = spec.workload ?? {};
  const overrides = workload.overrides ?? {};
  const env = serverEnv(spec, overrides.env, release, fields);
  const caBundle = trustedCertificates(spec.tls?.trust?.caCertificates, problems);
  untranslated(spec, warn);
  problems.throwIfAny(label);
  warnings.forEach((m) => addWarning(scope, m));

  const props: LlamaStackWithProvidersProps = {
    name: metadata.name,
    namespace,
    labels: metadata.labels,
    // Undefined: the release the image's tag names, else the construct's default (ogx 1.5).
    serverVersion: annotations[SERVER_VERSION_ANNOTATION] as string | undefined,
    kubernetesVersion: annotations[KUBERNETES_VERSION_ANNOTATION] as string | undefined,
    mergeImage: annotations[MERGE_IMAGE_ANNOTATION] as string | undefined,
    operatorSelector: takeOver,
    distribution: spec.distribution,
    port: spec.network?.port,
    replicas: workload.replicas,
    workers: workload.workers,
    resources: stringQuantities(workload.resources),
    storage: workload.storage && {
      size: typeof workload.storage.size === 'number' ? String(workload.storage.size) : workload.storage.size,
      mountPath: workload.storage.mountPath,
    },
    podDisruptionBudget: workload.podDisruptionBudget,
    topologySpreadConstraints: workload.topologySpreadConstraints,
    autoscaling: workload.autoscaling,
    command: overrides.command,
    args: overrides.args,
    env,
    serviceAccountName: overrides.serviceAccountName,
    volumes: overrides.volumes,
    volumeMounts: overrides.volumeMounts,
    ...config,
    tls: spec.network?.tls && { secretName: spec.network.tls.secretName },
    caBundle,
    metricsPort,
    network: network.expose || network.allowedFrom
      ? { ...(network.expose ? { expose: true } : {}), ...(network.allowedFrom ? { allowedFrom: network.allowedFrom } : {}) }
      : undefined,
    externalProviders: externalProviders as LlamaStackWithProvidersProps['externalProviders'],
  };
  try {
    new LlamaStackWithProviders(scope, metadata.name, props);
  } catch (e) {
    if (e instanceof ValidationError) {
      const found: Problem[] = e.problems.map((p) => metadataFiles.problem(p));
      throw new ValidationError(label, found.map((p) => ({ field: fields.field(p.field), message: documentMessage(fields, p.message) })));
    }
    throw e;
  }
  return (warning) => documentMessage(fields, warning);
}

/**
 * The checks of the operator's validating webhook that the CRD cannot make (api/v1beta1/ogxserver_webhook.go):
 * provider ids unique across every API, and a model's provider one of them. The webhook's third check,
 * `distribution.name` among the operator's distributions.json, is the construct's (the names ogx publishes
 * images of).
 */
function admissionChecks(spec: Record<string, any>, problems: ProblemCollector): void {
  if (!isRecord(spec.providers)) return;
  const read: string[] = [];
  const providers = SpecFields.of(spec.providers, 'spec.providers', read);
  if (providers === undefined || read.length > 0) return; // the CRD check said it already
  const ids = [...expandProviders(providers, []).byApi.values()].flat().map((p) => p.providerId);
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) {
      problems.add('spec.providers', `duplicate provider ID "${id}" (the operator's webhook refuses it): two providers without an id get the same default `
        + 'id; give each provider of a type an id of its own.');
    }
    seen.add(id);
  }
  const models: unknown[] = Array.isArray(spec.resources?.models) ? spec.resources.models : [];
  models.forEach((m, i) => {
    const provider = isRecord(m) ? m.provider : undefined;
    if (typeof provider === 'string' && provider !== '' && !seen.has(provider)) {
      problems.add(`spec.resources.models[${i}].provider`, `"${provider}" references unknown provider ID; available: [${[...seen].sort().join(' ')}] `
        + '(the operator\'s webhook refuses it). Name one of spec.providers\' ids, or remove provider to use the first inference provider.');
    }
  });
}

/**
 * The ogx release the document runs: the annotation, else the release the image's tag names, else the
 * construct's default (ogx 1.5). An OGXServer describes an ogx server: a llama-stack release is refused.
 */
function serverRelease(spec: Record<string, any>, annotations: Record<string, unknown>, problems: ProblemCollector): ServerRelease | undefined {
  if (annotations[LLAMA_STACK_VERSION_ANNOTATION] !== undefined) {
    problems.add(`metadata.annotations.${LLAMA_STACK_VERSION_ANNOTATION}`, `is the old name of ${SERVER_VERSION_ANNOTATION}, from before llama-stack `
      + `became OGX; an OGXServer reads ${SERVER_VERSION_ANNOTATION} only. Rename the annotation.`);
  }
  const annotated = annotations[SERVER_VERSION_ANNOTATION];
  if (annotated !== undefined && typeof annotated !== 'string') {
    problems.add(`metadata.annotations.${SERVER_VERSION_ANNOTATION}`, `expected a string such as "1.5", got ${JSON.stringify(annotated)}.`);
    return undefined;
  }
  const image = typeof spec.distribution?.image === 'string' ? spec.distribution.image : undefined;
  const tagged = image !== undefined ? releaseOfImageTag(image) : undefined;
  const release = annotated !== undefined ? findRelease(annotated) : tagged ?? findRelease(DEFAULT_SERVER_VERSION);
  if (release === undefined) return undefined; // the construct names the release it does not know
  if (release.project !== 'ogx') {
    const field = annotated !== undefined ? `metadata.annotations.${SERVER_VERSION_ANNOTATION}` : 'spec.distribution.image';
    problems.add(field, `names ${releaseName(release)}: an OGXServer describes an ogx server (ogx 0.8 and later, which the OGX operator runs); `
      + 'a llama-stack server is a LlamaStackDistribution (llamastack.io/v1alpha1). Name an ogx release (e.g. "1.5") and its image, or write the '
      + 'server as a LlamaStackDistribution.');
    return undefined;
  }
  return release;
}

/** True when the distribution is an image whose tag names no release. */
function distributionImageUntagged(spec: Record<string, any>): boolean {
  return typeof spec.distribution?.image === 'string' && releaseOfImageTag(spec.distribution.image) === undefined;
}

/**
 * The config the server runs (controllers/resource_helper.go resolveRuntimeConfigRef,
 * controllers/configmap_reconciler.go): `overrideConfig` as it is; else, with a declarative field,
 * the config generated from it over `baseConfig` (at synth time when that ConfigMap is in the same
 * input, else in the pod) or over the image's own config; else the image's own config.
 */
function configProps(
  scope: Construct, spec: Record<string, any>, namespace: string | undefined, fields: DocumentFields, problems: ProblemCollector,
  warn: (m: string) => void,
): Pick<LlamaStackWithProvidersProps, 'userConfig' | 'declarativeConfig'> {
  if (spec.overrideConfig) {
    fields.set('userConfig', 'spec.overrideConfig');
    fields.set('userConfig.configMapName', 'spec.overrideConfig.name');
    fields.set('userConfig.configMapKey', 'spec.overrideConfig.key');
    return { userConfig: { configMapName: spec.overrideConfig.name, configMapKey: spec.overrideConfig.key } };
  }
  const base = spec.baseConfig as { name: string; key: string } | undefined;
  if (!hasDeclarativeConfig(spec)) {
    if (base) {
      warn('spec.baseConfig: the operator generates a config only from spec.providers, spec.resources, spec.storage or spec.disabledAPIs; without '
        + 'any of them it reads no base config and the image runs its own config (controllers/configmap_reconciler.go), as rendered here. '
        + 'Remove baseConfig, or use overrideConfig to run that ConfigMap\'s config as it is.');
    }
    return {};
  }
  // The fields the operator's generator reads (pkg/config/generator.go): distribution for distro_name,
  // network.port for server.port (defaulted to 8321 with any spec.network, as in a cluster).
  const declarativeConfig: Record<string, unknown> = {};
  for (const key of ['distribution', 'providers', 'resources', 'storage', 'disabledAPIs']) {
    if (spec[key] !== undefined) declarativeConfig[key] = spec[key];
  }
  if (spec.network !== undefined) declarativeConfig.network = { port: spec.network.port };
  if (!base) return { declarativeConfig };
  fields.set('userConfig', 'spec.baseConfig');
  fields.set('userConfig.configMapName', 'spec.baseConfig.name');
  fields.set('userConfig.configMapKey', 'spec.baseConfig.key');
  const configMap = appConfigMaps(scope, [base.name], namespace).get(base.name);
  if (configMap === undefined) {
    // Not in the input: the merge step generates the config in the pod, over the ConfigMap's key.
    return { declarativeConfig, userConfig: { configMapName: base.name, configMapKey: base.key } };
  }
  const text = configMap.data?.[base.key];
  if (typeof text !== 'string') {
    const keys = Object.keys(configMap.data ?? {});
    problems.add('spec.baseConfig.key', `the ConfigMap '${base.name}' of the input has no key ${base.key} (its keys: ${keys.join(', ') || 'none'}); the operator `
      + `fails the same way ("failed to find base ConfigMap key '${base.key}'"). Name the key holding the base config.`);
    return {};
  }
  // Generated now, over the ConfigMap's text; its problems name the ConfigMap rather than the construct's prop.
  try {
    generateOgxConfig(declarativeConfig, text, {
      baseConfigSource: `the ConfigMap ${namespace ?? '<namespace>'}/${base.name}, key ${base.key} (spec.baseConfig)`, forServer: true,
    });
  } catch (e) {
    if (!(e instanceof RunConfigError)) throw e;
    e.issues.forEach((issue) => problems.add(/base config/i.test(issue.title) ? 'spec.baseConfig' : 'spec', describeIssue(issue)));
    return {};
  }
  fields.set('userConfig.config', 'spec.baseConfig');
  return { declarativeConfig, userConfig: { config: text } };
}

/** What `spec.network` renders: the Ingress and the NetworkPolicy's sources. */
interface NetworkProps {
  readonly expose: boolean;
  readonly allowedFrom?: AllowedFrom;
}

/**
 * `spec.network`: the Ingress of `externalAccess.enabled` (controllers/network_resources.go buildIngress),
 * and the NetworkPolicy the operator renders unless `policy.enabled` is false
 * (pkg/deploy/plugins/networkpolicy_transformer.go, its non-Praxis branch), as the construct's
 * `allowedFrom`: the default (the server's own namespace, the operator's, OpenShift's router) is
 * `{}`; custom ingress rules are translated peer by peer where the construct can express them.
 */
function networkProps(spec: Record<string, any>, fields: DocumentFields, problems: ProblemCollector, warn: (m: string) => void): NetworkProps {
  const network = spec.network ?? {};
  const expose = network.externalAccess?.enabled === true;
  if (network.externalAccess?.hostname !== undefined) {
    warn('spec.network.externalAccess.hostname is not rendered: the v0.14.0 controller\'s Ingress has no host either (controllers/network_resources.go, '
      + `buildIngress: one rule for every host, path /)${expose ? '' : ', and externalAccess.enabled is false'}. Route the host to the Ingress `
      + `${expose ? '' : 'you enable '}in your ingress controller or DNS, or remove hostname.`);
  }
  const policy = network.policy ?? {};
  const customIngress: unknown[] = Array.isArray(policy.ingress) ? policy.ingress : [];
  if (policy.policyTypes !== undefined) {
    warn('spec.network.policy.policyTypes is not read by the operator v0.14.0 (pkg/deploy/plugins/networkpolicy_transformer.go sets '
      + 'policyTypes itself) and is not rendered: the rendered NetworkPolicy restricts ingress only.');
  }
  if (Array.isArray(policy.egress)) {
    warn(policy.enabled !== false && customIngress.length > 0
      ? 'spec.network.policy.egress is not rendered: with custom ingress rules the operator v0.14.0 also applies these egress rules '
        + '(pkg/deploy/plugins/networkpolicy_transformer.go, applyLegacyNetworkPolicySpec), but the construct\'s NetworkPolicy restricts ingress '
        + 'only: the server\'s outgoing traffic is not limited. Apply an egress NetworkPolicy of your own for the pods.'
      : 'spec.network.policy.egress is not rendered: without custom ingress rules the operator v0.14.0 ignores it too '
        + '(pkg/deploy/plugins/networkpolicy_transformer.go), and the construct\'s NetworkPolicy restricts ingress only.');
  }
  if (policy.enabled === false) {
    if (customIngress.length > 0) warn('spec.network.policy.ingress is not rendered: policy.enabled is false, so there is no NetworkPolicy (as with the operator).');
    return { expose };
  }
  if (customIngress.length === 0) return { expose, allowedFrom: {} };
  return { expose, allowedFrom: translateIngressRules(customIngress, spec.network.port, fields, problems, warn) };
}

/** What custom ingress rules may hold, for messages. */
const SUPPORTED_PEERS = 'supported: from peers namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: <namespace>}}, '
  + 'namespaceSelector: {matchExpressions: [{key: <label key>, operator: Exists}]}, namespaceSelector: {} (every namespace), '
  + 'podSelector: {} (the server\'s own namespace), namespaceSelector: {matchLabels: {network.openshift.io/policy-group: ingress}} '
  + '(OpenShift\'s router); ports: the server\'s port (TCP)';

/**
 * Custom `policy.ingress` rules as the construct's `allowedFrom`, which admits, on the server's port,
 * the pods of its own namespace and OpenShift's router always, and the namespaces named or labelled.
 */
function translateIngressRules(
  rules: unknown[], port: number, fields: DocumentFields, problems: ProblemCollector, warn: (m: string) => void,
): AllowedFrom {
  const namespaces: string[] = [];
  const labels: string[] = [];
  let ownNamespace = false;
  rules.forEach((rule, r) => {
    const at = `spec.network.policy.ingress[${r}]`;
    if (!isRecord(rule)) return;
    const refuse = (field: string, what: string) => problems.add(field, `${what} cannot be rendered: the construct's NetworkPolicy admits sources by namespace only (${SUPPORTED_PEERS}).`);
    if (rule.ports === undefined) {
      warn(`${at}.ports: none given admits every port of the server's pods; the rendered NetworkPolicy admits the server's port ${port} only.`);
    } else if (Array.isArray(rule.ports)) {
      rule.ports.forEach((p, i) => {
        const protocol = isRecord(p) ? (p.protocol ?? 'TCP') : undefined;
        if (!isRecord(p) || p.port !== port || protocol !== 'TCP' || p.endPort !== undefined) {
          refuse(`${at}.ports[${i}]`, `${JSON.stringify(p)} (the server's port is ${port}, TCP)`);
        }
      });
    }
    const from: unknown[] | undefined = Array.isArray(rule.from) ? rule.from : undefined;
    if (from === undefined || from.length === 0) {
      warn(`${at}.from: none given admits every source; the rendered NetworkPolicy admits the pods of every namespace (namespaceSelector: {}), not addresses outside the cluster.`);
      if (!namespaces.includes('*')) namespaces.push('*');
      fields.set(`network.allowedFrom.namespaces[${namespaces.indexOf('*')}]`, `${at}.from`);
      return;
    }
    from.forEach((peer, p) => {
      const field = `${at}.from[${p}]`;
      const kind = peerKind(peer);
      if (kind === undefined) return refuse(field, JSON.stringify(peer));
      if (kind.own) ownNamespace = true;
      if (kind.namespace !== undefined) {
        if (!namespaces.includes(kind.namespace)) namespaces.push(kind.namespace);
        fields.set(`network.allowedFrom.namespaces[${namespaces.indexOf(kind.namespace)}]`,
          kind.namespace === '*' ? `${field}.namespaceSelector` : `${field}.namespaceSelector.matchLabels.kubernetes.io/metadata.name`);
      }
      if (kind.label !== undefined) {
        if (!labels.includes(kind.label)) labels.push(kind.label);
        fields.set(`network.allowedFrom.labels[${labels.indexOf(kind.label)}]`, `${field}.namespaceSelector.matchExpressions[0].key`);
      }
      return undefined;
    });
  });
  if (!ownNamespace && !namespaces.includes('*')) {
    warn('spec.network.policy.ingress: the rendered NetworkPolicy also admits the pods of the server\'s own namespace and OpenShift\'s router, '
      + 'which these rules do not list (the construct admits both always; the operator admits exactly the rules given).');
  }
  return { namespaces, labels };
}

/** What one `from` peer admits: a namespace (`*`: all), namespaces with a label, or the server's own namespace. */
function peerKind(peer: unknown): { namespace?: string; label?: string; own?: boolean } | undefined {
  if (!isRecord(peer)) return undefined;
  const { podSelector, namespaceSelector, ...rest } = peer;
  if (Object.keys(rest).length > 0) return undefined; // ipBlock
  const emptyValue = (v: unknown) => v === undefined || (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0);
  const empty = (s: unknown) => isRecord(s) && Object.values(s).every(emptyValue);
  if (podSelector !== undefined && !empty(podSelector)) return undefined; // particular pods
  if (namespaceSelector === undefined) return { own: true };
  if (!isRecord(namespaceSelector)) return undefined;
  if (empty(namespaceSelector)) return { namespace: '*' };
  const matchLabels = isRecord(namespaceSelector.matchLabels) ? namespaceSelector.matchLabels : {};
  const expressions: unknown[] = Array.isArray(namespaceSelector.matchExpressions) ? namespaceSelector.matchExpressions : [];
  const labelKeys = Object.keys(matchLabels);
  if (labelKeys.length === 1 && expressions.length === 0) {
    const [key] = labelKeys;
    if (key === 'kubernetes.io/metadata.name' && typeof matchLabels[key] === 'string') return { namespace: matchLabels[key] as string };
    if (key === OPENSHIFT_ROUTER_LABEL && matchLabels[key] === 'ingress') return {}; // the router: always admitted
    return undefined;
  }
  if (labelKeys.length === 0 && expressions.length === 1) {
    const e = expressions[0];
    if (isRecord(e) && e.operator === 'Exists' && typeof e.key === 'string' && (e.values === undefined || (Array.isArray(e.values) && e.values.length === 0))) {
      return { label: e.key };
    }
  }
  return undefined;
}

/**
 * `spec.monitoring` (on unless `enabled: false`): the metrics endpoint on `metricsPort`, as the operator
 * sets it (controllers/resource_helper.go: OGX_METRICS_*, the container's and the Service's `metrics`
 * port). Each ogx worker process binds that port, so with several workers the server stops: refused.
 */
function monitoring(
  spec: Record<string, any>, givenSpec: Record<string, any>, release: ServerRelease, networkPolicy: boolean, name: string,
  problems: ProblemCollector, warn: (m: string) => void,
): number | undefined {
  if (spec.monitoring?.enabled === false) return undefined;
  const explicit = givenSpec.monitoring?.enabled === true;
  const port: number = spec.monitoring?.metricsPort ?? OGX_DEFAULT_METRICS_PORT;
  const workers: number = spec.workload?.workers ?? 1;
  if (release.env.workers === undefined && !explicit && givenSpec.monitoring?.metricsPort === undefined) {
    warn(`spec.monitoring: the metrics endpoint the operator enables by default needs ogx 1.2 or later (OGX_METRICS_*); ${releaseName(release)} `
      + 'has none, so it is not rendered. Set spec.monitoring.enabled: false to say so.');
    return undefined;
  }
  if (workers > 1) {
    problems.add('spec.monitoring', `${explicit ? 'enables' : 'is on by default (the operator\'s monitoring), with'} the metrics endpoint on port ${port}, `
      + `and each of the ${workers} ogx worker processes (spec.workload.workers) binds that port itself: the second fails ("Address already in use") `
      + 'and stops the server (the operator would render a crash-looping pod). Set spec.monitoring.enabled: false, or spec.workload.workers: 1.');
    return undefined;
  }
  if (explicit) {
    warn(`spec.monitoring.enabled: the metrics endpoint is rendered (port ${port}, named metrics on the container and the Service); the ServiceMonitor `
      + `${name}-service-monitor and PrometheusRule ${name}-prometheus-rules the operator adds when the Prometheus Operator's CRDs are installed are not: `
      + 'write them beside the server if you scrape with the Prometheus Operator'
      + (networkPolicy ? `; the rendered NetworkPolicy admits port ${port} from the server's sources and OpenShift's monitoring namespaces` : '') + '.');
  }
  return port;
}

/**
 * The server container's environment: the user's (`overrides.env`, first, so that its indices are the
 * document's), then what the operator sets that the construct does not: `OGX_REGISTRY_REFRESH_INTERVAL_SECONDS`
 * and `OGX_WORKERS=1` without `workers` (the operator always sets it, so that a config's `server.workers`
 * does not start several processes). A user variable of the same name wins, as with the operator.
 */
function serverEnv(spec: Record<string, any>, userEnv: unknown, release: ServerRelease | undefined, fields: DocumentFields): LlamaStackWithProvidersProps['env'] {
  const user: any[] = Array.isArray(userEnv) ? userEnv : [];
  const named = (n: string) => user.some((e) => isRecord(e) && e.name === n);
  const extra: Array<{ name: string; value: string; field: string }> = [];
  if (spec.registryRefreshIntervalSeconds !== undefined && !named(REGISTRY_REFRESH_ENV)) {
    extra.push({ name: REGISTRY_REFRESH_ENV, value: String(spec.registryRefreshIntervalSeconds), field: 'spec.registryRefreshIntervalSeconds' });
  }
  const workersEnv = release?.env.workers;
  if (spec.workload?.workers === undefined && workersEnv !== undefined && !named(workersEnv)) {
    extra.push({ name: workersEnv, value: '1', field: 'spec.workload.workers' });
  }
  extra.forEach((e, i) => fields.set(`env[${user.length + i}]`, e.field));
  if (user.length === 0 && extra.length === 0) return undefined;
  return [...user, ...extra.map(({ name, value }) => ({ name, value }))];
}

/**
 * `tls.trust.caCertificates` as the construct's `caBundle`, which takes keys of one ConfigMap (mounted, or
 * joined at pod start); the operator joins the keys of several ConfigMaps into a ConfigMap of its own.
 */
function trustedCertificates(refs: unknown, problems: ProblemCollector): LlamaStackWithProvidersProps['caBundle'] {
  if (!Array.isArray(refs) || refs.length === 0) return undefined;
  const names = [...new Set(refs.map((r) => (isRecord(r) ? r.name : undefined)))];
  if (names.length > 1) {
    problems.add('spec.tls.trust.caCertificates', `names the ConfigMaps ${names.map((n) => `'${String(n)}'`).join(', ')}: the rendered pod mounts the `
      + 'certificates of one ConfigMap (the operator joins several into a ConfigMap of its own, which render cannot read). Put every certificate '
      + 'into one ConfigMap, one key each, and list that ConfigMap\'s keys.');
    return undefined;
  }
  const keys = [...new Set(refs.map((r) => String((r as Record<string, unknown>).key)))];
  return { configMapName: String(names[0]), configMapKeys: keys };
}

/** The operator's fields that `render` does not translate, each named in a warning. */
function untranslated(spec: Record<string, any>, warn: (m: string) => void): void {
  if (spec.tls?.identity !== undefined) {
    warn('spec.tls.identity is not rendered: the client certificate and key the operator mounts for the server\'s outgoing mutual TLS have no '
      + 'equivalent in the construct. Mount them with spec.workload.overrides.volumes and volumeMounts and name them in the providers\' config.');
  }
  if (spec.workload?.resourceClaims !== undefined) {
    warn('spec.workload.resourceClaims is not rendered: the construct gives the pod no dynamic resource claims (DRA).');
  }
  if (spec.workload?.resources?.claims !== undefined) {
    warn('spec.workload.resources.claims is not rendered: dynamic resource claims need the pod\'s resourceClaims, which the construct does not render.');
  }
}

/** The operator-selector annotation: "true" or "false", as annotations are strings. */
function operatorSelector(value: unknown, problems: ProblemCollector): boolean | undefined {
  if (value === undefined || value === 'false') return value === undefined ? undefined : false;
  if (value !== 'true') problems.add(`metadata.annotations.${OPERATOR_SELECTOR_ANNOTATION}`, `expected "true" or "false", got ${JSON.stringify(value)}.`);
  return value === 'true';
}

/** YAML quantities may be numbers (`cpu: 1`); Kubernetes quantities are strings. `claims` is warned about. */
function stringQuantities(resources: unknown): LlamaStackWithProvidersProps['resources'] {
  if (!isRecord(resources)) return undefined;
  const convert = (m: unknown) => (isRecord(m) ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v])) : m);
  const out: Record<string, unknown> = {};
  if (resources.requests !== undefined) out.requests = convert(resources.requests);
  if (resources.limits !== undefined) out.limits = convert(resources.limits);
  return Object.keys(out).length > 0 ? out as LlamaStackWithProvidersProps['resources'] : undefined;
}
