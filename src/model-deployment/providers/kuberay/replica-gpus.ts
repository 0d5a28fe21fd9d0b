// The GPUs a Ray Serve LLM replica reserves against the GPUs its worker pods bring. Each replica reserves a
// placement group of tensor_parallel_size × pipeline_parallel_size GPU bundles (Ray 2.60.0,
// python/ray/llm/_internal/serve/engines/vllm/vllm_models.py `VLLMEngineConfig.num_devices` and
// `placement_bundles`), and the RayService runs one worker pod per replica with the role's GPU count
// (ray-service.ts). When `engine.args` sets the parallel sizes, the two can part: more GPUs per replica than a
// worker brings leaves replicas waiting for GPUs the cluster never has (the Serve application stays
// DEPLOYING and the RayService never becomes Ready); fewer leaves GPUs idle.
import { engineArgName } from './engine-args';
import { Problem } from '../../../errors';
import { typedArgValue } from '../../engine-flags';
import { ResolvedComponent, ResolvedModelDeployment } from '../../resolved-spec';

/** The engine arguments whose product is the GPUs of one replica, as vLLM names them. */
const PARALLEL_ARGS = ['tensor_parallel_size', 'pipeline_parallel_size'] as const;

interface Role { readonly field: string; readonly what: string; readonly component: ResolvedComponent }

/** The worker roles of a deployment, with the field that sets each one's GPUs. */
function roles(d: ResolvedModelDeployment): Role[] {
  if (d.mode === 'disaggregated') {
    return (['prefill', 'decode'] as const).map((role) => ({ field: `scaling.${role}.gpu.count`, what: `a ${role} worker`, component: d[role]! }));
  }
  return [{ field: 'resources.gpu.count', what: 'a worker', component: { replicas: d.replicas, gpu: d.resources.gpu } }];
}

/** `engine.args` keys setting a parallel size (either spelling), with the value as Ray receives it. */
function parallelArgs(d: ResolvedModelDeployment): { key: string; value: unknown }[] {
  return Object.keys(d.engine.args).sort()
    .filter((key) => (PARALLEL_ARGS as readonly string[]).includes(engineArgName(key)))
    .map((key) => ({ key, value: typedArgValue(d.engine.args[key]) }));
}

/** The GPUs one replica of a role reserves (the parallel sizes given are positive integers). */
function replicaGpus(d: ResolvedModelDeployment, role: Role): number {
  const given = parallelArgs(d);
  const size = (name: string) => given.find(({ key }) => engineArgName(key) === name)?.value as number | undefined;
  // Without tensor_parallel_size, serve-config.ts sets it to the worker's GPUs.
  return (size('tensor_parallel_size') ?? Math.max(1, role.component.gpu.count)) * (size('pipeline_parallel_size') ?? 1);
}

function sizesText(d: ResolvedModelDeployment): string {
  return parallelArgs(d).map(({ key }) => `engine.args.${key}`).join(' × ');
}

/** Parallel sizes that are not positive integers, and replicas that need more GPUs than their worker brings. */
export function replicaGpuProblems(d: ResolvedModelDeployment): Problem[] {
  const given = parallelArgs(d);
  if (given.length === 0) return [];
  const invalid = given.filter(({ value }) => !Number.isSafeInteger(value) || (value as number) < 1);
  if (invalid.length > 0) {
    return invalid.map(({ key }) => ({ field: `engine.args.${key}`, message: `${JSON.stringify(d.engine.args[key])} is not a positive whole number of GPUs` }));
  }
  return roles(d).flatMap((role) => {
    const needed = replicaGpus(d, role);
    const brought = role.component.gpu.count;
    return needed > brought
      ? [{
        field: `engine.args.${given[0].key}`,
        message: `${sizesText(d)} makes each Ray Serve replica reserve ${needed} GPUs, but ${role.what} brings ${brought} (${role.field}): `
          + `the replicas would wait for GPUs the Ray cluster never has; set ${role.field} to ${needed}, or lower the parallel sizes`,
      }]
      : [];
  });
}

/** Replicas that leave some of their worker's GPUs idle. */
export function replicaGpuWarnings(d: ResolvedModelDeployment): string[] {
  if (parallelArgs(d).length === 0 || replicaGpuProblems(d).length > 0) return [];
  return roles(d).flatMap((role) => {
    const needed = replicaGpus(d, role);
    const brought = role.component.gpu.count;
    return needed < brought
      ? [`${sizesText(d)} makes each Ray Serve replica use ${needed} GPUs, but ${role.what} brings ${brought} (${role.field}): `
        + `${(brought - needed) * role.component.replicas} GPUs stay idle; set ${role.field} to ${needed}`]
      : [];
  });
}
