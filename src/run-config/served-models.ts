import { isRecord } from '../checks';
import { RunConfigError } from './errors';
import { describe } from './fields';
import { providerIdProblem } from './provider-id';
import { ServerRelease } from './releases';

/**
 * A model served over an OpenAI-compatible API in the cluster (a `ModelDeployment`'s vLLM, SGLang,
 * TensorRT-LLM, llama.cpp or Ray Serve LLM), which the server reaches through its built-in
 * `remote::vllm` provider and registers as a model.
 */
export interface ServedModel {
  /** The `provider_id` of its `remote::vllm` entry in `providers.inference`. */
  readonly providerId: string;
  /** The base URL of the OpenAI-compatible API, with its `/v1` (the provider appends `/models`, `/chat/completions`). */
  readonly url: string;
  /** The model's name on that server: what its `GET /v1/models` lists. */
  readonly model: string;
}

/**
 * The provider type every served model goes through. Its adapter speaks plain OpenAI
 * (`/models`, `/chat/completions`, `/completions`, `/embeddings` under the URL: `OpenAIMixin`,
 * `providers/utils/inference/openai_mixin.py`), which every engine a ModelDeployment renders serves;
 * its vLLM-only calls (`/health`, `/rerank`) are made only when those APIs are asked for.
 * `remote::openai` would need an API key and, from ogx 1.1, renames `max_tokens` to
 * `max_completion_tokens`, which not every engine reads.
 */
export const SERVED_MODEL_PROVIDER_TYPE = 'remote::vllm';

/**
 * The `providers.inference` entry of a served model, for the release: its URL under the key the
 * release reads (`url` up to llama-stack 0.3, `base_url` from 0.4). `api_token` is the distributions'
 * own default (`${env.VLLM_API_TOKEN:=fake}`): with no token, llama-stack 0.3 to 0.5 ask the server
 * for the model at start-up and refuse to start while it is still loading; with one, they register it
 * and the server answers once the model is up.
 */
export function servedModelProviderEntry(model: ServedModel, release: ServerRelease): Record<string, unknown> {
  return {
    provider_id: model.providerId,
    provider_type: SERVED_MODEL_PROVIDER_TYPE,
    config: { [release.remoteVllmUrlKey]: model.url, api_token: 'fake' },
  };
}

/**
 * The model's registration (`ModelInput`, `<package>/apis/models` or `<api package>/models`): the
 * server knows it as `<providerId>/<model>` in every release (`core/routing_tables/models.py`).
 */
export function servedModelRegistration(model: ServedModel): Record<string, unknown> {
  return { model_id: model.model, provider_id: model.providerId, provider_model_id: model.model, model_type: 'llm', metadata: {} };
}

/** The id the server lists a served model under: `<providerId>/<model>`. */
export function servedModelId(model: ServedModel): string {
  return `${model.providerId}/${model.model}`;
}

/** The server's `${env.…}` substitution, applied to every string of the config: a URL or name holding one would change. */
const ENV_REFERENCE = /\$\{env\./;

/**
 * The problems of a list of served models, as `[index, field, message]`: a provider id llama-stack
 * cannot use or given twice, a URL that is not `http(s)://host…`, an empty model name.
 */
export function servedModelProblems(models: readonly ServedModel[]): Array<[number, keyof ServedModel, string]> {
  const problems: Array<[number, keyof ServedModel, string]> = [];
  const seen = new Map<string, number>();
  models.forEach((m, i) => {
    const idProblem = providerIdProblem(m.providerId);
    if (idProblem !== undefined) problems.push([i, 'providerId', idProblem]);
    const first = seen.get(m.providerId);
    if (first !== undefined) problems.push([i, 'providerId', `'${m.providerId}' is the provider id of models[${first}] too: give each model a providerId of its own.`]);
    seen.set(m.providerId, i);
    if (!/^https?:\/\/[^\s/?#]+[^\s]*$/.test(m.url) || ENV_REFERENCE.test(m.url)) {
      problems.push([i, 'url', `${JSON.stringify(m.url)} is not an http:// or https:// URL (the OpenAI-compatible base URL, e.g. http://llama-8b-frontend.models.svc.cluster.local:8000/v1).`]);
    }
    if (m.model.trim() === '' || /[\n\r]/.test(m.model) || ENV_REFERENCE.test(m.model)) {
      problems.push([i, 'model', `${JSON.stringify(m.model)} is not a model name (one line, no \${env.…}, which the server would replace): `
        + 'give the name the model server lists in GET /v1/models.']);
    }
  });
  return problems;
}

/**
 * Reads the served models given to `merge-config --served-models` (a JSON list of
 * `{providerId, url, model}`), refusing anything else with the field named.
 *
 * @throws RunConfigError naming the field
 */
export function parseServedModels(json: string): ServedModel[] {
  const fail = (detail: string): never => {
    throw new RunConfigError([{
      title: 'Invalid --served-models',
      details: [detail],
      resolution: 'Give a JSON list of {"providerId", "url", "model"} objects, as the construct renders it.',
    }]);
  };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    return fail(`not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(value)) return fail(`expected a list, found ${describe(value)}.`);
  const models = value.map((item, i): ServedModel => {
    if (!isRecord(item)) return fail(`[${i}]: expected an object, found ${describe(item)}.`);
    const unknown = Object.keys(item).filter((k) => !['providerId', 'url', 'model'].includes(k));
    if (unknown.length > 0) fail(`[${i}]: unknown field ${unknown.join(', ')}.`);
    for (const key of ['providerId', 'url', 'model'] as const) {
      if (typeof item[key] !== 'string') fail(`[${i}].${key}: expected a string, found ${describe(item[key])}.`);
    }
    return { providerId: item.providerId as string, url: item.url as string, model: item.model as string };
  });
  const problems = servedModelProblems(models);
  if (problems.length > 0) fail(problems.map(([i, field, message]) => `[${i}].${field}: ${message}`).join('\n'));
  return models;
}
