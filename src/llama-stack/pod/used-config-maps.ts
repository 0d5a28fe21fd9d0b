import { createHash } from 'crypto';
import { ApiObject, Chart } from 'cdk8s';
import { IConstruct } from 'constructs';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { UserConfig } from '../options';
import type { PodPlan } from './plan';
import { ProblemCollector } from '../../errors';
import { LABEL_DOMAIN } from '../../labels';
import { nameOf } from '../../object-reference';
import { addWarning } from '../../warnings';

/**
 * The ConfigMaps a pod reads, by name: mounted (directly or projected) or read into its containers'
 * environment (`configMapKeyRef`, `envFrom`).
 */
export function configMapsUsedBy(pod: IPodSpec): string[] {
  const names = new Set<string>();
  for (const v of pod.volumes ?? []) {
    if (v.configMap?.name) names.add(v.configMap.name);
    for (const source of v.projected?.sources ?? []) {
      if (source.configMap?.name) names.add(source.configMap.name);
    }
  }
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    for (const e of c.env ?? []) {
      if (e.valueFrom?.configMapKeyRef?.name) names.add(e.valueFrom.configMapKeyRef.name);
    }
    for (const e of c.envFrom ?? []) {
      if (e.configMapRef?.name) names.add(e.configMapRef.name);
    }
  }
  return [...names].sort();
}

/**
 * The ConfigMaps of this name the same cdk8s app defines (so far) for this namespace, as JSON, outside
 * `owner`. A ConfigMap without a namespace counts as the pods' (it is applied to the namespace
 * `kubectl` is given).
 */
export function appConfigMaps(owner: IConstruct, names: readonly string[], namespace: string | undefined): Map<string, any> {
  const wanted = new Set(names);
  const found = new Map<string, any>();
  for (const c of owner.node.root.node.findAll()) {
    // By name first: rendering every ConfigMap of a large app for every server would be quadratic.
    if (!(c instanceof ApiObject) || c.kind !== 'ConfigMap' || c.apiVersion !== 'v1' || !wanted.has(c.name) || isWithin(c, owner)) continue;
    const json = c.toJson();
    const ns = json.metadata?.namespace ?? Chart.of(c).namespace;
    if (wanted.has(json.metadata?.name) && (ns === undefined || ns === namespace)) found.set(json.metadata.name, json);
  }
  return found;
}

/**
 * A hash of the content of the ConfigMaps named that the same cdk8s app defines (in any chart) for
 * this namespace ({@link appConfigMaps}), undefined when it defines none of them: a ConfigMap edit
 * alone does not restart the pods that read it, a changed hash in their template does. ConfigMaps
 * under `owner` are left out: the construct hashes its own already.
 */
export function hashOfAppConfigMaps(owner: IConstruct, names: readonly string[], namespace: string | undefined): string | undefined {
  const found = appConfigMaps(owner, names, namespace);
  if (found.size === 0) return undefined;
  return hashOfConfigMaps([...found.values()].map((c) => ({ name: c.metadata.name, data: c.data, binaryData: c.binaryData })));
}

/** The content of a ConfigMap, as {@link hashOfConfigMaps} reads it. */
export interface ConfigMapContent {
  readonly name: string;
  readonly data?: { readonly [key: string]: string };
  readonly binaryData?: { readonly [key: string]: string };
}

/** The hash of `kube-inference.io/configmaps-hash`: the ConfigMaps' names and contents, in name order. */
export function hashOfConfigMaps(configMaps: readonly ConfigMapContent[]): string {
  const content = [...configMaps].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((c) => [c.name, { data: c.data ?? {}, binaryData: c.binaryData ?? {} }]);
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

/** The annotation of the pods' template holding {@link hashOfConfigMaps}. */
export const CONFIG_MAPS_HASH_ANNOTATION = `${LABEL_DOMAIN}/configmaps-hash`;

function isWithin(c: IConstruct, owner: IConstruct): boolean {
  return c.node.path === owner.node.path || c.node.path.startsWith(`${owner.node.path}/`);
}

/** The config files server releases read: `config.yaml` from llama-stack 0.4 (and every ogx), `run.yaml` before. */
const CONFIG_FILE_NAMES = ['config.yaml', 'run.yaml'];

/**
 * The user's ConfigMap and the key the server reads. When the app defines that ConfigMap (a render
 * input carrying it, as the operator's samples do), its keys are checked now: a missing key would
 * only show as a crash-looping pod. Without a key given, a ConfigMap holding only the other release's
 * file name (`run.yaml` for a 0.4+ release) is read by that name, with a warning.
 */
export function userConfigMap(
  scope: IConstruct, user: UserConfig, configFileName: string, namespace: string | undefined, problems: ProblemCollector,
): PodPlan['configMap'] {
  const name = nameOf(user.configMapName!);
  const key = user.configMapKey ?? configFileName;
  const known = appConfigMaps(scope, [name], namespace).get(name);
  const keys = known === undefined ? undefined : [...Object.keys(known.data ?? {}), ...Object.keys(known.binaryData ?? {})];
  if (keys === undefined || keys.includes(key)) return { name, key };
  const other = CONFIG_FILE_NAMES.find((k) => keys.includes(k));
  if (user.configMapKey === undefined && other !== undefined) {
    addWarning(scope, `userConfig: the ConfigMap '${name}' has no key ${key}, the config file of this server release; the server reads its ${other}. `
      + `Set userConfig.configMapKey to ${other} to say so, or rename the key.`);
    return { name, key: other };
  }
  problems.add(user.configMapKey === undefined ? 'userConfig.configMapName' : 'userConfig.configMapKey', `the ConfigMap '${name}' has no key ${key} `
    + `(its keys: ${keys.join(', ') || 'none'}): the server would not find its config. Set userConfig.configMapKey to the key holding the config.`);
  return { name, key };
}
