// The pod's volumes, and the checks of the user's volumes and mounts beside the construct's.
import { posix } from 'path';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { caBundleVolumes } from './ca-bundle';
import { extractsBaseConfig, PodPlan, scriptsSource, VOLUMES } from './plan';
import { ProblemCollector } from '../../errors';
import { tlsVolume } from '../server/tls';

/** The pod's volumes, only those its containers mount. */
export function volumes(plan: PodPlan): IVolume[] {
  const result: IVolume[] = [];
  const scripts = scriptsSource(plan);
  if (scripts === 'configMap') {
    result.push({ name: VOLUMES.scripts, configMap: { name: plan.scriptsConfigMap } });
  } else if (scripts === 'mergeImage') {
    result.push({ name: VOLUMES.scripts, emptyDir: { sizeLimit: SMALL_VOLUME } });
  }
  if (plan.providers.length > 0) {
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
  if (plan.tls) {
    result.push(tlsVolume(plan.tls));
  }
  result.push(plan.storage, ...plan.extraVolumes);
  return result;
}

/** Size limit of the volumes that only hold config files. */
const SMALL_VOLUME = '64Mi';

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
  // The construct's own mounts: only the storage's path is the user's to choose. Paths are compared as the
  // container runtime mounts them: `/opt//a/` and `/x/../opt/a` are `/opt/a`.
  const paths = new Set<string>();
  for (const m of mounts.slice(0, mounts.length - plan.extraVolumeMounts.length)) {
    if (paths.has(mountPoint(m.mountPath)) && m.name === VOLUMES.storage) {
      problems.add('storage.mountPath', `'${m.mountPath}' is where the server container mounts ${mountedThere(mounts, m.mountPath)} already: choose another path.`);
    }
    paths.add(mountPoint(m.mountPath));
  }
  plan.extraVolumeMounts.forEach((m, i) => {
    if (!names.has(m.name)) {
      problems.add(`volumeMounts[${i}].name`, `'${m.name}' is not a volume of the pod: add it to volumes, or mount one of ${[...names].join(', ')}.`);
    }
    if (paths.has(mountPoint(m.mountPath))) {
      problems.add(`volumeMounts[${i}].mountPath`, `'${m.mountPath}' is where the server container mounts ${mountedThere(mounts, m.mountPath)} already: choose another path.`);
    }
    paths.add(mountPoint(m.mountPath));
    // validateLocalDescendingPath (pkg/apis/core/validation/validation.go): within the volume.
    if (m.subPath !== undefined && (m.subPath.startsWith('/') || m.subPath.split('/').includes('..'))) {
      problems.add(`volumeMounts[${i}].subPath`, `'${m.subPath}' must be a relative path within the volume, without '..' (the API server refuses it): give a path such as 'data/x'.`);
    }
  });
}

/** Where a mount path mounts: normalised, without a trailing slash. */
function mountPoint(path: string): string {
  return posix.normalize(path).replace(/(.)\/$/, '$1');
}

/** What the first mount at the mount point of `path` holds, for a message. */
function mountedThere(mounts: readonly IVolumeMount[], path: string): string {
  const name = mounts.find((m) => mountPoint(m.mountPath) === mountPoint(path))!.name;
  return name === VOLUMES.userConfig || name === VOLUMES.mergedConfig ? 'the config' : `the volume ${name}`;
}
