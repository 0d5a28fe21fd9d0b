// The GPUs a Ray Serve LLM replica reserves against the GPUs its worker pods bring. Each replica reserves a
// placement group of tensor_parallel_size × pipeline_parallel_size GPU bundles (Ray 2.60.0,
// python/ray/llm/_internal/serve/engines/vllm/vllm_models.py `VLLMEngineConfig.num_devices` and
// `placement_bundles`), and the RayService runs one worker pod per replica with the role's GPU count
// (ray-service.ts). When `engine.args` sets the parallel sizes, the two can part: more GPUs per replica than a
// worker brings leaves replicas waiting for GPUs the cluster never has (the Serve application stays
// DEPLOYING and the RayService never becomes Ready); fewer leaves GPUs idle.
import { engineArgName, engineKwargs } from './engine-args';
import { Problem } from '../../../errors';
import { ResolvedComponent, ResolvedModelDeployment } from '../../resolved-spec';

/** The engine arguments whose product is the GPUs of one replica, as vLLM names them. */
const PARALLEL_ARGS = ['tensor_parallel_size', 'pipeline_parallel_size'] as const;

interface Role { readonly field: string; readonly what: string; readonly component: ResolvedComponent }

/** An `engine.args` key setting a parallel size, with the value serveConfigV2 carries for it. */
interface ParallelArg { readonly key: string; readonly value: unknown }

/** The worker roles of a deployment, with the field that sets each one's GPUs. */
function roles(d: ResolvedModelDeployment): Role[] {
  if (d.mode === 'disaggregated') {
    return (['prefill', 'decode'] as const).map((role) => ({ field: `scaling.${role}.gpu.count`, what: `a ${role} worker`, component: d[role]! }));
  }
  return [{ field: 'resources.gpu.count', what: 'a worker', component: { replicas: d.replicas, gpu: d.resources.gpu } }];
}

/**
 * `engine.args` keys setting a parallel size (either spelling), with the value serve-config.ts writes into
 * engine_kwargs ({@link engineKwargs}): where the vLLM is known (`vllmArgsKnown`), as its CLI types the flag
 * (`"1_000"` is 1000); elsewhere guessed from the text. A text that CLI refuses stays text, and is refused at
 * synth by engine-args.ts under the same field.
 */
function parallelArgs(d: ResolvedModelDeployment, vllmArgsKnown: boolean): ParallelArg[] {
  const kwargs = engineKwargs(d.engine.args, vllmArgsKnown);
  return Object.keys(d.engine.args).sort()
    .filter((key) => (PARALLEL_ARGS as readonly string[]).includes(engineArgName(key)))
    .map((key) => ({ key, value: kwargs[engineArgName(key)] }));
}

/** The GPUs one replica of a role reserves (the parallel sizes given are positive integers). */
function replicaGpus(given: readonly ParallelArg[], role: Role): number {
  const size = (name: string) => given.find(({ key }) => engineArgName(key) === name)?.value as number | undefined;
  // Without tensor_parallel_size, serve-config.ts sets it to the worker's GPUs.
  return (size('tensor_parallel_size') ?? Math.max(1, role.component.gpu.count)) * (size('pipeline_parallel_size') ?? 1);
}

function sizesText(given: readonly ParallelArg[]): string {
  return given.map(({ key }) => `engine.args.${key}`).join(' × ');
}

/**
 * Parallel sizes that are not positive integers, and replicas that need more GPUs than their worker brings.
 * `vllmArgsKnown`: as serve-config.ts takes it (engine-args.ts `vllmArgsKnown`).
 */
export function replicaGpuProblems(d: ResolvedModelDeployment, vllmArgsKnown: boolean): Problem[] {
  const given = parallelArgs(d, vllmArgsKnown);
  if (given.length === 0) return [];
  const invalid = given.filter(({ value }) => !Number.isSafeInteger(value) || (value as number) < 1);
  if (invalid.length > 0) {
    return invalid.map(({ key }) => ({ field: `engine.args.${key}`, message: `${JSON.stringify(d.engine.args[key])} is not a positive whole number of GPUs` }));
  }
  return roles(d).flatMap((role) => {
    const needed = replicaGpus(given, role);
    const brought = role.component.gpu.count;
    return needed > brought
      ? [{
        field: `engine.args.${given[0].key}`,
        message: `${sizesText(given)} makes each Ray Serve replica reserve ${needed} GPUs, but ${role.what} brings ${brought} (${role.field}): `
          + `the replicas would wait for GPUs the Ray cluster never has; set ${role.field} to ${needed}, or lower the parallel sizes`,
      }]
      : [];
  });
}

/** Replicas that leave some of their worker's GPUs idle. */
export function replicaGpuWarnings(d: ResolvedModelDeployment, vllmArgsKnown: boolean): string[] {
  const given = parallelArgs(d, vllmArgsKnown);
  if (given.length === 0 || replicaGpuProblems(d, vllmArgsKnown).length > 0) return [];
  return roles(d).flatMap((role) => {
    const needed = replicaGpus(given, role);
    const brought = role.component.gpu.count;
    return needed < brought
      ? [`${sizesText(given)} makes each Ray Serve replica use ${needed} GPUs, but ${role.what} brings ${brought} (${role.field}): `
        + `${(brought - needed) * role.component.replicas} GPUs stay idle; set ${role.field} to ${needed}`]
      : [];
  });
}
