// Pieces every built-in provider uses: Kubernetes shapes of the unified fields, and checks.
import { Problem } from '../../errors';
import { EnvVar, EnvVarSource, Toleration } from '../../pod-spec';
import { DEFAULT_GPU_TYPE, ResolvedModelDeployment } from '../resolved-spec';

/**
 * A container environment variable as the generated CRD types take it: they wrap a resource's
 * `divisor` in a class of their own (one per place in the schema), whose JSON is the quantity string.
 */
export interface KubeEnvVar extends Omit<EnvVar, 'valueFrom'> {
  readonly valueFrom?: Omit<EnvVarSource, 'resourceFieldRef'> & {
    readonly resourceFieldRef?: { readonly resource: string; readonly containerName?: string; readonly divisor?: any };
  };
}

/** `env` in Kubernetes form (a copy, so rendered objects never alias user input). */
export function kubeEnv(env: readonly EnvVar[]): KubeEnvVar[] | undefined {
  if (env.length === 0) return undefined;
  return env.map((e) => ({
    name: e.name,
    value: e.value,
    valueFrom: e.valueFrom && {
      secretKeyRef: e.valueFrom.secretKeyRef && { ...e.valueFrom.secretKeyRef },
      configMapKeyRef: e.valueFrom.configMapKeyRef && { ...e.valueFrom.configMapKeyRef },
      fieldRef: e.valueFrom.fieldRef && { ...e.valueFrom.fieldRef },
      resourceFieldRef: e.valueFrom.resourceFieldRef && { ...e.valueFrom.resourceFieldRef },
    },
  }));
}

/** `tolerations` in Kubernetes form, or undefined when there are none. */
export function kubeTolerations(tolerations: readonly Toleration[]): Toleration[] | undefined {
  return tolerations.length === 0 ? undefined : tolerations.map((t) => ({ ...t }));
}

/** A map, or undefined when empty (so empty maps are not rendered). */
export function nonEmpty<T>(map: Readonly<Record<string, T>>): Record<string, T> | undefined {
  return Object.keys(map).length === 0 ? undefined : { ...map };
}

/**
 * Node labels that mark GPU nodes, for providers that select nodes by label (KAITO's
 * `resource.labelSelector`). NVIDIA's GPU feature discovery sets `nvidia.com/gpu.present`;
 * AMD's node labeller sets `feature.node.kubernetes.io/amd-gpu`. Other GPU types have no label we
 * know of, so they add none.
 */
export function gpuNodeLabels(gpuType: string): Record<string, string> {
  switch (gpuType) {
    case DEFAULT_GPU_TYPE:
      return { 'nvidia.com/gpu.present': 'true' };
    case 'amd.com/gpu':
      return { 'feature.node.kubernetes.io/amd-gpu': 'true' };
    default:
      return {};
  }
}

/**
 * Problems for `engine.args` entries that repeat a flag the provider sets itself from the spec
 * (e.g. `model` or `served-model-name`).
 * @param owned flag name (no dashes) → the spec field or provider feature that sets it
 */
export function argsConflicts(deployment: ResolvedModelDeployment, owned: Readonly<Record<string, string>>): Problem[] {
  return Object.keys(deployment.engine.args).filter((key) => owned[key] !== undefined).sort().map((key) => ({
    field: `engine.args.${key}`,
    message: `--${key} is set by ${owned[key]}; remove it from engine.args`,
  }));
}

/** A problem when `name` plus the longest suffix the provider appends exceeds a length limit. */
export function nameLengthProblem(name: string, limit: number, why: string): Problem[] {
  return name.length > limit
    ? [{ field: 'metadata.name', message: `${JSON.stringify(name)} is ${name.length} characters; at most ${limit} are allowed because ${why}` }]
    : [];
}

/**
 * A container `command`/`args` entry that reaches the program exactly as written. Kubernetes
 * expands `$(VAR)` there and turns `$$` into `$` (pkg/kubelet/container `ExpandContainerCommandAndArgs`);
 * doubling every `$` undoes both, so a model id or flag value with `$(...)` is never expanded.
 */
export function literalArg(value: string): string {
  return value.replace(/\$/g, '$$$$');
}

/** The pod's identity and pull credentials (`serviceAccountName`, `imagePullSecrets`), as Kubernetes spells them. */
export interface KubePodIdentity {
  readonly serviceAccountName?: string;
  readonly imagePullSecrets?: { readonly name: string }[];
}

/** `serviceAccountName` and `imagePullSecrets` of the deployment's pods; empty fields are left out. */
export function podIdentity(deployment: ResolvedModelDeployment): KubePodIdentity {
  return {
    serviceAccountName: deployment.serviceAccountName,
    imagePullSecrets: deployment.imagePullSecrets.length > 0 ? deployment.imagePullSecrets.map((name) => ({ name })) : undefined,
  };
}
