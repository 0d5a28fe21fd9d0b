/**
 * The Llama Stack APIs an external provider can serve, and the `externalProviders` section of the
 * spec each one is placed under. This is the one place that list lives: the metadata parser, the
 * merge and the construct all read it from here.
 *
 * The set is the nine sections of the seed's CRD (BRIEF §2): llama-stack itself renames and drops
 * APIs between versions (agents→responses in 0.7, post_training gone, datasetio/scoring/eval gone in
 * 0.8), but the spec's sections are the contract users write against.
 */

/** Llama Stack API names, in the order the spec's sections are processed. */
export const LLAMA_STACK_APIS = [
  'inference',
  'safety',
  'agents',
  'vector_io',
  'datasetio',
  'scoring',
  'eval',
  'tool_runtime',
  'post_training',
] as const;

/** A Llama Stack API name accepted for an external provider (`spec.api` of its metadata). */
export type LlamaStackApi = (typeof LLAMA_STACK_APIS)[number];

/** The camelCase section of `externalProviders` each API's providers are placed under. */
export const CRD_SECTION_BY_API: Readonly<Record<LlamaStackApi, string>> = {
  inference: 'inference',
  safety: 'safety',
  agents: 'agents',
  vector_io: 'vectorIo',
  datasetio: 'datasetIo',
  scoring: 'scoring',
  eval: 'eval',
  tool_runtime: 'toolRuntime',
  post_training: 'postTraining',
};

/** The `externalProviders` sections, in processing order (the order providers are installed and merged). */
export const CRD_SECTIONS: readonly string[] = LLAMA_STACK_APIS.map((api) => CRD_SECTION_BY_API[api]);

/** True when `name` is one of the accepted Llama Stack API names. */
export function isLlamaStackApi(name: unknown): name is LlamaStackApi {
  return typeof name === 'string' && (LLAMA_STACK_APIS as readonly string[]).includes(name);
}

/** The API served by the providers of a camelCase `externalProviders` section, or undefined when unknown. */
export function apiForCrdSection(section: string): LlamaStackApi | undefined {
  return LLAMA_STACK_APIS.find((api) => CRD_SECTION_BY_API[api] === section);
}

/** The accepted API names as one human-readable list, for error messages. */
export function acceptedApisText(): string {
  return LLAMA_STACK_APIS.join(', ');
}
