import { isMap } from 'yaml';
import { QUANTITY, ShapeChecker } from '../checks';
import { ProblemCollector } from '../errors';
import { imageReferenceProblem } from '../image-reference';
import { CONFIG_KEY, DNS1035_LABEL, DNS1123_LABEL } from '../name-patterns';
import { checkReferencesNamespace } from '../object-reference';
import type { EnvVar } from '../pod-spec';
import type { HealthCheck, StackModel } from './options';
import { autoscalerMinReplicas } from './pod/scaling';
import type { LlamaStackWithProvidersProps } from './props';
import { checkPropsShape, referencesOf } from './props-shape';
import { CONFIG_LIMITS, ParsedYaml, parseUntrustedYaml } from '../io';
import { resolveProviderConfig } from './providers/config';
import { IMAGE_PULL_POLICIES, providersInSpecOrder } from './providers/external-providers';
import { planServices } from './providers/service';
import { isUnprivilegedPort } from './providers/service-part';
import { kubernetesMinorOf, planSidecars } from './providers/sidecar';
import type { ValidatedProvider } from './providers/validated-provider';
import { PlannedDeclarativeConfig, planDeclarativeConfig } from './server/declarative-config';
import { distributionImage } from './server/distribution';
import { healthCheckOf } from './server/health-check';
import { routeName } from './server/network';
import { checkWorkers, serverSectionOf, servesTls } from './server/process';
import { resolveRelease } from './server/release';
import { checkTls, needsInsecureFlag, serverTransport } from './server/tls';
import { mergeAtSynthTime, SynthTimeConfig } from './synth-time-merge';
import { formatPath } from '../io/scalars';
import { RunConfigError } from '../run-config/errors';
import { providerIdProblem, providerKey } from '../run-config/provider-id';
import { verifyReadBack } from '../run-config/read-back';
import { acceptedSectionsText, missingApiFix, releaseName, ServerRelease } from '../run-config/releases';
import { renderJson, renderYaml, UnwritableValueError } from '../run-config/render';
import { ServedModel, servedModelProblems } from '../run-config/served-models';
import type { ServerTransport } from '../run-config/server-transport';

/**
 * Variables the construct sets to point the server at its config and tell the scripts the release: the
 * config variables of every release (a llama-stack habit must not shadow OGX's), the shared volume.
 */
const CONSTRUCT_ENV: readonly string[] = ['OGX_CONFIG', 'LLAMA_STACK_CONFIG', 'EXTERNAL_PROVIDERS_DIR', 'SERVER_COMMAND', 'SERVER_PACKAGE',
  'SERVER_APP_FACTORY', 'SERVER_INSECURE', 'LLS_WORKERS'];

/** Longest name: `<name>-service` must stay a 63-character DNS-1035 label. */
export const MAX_NAME_LENGTH = 63 - '-service'.length;

// An image reference has no whitespace and no shell or YAML control characters; the registry decides the rest.
const IMAGE_REF = /^[A-Za-z0-9][A-Za-z0-9._\-/:@+]*$/;

/** What validation yields besides problems: facts the rendering needs and cannot re-derive cheaply. */
export interface ValidatedProps {
  readonly image: string;
  /** The server release the distribution runs (undefined only when validation failed). */
  readonly release?: ServerRelease;
  /** The config file name: `configFileName`, or that of the release. */
  readonly configFileName: string;
  readonly providers: ValidatedProvider[];
  /** The inline user config as YAML text, when one is given. */
  readonly inlineConfigText?: string;
  /** The `server` section of the inline config (`{}` without one), when one is given. */
  readonly inlineServer?: Record<string, unknown>;
  /** The config merged at synth time, when everything it needs was known. */
  readonly synthTimeConfig?: SynthTimeConfig;
  /** How the kubelet checks the server. */
  readonly healthCheck: HealthCheck;
  /** How the pod serves (undefined: as the user's config says, `healthCheck: https` without `tls`). */
  readonly transport?: ServerTransport;
  /** The OGX operator's declarative config, when given. */
  readonly declarative?: PlannedDeclarativeConfig;
  /** The `models`, with their provider ids. */
  readonly servedModels: readonly ServedModel[];
  /** The server container's own environment: `env`, then `envVariables`. */
  readonly env: EnvVar[];
}

/** An entry of the server's environment and the field it was given in. */
interface GivenEnvVar {
  /** Where it was given: `env[0]`, `envVariables.NAME`. */
  readonly field: string;
  /** Where its name was given: `env[0].name`, `envVariables.NAME`. */
  readonly nameField: string;
  readonly entry: EnvVar;
}

/** `env` and then `envVariables`, each entry with its field. */
function givenEnv(props: LlamaStackWithProvidersProps): GivenEnvVar[] {
  return [
    ...(props.env ?? []).map((entry, i) => ({ field: `env[${i}]`, nameField: `env[${i}].name`, entry })),
    ...Object.entries(props.envVariables ?? {}).map(([name, v]) => ({
      field: `envVariables.${name}`,
      nameField: `envVariables.${name}`,
      // Only the two fields: a cdk8s-plus EnvValue is a class instance.
      entry: { name, value: v.value, valueFrom: v.valueFrom },
    })),
  ];
}

/**
 * Checks everything that can be checked without the images and returns the validated facts.
 * Problems are collected, not thrown, so the user sees all of them at once.
 */
export function validateProps(
  props: LlamaStackWithProvidersProps,
  name: string,
  namespace: string | undefined,
  problems: ProblemCollector,
  warn: (message: string) => void,
): ValidatedProps {
  if (!checkPropsShape(props, new ShapeChecker(problems))) {
    return { image: '', providers: [], configFileName: '', healthCheck: 'http', servedModels: [], env: [] }; // wrong types: the semantic checks below would only repeat them
  }
  const release = resolveRelease(props, props.distribution?.image, problems, warn);
  const image = validateDistribution(props, release, problems);
  const configFileName = props.configFileName ?? release?.configFileName ?? 'config.yaml';
  validateName(props.name, name, problems);
  validateServer(props, problems);
  // The shapes are right: each reference is a name or a named object.
  checkReferencesNamespace(referencesOf(props), namespace, problems);
  checkRouteHost(props, name, namespace, problems);
  const env = givenEnv(props);
  checkServerEnv(env, problems);
  const userConfigText = validateUserConfig(props, problems);
  // The OGX operator's declarative config, generated over the user's config when it is known now.
  const declarative = planDeclarativeConfig(
    props.declarativeConfig, { release, inlineConfigText: userConfigText, serverPort: props.port ?? 8321 }, problems, warn,
  );
  const inlineConfigText = declarative?.configText ?? userConfigText;
  declarative?.secretEnv.forEach((e) => {
    const given = env.find((u) => u.entry.name === e.name);
    if (given) problems.add(given.nameField, `'${e.name}' carries a Secret that declarativeConfig references: remove it from ${given.field.replace(/[.[].*/, '')}.`);
  });
  // Read once: the workers check and the health check both look at it.
  const inlineServer = serverSectionOf(inlineConfigText);
  checkWorkers(props.workers, release, inlineServer, props.tls ? 'tls' : props.healthCheck === 'https' ? 'healthCheck' : undefined, problems);
  checkTls(props.tls, props.healthCheck, problems);
  checkMetrics(props, env, release, inlineServer, problems);
  const healthCheck = props.healthCheck ?? healthCheckOf(inlineServer, release, props.tls !== undefined) ?? 'http';
  if (release !== undefined) checkServerSettings(release, inlineServer, healthCheck, props.healthCheck !== undefined, warn);
  checkHttpsWithoutTls(props, inlineServer, problems);
  const transport = serverTransport(props.tls, healthCheck, inlineServer);
  const providers = validateProviders(props, release, name, problems, warn);
  const servedModels = validateServedModels(props.models ?? [], props.externalProviders?.inference ?? [], problems);
  const synthTimeConfig = problems.problems.length === 0
    ? mergeAtSynthTime(providers, inlineConfigText, configFileName, release!.version, transport, servedModels, problems)
    : undefined;
  synthTimeConfig?.warnings.forEach(warn);
  const allowedFrom = props.network?.allowedFrom;
  if (props.network?.expose && props.network.exposeAs !== 'Route' && allowedFrom !== undefined
    && (allowedFrom.namespaces ?? []).length === 0 && (allowedFrom.labels ?? []).length === 0) {
    // The operator's policy (and ours) admits OpenShift's router by its namespace label; any other
    // ingress controller runs in a namespace of its own, which the policy then refuses.
    warn('network.allowedFrom: the NetworkPolicy admits the server\'s own namespace and OpenShift\'s router only, while an Ingress is rendered: '
      + 'no other ingress controller reaches the server through it. Admit the namespace of yours (e.g. ingress-nginx).');
  }
  props.network?.allowedFrom?.namespaces?.forEach((ns, i) => {
    if (ns !== '*' && !DNS1123_LABEL.test(ns)) {
      warn(`network.allowedFrom.namespaces[${i}]: "${ns}" is not a namespace name (lower-case letters, digits and '-'): no namespace can match it, so the NetworkPolicy admits nobody from it. Write the namespace's name as it is.`);
    }
  });
  if (props.command?.length === 0) {
    problems.add('command', 'is an empty list: give the command and its arguments, or remove command to have the construct start the server.');
  }
  if (props.command !== undefined && release !== undefined && needsInsecureFlag({ release, transport }) && ![...props.command, ...props.args ?? []].includes('--insecure')
    && inlineConfigText === undefined && providers.length === 0 && declarative?.inPod === undefined) {
    warn(`command replaces how the server starts: ${releaseName(release)} refuses to serve plain HTTP unless told, and nothing merges `
      + `server.insecure: true into the config it reads (${props.userConfig ? 'the ConfigMap\'s' : 'the image\'s own'}): start it with --insecure, `
      + 'or set server.insecure: true in the config.');
  }
  if (props.command !== undefined && providers.length > 0 && (props.preflight ?? true)) {
    warn(`command replaces how the server starts: the external providers' preflight check does not run, and the command must start the server with the config ${release?.env.config ?? 'OGX_CONFIG'} names.`);
  }
  props.topologySpreadConstraints?.forEach((c, i) => {
    // The API server takes it with a warning: "a null labelSelector results in matching no pod".
    if (c.labelSelector === undefined) {
      warn(`topologySpreadConstraints[${i}]: no labelSelector: the constraint counts no pods, so it spreads nothing (the API server warns "a null labelSelector results in matching no pod"). Add labelSelector: {matchLabels: {app.kubernetes.io/instance: ${name}}} to spread this server's pods.`);
    }
  });
  if (props.storage && !props.storage.ephemeral && !props.storage.existingClaimName && (props.replicas ?? 1) > 1) {
    warn(`storage: a ReadWriteOnce claim is shared by ${props.replicas} replicas; they can only run on one node. Use storage.existingClaimName with a ReadWriteMany claim, or storage.ephemeral.`);
  }
  return {
    image: image ?? '',
    release,
    configFileName,
    providers,
    inlineConfigText,
    inlineServer,
    synthTimeConfig,
    healthCheck,
    transport,
    declarative,
    servedModels,
    env: env.map((e) => e.entry),
  };
}

/**
 * The `models` as the merge takes them: the provider id given, else the deployment's name, else the
 * first label of the URL's host; a model name is needed (a custom image's endpoint does not say it).
 */
function validateServedModels(
  models: readonly StackModel[], inference: readonly { providerId?: unknown }[], problems: ProblemCollector,
): ServedModel[] {
  const served = models.map((m, i): ServedModel => {
    if (m.model === undefined) {
      problems.add(`models[${i}].model`, `the endpoint ${m.url} does not say which model it serves (a ModelDeployment of a custom image without model.servedName): `
        + 'set model to the name its GET /v1/models lists, or model.servedName on the deployment.');
    }
    const host = /^[a-z]+:\/\/([^/:?#]+)/i.exec(m.url)?.[1];
    return { providerId: m.providerId ?? m.name ?? host?.split('.')[0] ?? '', url: m.url, model: m.model ?? '' };
  });
  for (const [i, field, message] of servedModelProblems(served)) {
    if (!(field === 'model' && models[i].model === undefined)) problems.add(`models[${i}].${field}`, message);
  }
  served.forEach((m, i) => {
    const j = inference.findIndex((p) => p.providerId === m.providerId);
    if (j >= 0) {
      problems.add(`models[${i}].providerId`, `'${m.providerId}' is the providerId of externalProviders.inference[${j}] too: `
        + 'give the model another providerId.');
    }
  });
  return served;
}

/**
 * `metricsPort`: a port of its own (not the server's), on a release that serves metrics (ogx 1.2 on,
 * `OGX_METRICS_*`: `ogx/telemetry/__init__.py`), with one worker: each worker process of ogx ≤ 1.5
 * starts the metrics server itself, and the second fails with "Address already in use" and stops
 * the server (found running ogx 1.5.0 with two workers).
 */
function checkMetrics(
  props: LlamaStackWithProvidersProps, env: readonly GivenEnvVar[], release: ServerRelease | undefined,
  server: Record<string, unknown> | undefined, problems: ProblemCollector,
): void {
  const port = props.metricsPort;
  if (port === undefined) return;
  if (!isUnprivilegedPort(port)) {
    problems.add('metricsPort', `${port} is not a port the non-root server can listen on: expected a whole number from 1024 to 65535 (the OGX operator's default is 9464).`);
  } else if (port === (props.port ?? 8321)) {
    problems.add('metricsPort', `${port} is the server's own port: give the metrics endpoint another one (the OGX operator's default is 9464).`);
  }
  if (release !== undefined && release.env.workers === undefined) {
    problems.add('metricsPort', `${releaseName(release)} has no metrics endpoint (OGX_METRICS_*, ogx 1.2 and later): remove metricsPort, or run ogx 1.2 or later.`);
  }
  // workers (OGX_WORKERS) wins over the config's server.workers.
  const workers = props.workers ?? (typeof server?.workers === 'number' ? server.workers : 1);
  if (workers > 1) {
    problems.add('metricsPort', `every worker process starts the metrics endpoint on port ${port}, and with ${workers} workers the second fails ("Address already in use") and stops the server: use one worker with metricsPort, or remove metricsPort.`);
  }
  // The pod pins OGX_WORKERS to 1 with metricsPort; an env entry would override it unseen.
  const workersEnv = env.find((e) => e.entry.name === 'OGX_WORKERS');
  if (workersEnv && workersEnv.entry.value !== '1') {
    problems.add(workersEnv.field, `OGX_WORKERS starts that many worker processes, and with metricsPort each starts the metrics endpoint on port ${port}: the second fails ("Address already in use"). Remove OGX_WORKERS from the environment (the pod runs one worker with metricsPort), or remove metricsPort.`);
  }
}

/**
 * `healthCheck: 'https'` without `tls` says the config serves TLS itself: refused when the config is
 * known not to (the image's own config has no certificate; an inline config without
 * `server.tls_certfile`), where the probes would speak HTTPS to a plain server.
 */
function checkHttpsWithoutTls(
  props: LlamaStackWithProvidersProps, inlineServer: Record<string, unknown> | undefined, problems: ProblemCollector,
): void {
  if (props.healthCheck !== 'https' || props.tls !== undefined) return;
  const config = props.userConfig === undefined ? 'the image\'s own config, which has no certificate'
    : inlineServer !== undefined && !servesTls(inlineServer) ? 'userConfig.config, whose server section has no tls_certfile' : undefined;
  if (config !== undefined) {
    problems.add('healthCheck', `is 'https' without tls, but the server runs ${config}: give tls (a Secret with the certificate and key), `
      + 'a config whose server section has tls_certfile and tls_keyfile, or remove healthCheck.');
  }
}

/**
 * Warnings for what the release no longer reads: `server.quota` and `server.cors` of a config known at
 * synth time (ogx 1.0 dropped both; the server ignores them without a word), and the `tcp` health
 * check, whose only reason was the quota.
 */
function checkServerSettings(
  release: ServerRelease, server: Record<string, unknown> | undefined, healthCheck: HealthCheck, healthCheckGiven: boolean,
  warn: (message: string) => void,
): void {
  const ignored = release.removedServerKeys.filter((k) => server?.[k] !== undefined && server[k] !== null);
  if (ignored.length > 0) {
    warn(`userConfig.config: ${releaseName(release)} ignores server.${ignored.join(' and server.')} (removed in ogx 1.0): the server `
      + `starts without ${ignored.map((k) => (k === 'quota' ? 'a request quota' : 'CORS headers')).join(' and ')}. Remove them, or put a gateway in front of the server for them.`);
  }
  if (healthCheckGiven && healthCheck === 'tcp' && release.removedServerKeys.includes('quota')) {
    warn(`healthCheck: 'tcp' spares the request quota of llama-stack, which ${releaseName(release)} no longer has: 'http' checks /v1/health, which also tells a server that hangs from one that listens. Remove healthCheck.`);
  }
}

function validateDistribution(
  props: LlamaStackWithProvidersProps, release: ServerRelease | undefined, problems: ProblemCollector,
): string | undefined {
  const d = props.distribution;
  const names = release?.images.distributions.join(', ') ?? 'starter';
  if (!d || (d.name === undefined && d.image === undefined)) {
    problems.add('distribution', `no distribution given: expected { name: <one of ${names}> } or { image: <image reference> }.`);
    return undefined;
  }
  if (d.name !== undefined && d.image !== undefined) {
    problems.add('distribution', `both name '${d.name}' and image '${d.image}' are given: expected exactly one. Remove one of them.`);
    return undefined;
  }
  if (d.image !== undefined) {
    checkImage(d.image, 'distribution.image', 'the distribution', problems);
    return d.image;
  }
  if (release === undefined) return undefined; // the release's problem is said already
  const image = distributionImage(d, release);
  if (image === undefined) {
    problems.add('distribution.name', `'${d.name}' is not a distribution ${releaseName(release)} publishes an image of: expected one of ${names}, or give distribution.image instead.`);
  }
  return image;
}

function validateName(given: string | undefined, name: string, problems: ProblemCollector): void {
  if (given === undefined) {
    return;
  }
  if (!DNS1035_LABEL.test(given) || given.length > MAX_NAME_LENGTH) {
    problems.add('name', `'${name}' is not a valid name: expected lower-case letters, digits and '-', starting with a letter, at most ${MAX_NAME_LENGTH} characters (it names the Service '<name>-service'). Rename it, e.g. 'llama-stack'.`);
  }
}

function validateServer(props: LlamaStackWithProvidersProps, problems: ProblemCollector): void {
  if (props.port !== undefined && (!Number.isInteger(props.port) || props.port < 1 || props.port > 65535)) {
    problems.add('port', `${props.port} is not a valid port: expected an integer from 1 to 65535 (default 8321).`);
  }
  if (props.replicas !== undefined && (!Number.isInteger(props.replicas) || props.replicas < 0)) {
    problems.add('replicas', `${props.replicas} is not a valid replica count: expected a whole number ≥ 0.`);
  }
  if (props.configFileName !== undefined && !/^[A-Za-z0-9][-._A-Za-z0-9]*\.ya?ml$/.test(props.configFileName)) {
    problems.add('configFileName', `'${props.configFileName}' is not a valid config file name: expected a plain file name ending in .yaml or .yml, such as 'config.yaml' or 'run.yaml'.`);
  }
  props.distributionConfigPaths?.forEach((p, i) => {
    if (!p.startsWith('/') || p.includes(':') || /\s/.test(p)) {
      problems.add(`distributionConfigPaths[${i}]`, `'${p}' is not a valid path: expected an absolute path without ':' or spaces, such as '/opt/app-root/config.yaml'.`);
    }
  });
  for (const [field, value] of [['sharedVolumeSizeLimit', props.sharedVolumeSizeLimit], ['storage.size', props.storage?.size]] as const) {
    if (value !== undefined && !QUANTITY.test(value)) {
      problems.add(field, `'${value}' is not a Kubernetes quantity: expected e.g. '2Gi' or '500Mi'.`);
    }
  }
  if (props.storage?.mountPath !== undefined && !props.storage.mountPath.startsWith('/')) {
    problems.add('storage.mountPath', `'${props.storage.mountPath}' is not an absolute path: expected e.g. '/.llama'.`);
  }
  if (props.mergeImage !== undefined) {
    checkImage(props.mergeImage, 'mergeImage', 'the merge step', problems);
  }
  const autoscaling = props.autoscaling;
  if (autoscaling?.maxReplicas !== undefined) {
    const fewest = autoscalerMinReplicas(props.replicas ?? 1, autoscaling);
    if (fewest > autoscaling.maxReplicas) {
      problems.add('autoscaling.maxReplicas', `${autoscaling.maxReplicas} is fewer than the autoscaler's minimum, ${fewest} (the larger of replicas and autoscaling.minReplicas): raise maxReplicas, or lower them.`);
    }
  }
  const budget = props.podDisruptionBudget;
  if (budget !== undefined && (budget.minAvailable === undefined) === (budget.maxUnavailable === undefined)) {
    problems.add('podDisruptionBudget', 'expected exactly one of minAvailable and maxUnavailable (the API server takes one).');
  }
  if (props.network?.exposeAs !== undefined && !props.network.expose) {
    problems.add('network.exposeAs', 'says what network.expose renders: set network.expose to true, or remove exposeAs.');
  }
  if (props.network?.ingressClassName !== undefined && props.network.exposeAs === 'Route') {
    problems.add('network.ingressClassName', 'is the Ingress\'s: a Route is served by the OpenShift router. Remove ingressClassName, or expose as an Ingress.');
  }
  if (props.network?.ingressClassName !== undefined && !props.network.expose) {
    problems.add('network.ingressClassName', 'is only used by the Ingress of network.expose: set network.expose to true, or remove ingressClassName.');
  }
  const security = props.podSecurity ?? {};
  if (security.idsFromPlatform) {
    for (const field of ['runAsUser', 'runAsGroup', 'fsGroup'] as const) {
      if (security[field] !== undefined) {
        problems.add(`podSecurity.${field}`, `is assigned by the platform with idsFromPlatform: remove ${field}, or set idsFromPlatform to false.`);
      }
    }
  }
  if ((security.restricted ?? true) && security.runAsUser === 0) {
    problems.add('podSecurity.runAsUser', 'runAsUser 0 (root) contradicts the restricted profile: use a non-zero uid, or set podSecurity.restricted to false.');
  }
}

/**
 * The OpenShift router names a Route without a host `<route name>-<namespace>.<its domain>`, and the API
 * server refuses the Route when that first label is over 63 characters ("spec.host: Invalid value: …: must
 * be no more than 63 characters"; openshift/api issue 2179, openshift/origin issue 24553). Known only with
 * the namespace.
 */
function checkRouteHost(props: LlamaStackWithProvidersProps, name: string, namespace: string | undefined, problems: ProblemCollector): void {
  if (!props.network?.expose || props.network.exposeAs !== 'Route' || namespace === undefined) return;
  const label = `${routeName(name)}-${namespace}`;
  if (label.length > 63) {
    problems.add('network.exposeAs', `the OpenShift router would give the Route '${routeName(name)}' the host '${label}.<router domain>', whose first `
      + `label is ${label.length} characters; the API server refuses one over 63. Shorten the name and the namespace together by `
      + `${label.length - 63} ${label.length - 63 === 1 ? 'character' : 'characters'}, or expose as an Ingress.`);
  }
}

/** The server's own environment: no variable the construct sets, none given twice. */
function checkServerEnv(env: readonly GivenEnvVar[], problems: ProblemCollector): void {
  // env's own duplicates are its shape's problem; here one in env and in envVariables.
  const fields = new Map<string, string>();
  for (const { field, nameField, entry: e } of env) {
    const first = fields.get(e.name);
    if (first !== undefined) {
      problems.add(nameField, `'${e.name}' is also set by ${first}: give each variable once, in env or in envVariables.`);
    }
    fields.set(e.name, first ?? field);
    if (CONSTRUCT_ENV.includes(e.name) || e.name.startsWith('LLS_PROVIDER_')) {
      problems.add(nameField, e.name === 'LLS_WORKERS'
        ? '\'LLS_WORKERS\' is set by the construct, from workers, with what starts the worker processes of the release. Remove it and set workers.'
        : `'${e.name}' is set by the construct (it points the server at its config and provider secrets). Remove it; use userConfig to change the config.`);
    }
  }
}

function validateUserConfig(props: LlamaStackWithProvidersProps, problems: ProblemCollector): string | undefined {
  const u = props.userConfig;
  if (!u) {
    return undefined;
  }
  if ((u.configMapName === undefined) === (u.config === undefined)) {
    problems.add('userConfig', 'expected exactly one of configMapName (an existing ConfigMap) or config (the config itself).');
    return undefined;
  }
  // The name's shape (a DNS-1123 subdomain) is checked with the props' shapes (checkReference).
  if (u.configMapKey !== undefined && !CONFIG_KEY.test(u.configMapKey)) {
    problems.add('userConfig.configMapKey', `'${u.configMapKey}' is not a valid ConfigMap key: expected letters, digits, '-', '_' or '.', such as 'config.yaml'.`);
  }
  if (u.config === undefined) {
    return undefined;
  }
  if (typeof u.config === 'string') {
    // The same reader, limits and YAML 1.1 semantics as the merge (and as llama-stack's PyYAML).
    let parsed: ParsedYaml;
    try {
      parsed = parseUntrustedYaml(u.config, CONFIG_LIMITS, { source: 'userConfig.config', resolution: 'Fix the YAML of userConfig.config.' });
    } catch (e) {
      if (!(e instanceof RunConfigError)) {
        throw e;
      }
      problems.add('userConfig.config', `is not valid YAML: ${e.issues.flatMap((i) => i.details).join(' ')} Fix the YAML of the config.`);
      return undefined;
    }
    if (!isMap(parsed.doc.contents)) {
      problems.add('userConfig.config', 'is not a YAML mapping: a Llama Stack config is a mapping with keys such as version, apis and providers.');
      return undefined;
    }
    return u.config.endsWith('\n') ? u.config : `${u.config}\n`;
  }
  if (typeof u.config !== 'object' || u.config === null || Array.isArray(u.config)) {
    problems.add('userConfig.config', 'expected an object (or YAML text) with keys such as version, apis and providers.');
    return undefined;
  }
  // Written so that llama-stack's YAML 1.1 reader reads the same values (`on`, `yes`, `1e-7` stay strings).
  try {
    const text = renderYaml(u.config);
    verifyReadBack(text, u.config, 'userConfig.config (rendered as YAML)');
    return text;
  } catch (e) {
    if (!(e instanceof UnwritableValueError)) throw e;
    problems.add(`userConfig.config${formatPath(e.path)}`, `${e.found} cannot be written into the config llama-stack reads: ${e.fix}.`);
    return undefined;
  }
}

/**
 * A provider's config reaches the pod as JSON (its install init container writes it to
 * crd-config.yaml, which the merge reads) and the merged config as YAML: it must be plain data that
 * both carry unchanged. Checked on the config as given, before secret references are resolved.
 */
function checkWritable(config: unknown, field: string, label: string, problems: ProblemCollector): boolean {
  try {
    renderJson(config);
    return true;
  } catch (e) {
    if (!(e instanceof UnwritableValueError)) throw e;
    problems.add(`${field}${formatPath(e.path)}`, `${e.found} in the config of ${label} cannot be passed to the pod: ${e.fix}.`);
    return false;
  }
}

function validateProviders(
  props: LlamaStackWithProvidersProps,
  release: ServerRelease | undefined,
  name: string,
  problems: ProblemCollector,
  warn: (message: string) => void,
): ValidatedProvider[] {
  const placed = providersInSpecOrder(props.externalProviders);
  const firstById = new Map<string, ValidatedProvider>();
  const firstByKey = new Map<string, ValidatedProvider>();
  const secretEnvNames = new Map<string, string>();
  const result: ValidatedProvider[] = [];
  for (const p of placed) {
    const { providerId, image, imagePullPolicy, config } = p.provider;
    const label = `provider '${providerId}' (image ${image || '<empty>'})`;
    const idProblem = providerIdProblem(providerId);
    if (idProblem !== undefined) {
      problems.add(`${p.field}.providerId`, `is not a provider id llama-stack can use (image ${image || '<empty>'}): ${idProblem}. Rename it, e.g. 'my-provider'.`);
    }
    if (release !== undefined && !release.providerApis.includes(p.api)) {
      problems.add(p.field, `${label}: ${releaseName(release)} has no ${p.api} API (its sections: ${acceptedSectionsText(release)}); `
        + `${missingApiFix(p.api, release)}.`);
    }
    if (typeof image !== 'string' || image.trim() === '') {
      problems.add(`${p.field}.image`, `${label} has an empty image: expected the provider image reference, e.g. 'quay.io/acme/my-provider:1.0'.`);
    } else {
      checkImage(image, `${p.field}.image`, label, problems);
    }
    if (imagePullPolicy !== undefined && !IMAGE_PULL_POLICIES.includes(imagePullPolicy)) {
      problems.add(`${p.field}.imagePullPolicy`, `'${imagePullPolicy}' is not a pull policy (${label}): expected one of ${IMAGE_PULL_POLICIES.join(', ')}.`);
    }
    let resolved: ValidatedProvider = { ...p, secretEnv: [] };
    if (config !== undefined && checkWritable(config, `${p.field}.config`, label, problems)) {
      const r = resolveProviderConfig(providerId, config, p.field, problems, warn);
      resolved = { ...p, config: r.config, secretEnv: r.secretEnv };
      for (const env of r.secretEnv) {
        // Two secret references (of this provider or another) must not share a variable.
        const other = secretEnvNames.get(env.name);
        if (other !== undefined) {
          problems.add(`${p.field}.config`, `the secret reference ${env.path} of ${label} maps to environment variable ${env.name}, as ${other} does. Rename one of the config keys (or providers).`);
        }
        secretEnvNames.set(env.name, `${env.path} of provider '${providerId}'`);
      }
    }
    const first = firstById.get(providerId);
    const key = providerKey(providerId);
    const sameKey = firstByKey.get(key);
    if (first) {
      problems.add(`${p.field}.providerId`, `duplicate provider id '${providerId}': used by ${first.field} (image ${first.provider.image}) and ${p.field} (image ${image}). Provider ids must be unique across all externalProviders; rename one of them.`);
    } else if (sameKey) {
      problems.add(`${p.field}.providerId`, `provider ids '${sameKey.provider.providerId}' (${sameKey.field}) and '${providerId}' both derive the Kubernetes name '${key}' (init container install-provider-${key}); rename one of them.`);
    } else {
      firstById.set(providerId, resolved);
      firstByKey.set(key, resolved);
    }
    result.push(resolved);
  }
  return withServices(result, props, name, problems);
}

/**
 * The providers with their services planned, in a sidecar (ports) or in pods of their own (names),
 * and each service's address.
 */
function withServices(
  providers: ValidatedProvider[], props: LlamaStackWithProvidersProps, name: string, problems: ProblemCollector,
): ValidatedProvider[] {
  if (props.kubernetesVersion !== undefined && kubernetesMinorOf(props.kubernetesVersion) === undefined) {
    problems.add('kubernetesVersion', `'${props.kubernetesVersion}' is not a Kubernetes version: expected the cluster's minor, such as '1.30' (or 'v1.30.2').`);
  }
  const report = (field: string, message: string) => problems.add(field, message);
  const request = (p: ValidatedProvider) => ({
    field: p.field, key: providerKey(p.provider.providerId), image: p.provider.image, imagePullPolicy: p.provider.imagePullPolicy,
  });
  for (const p of providers.filter((x) => x.provider.sidecar !== undefined && x.provider.service !== undefined)) {
    problems.add(p.field, `provider '${p.provider.providerId}' has both a sidecar and a service: its service runs in one place; keep one of them.`);
  }
  const inSidecars = providers.filter((p) => p.provider.sidecar !== undefined && p.provider.service === undefined);
  // The server container's ports: its API's and its metrics'.
  const serverPorts = new Map([[props.port ?? 8321, 'the server'], ...(props.metricsPort !== undefined ? [[props.metricsPort, 'the metrics endpoint (metricsPort)'] as const] : [])]);
  const sidecars = planSidecars(inSidecars.map((p) => ({ ...request(p), options: p.provider.sidecar! })), serverPorts, report);
  const inServices = providers.filter((p) => p.provider.service !== undefined && p.provider.sidecar === undefined);
  const services = planServices(inServices.map((p) => ({ ...request(p), options: p.provider.service! })), name, report);
  return providers.map((p) => {
    const s = inSidecars.indexOf(p);
    if (s >= 0) return { ...p, ...sidecars[s] };
    const d = inServices.indexOf(p);
    return d >= 0 ? { ...p, ...services[d] } : p;
  });
}

function checkImage(image: string, field: string, what: string, problems: ProblemCollector): void {
  const problem = IMAGE_REF.test(image) ? imageReferenceProblem(image) : 'it holds spaces or special characters';
  if (problem !== undefined) {
    problems.add(field, `'${image}' is not a valid image reference for ${what}: ${problem} (the kubelet would refuse it as InvalidImageName). `
      + "Expected something like 'registry.example.com/org/name:tag' or '...@sha256:<digest>'.");
  }
}
