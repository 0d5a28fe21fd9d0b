import { isRecord, ShapeChecker, SUBDOMAIN_HINT } from '../checks';
import { DNS1123_LABEL, DNS1123_SUBDOMAIN, LABEL_VALUE } from '../name-patterns';
import { checkReferences, ReferenceField } from '../object-reference';
import { checkEnvValues, checkEnvVars } from '../pod-spec-checks';
import { HEALTH_CHECKS } from './server/health-check';
import { EXTERNAL_PROVIDER_SECTIONS } from './server/release';
import { qualifiedName } from '../schema/kubernetes/names';

/**
 * A key of the CA bundle's ConfigMap as the operator's CRD accepts it (`Items:Pattern`, `MaxLength=253`):
 * stricter than a ConfigMap key in general, which may start or end with `-`, `_` or `.`.
 */
const CA_BUNDLE_KEY = /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9\-_.]*[a-zA-Z0-9])?$/;

/** The names of LlamaStackWithProviders' props. */
export const LLAMA_STACK_PROPS: readonly string[] = [
  'name', 'namespace', 'labels', 'distribution', 'imagePullPolicy', 'port', 'replicas', 'env', 'envVariables', 'resources',
  'initContainerResources', 'userConfig', 'configFileName', 'distributionConfigPaths', 'storage',
  'serviceAccountName', 'automountServiceAccountToken', 'imagePullSecrets', 'nodeSelector', 'tolerations',
  'podSecurity', 'externalProviders', 'models', 'preflight', 'mergeImage', 'sharedVolumeSizeLimit', 'serverVersion', 'llamaStackVersion', 'network',
  'autoscaling', 'podDisruptionBudget', 'topologySpreadConstraints', 'volumes', 'volumeMounts', 'terminationGracePeriodSeconds',
  'caBundle', 'operatorSelector', 'healthCheck', 'tls', 'declarativeConfig', 'metricsPort', 'workers', 'containerName', 'command', 'args', 'podAnnotations',
  'kubernetesVersion',
];
/** The fields of a pod volume: `name` and the sources of the Kubernetes releases supported (`image` from 1.31). */
const VOLUME_FIELDS = [
  'name', 'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'configMap', 'csi', 'downwardAPI', 'emptyDir',
  'ephemeral', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'image', 'iscsi', 'nfs',
  'persistentVolumeClaim', 'photonPersistentDisk', 'portworxVolume', 'projected', 'quobyte', 'rbd', 'scaleIO', 'secret', 'storageos',
  'vsphereVolume',
];
const PROVIDER = ['providerId', 'image', 'imagePullPolicy', 'config', 'metadata', 'metadataFile', 'sidecar', 'service'];
/** The options of a provider's service, in a sidecar or in pods of its own. */
const SERVICE_PART = ['port', 'command', 'args', 'env', 'resources', 'configKey', 'path', 'startupProbe', 'readinessProbe', 'livenessProbe'];
const SIDECAR = [...SERVICE_PART, 'podReadyWithoutIt'];
const SERVICE = [...SERVICE_PART, 'replicas', 'serviceAccountName'];

/**
 * The objects the pods refer to, each with its field and kind: their names are checked here, their
 * namespaces by validate.ts. Read from props whose shapes are not checked yet (a field of the wrong
 * type is no reference).
 */
export function referencesOf(props: Record<string, any>): ReferenceField[] {
  const listed = (value: unknown) => (Array.isArray(value) ? value : []);
  const field = (object: unknown, key: string) => (isRecord(object) ? object[key] : undefined);
  return [
    [props.serviceAccountName, 'serviceAccountName', 'a ServiceAccount'],
    ...listed(props.imagePullSecrets).map((s, i): ReferenceField => [s, `imagePullSecrets[${i}]`, 'a Secret']),
    [field(props.userConfig, 'configMapName'), 'userConfig.configMapName', 'a ConfigMap'],
    [field(props.storage, 'existingClaimName'), 'storage.existingClaimName', 'a PersistentVolumeClaim'],
    [field(props.caBundle, 'configMapName'), 'caBundle.configMapName', 'a ConfigMap'],
    [field(props.tls, 'secretName'), 'tls.secretName', 'a Secret'],
  ];
}

/**
 * Checks the types of the props before anything reads them. TypeScript callers are held to them by
 * the compiler; YAML documents and JavaScript callers are not, and a wrong type must be a clear
 * problem, never a crash or a silently wrong object. Returns false when any shape is wrong.
 */
export function checkPropsShape(props: unknown, check: ShapeChecker): boolean {
  const before = check.problems.problems.length;
  const p = check.object(props, '', LLAMA_STACK_PROPS);
  if (p === undefined) {
    check.problems.add('(props)', 'expected an object of LlamaStackWithProviders props.');
    return false;
  }
  check.string(p.name, 'name');
  checkLabelName(p.namespace, 'namespace', 'a namespace name', check);
  check.labelMap(p.labels, 'labels', 'label');
  const distribution = check.object(p.distribution, 'distribution', ['name', 'image']);
  check.string(distribution?.name, 'distribution.name');
  check.string(distribution?.image, 'distribution.image');
  check.string(p.imagePullPolicy, 'imagePullPolicy');
  // Types only: ranges and formats are checked by validate.ts, with every other problem.
  check.integer(p.port, 'port', Number.MIN_SAFE_INTEGER);
  check.integer(p.replicas, 'replicas', Number.MIN_SAFE_INTEGER);
  checkEnvVars(check, p.env, 'env');
  checkEnvValues(check, p.envVariables, 'envVariables');
  checkResources(p.resources, 'resources', check);
  checkResources(p.initContainerResources, 'initContainerResources', check);
  check.integer(p.workers, 'workers', Number.MIN_SAFE_INTEGER);
  check.integer(p.metricsPort, 'metricsPort', Number.MIN_SAFE_INTEGER);
  checkLabelName(p.containerName, 'containerName', 'a container name', check);
  checkCommand(p, '', check);
  check.string(p.kubernetesVersion, 'kubernetesVersion');
  const user = check.object(p.userConfig, 'userConfig', ['configMapName', 'configMapKey', 'config']);
  check.string(user?.configMapKey, 'userConfig.configMapKey');
  if (user?.config !== undefined && typeof user.config !== 'string' && !isRecord(user.config)) {
    check.problems.add('userConfig.config', 'expected the config as an object or as YAML text.');
  }
  check.string(p.configFileName, 'configFileName');
  check.list(p.distributionConfigPaths, 'distributionConfigPaths')?.forEach((v, i) => check.string(v, `distributionConfigPaths[${i}]`));
  const storage = check.object(p.storage, 'storage', ['size', 'storageClassName', 'existingClaimName', 'ephemeral', 'mountPath']);
  check.string(storage?.size, 'storage.size');
  check.string(storage?.storageClassName, 'storage.storageClassName', { pattern: DNS1123_SUBDOMAIN, patternHint: SUBDOMAIN_HINT });
  check.boolean(storage?.ephemeral, 'storage.ephemeral');
  check.string(storage?.mountPath, 'storage.mountPath');
  check.boolean(p.automountServiceAccountToken, 'automountServiceAccountToken');
  check.boolean(p.operatorSelector, 'operatorSelector');
  if (p.healthCheck !== undefined && !(HEALTH_CHECKS as readonly unknown[]).includes(p.healthCheck)) {
    check.problems.add('healthCheck', `${JSON.stringify(p.healthCheck)} is not a health check: expected ${HEALTH_CHECKS.slice(0, -1).join(', ')} or ${HEALTH_CHECKS.at(-1)}.`);
  }
  check.list(p.models, 'models')?.forEach((v, i) => {
    const m = check.object(v, `models[${i}]`, ['url', 'model', 'providerId', 'name', 'service', 'port', 'basePath', 'namespace']);
    if (m !== undefined && m.url === undefined) check.problems.add(`models[${i}].url`, 'missing: the model server\'s OpenAI-compatible base URL (a ModelDeployment\'s endpoint.url).');
    for (const key of ['url', 'model', 'providerId', 'name'] as const) check.string(m?.[key], `models[${i}].${key}`);
  });
  check.list(p.imagePullSecrets, 'imagePullSecrets');
  check.labelMap(p.nodeSelector, 'nodeSelector', 'label');
  check.labelMap(p.podAnnotations, 'podAnnotations', 'annotation');
  check.list(p.tolerations, 'tolerations')?.forEach((v, i) => check.object(v, `tolerations[${i}]`, ['key', 'operator', 'value', 'effect', 'tolerationSeconds']));
  const security = check.object(p.podSecurity, 'podSecurity', ['runAsUser', 'runAsGroup', 'fsGroup', 'restricted', 'idsFromPlatform']);
  check.boolean(security?.idsFromPlatform, 'podSecurity.idsFromPlatform');
  check.integer(security?.runAsUser, 'podSecurity.runAsUser');
  check.integer(security?.runAsGroup, 'podSecurity.runAsGroup');
  check.integer(security?.fsGroup, 'podSecurity.fsGroup');
  check.boolean(security?.restricted, 'podSecurity.restricted');
  const network = check.object(p.network, 'network', ['expose', 'exposeAs', 'ingressClassName', 'allowedFrom']);
  check.boolean(network?.expose, 'network.expose');
  check.enumeration(network?.exposeAs, 'network.exposeAs', ['Ingress', 'Route']);
  check.string(network?.ingressClassName, 'network.ingressClassName', { pattern: DNS1123_SUBDOMAIN, patternHint: SUBDOMAIN_HINT });
  const allowedFrom = check.object(network?.allowedFrom, 'network.allowedFrom', ['namespaces', 'labels']);
  check.list(allowedFrom?.namespaces, 'network.allowedFrom.namespaces')?.forEach((v, i) => {
    // A value the API server takes in the NetworkPolicy's selector; validate.ts warns when no namespace can have it.
    if (v !== '*' && check.string(v, `network.allowedFrom.namespaces[${i}]`, { pattern: LABEL_VALUE, patternHint: 'a namespace name, or * for every namespace' }) !== undefined
      && (v as string).length > 63) {
      check.problems.add(`network.allowedFrom.namespaces[${i}]`, `"${v}" is not a namespace name: at most 63 characters.`);
    }
  });
  check.list(allowedFrom?.labels, 'network.allowedFrom.labels')?.forEach((v, i) => {
    if (check.string(v, `network.allowedFrom.labels[${i}]`) !== undefined && qualifiedName(v as string).length > 0) {
      check.problems.add(`network.allowedFrom.labels[${i}]`, `${JSON.stringify(v)} is not a label key ([prefix/]name, name at most 63 characters): namespaces are admitted when they carry the key, whatever its value, so give the key alone.`);
    }
  });
  const autoscaling = check.object(p.autoscaling, 'autoscaling', ['minReplicas', 'maxReplicas', 'targetCPUUtilizationPercentage', 'targetMemoryUtilizationPercentage']);
  if (autoscaling !== undefined && autoscaling.maxReplicas === undefined) {
    check.problems.add('autoscaling.maxReplicas', 'missing: the autoscaler needs the most replicas it may run.');
  }
  for (const field of ['minReplicas', 'maxReplicas', 'targetCPUUtilizationPercentage', 'targetMemoryUtilizationPercentage'] as const) {
    check.integer(autoscaling?.[field], `autoscaling.${field}`, 1);
  }
  const budget = check.object(p.podDisruptionBudget, 'podDisruptionBudget', ['minAvailable', 'maxUnavailable']);
  for (const field of ['minAvailable', 'maxUnavailable'] as const) {
    const value = budget?.[field];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0) && !(typeof value === 'string' && /^(100|[1-9]?[0-9])%$/.test(value))) {
      check.problems.add(`podDisruptionBudget.${field}`, `${JSON.stringify(value)} is not a number of pods or a percentage: expected a whole number ≥ 0 or a percentage such as '50%'.`);
    }
  }
  check.list(p.topologySpreadConstraints, 'topologySpreadConstraints')?.forEach((v, i) => check.object(v, `topologySpreadConstraints[${i}]`,
    ['maxSkew', 'topologyKey', 'whenUnsatisfiable', 'labelSelector', 'minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy', 'matchLabelKeys']));
  check.list(p.volumes, 'volumes')?.forEach((v, i) => {
    const volume = check.object(v, `volumes[${i}]`, VOLUME_FIELDS);
    if (volume !== undefined) check.string(volume.name, `volumes[${i}].name`, { pattern: DNS1123_LABEL, patternHint: 'a volume name (a DNS-1123 label)' });
  });
  check.list(p.volumeMounts, 'volumeMounts')?.forEach((v, i) => {
    const mount = check.object(v, `volumeMounts[${i}]`, ['name', 'mountPath', 'subPath', 'subPathExpr', 'readOnly', 'recursiveReadOnly', 'mountPropagation']);
    if (mount === undefined) return;
    check.string(mount.name, `volumeMounts[${i}].name`);
    check.string(mount.mountPath, `volumeMounts[${i}].mountPath`, { pattern: /^\//, patternHint: 'an absolute path' });
    check.boolean(mount.readOnly, `volumeMounts[${i}].readOnly`);
  });
  check.integer(p.terminationGracePeriodSeconds, 'terminationGracePeriodSeconds');
  const caBundle = check.object(p.caBundle, 'caBundle', ['configMapName', 'configMapKeys']);
  if (caBundle !== undefined && caBundle.configMapName === undefined) {
    check.problems.add('caBundle.configMapName', 'missing: the ConfigMap holding the certificates.');
  }
  const keys = check.list(caBundle?.configMapKeys, 'caBundle.configMapKeys');
  if (keys !== undefined && keys.length > 50) {
    check.problems.add('caBundle.configMapKeys', `${keys.length} keys: at most 50 (the operator's limit).`);
  }
  keys?.forEach((v, i) => {
    check.string(v, `caBundle.configMapKeys[${i}]`, { pattern: CA_BUNDLE_KEY, patternHint: 'a ConfigMap key (letters, digits, "-", "_" and ".", at most 253)' });
    if (keys.indexOf(v) !== i) check.problems.add(`caBundle.configMapKeys[${i}]`, `'${String(v)}' is listed twice.`);
  });
  check.boolean(p.preflight, 'preflight');
  check.string(p.mergeImage, 'mergeImage');
  check.string(p.sharedVolumeSizeLimit, 'sharedVolumeSizeLimit');
  check.string(p.serverVersion, 'serverVersion');
  check.string(p.llamaStackVersion, 'llamaStackVersion');
  if (p.declarativeConfig !== undefined && !isRecord(p.declarativeConfig)) {
    check.problems.add('declarativeConfig', 'expected the OGXServer spec\'s declarative fields as an object (providers, resources, storage, disabledAPIs).');
  }
  const tls = check.object(p.tls, 'tls', ['secretName', 'certificateKey', 'privateKeyKey', 'clientCaKey', 'routeDestinationCaCertificate']);
  if (tls !== undefined && tls.secretName === undefined) {
    check.problems.add('tls.secretName', 'missing: the Secret holding the server\'s certificate and key.');
  }
  for (const field of ['certificateKey', 'privateKeyKey', 'clientCaKey', 'routeDestinationCaCertificate'] as const) {
    check.string(tls?.[field], `tls.${field}`);
  }
  const sections = check.object(p.externalProviders, 'externalProviders', EXTERNAL_PROVIDER_SECTIONS);
  for (const section of EXTERNAL_PROVIDER_SECTIONS) {
    check.list(sections?.[section], `externalProviders.${section}`)?.forEach((provider, i) => {
      const field = `externalProviders.${section}[${i}]`;
      const ref = check.object(provider, field, PROVIDER);
      if (provider !== undefined && ref === undefined) {
        return;
      }
      if (ref?.providerId === undefined) {
        check.problems.add(`${field}.providerId`, 'missing: every provider needs a providerId.');
      }
      check.string(ref?.providerId, `${field}.providerId`);
      if (ref?.image === undefined) {
        check.problems.add(`${field}.image`, `missing: provider '${String(ref?.providerId)}' needs its image.`);
      }
      check.string(ref?.image, `${field}.image`, { allowEmpty: true });
      check.string(ref?.imagePullPolicy, `${field}.imagePullPolicy`);
      if (ref?.config !== undefined && !isRecord(ref.config)) {
        check.problems.add(`${field}.config`, `provider '${String(ref.providerId)}': config must be a map (the provider entry's config).`);
      }
      if (ref?.metadata !== undefined && typeof ref.metadata !== 'string' && !isRecord(ref.metadata)) {
        check.problems.add(`${field}.metadata`, 'expected the lls-provider-spec.yaml content as an object or as YAML text.');
      }
      check.string(ref?.metadataFile, `${field}.metadataFile`);
      checkServicePart(ref?.sidecar, `${field}.sidecar`, SIDECAR, check);
      checkServicePart(ref?.service, `${field}.service`, SERVICE, check);
    });
  }
  checkReferences(check, referencesOf(p));
  return check.problems.problems.length === before;
}

/** A container's `command` and `args` (`at`: the field the container's options are under, or ''). */
function checkCommand(options: Record<string, unknown>, at: string, check: ShapeChecker): void {
  for (const name of ['command', 'args'] as const) {
    const field = at === '' ? name : `${at}.${name}`;
    check.list(options[name], field)?.forEach((v, i) => check.string(v, `${field}[${i}]`, { allowEmpty: name === 'args' }));
  }
}

/**
 * The options of a provider's service, in a sidecar or in pods of its own (`allowed`): their types (the
 * ports, replicas and the address are checked with the other providers').
 */
function checkServicePart(value: unknown, field: string, allowed: readonly string[], check: ShapeChecker): void {
  const o = check.object(value, field, allowed);
  if (o === undefined) return;
  // Types only, as for the server's port: the ranges are checked with the other providers'.
  check.integer(o.port, `${field}.port`, Number.MIN_SAFE_INTEGER);
  check.integer(o.replicas, `${field}.replicas`, Number.MIN_SAFE_INTEGER);
  checkCommand(o, field, check);
  checkEnvVars(check, o.env, `${field}.env`);
  checkResources(o.resources, `${field}.resources`, check);
  check.string(o.configKey, `${field}.configKey`, { allowEmpty: true });
  check.string(o.path, `${field}.path`);
  check.string(o.serviceAccountName, `${field}.serviceAccountName`, { pattern: DNS1123_SUBDOMAIN, patternHint: SUBDOMAIN_HINT });
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
    if (o[probe] !== undefined && !isRecord(o[probe])) check.problems.add(`${field}.${probe}`, 'expected a Kubernetes probe (an object such as { httpGet: { path: /health, port: 8080 } }).');
  }
  check.boolean(o.podReadyWithoutIt, `${field}.podReadyWithoutIt`);
}

/** A DNS-1123 label: the pattern, and at most 63 characters (said as the ModelDeployment checks say it). */
function checkLabelName(value: unknown, field: string, what: string, check: ShapeChecker): void {
  const name = check.string(value, field, { pattern: DNS1123_LABEL, patternHint: `${what} (a DNS-1123 label)` });
  if (name !== undefined && name.length > 63) check.problems.add(field, `"${name}" is ${name.length} characters; ${what} has at most 63`);
}

function checkResources(value: unknown, field: string, check: ShapeChecker): void {
  const resources = check.object(value, field, ['requests', 'limits']);
  for (const kind of ['requests', 'limits']) {
    const map = check.stringMap(resources?.[kind], `${field}.${kind}`);
    for (const [name, quantity] of Object.entries(map ?? {})) {
      check.quantity(quantity, `${field}.${kind}.${name}`);
    }
  }
}
