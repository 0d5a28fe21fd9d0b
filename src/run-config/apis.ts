/**
 * Every Llama Stack API an external provider can serve in some llama-stack release this library
 * knows, and the `externalProviders` section its providers are placed under. Which of them a given
 * release accepts is the release table's business (releases.ts); this is the one catalog the
 * metadata parser, the merge and the construct read names and sections from.
 */

/**
 * The provider APIs in processing order: providers are installed and merged section by section in
 * this order, then in list order within a section. The nine sections of the 0.2-era spec keep their
 * relative order; `responses` (the 0.7 name of `agents`) sits beside `agents`, the APIs added later
 * follow them.
 */
export const LLAMA_STACK_APIS = [
  'inference',
  'safety',
  'agents',
  'responses',
  'vector_io',
  'datasetio',
  'scoring',
  'eval',
  'tool_runtime',
  'post_training',
  'files',
  'file_processors',
  'batches',
  'telemetry',
  'messages',
  'interactions',
  'skills',
  'container_runtime',
] as const;

/** A Llama Stack API that some known release accepts providers for (`spec.api` of provider metadata). */
export type LlamaStackApi = (typeof LLAMA_STACK_APIS)[number];

/** The camelCase section of `externalProviders` each API's providers are placed under. */
export const CRD_SECTION_BY_API: Readonly<Record<LlamaStackApi, string>> = {
  inference: 'inference',
  safety: 'safety',
  agents: 'agents',
  responses: 'responses',
  vector_io: 'vectorIo',
  datasetio: 'datasetIo',
  scoring: 'scoring',
  eval: 'eval',
  tool_runtime: 'toolRuntime',
  post_training: 'postTraining',
  files: 'files',
  file_processors: 'fileProcessors',
  batches: 'batches',
  telemetry: 'telemetry',
  messages: 'messages',
  interactions: 'interactions',
  skills: 'skills',
  container_runtime: 'containerRuntime',
};

/** Every `externalProviders` section, in processing order. */
export const CRD_SECTIONS: readonly string[] = LLAMA_STACK_APIS.map((api) => CRD_SECTION_BY_API[api]);

/** True when `name` is an API some known llama-stack release accepts providers for. */
export function isLlamaStackApi(name: unknown): name is LlamaStackApi {
  return typeof name === 'string' && (LLAMA_STACK_APIS as readonly string[]).includes(name);
}

/** The API served by the providers of a camelCase `externalProviders` section, or undefined when unknown. */
export function apiForCrdSection(section: string): LlamaStackApi | undefined {
  return LLAMA_STACK_APIS.find((api) => CRD_SECTION_BY_API[api] === section);
}

