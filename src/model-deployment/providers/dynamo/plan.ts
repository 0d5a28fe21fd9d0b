// What a Dynamo deployment consists of — a frontend and its workers, with their commands,
// resources and images — independent of the DynamoGraphDeployment schema version. One transformer
// per schema version (seed 003 §3.12) turns this plan into that version's object.
import { engineFlags } from '../../engine-flags';
import { overrideValue } from '../../overrides';
import { ResolvedComponent, ResolvedGpu, ResolvedModelDeployment } from '../../resolved-spec';
import { EngineType } from '../../types';
import { KubeEnvVar, kubeEnv } from '../common';

/** Engines Dynamo runs (its `backendFramework`). */
export type DynamoBackend = 'vllm' | 'sglang' | 'trtllm';

/** Frontend request routing (`--router-mode`); `none` leaves the flag unset (Dynamo's default). */
export type DynamoRouterMode = 'kv' | 'round-robin' | 'random' | 'none';

/** Port the Dynamo frontend serves the OpenAI API on. */
export const DYNAMO_FRONTEND_PORT = 8000;

/** Defaults of seed 003 §4.15 for the frontend. */
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
  const prefix = workerPrefix(backend);
  const workers: DynamoComponent[] = d.mode === 'disaggregated'
    ? [
      worker(d, `${prefix}PrefillWorker`, image, d.prefill!, 'prefill'),
      worker(d, `${prefix}DecodeWorker`, image, d.decode!, 'decode'),
    ]
    : [worker(d, `${prefix}Worker`, image, { replicas: d.replicas, gpu: d.resources.gpu, memory: d.resources.memory, cpu: d.resources.cpu })];
  return {
    name: d.name,
    backendFramework: backend,
    components: [frontend(d, image), ...workers],
    env: kubeEnv(d.env),
    envFromSecret: d.huggingFaceTokenSecret,
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

function worker(d: ResolvedModelDeployment, key: string, image: string, c: ResolvedComponent, role?: 'prefill' | 'decode'): DynamoComponent {
  return {
    key,
    componentType: 'worker',
    subComponentType: role,
    replicas: c.replicas,
    image,
    command: ['python3', '-m', `dynamo.${d.engine.type}`],
    args: workerArgs(d, c.gpu.count, role),
    cpu: c.cpu,
    memory: c.memory,
    gpu: c.gpu.count > 0 ? c.gpu : undefined,
  };
}

/**
 * Worker flags: the model, the served name, the disaggregation role, tensor parallelism across the
 * pod's GPUs (unless `engine.args` sets it), then the engine options of seed 003 §15.
 */
export function workerArgs(d: ResolvedModelDeployment, gpus: number, role?: 'prefill' | 'decode'): string[] {
  const engine = d.engine.type;
  const args: string[] = [];
  if (d.model.id !== undefined) args.push(engine === 'vllm' ? '--model' : '--model-path', d.model.id);
  if (d.model.servedName !== undefined) args.push('--served-model-name', d.model.servedName);
  if (role) args.push('--disaggregation-mode', role);
  const tpFlag = TENSOR_PARALLEL_FLAG[engine];
  if (gpus > 1 && tpFlag && d.engine.args[tpFlag] === undefined) args.push(`--${tpFlag}`, String(gpus));
  args.push(...engineFlags(engine, d.engine));
  return args;
}

/** The flag that spreads one model over the pod's GPUs. */
const TENSOR_PARALLEL_FLAG: Readonly<Partial<Record<EngineType, string>>> = {
  vllm: 'tensor-parallel-size',
  sglang: 'tp-size',
  trtllm: 'tensor-parallel-size',
};

/** Flags the worker command sets itself, by engine: `engine.args` must not repeat them. */
export function dynamoOwnedFlags(engine: EngineType): Record<string, string> {
  return {
    [engine === 'vllm' ? 'model' : 'model-path']: 'model.id',
    'served-model-name': 'model.servedName',
    'disaggregation-mode': 'serving.mode',
  };
}

function workerPrefix(backend: DynamoBackend): string {
  return { vllm: 'Vllm', sglang: 'Sglang', trtllm: 'Trtllm' }[backend];
}
