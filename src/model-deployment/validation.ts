// Synth-time validation of the unified spec: the shape of every field, and the core rules of
// seed 003 §8 ("Schema validation (core webhook)") with exactly its messages. Provider
// compatibility (the second table of §8) is each provider's `checkCompatibility`.
import { INT64_SAFE_MAX, isRecord, joinPath, ShapeChecker } from '../checks';
import { Problem, ProblemCollector } from '../errors';
import { imageReferenceProblem } from '../image-reference';
import { checkReferences, ReferenceField } from '../object-reference';
import { checkEnvVars } from '../pod-spec-checks';
import { engineOptionWarnings, flagsOwnedBySpec } from './engine-flags';
import { ENGINE_TYPES, EngineType, MODEL_SOURCES, SERVING_MODES } from './types';
import { qualifiedName } from '../schema/kubernetes/names';

/** The result of validating a spec: blocking problems and non-blocking warnings. */
export interface SpecValidation {
  /** Problems that fail synth; fields are paths in the spec (`engine.contextLength`). */
  readonly problems: readonly Problem[];
  /** Webhook-style warnings (they never fail synth). */
  readonly warnings: readonly string[];
}

/** The messages of the core rules, the same for every provider (the webhook's rules in kubeairunway). */
export const CORE_MESSAGES = {
  engineRequiresGpu: (engine: EngineType): string => ({
    vllm: 'vLLM engine requires GPU (set resources.gpu.count > 0)',
    sglang: 'SGLang engine requires GPU (set resources.gpu.count > 0)',
    trtllm: 'TensorRT-LLM engine requires GPU (set resources.gpu.count > 0)',
    llamacpp: '',
  })[engine],
  gpuWithDisaggregated: 'Cannot specify both resources.gpu and scaling.prefill/decode',
  disaggregatedNeedsRoles: 'Disaggregated mode requires scaling.prefill and scaling.decode',
  disaggregatedNeedsPrefillGpu: 'Disaggregated mode requires scaling.prefill.gpu.count',
  disaggregatedNeedsDecodeGpu: 'Disaggregated mode requires scaling.decode.gpu.count',
  engineTypeRequired: 'engine.type is required',
  modelIdRequired: 'model.id is required when source is huggingface',
  servedNameIgnored: 'servedName is ignored for custom source',
  crdNotInstalled: (provider: string): string => `Provider '${provider}' CRD not installed in cluster`,
} as const;

const SPEC_FIELDS = ['model', 'provider', 'engine', 'serving', 'scaling', 'resources', 'image', 'env',
  'podTemplate', 'secrets', 'nodeSelector', 'tolerations', 'imagePullSecrets', 'serviceAccountName'] as const;
const GPU_ENGINES: readonly EngineType[] = ['vllm', 'sglang', 'trtllm'];
const HUGGING_FACE_ID = /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/;
const PROVIDER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * The objects the model's pods refer to, each with its field and kind: their names are checked with
 * the spec, their namespaces by the construct. Read from a spec whose shapes are not checked yet (a
 * field of the wrong type is no reference).
 */
export function referencesOf(spec: Record<string, any>): ReferenceField[] {
  return [
    [isRecord(spec.secrets) ? spec.secrets.huggingFaceToken : undefined, 'secrets.huggingFaceToken', 'a Secret'],
    ...(Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : []).map((s, i): ReferenceField => [s, `imagePullSecrets[${i}]`, 'a Secret']),
    [spec.serviceAccountName, 'serviceAccountName', 'a ServiceAccount'],
  ];
}

/**
 * Validates a ModelDeployment spec from untrusted input (props or a document's `spec`), reporting
 * every problem at once. Field paths are relative to the spec: `engine.type`, not `spec.engine.type`.
 */
export function validateModelDeploymentSpec(spec: unknown): SpecValidation {
  const problems = new ProblemCollector();
  const warnings: string[] = [];
  const check = new ShapeChecker(problems);
  if (!isRecord(spec)) {
    problems.add('', 'the spec must be a map with model and engine');
    return { problems: problems.problems, warnings };
  }
  check.object(spec, '', SPEC_FIELDS);

  // model
  const model = spec.model === undefined ? undefined : check.object(spec.model, 'model', ['id', 'servedName', 'source']);
  if (spec.model === undefined) problems.add('model', 'model is required');
  const source = check.enumeration(model?.source, 'model.source', MODEL_SOURCES) ?? (model?.source === undefined ? 'huggingface' : undefined);
  const modelId = check.string(model?.id, 'model.id');
  if (modelId !== undefined && source === 'huggingface' && !HUGGING_FACE_ID.test(modelId)) {
    problems.add('model.id', `${JSON.stringify(modelId)} is not a Hugging Face model id such as "meta-llama/Llama-3.1-8B-Instruct"`);
  }
  if (model && model.id === undefined && source === 'huggingface') {
    problems.add('model.id', CORE_MESSAGES.modelIdRequired);
  }
  const servedName = check.string(model?.servedName, 'model.servedName', { pattern: /^\S+$/, patternHint: 'a name without whitespace' });
  if (servedName !== undefined && source === 'custom') warnings.push(CORE_MESSAGES.servedNameIgnored);

  // provider
  const provider = check.object(spec.provider, 'provider', ['name', 'overrides']);
  check.string(provider?.name, 'provider.name', { pattern: PROVIDER_NAME, patternHint: 'a provider name such as "kaito", "dynamo" or "kuberay"' });
  if (provider?.overrides !== undefined && !isRecord(provider.overrides)) {
    problems.add('provider.overrides', 'expected a map of provider-specific settings');
  }

  // engine
  const engine = spec.engine === undefined ? undefined : check.object(spec.engine, 'engine', ['type', 'contextLength', 'trustRemoteCode', 'args']);
  if (spec.engine === undefined || (engine && engine.type === undefined)) {
    problems.add('engine.type', CORE_MESSAGES.engineTypeRequired);
  }
  const engineType = check.enumeration(engine?.type, 'engine.type', ENGINE_TYPES);
  const contextLength = check.integer(engine?.contextLength, 'engine.contextLength', 1);
  const trustRemoteCode = check.boolean(engine?.trustRemoteCode, 'engine.trustRemoteCode');
  if (engineType) warnings.push(...engineOptionWarnings(engineType, { contextLength, trustRemoteCode }));
  const args = check.stringMap(engine?.args, 'engine.args');
  if (args) {
    const owned = engineType ? flagsOwnedBySpec(engineType) : {};
    for (const key of Object.keys(args)) {
      const message = flagKeyProblem(key, 'engine.args', owned);
      if (message) problems.add(joinPath('engine.args', key), message);
    }
  }

  // serving and scaling
  const serving = check.object(spec.serving, 'serving', ['mode']);
  const mode = check.enumeration(serving?.mode, 'serving.mode', SERVING_MODES) ?? (serving?.mode === undefined ? 'aggregated' : undefined);
  const scaling = check.object(spec.scaling, 'scaling', ['replicas', 'prefill', 'decode']);
  check.integer(scaling?.replicas, 'scaling.replicas');
  const prefill = checkComponent(check, scaling?.prefill, 'scaling.prefill');
  const decode = checkComponent(check, scaling?.decode, 'scaling.decode');

  // resources
  const resources = check.object(spec.resources, 'resources', ['gpu', 'memory', 'cpu']);
  const gpu = checkGpu(check, resources?.gpu, 'resources.gpu');
  check.quantity(resources?.memory, 'resources.memory');
  check.quantity(resources?.cpu, 'resources.cpu');

  // containers and pods
  const image = check.string(spec.image, 'image', { pattern: /^\S+$/, patternHint: 'an image reference without whitespace' });
  const imageProblem = image === undefined ? undefined : imageReferenceProblem(image);
  if (imageProblem !== undefined) {
    check.problems.add('image', `${JSON.stringify(image)} is not an image reference the kubelet accepts (InvalidImageName): ${imageProblem}.`);
  }
  checkEnvVars(check, spec.env, 'env');
  const podTemplate = check.object(spec.podTemplate, 'podTemplate', ['metadata']);
  const podMetadata = check.object(podTemplate?.metadata, 'podTemplate.metadata', ['labels', 'annotations']);
  check.labelMap(podMetadata?.labels, 'podTemplate.metadata.labels', 'label');
  check.labelMap(podMetadata?.annotations, 'podTemplate.metadata.annotations', 'annotation');
  check.object(spec.secrets, 'secrets', ['huggingFaceToken']);
  check.labelMap(spec.nodeSelector, 'nodeSelector', 'label');
  checkTolerations(check, spec.tolerations);
  check.list(spec.imagePullSecrets, 'imagePullSecrets');
  checkReferences(check, referencesOf(spec));

  // Core rules of seed 003 §8, with its messages.
  if (mode === 'aggregated') {
    const gpuCount = gpu?.count ?? (resources?.gpu === undefined ? 0 : undefined);
    if (engineType && GPU_ENGINES.includes(engineType) && gpuCount === 0) {
      problems.add('resources.gpu.count', CORE_MESSAGES.engineRequiresGpu(engineType));
    }
    if (scaling?.prefill !== undefined || scaling?.decode !== undefined) {
      warnings.push('scaling.prefill and scaling.decode are ignored in aggregated mode (set serving.mode: disaggregated to use them)');
    }
  }
  if (mode === 'disaggregated') {
    if (resources?.gpu !== undefined) {
      problems.add('resources.gpu', CORE_MESSAGES.gpuWithDisaggregated);
    }
    if (scaling?.prefill === undefined || scaling?.decode === undefined) {
      problems.add('scaling', CORE_MESSAGES.disaggregatedNeedsRoles);
    }
    if (scaling?.prefill !== undefined && prefill !== undefined && !(prefill.gpuCount! > 0)) {
      problems.add('scaling.prefill.gpu.count', CORE_MESSAGES.disaggregatedNeedsPrefillGpu);
    }
    if (scaling?.decode !== undefined && decode !== undefined && !(decode.gpuCount! > 0)) {
      problems.add('scaling.decode.gpu.count', CORE_MESSAGES.disaggregatedNeedsDecodeGpu);
    }
    if (scaling?.replicas !== undefined) {
      warnings.push('scaling.replicas is ignored in disaggregated mode (set scaling.prefill.replicas and scaling.decode.replicas)');
    }
  }
  return { problems: problems.problems, warnings };
}

function checkGpu(check: ShapeChecker, value: unknown, path: string): { count?: number } | undefined {
  const gpu = check.object(value, path, ['count', 'type']);
  if (!gpu) return undefined;
  if (gpu.count === undefined) check.problems.add(joinPath(path, 'count'), 'count is required');
  const count = check.integer(gpu.count, joinPath(path, 'count'));
  check.string(gpu.type, joinPath(path, 'type'), { pattern: /^([a-z0-9.-]+\/)?[A-Za-z0-9][-A-Za-z0-9_.]*$/, patternHint: 'an extended resource name such as "nvidia.com/gpu"' });
  return { count };
}

function checkComponent(check: ShapeChecker, value: unknown, path: string): { gpuCount?: number } | undefined {
  const component = check.object(value, path, ['replicas', 'gpu', 'memory', 'cpu']);
  if (!component) return undefined;
  check.integer(component.replicas, joinPath(path, 'replicas'));
  const gpu = checkGpu(check, component.gpu, joinPath(path, 'gpu'));
  check.quantity(component.memory, joinPath(path, 'memory'));
  check.quantity(component.cpu, joinPath(path, 'cpu'));
  return { gpuCount: gpu?.count ?? 0 };
}

function checkTolerations(check: ShapeChecker, value: unknown): void {
  const tolerations = check.list(value, 'tolerations');
  if (!tolerations) return;
  tolerations.forEach((item, index) => {
    const path = `tolerations[${index}]`;
    const toleration = check.object(item, path, ['key', 'operator', 'value', 'effect', 'tolerationSeconds']);
    if (!toleration) return;
    const key = check.string(toleration.key, joinPath(path, 'key'), { allowEmpty: true });
    if (key !== undefined && key !== '' && qualifiedName(key).length > 0) {
      check.problems.add(joinPath(path, 'key'), `${JSON.stringify(key)} is not a valid toleration key: a label key such as "nvidia.com/gpu" (optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.')`);
    }
    const operator = check.enumeration(toleration.operator, joinPath(path, 'operator'), ['Exists', 'Equal'] as const);
    check.string(toleration.value, joinPath(path, 'value'), { allowEmpty: true });
    check.enumeration(toleration.effect, joinPath(path, 'effect'), ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const);
    check.integer(toleration.tolerationSeconds, joinPath(path, 'tolerationSeconds'), Number.MIN_SAFE_INTEGER, INT64_SAFE_MAX);
    if (operator === 'Exists' && toleration.value !== undefined && toleration.value !== '') {
      check.problems.add(joinPath(path, 'value'), 'must be empty when operator is Exists');
    }
    if (toleration.key === undefined && operator !== 'Exists') {
      check.problems.add(joinPath(path, 'operator'), 'a toleration without key must use operator Exists');
    }
  });
}

/**
 * What is wrong with `key` as a flag name in the map `where` (`engine.args` or a provider's
 * per-role args), or undefined: leading dashes, characters no flag has, or a flag `owned` by
 * another field (flag → field).
 */
export function flagKeyProblem(key: string, where: string, owned: Readonly<Record<string, string>>): string | undefined {
  if (key.startsWith('-')) {
    return `${where} keys are flag names without leading dashes: write ${JSON.stringify(key.replace(/^-+/, ''))}, not ${JSON.stringify(key)}`;
  }
  if (!FLAG_NAME.test(key)) return `${JSON.stringify(key)} is not a flag name (letters, digits, '-', '_' and '.')`;
  if (owned[key]) return `--${key} is set by ${owned[key]}; set it there instead of in ${where}`;
  return undefined;
}
