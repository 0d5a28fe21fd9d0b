import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSecurityContext } from 'kubernetes-models/v1/PodSecurityContext';
import type { ISecurityContext } from 'kubernetes-models/v1/SecurityContext';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { caBundleFile, caBundleJoinContainer, caBundleMount, caBundleVolumes } from './ca-bundle';
import { ImagePullPolicy } from './external-providers';
import { HealthCheck, serverProbe } from './health-check';
import { CaBundleOptions, PodSecurityOptions } from './options';
import {
  BASE_CONFIG_DIR,
  EXTERNAL_PROVIDERS_DIR,
  MERGED_CONFIG_DIR,
  METADATA_DIR,
  PYTHON_PACKAGES_DIR,
  SCRIPTS_DIR,
  USER_CONFIG_DIR,
} from './paths';
import { PROVIDER_SERVICE_ENV } from './provider-service';
import { sidecarContainer } from './provider-sidecar';
import { initScripts, SCRIPT_FILES } from './scripts';
import { ValidatedProvider } from './validate';
import { ProblemCollector } from '../errors';
import { providerKey } from '../run-config/provider-id';
import { renderJson } from '../run-config/render';

/** Container resource requests and limits, as Kubernetes quantities (`'500m'`, `'2Gi'`, `nvidia.com/gpu: '1'`). */
export interface ResourceRequirements {
  /** Minimum resources reserved for the container. */
  readonly requests?: { [resource: string]: string };
  /** Maximum resources the container may use. */
  readonly limits?: { [resource: string]: string };
}

/** Names of the pod's volumes. */
export const VOLUMES = {
  /** emptyDir: installed packages, metadata, installed-packages.txt (size-limited). */
  externalProviders: 'external-providers',
  /** emptyDir: the config extracted from the distribution image. */
  baseConfig: 'base-config',
  /** emptyDir: the merged config written by the merge step. */
  mergedConfig: 'merged-config',
  /** configMap: the user's config (or the config rendered at synth time). */
  userConfig: 'user-config',
  /** PVC or emptyDir: the server's state directory. */
  storage: 'llama-storage',
  /** configMap: the init-container scripts. */
  scripts: 'init-scripts',
} as const;

/** Everything the containers are built from, decided by the construct. */
export interface PodPlan {
  readonly image: string;
  /** The distribution's name when the spec gives one (the extraction looks for its packaged config). */
  readonly distributionName?: string;
  readonly imagePullPolicy?: ImagePullPolicy;
  readonly port: number;
  readonly configFileName: string;
  /** The llama-stack release line the distribution runs, e.g. `0.7`. */
  readonly llamaStackVersion: string;
  readonly providers: readonly ValidatedProvider[];
  /** The ConfigMap holding the server's config: the user's, or the one merged at synth time. */
  readonly configMap?: { readonly name: string; readonly key: string };
  /** The ConfigMap holding the init-container scripts (present whenever there are providers). */
  readonly scriptsConfigMap: string;
  /** Run the preflight check of the providers before the server starts. */
  readonly preflight: boolean;
  /** True when the merge runs in the pod (providers whose metadata was not known at synth time). */
  readonly mergeInPod: boolean;
  readonly mergeImage: string;
  readonly distributionConfigPaths: readonly string[];
  readonly sharedVolumeSizeLimit: string;
  readonly storage: IVolume;
  readonly storageMountPath: string;
  readonly security: Required<PodSecurityOptions>;
  readonly env: readonly IEnvVar[];
  /** How the kubelet checks the server. */
  readonly healthCheck: HealthCheck;
  /** Certificate authorities the server trusts, from a ConfigMap. */
  readonly caBundle?: CaBundleOptions;
  /** The user's volumes, after the construct's. */
  readonly extraVolumes: readonly IVolume[];
  /** The user's mounts of the server container, after the construct's. */
  readonly extraVolumeMounts: readonly IVolumeMount[];
  readonly resources: ResourceRequirements;
  readonly initResources: ResourceRequirements;
  /** The server container's name. */
  readonly containerName: string;
  /** Uvicorn worker processes of the server, when set. */
  readonly workers?: number;
  /** The user's command, replacing how the construct starts the server. */
  readonly command?: readonly string[];
  /** The user's args: to the server command (or to the user's command). */
  readonly args?: readonly string[];
  /** Providers' sidecars are native sidecars (Kubernetes ≥ 1.29), else regular containers. */
  readonly nativeSidecars: boolean;
}

/** The container-level security context: the restricted profile, or nothing when relaxed. */
export function containerSecurityContext(security: Required<PodSecurityOptions>): ISecurityContext | undefined {
  if (!security.restricted) {
    return undefined;
  }
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
  };
}

/**
 * The pod-level security context: fixed uid/gid/fsGroup (unless the platform assigns them), plus the
 * restricted profile's pod settings.
 */
export function podSecurityContext(security: Required<PodSecurityOptions>): IPodSecurityContext {
  return {
    ...(security.idsFromPlatform ? {} : { runAsUser: security.runAsUser, runAsGroup: security.runAsGroup, fsGroup: security.fsGroup }),
    ...(security.restricted ? { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } : {}),
  };
}

/** The path of the config file the server is started with, or undefined when the image decides. */
export function serverConfigPath(plan: PodPlan): string | undefined {
  if (plan.mergeInPod) {
    return `${MERGED_CONFIG_DIR}/${plan.configFileName}`;
  }
  return plan.configMap ? `${USER_CONFIG_DIR}/${plan.configMap.key}` : undefined;
}

/** True when the base config must be extracted from the distribution image in the pod. */
function extractsBaseConfig(plan: PodPlan): boolean {
  return plan.mergeInPod && plan.configMap === undefined;
}

/**
 * The init containers in the order the kubelet must run them: the join of a CA bundle of several
 * keys, the inspection of the distribution's own packages, one installer per provider in spec
 * order, then, when the merge runs in the pod, the extraction of the distribution's config (only
 * without a user config) and the merge; last the providers' native sidecars, started (their startup
 * probes passed) before the server.
 */
export function initContainers(plan: PodPlan): IContainer[] {
  const image = { image: plan.image, imagePullPolicy: plan.imagePullPolicy };
  const join = plan.caBundle && caBundleJoinContainer(plan.caBundle, image, initContainerBasics(plan));
  const containers = join ? [join] : [];
  if (plan.providers.length > 0) containers.push(inspectContainer(plan));
  containers.push(...plan.providers.map((p) => installContainer(plan, p)));
  if (extractsBaseConfig(plan)) {
    containers.push(extractContainer(plan));
  }
  if (plan.mergeInPod) {
    containers.push(mergeContainer(plan));
  }
  if (plan.nativeSidecars) containers.push(...sidecars(plan));
  return containers;
}

/** The providers' sidecars' containers, in spec order. */
export function sidecars(plan: PodPlan): IContainer[] {
  const securityContext = containerSecurityContext(plan.security);
  return plan.providers.flatMap((p) => (p.sidecar ? [sidecarContainer(p.sidecar, plan.nativeSidecars, securityContext)] : []));
}

/** The pod's volumes, only those its containers mount. */
export function volumes(plan: PodPlan): IVolume[] {
  const result: IVolume[] = [];
  if (plan.providers.length > 0) {
    result.push({ name: VOLUMES.scripts, configMap: { name: plan.scriptsConfigMap } });
    result.push({
      name: VOLUMES.externalProviders,
      emptyDir: { sizeLimit: plan.sharedVolumeSizeLimit },
    });
  }
  if (extractsBaseConfig(plan)) {
    result.push({ name: VOLUMES.baseConfig, emptyDir: { sizeLimit: SMALL_VOLUME } });
  }
  if (plan.mergeInPod) {
    result.push({ name: VOLUMES.mergedConfig, emptyDir: { sizeLimit: SMALL_VOLUME } });
  }
  if (plan.configMap) {
    result.push({
      name: VOLUMES.userConfig,
      // The whole ConfigMap, as the operator mounts it: files beside the config (certificates, a
      // prompt template) are reachable from it.
      configMap: { name: plan.configMap.name },
    });
  }
  if (plan.caBundle) {
    result.push(...caBundleVolumes(plan.caBundle));
  }
  result.push(plan.storage, ...plan.extraVolumes);
  return result;
}

/** Size limit of the volumes that only hold config files. */
const SMALL_VOLUME = '64Mi';

/** The Llama Stack server container. */
export function serverContainer(plan: PodPlan): IContainer {
  const configPath = serverConfigPath(plan);
  const mounts: IVolumeMount[] = [];
  if (plan.providers.length > 0) {
    mounts.push({ name: VOLUMES.externalProviders, mountPath: EXTERNAL_PROVIDERS_DIR, readOnly: true });
  }
  if (plan.mergeInPod) {
    mounts.push({ name: VOLUMES.mergedConfig, mountPath: MERGED_CONFIG_DIR, readOnly: true });
  } else if (plan.configMap) {
    mounts.push({ name: VOLUMES.userConfig, mountPath: USER_CONFIG_DIR, readOnly: true });
  }
  const preflight = runsPreflight(plan);
  if (preflight) {
    mounts.push({ name: VOLUMES.scripts, mountPath: SCRIPTS_DIR, readOnly: true });
  }
  if (plan.caBundle) {
    mounts.push(caBundleMount());
  }
  mounts.push({ name: VOLUMES.storage, mountPath: plan.storageMountPath }, ...plan.extraVolumeMounts);
  const probe = (periodSeconds: number, failureThreshold: number) => serverProbe(plan.healthCheck, periodSeconds, failureThreshold);
  return {
    name: plan.containerName,
    image: plan.image,
    imagePullPolicy: plan.imagePullPolicy,
    command: serverCommand(plan, configPath, preflight),
    args: plan.args && [...plan.args],
    env: [...serverEnv(plan, configPath), ...(preflight ? [{ name: 'EXTERNAL_PROVIDERS_DIR', value: EXTERNAL_PROVIDERS_DIR }] : [])],
    ports: [{ name: 'http', containerPort: plan.port, protocol: 'TCP' }],
    // Generous start-up: providers and models may take minutes to initialise.
    startupProbe: probe(10, 60),
    readinessProbe: probe(10, 3),
    livenessProbe: probe(20, 3),
    resources: plan.resources,
    securityContext: containerSecurityContext(plan.security),
    volumeMounts: mounts,
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}

/** True when the server container checks the providers before the server starts (start-server.sh). */
function runsPreflight(plan: PodPlan): boolean {
  return plan.preflight && plan.providers.length > 0 && plan.command === undefined;
}

/**
 * How the server starts. The user's command when given. Otherwise explicitly with the config we
 * prepared, through launch-server.sh: an image entrypoint would load its own built-in config and
 * silently ignore the merged one (the bug of operator PR #240); the script keeps what the entrypoint
 * adds (OpenTelemetry) and starts `workers`. With providers, preflight checks them first
 * (start-server.sh, which then runs launch-server.sh). With neither a config of ours nor workers, the
 * image's entrypoint starts its own config.
 */
function serverCommand(plan: PodPlan, configPath: string | undefined, preflight: boolean): string[] | undefined {
  if (plan.command !== undefined) return [...plan.command];
  if (preflight) return ['/bin/sh', `${SCRIPTS_DIR}/${SCRIPT_FILES.startServer}`];
  if (configPath === undefined && plan.workers === undefined) return undefined;
  // The script's text is the command (no ConfigMap of scripts without providers); `$0` names it in its messages.
  return ['/bin/sh', '-c', initScripts()[SCRIPT_FILES.launchServer], 'launch-server'];
}

/**
 * The server's environment: our defaults (which the user's env overrides), the user's env, then
 * PYTHONPATH with the provider packages first and the provider secrets.
 */
function serverEnv(plan: PodPlan, configPath: string | undefined): IEnvVar[] {
  // Every state directory on the storage volume, whatever its mount path and whatever the uid: the
  // image's own home (`/.llama`, `/.cache`) is writable for root or group 0 only, and distribution
  // configs write under `~` (`${env.SQLITE_STORE_DIR:=~/.llama/distributions/<name>}`).
  const defaults: IEnvVar[] = [
    { name: 'LLAMA_STACK_PORT', value: String(plan.port) },
    { name: 'HOME', value: plan.storageMountPath },
    { name: 'LLAMA_STACK_CONFIG_DIR', value: plan.storageMountPath },
    { name: 'HF_HOME', value: plan.storageMountPath },
    // The operator's variable, read by launch-server.sh.
    ...(plan.workers !== undefined ? [{ name: 'LLS_WORKERS', value: String(plan.workers) }] : []),
    // The operator's variable: OpenSSL, and so Python's ssl and httpx, read the trust store from it.
    ...(plan.caBundle ? [{ name: 'SSL_CERT_FILE', value: caBundleFile(plan.caBundle) }] : []),
  ];
  const userNames = new Set(plan.env.map((e) => e.name));
  const env: IEnvVar[] = defaults.filter((e) => !userNames.has(e.name));
  if (configPath) {
    env.push({ name: 'LLAMA_STACK_CONFIG', value: configPath });
  }
  env.push(...userEnv(plan));
  for (const p of plan.providers) {
    for (const s of p.secretEnv) {
      env.push({ name: s.name, valueFrom: { secretKeyRef: { name: s.secretName, key: s.secretKey } } });
    }
  }
  return env;
}

/**
 * The user's env with, when there are providers, PYTHONPATH starting with the provider packages: what
 * decides which Python packages the server's interpreter imports.
 */
function userEnv(plan: PodPlan): IEnvVar[] {
  if (plan.providers.length === 0) {
    return [...plan.env];
  }
  const env = plan.env.filter((e) => e.name !== 'PYTHONPATH');
  const userPythonPath = plan.env.find((e) => e.name === 'PYTHONPATH');
  if (userPythonPath?.valueFrom) {
    // The user's PYTHONPATH comes from a ConfigMap or Secret: keep it under another name and
    // let Kubernetes expand it after ours.
    env.push({ ...userPythonPath, name: 'USER_PYTHONPATH' });
    env.push({ name: 'PYTHONPATH', value: `${PYTHON_PACKAGES_DIR}:$(USER_PYTHONPATH)` });
  } else {
    const rest = userPythonPath?.value ? `:${userPythonPath.value}` : '';
    env.push({ name: 'PYTHONPATH', value: `${PYTHON_PACKAGES_DIR}${rest}` });
  }
  return env;
}

/**
 * An env value that reaches the container exactly as written. Kubernetes expands `$(NAME)` in env
 * values and turns `$$` into `$`; doubling every `$` keeps user data (a password in a provider
 * config, say) from being rewritten on its way into the pod.
 */
function literalEnvValue(text: string): string {
  return text.replace(/\$/g, '$$$$');
}

/**
 * What every init container shares: small resources, the restricted profile, and its log tail as
 * the termination message, so the reason for a failure shows in the pod status.
 */
function initContainerBasics(plan: PodPlan): Pick<IContainer, 'resources' | 'securityContext' | 'terminationMessagePolicy'> {
  return {
    resources: plan.initResources,
    securityContext: containerSecurityContext(plan.security),
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}

function installContainer(plan: PodPlan, p: ValidatedProvider): IContainer {
  const key = providerKey(p.provider.providerId);
  const name = `install-provider-${key}`;
  const crdConfig = {
    providerId: p.provider.providerId,
    api: p.api,
    crdSection: p.section,
    image: p.provider.image,
    order: p.order,
    ...(p.config !== undefined ? { config: p.config } : {}),
    ...(p.serviceAddress !== undefined ? { serviceAddress: p.serviceAddress } : {}),
  };
  return {
    name,
    image: p.provider.image,
    imagePullPolicy: p.provider.imagePullPolicy ?? ('IfNotPresent' satisfies ImagePullPolicy),
    command: ['/bin/sh', `${SCRIPTS_DIR}/${SCRIPT_FILES.installProvider}`],
    env: [
      { name: 'PROVIDER_ID', value: literalEnvValue(p.provider.providerId) },
      { name: 'PROVIDER_KEY', value: key },
      { name: 'PROVIDER_IMAGE', value: p.provider.image },
      { name: 'PROVIDER_API', value: p.api },
      { name: 'PROVIDER_CRD_SECTION', value: p.section },
      { name: 'INIT_CONTAINER_NAME', value: name },
      { name: 'PROVIDER_CRD_CONFIG', value: literalEnvValue(renderJson(crdConfig)) },
      { name: 'EXTERNAL_PROVIDERS_DIR', value: EXTERNAL_PROVIDERS_DIR },
      // pip needs a writable home; the image's may not be writable for our uid.
      { name: 'HOME', value: '/tmp' },
      // Not read by the install: `kube-inference status` finds the provider's service by it.
      ...(p.service ? [{ name: PROVIDER_SERVICE_ENV, value: p.service.name }] : []),
    ],
    volumeMounts: [
      { name: VOLUMES.scripts, mountPath: SCRIPTS_DIR, readOnly: true },
      { name: VOLUMES.externalProviders, mountPath: EXTERNAL_PROVIDERS_DIR },
    ],
    ...initContainerBasics(plan),
  };
}

/**
 * Records the distribution's own Python packages (`server-packages.json` in the shared volume) before
 * any provider is installed, so each installer lets the server's copy of a package serve the provider
 * and refuses a provider whose requirements the server's versions break. It runs in the distribution
 * image with the server's interpreter and the server's env (without provider secrets): the same
 * PYTHONPATH, minus the provider packages, decides what the server imports.
 */
function inspectContainer(plan: PodPlan): IContainer {
  return {
    name: 'inspect-distribution',
    image: plan.image,
    imagePullPolicy: plan.imagePullPolicy,
    command: ['/bin/sh', `${SCRIPTS_DIR}/${SCRIPT_FILES.inspectDistribution}`],
    env: [
      ...userEnv(plan),
      { name: 'EXTERNAL_PROVIDERS_DIR', value: EXTERNAL_PROVIDERS_DIR },
      { name: 'DISTRIBUTION_IMAGE', value: plan.image },
    ],
    volumeMounts: [
      { name: VOLUMES.scripts, mountPath: SCRIPTS_DIR, readOnly: true },
      { name: VOLUMES.externalProviders, mountPath: EXTERNAL_PROVIDERS_DIR },
    ],
    ...initContainerBasics(plan),
  };
}

function extractContainer(plan: PodPlan): IContainer {
  return {
    name: 'extract-distribution-config',
    image: plan.image,
    imagePullPolicy: plan.imagePullPolicy,
    command: ['/bin/sh', `${SCRIPTS_DIR}/${SCRIPT_FILES.extractDistributionConfig}`],
    env: [
      { name: 'CONFIG_SEARCH_PATHS', value: literalEnvValue(plan.distributionConfigPaths.join(':')) },
      { name: 'BASE_CONFIG_FILE', value: `${BASE_CONFIG_DIR}/${plan.configFileName}` },
      { name: 'DISTRIBUTION_IMAGE', value: plan.image },
      ...(plan.distributionName !== undefined ? [{ name: 'DISTRIBUTION_NAME', value: plan.distributionName }] : []),
    ],
    volumeMounts: [
      { name: VOLUMES.scripts, mountPath: SCRIPTS_DIR, readOnly: true },
      { name: VOLUMES.baseConfig, mountPath: BASE_CONFIG_DIR },
    ],
    ...initContainerBasics(plan),
  };
}

function mergeContainer(plan: PodPlan): IContainer {
  return {
    name: 'merge-config',
    image: plan.mergeImage,
    command: ['kube-inference'],
    args: [
      'merge-config',
      '--metadata-dir', METADATA_DIR,
      '--base-config', `${BASE_CONFIG_DIR}/${plan.configMap?.key ?? plan.configFileName}`,
      '--output-dir', MERGED_CONFIG_DIR,
      '--config-file-name', plan.configFileName,
      '--llama-stack-version', plan.llamaStackVersion,
    ],
    volumeMounts: [
      { name: VOLUMES.externalProviders, mountPath: EXTERNAL_PROVIDERS_DIR, readOnly: true },
      { name: plan.configMap ? VOLUMES.userConfig : VOLUMES.baseConfig, mountPath: BASE_CONFIG_DIR, readOnly: true },
      { name: VOLUMES.mergedConfig, mountPath: MERGED_CONFIG_DIR },
    ],
    ...initContainerBasics(plan),
  };
}

/**
 * Problems of the user's `volumes` and `volumeMounts` beside the construct's own, as the API server
 * would find them: a volume name used twice, a mount of a volume the pod does not have, two mounts at
 * one path of the server container.
 */
export function checkUserVolumes(plan: PodPlan, podVolumes: readonly IVolume[], server: IContainer, problems: ProblemCollector): void {
  // The user's volumes and mounts come last (see volumes() and serverContainer()).
  const names = new Set(podVolumes.slice(0, podVolumes.length - plan.extraVolumes.length).map((v) => v.name));
  plan.extraVolumes.forEach((v, i) => {
    if (names.has(v.name)) {
      problems.add(`volumes[${i}].name`, `'${v.name}' is already a volume of the pod${Object.values(VOLUMES).includes(v.name as never) ? ' (the construct\'s own)' : ''}: give it another name.`);
    }
    names.add(v.name);
  });
  const mounts = server.volumeMounts ?? [];
  // The construct's own mounts: only the storage's path is the user's to choose.
  const paths = new Set<string>();
  for (const m of mounts.slice(0, mounts.length - plan.extraVolumeMounts.length)) {
    if (paths.has(m.mountPath) && m.name === VOLUMES.storage) {
      problems.add('storage.mountPath', `'${m.mountPath}' is where the server container mounts ${mountedThere(mounts, m.mountPath)} already: choose another path.`);
    }
    paths.add(m.mountPath);
  }
  plan.extraVolumeMounts.forEach((m, i) => {
    if (!names.has(m.name)) {
      problems.add(`volumeMounts[${i}].name`, `'${m.name}' is not a volume of the pod: add it to volumes, or mount one of ${[...names].join(', ')}.`);
    }
    if (paths.has(m.mountPath)) {
      problems.add(`volumeMounts[${i}].mountPath`, `'${m.mountPath}' is already mounted in the server container: choose another path.`);
    }
    paths.add(m.mountPath);
  });
}

/** What the first mount at `path` holds, for a message. */
function mountedThere(mounts: readonly IVolumeMount[], path: string): string {
  const name = mounts.find((m) => m.mountPath === path)!.name;
  return name === VOLUMES.userConfig || name === VOLUMES.mergedConfig ? 'the config' : `the volume ${name}`;
}
