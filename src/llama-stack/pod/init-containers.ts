// The pod's init containers in the order the kubelet runs them, and the providers' sidecars.
import type { IContainer } from 'kubernetes-models/v1/Container';
import { caBundleJoinContainer } from './ca-bundle';
import { containerSecurityContext, initContainerBasics } from './container-settings';
import { literalEnvValue, releaseEnv, userEnv } from './env';
import { BASE_CONFIG_DIR, EXTERNAL_PROVIDERS_DIR, MERGED_CONFIG_DIR, METADATA_DIR, SCRIPTS_DIR } from './paths';
import { extractsBaseConfig, PodPlan, scriptsSource, VOLUMES } from './plan';
import { renderJson } from '../../run-config/render';
import type { ServerTransport } from '../../run-config/server-transport';
import { installContainer } from '../providers/install';
import { sidecarContainer } from '../providers/sidecar';
import { initScriptsDigest, SCRIPT_FILES } from '../scripts';

/**
 * The init containers in the order the kubelet must run them: the scripts written from the merge
 * image (when it provides them), the join of a CA bundle of several
 * keys, the inspection of the distribution's own packages, one installer per provider in spec
 * order, then, when the merge runs in the pod, the extraction of the distribution's config (only
 * without a user config) and the merge; last the providers' native sidecars, started (their startup
 * probes passed) before the server.
 */
export function initContainers(plan: PodPlan): IContainer[] {
  const image = { image: plan.image, imagePullPolicy: plan.imagePullPolicy };
  const join = plan.caBundle && caBundleJoinContainer(plan.caBundle, image, initContainerBasics(plan));
  const containers = scriptsSource(plan) === 'mergeImage' ? [writeScriptsContainer(plan)] : [];
  if (join) containers.push(join);
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
      ...releaseEnv(plan.release),
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
      ...releaseEnv(plan.release),
    ],
    volumeMounts: [
      { name: VOLUMES.scripts, mountPath: SCRIPTS_DIR, readOnly: true },
      { name: VOLUMES.baseConfig, mountPath: BASE_CONFIG_DIR },
    ],
    ...initContainerBasics(plan),
  };
}

/** The merge image writing the scripts it carries into the scripts volume, if they are the manifest's. */
function writeScriptsContainer(plan: PodPlan): IContainer {
  return {
    name: 'write-init-scripts',
    image: plan.mergeImage,
    command: ['kube-inference'],
    args: ['write-init-scripts', '--sha256', initScriptsDigest(), '--dir', SCRIPTS_DIR],
    volumeMounts: [{ name: VOLUMES.scripts, mountPath: SCRIPTS_DIR }],
    ...initContainerBasics(plan),
  };
}

function mergeContainer(plan: PodPlan): IContainer {
  const providers = plan.providers.length > 0;
  return {
    name: 'merge-config',
    image: plan.mergeImage,
    command: ['kube-inference'],
    args: [
      'merge-config',
      ...(providers ? ['--metadata-dir', METADATA_DIR] : ['--no-providers']),
      '--base-config', `${BASE_CONFIG_DIR}/${plan.configMap?.key ?? plan.configFileName}`,
      '--output-dir', MERGED_CONFIG_DIR,
      '--config-file-name', plan.configFileName,
      '--server-version', plan.release.version,
      ...transportArgs(plan.transport),
      // Written for Kubernetes' $(VAR) expansion of args, which must leave the JSON as it is.
      ...(plan.declarativeConfig !== undefined ? ['--declarative-config', literalEnvValue(renderJson(plan.declarativeConfig))] : []),
      ...(plan.servedModels.length > 0 ? ['--served-models', literalEnvValue(renderJson(plan.servedModels))] : []),
    ],
    volumeMounts: [
      ...(providers ? [{ name: VOLUMES.externalProviders, mountPath: EXTERNAL_PROVIDERS_DIR, readOnly: true }] : []),
      { name: plan.configMap ? VOLUMES.userConfig : VOLUMES.baseConfig, mountPath: BASE_CONFIG_DIR, readOnly: true },
      { name: VOLUMES.mergedConfig, mountPath: MERGED_CONFIG_DIR },
    ],
    ...initContainerBasics(plan),
  };
}

/** The merge's flags for the transport: `--insecure`, or the certificate files. */
function transportArgs(transport: ServerTransport | undefined): string[] {
  if (transport === undefined) return [];
  if (transport === 'insecure') return ['--insecure'];
  return ['--tls-certfile', transport.certFile, '--tls-keyfile', transport.keyFile, ...(transport.caFile !== undefined ? ['--tls-cafile', transport.caFile] : [])];
}
