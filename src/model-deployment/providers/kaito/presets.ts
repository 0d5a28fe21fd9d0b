// How KAITO resolves `inference.preset.name`, from its own data (catalog.generated.ts, KAITO v0.12.0):
// kaito pkg/utils/plugin/plugin.go (IsValidPreset, LegacyBuiltinToCatalog), presets/workspace/models/
// vllm_model.go (GetModelByName) and presets/workspace/generator/generator.go (NewGenerator,
// loadFromCatalog, FinalizeParams). Three kinds of name pass the webhook: a registered built-in
// preset, a legacy short alias of a catalogue model (compared lower-cased), and anything of the form
// `org/name`, which KAITO treats as a Hugging Face id: read from its catalogue when listed there (no
// network), else fetched from Hugging Face when the Workspace is admitted.
import { KAITO_BUILT_IN_PRESETS, KAITO_CATALOG_MODELS, KaitoCatalogModel } from './catalog.generated';
import { editDistance } from '../../../suggest';

/**
 * LegacyBuiltinToCatalog of kaito pkg/utils/plugin/plugin.go: the short names earlier KAITO releases
 * registered, each now a catalogue id (lower-cased, as KAITO matches it).
 */
export const KAITO_LEGACY_PRESET_ALIASES: Readonly<Record<string, string>> = {
  'phi-4': 'microsoft/phi-4',
  'phi-4-mini-instruct': 'microsoft/phi-4-mini-instruct',
  'llama-3.1-8b-instruct': 'meta-llama/llama-3.1-8b-instruct',
  'llama-3.3-70b-instruct': 'meta-llama/llama-3.3-70b-instruct',
  'deepseek-r1-distill-llama-8b': 'deepseek-ai/deepseek-r1-distill-llama-8b',
  'deepseek-r1-distill-qwen-14b': 'deepseek-ai/deepseek-r1-distill-qwen-14b',
  'deepseek-r1-0528': 'deepseek-ai/deepseek-r1-0528',
  'deepseek-v3-0324': 'deepseek-ai/deepseek-v3-0324',
  'phi-3-mini-4k-instruct': 'microsoft/phi-3-mini-4k-instruct',
  'phi-3-mini-128k-instruct': 'microsoft/phi-3-mini-128k-instruct',
  'phi-3-medium-4k-instruct': 'microsoft/phi-3-medium-4k-instruct',
  'phi-3-medium-128k-instruct': 'microsoft/phi-3-medium-128k-instruct',
  'phi-3.5-mini-instruct': 'microsoft/phi-3.5-mini-instruct',
  'qwen2.5-coder-7b-instruct': 'qwen/qwen2.5-coder-7b-instruct',
  'qwen2.5-coder-32b-instruct': 'qwen/qwen2.5-coder-32b-instruct',
  'gpt-oss-20b': 'openai/gpt-oss-20b',
  'gpt-oss-120b': 'openai/gpt-oss-120b',
  'gemma-3-4b-instruct': 'google/gemma-3-4b-it',
  'gemma-3-27b-instruct': 'google/gemma-3-27b-it',
  'mistral-7b': 'mistralai/mistral-7b-v0.3',
  'mistral-7b-instruct': 'mistralai/mistral-7b-instruct-v0.3',
  'ministral-3-3b-instruct': 'mistralai/ministral-3-3b-instruct-2512',
  'ministral-3-8b-instruct': 'mistralai/ministral-3-8b-instruct-2512',
  'ministral-3-14b-instruct': 'mistralai/ministral-3-14b-instruct-2512',
  'mistral-large-3-675b-instruct': 'mistralai/mistral-large-3-675b-instruct-2512',
};

/** What a preset name resolves to. */
export type KaitoPreset =
  /** A catalogue model (directly or through a legacy alias): KAITO knows its size and shape offline. */
  | { readonly kind: 'catalog'; readonly model: KaitoCatalogModel; readonly servedName: string }
  /** A built-in preset of supported_models.yaml that is not a catalogue alias. */
  | { readonly kind: 'built-in'; readonly servedName: string }
  /** An `org/name` id outside the catalogue: KAITO reads it from Hugging Face at admission. */
  | { readonly kind: 'hugging-face'; readonly servedName: string }
  /** A built-in preset supported_models.yaml marks deprecated: refused. */
  | { readonly kind: 'deprecated' }
  /** Not a preset KAITO knows: refused. */
  | { readonly kind: 'unknown'; readonly closest: readonly string[] };

/**
 * The model name KAITO's generator gives an `org/name` preset, which vLLM then serves under
 * (`--served-model-name`): the last path segment, lower-cased (generator.go, NewGenerator and FinalizeParams).
 */
function generatedName(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1).toLowerCase();
}

const lowerCaseCatalog = new Map(KAITO_CATALOG_MODELS.map((m) => [m.name.toLowerCase(), m]));

/** Resolves a preset name as KAITO v0.12 does. */
export function resolveKaitoPreset(name: string): KaitoPreset {
  const lower = name.toLowerCase();
  const id = KAITO_LEGACY_PRESET_ALIASES[lower] ?? (name.includes('/') ? lower : undefined);
  if (id !== undefined) {
    const model = lowerCaseCatalog.get(id);
    if (model !== undefined) return { kind: 'catalog', model, servedName: generatedName(id) };
    const [org, repo] = [id.slice(0, id.indexOf('/')), id.slice(id.indexOf('/') + 1)];
    if (org !== '' && repo !== '') return { kind: 'hugging-face', servedName: generatedName(id) };
  }
  // A registered built-in matches exactly (KaitoModelRegister.Has); the deprecation check lower-cases
  // the name first (workspace_validation.go, validateCreateWithInference).
  const builtIn = KAITO_BUILT_IN_PRESETS.find((p) => p.name === name);
  if (builtIn !== undefined && !builtIn.deprecated) return { kind: 'built-in', servedName: builtIn.name };
  if (KAITO_BUILT_IN_PRESETS.some((p) => p.deprecated && p.name === lower)) return { kind: 'deprecated' };
  return { kind: 'unknown', closest: closestPresetNames(lower) };
}

/** The three preset names nearest to a mistyped one (catalogue ids and short names), nearest first. */
function closestPresetNames(lower: string): string[] {
  const names = [
    ...KAITO_CATALOG_MODELS.map((m) => m.name),
    ...Object.keys(KAITO_LEGACY_PRESET_ALIASES),
    ...KAITO_BUILT_IN_PRESETS.filter((p) => !p.deprecated && KAITO_LEGACY_PRESET_ALIASES[p.name] === undefined).map((p) => p.name),
  ];
  // A name containing the mistyped one first (shortest first: "llama-3.1-8b" finds
  // "llama-3.1-8b-instruct"), then by edit distance to the whole id or its last segment.
  const distance = (candidate: string) => {
    const c = candidate.toLowerCase();
    if (c.includes(lower)) return c.length - lower.length - 1000;
    return Math.min(editDistance(lower, c), editDistance(lower, c.slice(c.lastIndexOf('/') + 1)));
  };
  return names
    .map((candidate, index) => ({ candidate, index, d: distance(candidate) }))
    .sort((a, b) => a.d - b.d || a.index - b.index)
    .slice(0, 3)
    .map((c) => c.candidate);
}
