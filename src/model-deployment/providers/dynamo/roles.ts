// Per-role settings of Dynamo workers from `provider.overrides`: extra flags for the prefill and
// decode workers (`<role>.args`) and, for TensorRT-LLM, the role's engine configuration
// (`<role>.engineConfig`), which Dynamo's TensorRT-LLM worker reads from the YAML file named by
// `--extra-engine-args` (upstream examples/backends/trtllm/deploy/disagg.yaml and engine_configs/).
import { Problem } from '../../../errors';
import { renderYaml } from '../../../run-config/render';
import { typedArgValue } from '../../engine-flags';
import { overrideValue } from '../../overrides';
import { ResolvedModelDeployment } from '../../resolved-spec';
import { flagKeyProblem } from '../../validation';

/** What a worker does: everything, or one side of disaggregated serving. */
export type DynamoRole = 'aggregated' | 'prefill' | 'decode';

/** The roles of disaggregated workers, the keys of their overrides. */
export const DISAGGREGATED_ROLES = ['prefill', 'decode'] as const;

/**
 * Engine settings TensorRT-LLM's disaggregated workers cannot start without: the cache
 * transceiver that moves the KV cache between them, and (prefill) no overlap scheduler, which
 * prefill-only workers do not support (upstream engine_configs/*\/prefill.yaml, decode.yaml).
 */
const TRTLLM_ROLE_ENGINE_CONFIG: Readonly<Record<'prefill' | 'decode', Readonly<Record<string, string>>>> = {
  prefill: { 'cache_transceiver_config.backend': 'DEFAULT', 'disable_overlap_scheduler': 'true' },
  decode: { 'cache_transceiver_config.backend': 'DEFAULT' },
};

/** A dotted path of engine configuration keys, e.g. `kv_cache_config.free_gpu_memory_fraction`. */
const CONFIG_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** The role's extra worker flags (`provider.overrides.<role>.args`); none for aggregated workers. */
export function roleArgs(d: ResolvedModelDeployment, role: DynamoRole): Readonly<Record<string, string>> {
  if (role === 'aggregated') return {};
  return (overrideValue(d.overrides, [role, 'args']) as Record<string, string> | undefined) ?? {};
}

/**
 * The TensorRT-LLM engine configuration of a disaggregated role: the required settings, then the
 * user's `provider.overrides.<role>.engineConfig` entries (dotted keys nest, values are typed as
 * in `engine.args`: `true`/`false`, numbers, else strings).
 */
export function trtllmEngineConfig(d: ResolvedModelDeployment, role: 'prefill' | 'decode'): Record<string, unknown> {
  const user = userEngineConfig(d, role);
  const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
  // A user entry replaces every required one on the same path, above it or below it.
  const required = Object.entries(TRTLLM_ROLE_ENGINE_CONFIG[role]).filter(([path]) => !Object.keys(user).some((u) => overlaps(path, u)));
  const entries: Record<string, string> = { ...Object.fromEntries(required), ...user };
  const config: Record<string, unknown> = {};
  for (const path of Object.keys(entries).sort()) {
    const keys = path.split('.');
    let node = config;
    for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[keys[keys.length - 1]] = typedArgValue(entries[path]);
  }
  return config;
}

/** The role's engine configuration file, written so PyYAML reads back exactly these values. */
export function trtllmEngineConfigYaml(d: ResolvedModelDeployment, role: 'prefill' | 'decode'): string {
  return renderYaml(trtllmEngineConfig(d, role));
}

/**
 * Problems in the per-role overrides: flag names that are not flags or that the worker command
 * sets itself (`owned`, flag → field), engine configuration paths that are not dotted keys or
 * that are both a value and a parent (`a` and `a.b`), and engine configuration for an engine
 * that has none.
 */
export function roleOverrideProblems(d: ResolvedModelDeployment, owned: Readonly<Record<string, string>>): Problem[] {
  const problems: Problem[] = [];
  for (const role of DISAGGREGATED_ROLES) {
    const where = `provider.overrides.${role}.args`;
    for (const key of Object.keys(roleArgs(d, role))) {
      const message = flagKeyProblem(key, where, owned);
      if (message) problems.push({ field: `${where}.${key}`, message });
    }
    const config = userEngineConfig(d, role);
    const field = `provider.overrides.${role}.engineConfig`;
    if (Object.keys(config).length > 0 && d.engine.type !== 'trtllm') {
      problems.push({ field, message: `engine configuration files are TensorRT-LLM's; for ${d.engine.type} put the options in ${role}.args or engine.args` });
      continue;
    }
    const paths = Object.keys(config);
    for (const path of paths.sort()) {
      if (!CONFIG_PATH.test(path)) {
        problems.push({ field: `${field}.${path}`, message: `${JSON.stringify(path)} is not a dotted path of configuration keys such as "kv_cache_config.free_gpu_memory_fraction"` });
      } else if (paths.some((other) => other.startsWith(`${path}.`))) {
        problems.push({ field: `${field}.${path}`, message: `${JSON.stringify(path)} is both a value and a parent of other keys; set only the nested keys` });
      }
    }
  }
  return problems;
}

function userEngineConfig(d: ResolvedModelDeployment, role: 'prefill' | 'decode'): Readonly<Record<string, string>> {
  return (overrideValue(d.overrides, [role, 'engineConfig']) as Record<string, string> | undefined) ?? {};
}
