// The server container (ogx, or llama-stack): how it starts, its environment, mounts, ports and probes.
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { serverProbe } from './health-check';
import { needsInsecureFlag, tlsMount } from './tls';
import { GENERATED_SQLITE_DIR } from '../../run-config/ogx-configgen';
import type { ServerRelease } from '../../run-config/releases';
import { caBundleFile, caBundleMount } from '../pod/ca-bundle';
import { containerSecurityContext } from '../pod/container-settings';
import { literalEnvValue, releaseEnv, userEnv } from '../pod/env';
import { EXTERNAL_PROVIDERS_DIR, MERGED_CONFIG_DIR, SCRIPTS_DIR, USER_CONFIG_DIR } from '../pod/paths';
import { PodPlan, serverConfigPath, VOLUMES } from '../pod/plan';
import { initScripts, SCRIPT_FILES } from '../scripts';

/** The server container (ogx, or llama-stack). */
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
  if (plan.tls) {
    mounts.push(tlsMount());
  }
  mounts.push({ name: VOLUMES.storage, mountPath: plan.storageMountPath }, ...plan.extraVolumeMounts);
  const portName = serverPortName(plan);
  const probe = (periodSeconds: number, failureThreshold: number) => serverProbe(plan.healthCheck, portName, periodSeconds, failureThreshold);
  const command = serverCommand(plan, configPath, preflight);
  const launchedByConstruct = command !== undefined && plan.command === undefined;
  return {
    name: plan.containerName,
    image: plan.image,
    imagePullPolicy: plan.imagePullPolicy,
    command,
    args: plan.args && [...plan.args],
    env: [
      ...serverEnv(plan, configPath),
      // What the construct's scripts need: the release's command and package, how to start workers and plain HTTP.
      ...(launchedByConstruct ? launchEnv(plan) : []),
      ...(preflight ? [{ name: 'EXTERNAL_PROVIDERS_DIR', value: EXTERNAL_PROVIDERS_DIR }] : []),
    ],
    ports: [
      { name: serverPortName(plan), containerPort: plan.port, protocol: 'TCP' },
      ...(plan.metricsPort !== undefined ? [{ name: 'metrics', containerPort: plan.metricsPort, protocol: 'TCP' as const }] : []),
    ],
    // Up to 10 minutes to start (providers and models may take minutes to initialise), asked every second:
    // the pod is Ready, and its Service answers, within a second of the server, not at the next of the
    // readiness period's steps (bench/cluster: a server healthy after 10.5 s answered after 11.5 s, one
    // healthy after 12.2 s after 20.9 s with a 10 s period). The operators' pods wait 15 s and more.
    startupProbe: probe(1, 600),
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
 * image's entrypoint starts its own config — unless the server must be told to serve plain HTTP
 * (ogx ≥ 1.2, whose entrypoint runs `ogx stack run` without `--insecure`, which then exits).
 */
function serverCommand(plan: PodPlan, configPath: string | undefined, preflight: boolean): string[] | undefined {
  if (plan.command !== undefined) return [...plan.command];
  if (preflight) return ['/bin/sh', `${SCRIPTS_DIR}/${SCRIPT_FILES.startServer}`];
  if (configPath === undefined && plan.workers === undefined && !needsInsecureFlag(plan)) return undefined;
  // The script's text is the command (no scripts volume without providers); `$0` names it in its messages.
  return ['/bin/sh', '-c', initScripts()[SCRIPT_FILES.launchServer], 'launch-server'];
}

/**
 * The environment of the construct's start scripts: the release's run command (its first word is the
 * console script whose Python the scripts run) and Python package, the application factory of uvicorn
 * workers, and plain HTTP on a release that requires TLS otherwise. Constants of the release, never user values.
 */
function launchEnv(plan: PodPlan): IEnvVar[] {
  return [
    ...releaseEnv(plan.release),
    ...(plan.workers !== undefined && plan.release.workers === 'uvicorn' ? [{ name: 'SERVER_APP_FACTORY', value: plan.release.appFactory! }] : []),
    ...(needsInsecureFlag(plan) ? [{ name: 'SERVER_INSECURE', value: 'true' }] : []),
  ];
}

/**
 * The server's environment: our defaults (which the user's env overrides), the user's env, then
 * PYTHONPATH with the provider packages first and the provider secrets.
 */
function serverEnv(plan: PodPlan, configPath: string | undefined): IEnvVar[] {
  const names = plan.release.env;
  // Every state directory on the storage volume, whatever its mount path and whatever the uid: the
  // image's own home (`/.llama`, `/.ogx`, `/.cache`) is writable for root or group 0 only, and
  // distribution configs write under `~` (`${env.SQLITE_STORE_DIR:=~/.ogx/distributions/<name>}`).
  // ogx's own directory is left at its default, `~/.ogx`: with OGX_CONFIG_DIR unset, ogx moves a
  // `~/.llama` it finds there on the volume of a llama-stack server to `~/.ogx` at start
  // (`ogx/core/utils/config_dirs.py` migrate_legacy_config_dir), which carries the state over.
  // The mount path as the mount has it: Kubernetes would expand a `$(NAME)` of the path in an env value.
  const storageDir = literalEnvValue(plan.storageMountPath);
  const defaults: IEnvVar[] = [
    { name: names.port, value: String(plan.port) },
    { name: 'HOME', value: storageDir },
    ...(plan.release.project === 'llama-stack' ? [{ name: names.configDir, value: storageDir }] : []),
    { name: 'HF_HOME', value: storageDir },
    ...(plan.workers !== undefined ? [workersEnv(plan.release, plan.workers)] : []),
    // One worker with metrics, as the OGX operator pins it: a config's server.workers would start more,
    // and the second worker's metrics endpoint finds the port taken and stops the server.
    ...(plan.workers === undefined && plan.metricsPort !== undefined ? [workersEnv(plan.release, 1)] : []),
    // ogx/telemetry: the endpoint listens on OGX_METRICS_HOST (127.0.0.1 by default: not reachable from the Service).
    ...(plan.metricsPort !== undefined ? [
      { name: 'OGX_METRICS_ENDPOINT_ENABLED', value: 'true' },
      { name: 'OGX_METRICS_HOST', value: '0.0.0.0' },
      { name: 'OGX_METRICS_PORT', value: String(plan.metricsPort) },
    ] : []),
    // The generated storage section keeps its SQLite files in ${SQLITE_STORE_DIR:=/.ogx}, the operator's
    // mount path: on the storage volume wherever it is mounted.
    ...(plan.generatesStorage && plan.storageMountPath !== GENERATED_SQLITE_DIR ? [{ name: 'SQLITE_STORE_DIR', value: storageDir }] : []),
    // The operator's variable: OpenSSL, and so Python's ssl and httpx, read the trust store from it.
    ...(plan.caBundle ? [{ name: 'SSL_CERT_FILE', value: caBundleFile(plan.caBundle) }] : []),
  ];
  const userNames = new Set(plan.env.map((e) => e.name));
  const env: IEnvVar[] = defaults.filter((e) => !userNames.has(e.name));
  if (configPath) {
    env.push({ name: names.config, value: configPath });
  }
  env.push(...userEnv(plan), ...plan.configSecretEnv);
  for (const p of plan.providers) {
    for (const s of p.secretEnv) {
      env.push({ name: s.name, valueFrom: { secretKeyRef: { name: s.secretName, key: s.secretKey } } });
    }
  }
  return env;
}

/**
 * The worker count: `OGX_WORKERS`, which the run command reads (ogx ≥ 1.2), else `LLS_WORKERS`, the
 * llama-stack operator's variable, which launch-server.sh turns into uvicorn's `--workers`.
 */
function workersEnv(release: ServerRelease, workers: number): IEnvVar {
  return { name: release.env.workers ?? 'LLS_WORKERS', value: String(workers) };
}

/** The name of the server's port (container, Service, probes): `https` when the construct serves TLS. */
export function serverPortName(plan: Pick<PodPlan, 'tls'>): string {
  return plan.tls ? 'https' : 'http';
}
