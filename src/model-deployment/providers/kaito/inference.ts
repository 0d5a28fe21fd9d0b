// The `inference` section shared by a Workspace and an InferenceSet template: a vLLM preset (with
// its inference ConfigMap) or a llama.cpp pod template, and the node label selector.
import { Problem } from '../../../errors';
import { defineObject } from '../../../kubernetes-objects';
import { engineFlags } from '../../engine-flags';
import { RenderContext } from '../../provider';
import { ResolvedModelDeployment } from '../../resolved-spec';
import { gpuNodeLabels, kubeEnv, kubeTolerations, literalArg, nonEmpty, podIdentity } from '../common';
import { INFERENCE_CONFIG_KEY, inferenceConfigYaml, vllmPresetOptions } from './inference-config';
import { KaitoSettings } from './overrides';

/** Port the inference server listens on: KAITO's vLLM presets and our llama.cpp template. */
export const KAITO_INFERENCE_PORT = 5000;

/** The `inference` of a Workspace (or InferenceSet template), v1beta1 shape. */
export interface KaitoInference {
  readonly preset?: { readonly name: string; readonly presetOptions?: { readonly modelAccessSecret: string } };
  readonly config?: string;
  readonly template?: unknown;
}

/** Node labels the pods need: Linux, the GPU node label when GPUs are requested, then `nodeSelector`. */
export function kaitoMatchLabels(d: ResolvedModelDeployment): Record<string, string> {
  return {
    'kubernetes.io/os': 'linux',
    ...(d.resources.gpu.count > 0 ? gpuNodeLabels(d.resources.gpu.type) : {}),
    ...d.nodeSelector,
  };
}

/** Creates the inference ConfigMap when needed and returns the `inference` section. */
export function renderKaitoInference(context: RenderContext, settings: KaitoSettings): KaitoInference {
  return context.deployment.engine.type === 'vllm' ? presetInference(context) : { template: templateInference(context, settings) };
}

/**
 * vLLM runs from a KAITO preset named by the Hugging Face model id (KAITO manages the image); its
 * options go in the ConfigMap that `inference.config` names.
 */
function presetInference(context: RenderContext): KaitoInference {
  const d = context.deployment;
  const options = vllmPresetOptions(d);
  let config: string | undefined;
  if (options) {
    config = `${d.name}-inference-config`;
    defineObject(context.scope, 'InferenceConfig', 'ConfigMap', {
      metadata: { name: config, namespace: d.namespace, labels: { ...context.commonLabels, 'app.kubernetes.io/component': 'inference-config' } },
      data: { [INFERENCE_CONFIG_KEY]: inferenceConfigYaml(options) },
      immutable: false,
    });
  }
  const token = d.huggingFaceTokenSecret;
  return { preset: { name: d.model.id!, presetOptions: token !== undefined ? { modelAccessSecret: token } : undefined }, config };
}

/**
 * The model argument of the llama.cpp runner (kaito-project/aikit pkg/aikit2llb/inference/runner.go, the
 * image's entrypoint `aikit-runner`): it strips `huggingface://` and downloads the rest with
 * `hf download <repo> --include *.gguf` (every GGUF file of the repository), or an `https://` URL with
 * curl. A file of a repository is therefore its download URL: `huggingface://<owner>/<repo>/<file>` would
 * reach `hf download` as a repository id with two slashes, which huggingface_hub refuses.
 */
export function llamacppModelUrl(d: ResolvedModelDeployment, settings: KaitoSettings): string | undefined {
  if (d.model.source !== 'huggingface' || d.model.id === undefined) return undefined;
  return settings.ggufFile !== undefined ? `https://huggingface.co/${d.model.id}/resolve/main/${settings.ggufFile}` : `huggingface://${d.model.id}`;
}

/**
 * The model name the runner serves: the GGUF file's name without `.gguf` (runner.go writes it as the
 * `name` of LocalAI's model config), known at synth only when `ggufFile` names the file.
 */
export function llamacppServedName(settings: KaitoSettings): string | undefined {
  const file = settings.ggufFile;
  return file === undefined ? undefined : file.slice(file.lastIndexOf('/') + 1).replace(/\.gguf$/i, '');
}

/** Problems of `provider.overrides.ggufFile`. */
export function ggufFileProblems(d: ResolvedModelDeployment, settings: KaitoSettings): Problem[] {
  const file = settings.ggufFile;
  if (file === undefined) return [];
  const field = 'provider.overrides.ggufFile';
  if (d.engine.type !== 'llamacpp' || d.model.source !== 'huggingface') {
    return [{ field, message: 'ggufFile picks a file of a Hugging Face repository for llama.cpp: it needs engine.type llamacpp and model.source huggingface; remove it' }];
  }
  const segments = file.split('/');
  if (!file.toLowerCase().endsWith('.gguf') || segments.some((s) => s === '' || s === '.' || s === '..') || /[\s?#%]/.test(file)) {
    return [{ field, message: `${JSON.stringify(file)} is not a GGUF file path inside the repository: a relative path ending in .gguf, such as "gemma-3-1b-it-q8_0.gguf" (no spaces, '?', '#', '%', empty, '.' or '..' segments)` }];
  }
  const served = llamacppServedName(settings)!;
  if (d.model.servedName !== undefined && d.model.servedName !== served) {
    return [{
      field: 'model.servedName',
      message: `the llama.cpp runner serves ${file} under "${served}" (the file's name without .gguf), and takes no other name: `
        + `remove model.servedName, or set it to "${served}"`,
    }];
  }
  return [];
}

/** llama.cpp runs from a pod template with the user's image (KAITO has no llama.cpp preset). */
function templateInference(context: RenderContext, settings: KaitoSettings): unknown {
  const d = context.deployment;
  const modelUrl = llamacppModelUrl(d, settings);
  if (modelUrl !== undefined && settings.ggufFile === undefined) {
    context.warn(`the LocalAI runner downloads every GGUF file of ${d.model.id} (all quantizations): `
      + 'set provider.overrides.ggufFile to the one file to load');
  }
  // The address goes last: an older runner script reads a flag's value from the next argument even
  // when there is none, so a switch (an empty engine.args value) must not end the list.
  const args = [...(modelUrl !== undefined ? [modelUrl] : []), ...engineFlags('llamacpp', d.engine), `--address=:${KAITO_INFERENCE_PORT}`].map(literalArg);
  const requests = nonEmpty({ ...(d.resources.memory ? { memory: d.resources.memory } : {}), ...(d.resources.cpu ? { cpu: d.resources.cpu } : {}) });
  const limits = d.resources.gpu.count > 0 ? { [d.resources.gpu.type]: String(d.resources.gpu.count) } : undefined;
  const container = {
    name: 'model',
    image: d.image,
    args,
    ports: [{ containerPort: KAITO_INFERENCE_PORT }],
    env: kubeEnv(d.env),
    // Every key of the token Secret becomes an environment variable (the runner reads HF_TOKEN).
    envFrom: d.huggingFaceTokenSecret ? [{ secretRef: { name: d.huggingFaceTokenSecret } }] : undefined,
    resources: requests || limits ? { requests, limits } : undefined,
  };
  return stripUndefined({
    metadata: { labels: nonEmpty(context.podLabels), annotations: nonEmpty(context.podAnnotations) },
    spec: { ...podIdentity(d), containers: [container], tolerations: kubeTolerations(d.tolerations) },
  });
}

/** Drops undefined properties, so pass-through objects (`inference.template`) stay minimal. */
function stripUndefined<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
