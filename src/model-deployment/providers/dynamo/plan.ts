// What a Dynamo deployment consists of — a frontend and its workers, with their commands,
// resources, images and configuration files — independent of the DynamoGraphDeployment schema
// version. One transformer per schema version turns this plan into that version's object.
import { engineFlags } from '../../engine-flags';
import { overrideValue } from '../../overrides';
import { ResolvedComponent, ResolvedGpu, ResolvedModelDeployment } from '../../resolved-spec';
import { EngineType } from '../../types';
import { KubeEnvVar, kubeEnv } from '../common';
import { DynamoRole, roleArgs, trtllmEngineConfigYaml } from './roles';
import { disaggregationFlags, kvEventFlags, TRTLLM_ENGINE_CONFIG_DIR } from './worker-flags';

/** Engines Dynamo runs (its `backendFramework`). */
export type DynamoBackend = 'vllm' | 'sglang' | 'trtllm';

/** Frontend request routing (`--router-mode`); `none` leaves the flag unset (Dynamo's default). */
export type DynamoRouterMode = 'kv' | 'round-robin' | 'random' | 'none';

/** Port the Dynamo frontend serves the OpenAI API on. */
export const DYNAMO_FRONTEND_PORT = 8000;

/** Frontend defaults: one small pod, round-robin routing. */
export const DYNAMO_FRONTEND_DEFAULTS = { replicas: 1, cpu: '2', memory: '4Gi', routerMode: 'round-robin' as DynamoRouterMode };

/** The runtime image name per engine, as NVIDIA publishes them (`nvcr.io/nvidia/ai-dynamo/<name>:<version>`). */
export const DYNAMO_RUNTIME_IMAGES: Readonly<Record<DynamoBackend, string>> = {
  vllm: 'vllm-runtime',
  sglang: 'sglang-runtime',
  trtllm: 'tensorrtllm-runtime',
};

/** One service of the graph. */
export interface DynamoComponent {
  /** Service key, e.g. `Frontend`, `VllmWorker`, `VllmPrefillWorker`. */
  readonly key: string;
  /** `frontend` or `worker`. */
  readonly componentType: 'frontend' | 'worker';
  /** `prefill` or `decode` in disaggregated mode. */
  readonly subComponentType?: 'prefill' | 'decode';
  /** Pods. */
  readonly replicas: number;
  /** Container image. */
  readonly image: string;
  /** Container command (exec form: no shell, so no value is ever interpreted by one). */
  readonly command: readonly string[];
  /** Container arguments. */
  readonly args: readonly string[];
  /** CPU request. */
  readonly cpu?: string;
  /** Memory request (and limit). */
  readonly memory?: string;
  /** GPUs per pod. */
  readonly gpu?: ResolvedGpu;
  /** A ConfigMap of the plan mounted (read-only, whole) into the main container. */
  readonly configMount?: DynamoConfigMount;
}

/** A ConfigMap mounted into a component's main container. */
export interface DynamoConfigMount {
  /** ConfigMap name (one of {@link DynamoPlan.configMaps}). */
  readonly configMap: string;
  /** Directory its keys appear in as files. */
  readonly mountPath: string;
}

/** A ConfigMap the plan needs beside the DynamoGraphDeployment. */
export interface DynamoConfigMap {
  /** Its name. */
  readonly name: string;
  /** File name → content. */
  readonly data: Readonly<Record<string, string>>;
}

/** A Dynamo deployment, schema-version independent. */
export interface DynamoPlan {
  /** DGD name, also the Dynamo namespace. */
  readonly name: string;
  /** Engine. */
  readonly backendFramework: DynamoBackend;
  /** Frontend first, then workers. */
  readonly components: readonly DynamoComponent[];
  /** Environment of every component. */
  readonly env?: KubeEnvVar[];
  /** Secret whose keys become environment variables of every component. */
  readonly envFromSecret?: string;
  /** ConfigMaps the components mount (TensorRT-LLM's per-role engine configuration). */
  readonly configMaps: readonly DynamoConfigMap[];
  /** The Dynamo release of the images, for operators that cannot read it from their tag (`provider.overrides.runtimeVersionOverride`). */
  readonly runtimeVersionOverride?: string;
}

/** Options that shape the plan. */
export interface DynamoPlanOptions {
  /** Dynamo release for the default images. */
  readonly version: string;
}

/** Builds the plan for a validated, Dynamo-compatible deployment. */
export function planDynamo(d: ResolvedModelDeployment, options: DynamoPlanOptions): DynamoPlan {
  const backend = d.engine.type as DynamoBackend;
  const image = d.image ?? `nvcr.io/nvidia/ai-dynamo/${DYNAMO_RUNTIME_IMAGES[backend]}:${options.version}`;
  const [prefill, decode, aggregated] = workerKeys(backend);
  // The release the workers run: the override names it for a user image, else the default images'.
  const runtimeVersionOverride = overrideValue(d.overrides, ['runtimeVersionOverride']) as string | undefined;
  const release = runtimeVersionOverride ?? options.version;
  const engineConfig = backend === 'trtllm' && d.mode === 'disaggregated' ? trtllmEngineConfigMap(d) : undefined;
  const mount = engineConfig ? { configMap: engineConfig.name, mountPath: TRTLLM_ENGINE_CONFIG_DIR } : undefined;
  const workers: DynamoComponent[] = d.mode === 'disaggregated'
    ? [
      worker(d, prefill, image, release, d.prefill!, 'prefill', mount),
      worker(d, decode, image, release, d.decode!, 'decode', mount),
    ]
    : [worker(d, aggregated, image, release, { replicas: d.replicas, gpu: d.resources.gpu, memory: d.resources.memory, cpu: d.resources.cpu }, 'aggregated')];
  return {
    name: d.name,
    backendFramework: backend,
    components: [frontend(d, image), ...workers],
    env: kubeEnv(d.env),
    envFromSecret: d.huggingFaceTokenSecret,
    configMaps: engineConfig ? [engineConfig] : [],
    runtimeVersionOverride,
  };
}

/** TensorRT-LLM's disaggregated workers read their engine settings from one file per role. */
function trtllmEngineConfigMap(d: ResolvedModelDeployment): DynamoConfigMap {
  return {
    name: `${d.name}-engine-config`,
    data: { 'prefill.yaml': trtllmEngineConfigYaml(d, 'prefill'), 'decode.yaml': trtllmEngineConfigYaml(d, 'decode') },
  };
}

/** The router mode from `provider.overrides.routerMode`, defaulted. */
export function routerMode(d: ResolvedModelDeployment): DynamoRouterMode {
  return (overrideValue(d.overrides, ['routerMode']) as DynamoRouterMode | undefined) ?? DYNAMO_FRONTEND_DEFAULTS.routerMode;
}

function frontend(d: ResolvedModelDeployment, image: string): DynamoComponent {
  const mode = routerMode(d);
  return {
    key: 'Frontend',
    componentType: 'frontend',
    replicas: (overrideValue(d.overrides, ['frontend', 'replicas']) as number | undefined) ?? DYNAMO_FRONTEND_DEFAULTS.replicas,
    image,
    command: ['python3', '-m', 'dynamo.frontend'],
    // The router mode is a frontend argument: the DGD schema has no field for it.
    args: ['--http-port', String(DYNAMO_FRONTEND_PORT), ...(mode === 'none' ? [] : ['--router-mode', mode])],
    cpu: (overrideValue(d.overrides, ['frontend', 'resources', 'cpu']) as string | undefined) ?? DYNAMO_FRONTEND_DEFAULTS.cpu,
    memory: (overrideValue(d.overrides, ['frontend', 'resources', 'memory']) as string | undefined) ?? DYNAMO_FRONTEND_DEFAULTS.memory,
  };
}

function worker(
  d: ResolvedModelDeployment, key: string, image: string, release: string, c: ResolvedComponent, role: DynamoRole, configMount?: DynamoConfigMount,
): DynamoComponent {
  return {
    key,
    componentType: 'worker',
    subComponentType: role === 'aggregated' ? undefined : role,
    replicas: c.replicas,
    image,
    command: ['python3', '-m', `dynamo.${d.engine.type}`],
    args: workerArgs(d, c.gpu.count, role, release),
    cpu: c.cpu,
    memory: c.memory,
    gpu: c.gpu.count > 0 ? c.gpu : undefined,
    configMount,
  };
}

/**
 * Worker flags: the model, the served name, the disaggregation role, tensor parallelism across the
 * pod's GPUs (unless the user sets it), then the context length and trust-remote-code, then in
 * sorted order the role's transfer flags and, for `routerMode: kv`, the KV event flags of the workers'
 * Dynamo release — each
 * replaced by the same flag in `engine.args` — and the role's own `args`, which win over both.
 */
export function workerArgs(d: ResolvedModelDeployment, gpus: number, role: DynamoRole, release: string): string[] {
  const engine = d.engine.type;
  const args: string[] = [];
  if (d.model.id !== undefined) args.push(engine === 'vllm' ? '--model' : '--model-path', d.model.id);
  if (d.model.servedName !== undefined) args.push('--served-model-name', d.model.servedName);
  if (role !== 'aggregated') args.push('--disaggregation-mode', role);
  const flags: Record<string, string> = {
    ...disaggregationFlags(engine, role),
    ...(routerMode(d) === 'kv' ? kvEventFlags(engine, role, release) : {}),
    ...d.engine.args,
    ...roleArgs(d, role),
  };
  const tpFlag = TENSOR_PARALLEL_FLAG[engine];
  if (gpus > 1 && tpFlag && flags[tpFlag] === undefined) args.push(`--${tpFlag}`, String(gpus));
  args.push(...engineFlags(engine, { ...d.engine, args: flags }));
  return args;
}

/** The flag that spreads one model over the pod's GPUs. */
const TENSOR_PARALLEL_FLAG: Readonly<Partial<Record<EngineType, string>>> = {
  vllm: 'tensor-parallel-size',
  sglang: 'tp-size',
  trtllm: 'tensor-parallel-size',
};

/**
 * Flags the worker command sets itself, by engine and serving mode: `engine.args` and role args
 * must not repeat them (flag → the field that sets it).
 */
export function dynamoOwnedFlags(engine: EngineType, mode: ResolvedModelDeployment['mode'] = 'aggregated'): Record<string, string> {
  return {
    [engine === 'vllm' ? 'model' : 'model-path']: 'model.id',
    'served-model-name': 'model.servedName',
    'disaggregation-mode': 'serving.mode',
    // TensorRT-LLM's disaggregated workers read the engine configuration this provider renders.
    ...(engine === 'trtllm' && mode === 'disaggregated'
      ? { 'extra-engine-args': 'provider.overrides.<role>.engineConfig' }
      : {}),
  };
}

/** The service keys of a deployment: the frontend, then its workers. */
export function dynamoServiceKeys(backend: DynamoBackend, mode: ResolvedModelDeployment['mode']): string[] {
  const [prefill, decode, aggregated] = workerKeys(backend);
  return ['Frontend', ...(mode === 'disaggregated' ? [prefill, decode] : [aggregated])];
}

/** Prefill, decode and aggregated worker keys, as upstream's examples name them. */
function workerKeys(backend: DynamoBackend): [string, string, string] {
  const prefix = { vllm: 'Vllm', sglang: 'Sglang', trtllm: 'Trtllm' }[backend];
  return [`${prefix}PrefillWorker`, `${prefix}DecodeWorker`, `${prefix}Worker`];
}
