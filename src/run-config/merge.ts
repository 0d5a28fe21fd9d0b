import { isAlias, isMap, isNode, Node, visit } from 'yaml';
import { isRecord } from '../checks';
import { LlamaStackApi } from './apis';
import { checkBaseConfigApis } from './base-config-apis';
import { applyConfigEdits, ConfigEditPlan, ListEdit, SectionEdit, UneditableLayoutError } from './config-editor';
import { RunConfigError, RunConfigIssue } from './errors';
import { buildExtraProviders, ResolvedExternalProvider, providerEntry } from './external-providers';
import { describe } from './fields';
import { PROVIDER_METADATA_FILE } from './provider-metadata';
import { verifyReadBack } from './read-back';
import { DEFAULT_SERVER_VERSION, requireRelease, ServerRelease } from './releases';
import { UnwritableValueError } from './render';
import { CONFIG_LIMITS, ParsedYaml, parseUntrustedYaml } from '../io';
import {
  SERVED_MODEL_PROVIDER_TYPE, ServedModel, servedModelId, servedModelProviderEntry, servedModelRegistration,
} from './served-models';
import { serverSettingsToAdd, ServerTransport } from './server-transport';
import { PlacedServiceAddress, placeServiceAddress, ServicePartMode } from './service-address';
import { formatPath } from '../io/scalars';

/** Options of {@link mergeRunConfig}. */
export interface MergeOptions {
  /**
   * Names the base config in messages, e.g. its path.
   * @default 'base config'
   */
  readonly baseConfigSource?: string;
  /**
   * The server release line the distribution runs (`1.5`, or a full version such as `0.7.3`):
   * which APIs the external providers and the base config may name.
   * @default '1.5'
   */
  readonly serverVersion?: string;
  /**
   * How the pod serves, when the construct decided it: plain HTTP (`server.insecure: true` is written)
   * or TLS from mounted files (`server.tls_*` are written). Keys the base config has already, with the
   * same value, stay; a base config that contradicts the transport is refused.
   * @default - the `server` section is left as it is
   */
  readonly transport?: ServerTransport;
  /**
   * Models served in the cluster over an OpenAI-compatible API: each becomes a built-in
   * `remote::vllm` provider of `providers.inference` (after the external providers; replacing a base
   * entry with its id, with a warning) and a model registered for it, under the key the release reads.
   * @default - none
   */
  readonly servedModels?: readonly ServedModel[];
}

/** What the merge did with one served model. */
export interface ServedModelChange extends ServedModel {
  /** The id the server lists it under: `<providerId>/<model>`. */
  readonly id: string;
  /** Base inference entries with its provider id that it replaced. */
  readonly replaced: readonly ReplacedProvider[];
}

/** A base-config entry an external provider replaced. */
export interface ReplacedProvider {
  /** Its `provider_id` as written in the base config (possibly `${env.NAME:+id}`). */
  readonly providerId: string;
  /** Its `provider_type`, when it had one. */
  readonly providerType?: string;
  /** The environment variable the entry was conditional on (`${env.NAME:+id}`), if any. */
  readonly condition?: string;
}

/** What the merge did with one external provider. */
export interface MergeChange {
  /** The provider's id. */
  readonly providerId: string;
  /** The API section it went into. */
  readonly api: LlamaStackApi;
  /** Its image, when known. */
  readonly image?: string;
  /** Its provider type, from the metadata. */
  readonly providerType: string;
  /** Its module, from the metadata (without version pin). */
  readonly module: string;
  /** Base entries with the same id that it replaced (empty when it was simply added). */
  readonly replaced: readonly ReplacedProvider[];
  /** True when the base config had no `providers.<api>` section before. */
  readonly newSection: boolean;
  /** Where its sidecar's or Service's address went in its config, when it has one. */
  readonly serviceAddress?: PlacedServiceAddress & { readonly mode: ServicePartMode };
}

/** A non-blocking finding: the merge went on. */
export interface MergeWarning {
  /** `override`: an external provider replaced a base entry; `ignored-fields`: metadata fields this version does not know. */
  readonly kind: 'override' | 'ignored-fields';
  /** The external provider concerned. */
  readonly providerId: string;
  /** Its API. */
  readonly api: LlamaStackApi;
  /** Its image, when known. */
  readonly image?: string;
  /** The warning as logged (several lines for an override). */
  readonly message: string;
}

/** The outputs of a merge. */
export interface MergeResult {
  /** The release the merge checked the APIs against. */
  readonly release: ServerRelease;
  /** The merged Llama Stack config (`config.yaml` / `run.yaml`). */
  readonly configText: string;
  /** The generated `extra-providers.yaml`. */
  readonly extraProvidersText: string;
  /** Non-blocking findings, in provider order. */
  readonly warnings: readonly MergeWarning[];
  /** One entry per external provider, in order. */
  readonly changes: readonly MergeChange[];
  /** API names appended to the base config's `apis` list so that the server serves them. */
  readonly apisAdded: readonly LlamaStackApi[];
  /** Keys added to the config's `server` section for the transport, e.g. `{ insecure: true }`. */
  readonly serverSettings: Readonly<Record<string, unknown>>;
  /** One entry per served model, in order. */
  readonly servedModels: readonly ServedModelChange[];
}

const BASE_RESOLUTION = 'Fix the base config — the user config (its ConfigMap, or userConfig.config in the props) '
  + 'or the config file of the distribution image — and redeploy.';

/** `${env.NAME:+id}`: an entry llama-stack enables only when NAME is set (real distributions use this form). */
const CONDITIONAL_ID = /^\$\{env\.([A-Za-z_][A-Za-z0-9_]*):\+([^}]+)\}$/;

/**
 * Merges external providers into a base Llama Stack config. Within each API, an external provider replaces every base entry with its
 * `provider_id` (also `${env.NAME:+id}` entries, which would otherwise collide once NAME is set),
 * with a warning; providers are appended in spec order; an API missing from the base gets a section
 * (and is appended to `apis` when the base lists its APIs). Everything else in the base config is kept
 * byte for byte: keys, order, comments, quoting.
 *
 * The result is read back and compared with the intended merge before it is returned.
 *
 * @param baseConfigText the base config (`config.yaml` of llama-stack ≥ 0.4 or the older `run.yaml`)
 * @param providers the external providers, in spec order
 * @throws RunConfigError on duplicate ids, API placement mismatches, APIs the release does not have
 *   (in the providers or the base config) and unusable base configs
 */
export function mergeRunConfig(
  baseConfigText: string, providers: readonly ResolvedExternalProvider[], options: MergeOptions = {},
): MergeResult {
  const release = requireRelease(options.serverVersion ?? DEFAULT_SERVER_VERSION);
  const extraProvidersText = buildExtraProviders(providers, release.version);
  const merged = mergeIntoBase(baseConfigText, providers, options.baseConfigSource ?? 'base config', release, options.transport, options.servedModels ?? []);
  // Checked once the base document is out of scope, so that the two parses do not share memory.
  if (merged.configText !== baseConfigText) verifyReadBack(merged.configText, merged.expected, 'the merged config');
  return {
    release,
    configText: merged.configText,
    extraProvidersText,
    warnings: merged.warnings,
    changes: merged.changes,
    apisAdded: merged.apisAdded,
    serverSettings: merged.serverSettings,
    servedModels: merged.servedModels,
  };
}

/** The merge proper: the edited text, and the plain data it must read back as. */
function mergeIntoBase(
  baseConfigText: string, providers: readonly ResolvedExternalProvider[], source: string, release: ServerRelease,
  transport: ServerTransport | undefined, servedModels: readonly ServedModel[],
) {
  const parsed = parseUntrustedYaml(baseConfigText, CONFIG_LIMITS, { source, resolution: BASE_RESOLUTION });
  checkServedModels(servedModels, providers, source);
  checkBaseShape(parsed, [...providers.map((p) => ({ api: p.api, providerId: p.providerId, image: p.image })),
    ...servedModels.map((m) => ({ api: 'inference' as const, providerId: m.providerId }))], source);
  checkListShape(parsed, release.modelsPath, servedModels.length > 0, source);
  checkBaseConfigApis(parsed.value, release, source);
  const serverSettings = transport === undefined ? {} : serverSettingsToAdd(parsed.value, transport, source);

  const base = isRecord(parsed.value) ? parsed.value as Record<string, unknown> : {};
  const baseProviders = isRecord(base.providers) ? base.providers : {};
  const warnings: MergeWarning[] = [];
  const changes: MergeChange[] = [];
  const sections = new Map<LlamaStackApi, { removeIndexes: number[]; add: unknown[] }>();
  /** Appends an entry to an API's section, replacing the base entries with its id (a warning each); returns those. */
  const place = (api: LlamaStackApi, providerId: string, entry: unknown, warning: (r: ReplacedProvider) => MergeWarning): ReplacedProvider[] => {
    const section = sections.get(api) ?? { removeIndexes: [], add: [] };
    sections.set(api, section);
    const baseList = Array.isArray(baseProviders[api]) ? baseProviders[api] as unknown[] : [];
    const replaced: ReplacedProvider[] = [];
    baseList.forEach((baseEntry, index) => {
      const identity = baseIdentity(baseEntry);
      if (identity?.id !== providerId) return;
      section.removeIndexes.push(index);
      replaced.push(identity.replaced);
      warnings.push(warning(identity.replaced));
    });
    section.add.push(entry);
    return replaced;
  };

  for (const p of providers) {
    if (p.metadata.unknownFields.length > 0) {
      warnings.push({
        kind: 'ignored-fields',
        providerId: p.providerId,
        api: p.api,
        image: p.image,
        message: `Provider '${p.providerId}' (image: ${p.image ?? 'unknown'}): ${PROVIDER_METADATA_FILE} has fields this version `
          + `ignores: ${p.metadata.unknownFields.join(', ')}`,
      });
    }
    const replaced = place(p.api, p.providerId, providerEntry(p), (entry) => ({
      kind: 'override',
      providerId: p.providerId,
      api: p.api,
      image: p.image,
      message: overrideWarning(p, entry),
    }));
    changes.push({
      providerId: p.providerId,
      api: p.api,
      image: p.image,
      providerType: p.metadata.spec.providerType,
      module: p.metadata.module,
      replaced,
      newSection: !(p.api in baseProviders),
      ...(p.serviceAddress !== undefined
        ? { serviceAddress: { mode: p.serviceAddress.mode, ...placeServiceAddress(p.serviceAddress, p.metadata.spec.serviceAddress) } }
        : {}),
    });
  }
  const servedModelChanges: ServedModelChange[] = [];
  for (const m of servedModels) {
    const replaced = place('inference', m.providerId, servedModelProviderEntry(m, release), (entry) => ({
      kind: 'override',
      providerId: m.providerId,
      api: 'inference',
      message: [`Served model '${servedModelId(m)}' (${m.url}) replaces base provider '${entry.providerId}' in API 'inference'`,
        `  Base type: ${entry.providerType ?? '(none)'}`, `  Served model's type: ${SERVED_MODEL_PROVIDER_TYPE}`].join('\n'),
    }));
    servedModelChanges.push({ ...m, id: servedModelId(m), replaced });
  }
  if (providers.length === 0 && servedModels.length === 0 && Object.keys(serverSettings).length === 0) {
    return { configText: baseConfigText, expected: base, warnings, changes, apisAdded: [], serverSettings, servedModels: servedModelChanges };
  }

  // The intended result as plain data: the base (its plain copy is ours to change) with the plan
  // applied. The edited text must read back as exactly this.
  const expected = base;
  const expectedProviders: Record<string, unknown> = isRecord(expected.providers) ? expected.providers as Record<string, unknown> : {};
  if (sections.size > 0) expected.providers = expectedProviders;
  const edits: SectionEdit[] = [];
  for (const [api, section] of sections) {
    const removed = new Set(section.removeIndexes);
    const kept = (Array.isArray(expectedProviders[api]) ? expectedProviders[api] as unknown[] : []).filter((_, i) => !removed.has(i));
    expectedProviders[api] = [...kept, ...section.add];
    edits.push({ api, removeIndexes: section.removeIndexes, add: section.add });
  }
  const apisAdded: LlamaStackApi[] = [];
  // An empty list serves every API before ogx 1.5 and none from it: there the new sections must be listed.
  if (Array.isArray(expected.apis) && (expected.apis.length > 0 || release.emptyApisServesNone)) {
    for (const api of sections.keys()) {
      if (!expected.apis.includes(api)) apisAdded.push(api);
    }
    expected.apis.push(...apisAdded);
  }

  if (Object.keys(serverSettings).length > 0) {
    expected.server = { ...(isRecord(expected.server) ? expected.server : {}), ...serverSettings };
  }
  const registrations = servedModels.length === 0 ? undefined : registerModels(expected, release.modelsPath, servedModels);

  const configText = editBase(baseConfigText, parsed, { sections: edits, enableApis: apisAdded, serverSettings, registrations }, expected, source);
  return { configText, expected, warnings, changes, apisAdded, serverSettings, servedModels: servedModelChanges };
}

/**
 * Registers the served models in `expected` (the merged config as plain data) at the release's
 * models list, replacing a base registration of the same model for the same provider; returns the edit.
 */
function registerModels(expected: Record<string, unknown>, path: readonly string[], models: readonly ServedModel[]): ListEdit {
  let parent = expected;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(parent[key])) parent[key] = {};
    parent = parent[key] as Record<string, unknown>;
  }
  const key = path[path.length - 1];
  const list = Array.isArray(parent[key]) ? parent[key] as unknown[] : [];
  const removeIndexes = list.flatMap((entry, index) => (isRecord(entry)
    && models.some((m) => entry.provider_id === m.providerId && entry.model_id === m.model) ? [index] : []));
  const add = models.map(servedModelRegistration);
  parent[key] = [...list.filter((_, i) => !removeIndexes.includes(i)), ...add];
  return { path, removeIndexes, add };
}

/** Served models whose provider id is an external provider's too: the config would hold the id twice. */
function checkServedModels(models: readonly ServedModel[], providers: readonly ResolvedExternalProvider[], source: string): void {
  const clashes = models.filter((m) => providers.some((p) => p.api === 'inference' && p.providerId === m.providerId));
  if (clashes.length === 0) return;
  throw new RunConfigError(clashes.map((m) => ({
    title: 'A served model and an external provider have one provider id',
    providerId: m.providerId,
    source,
    details: [`'${m.providerId}' is the provider id of the served model ${m.model} (${m.url}) and of an external inference provider.`],
    resolution: 'Give the served model another providerId.',
  })));
}

/** Applies the edits, turning a layout the editor cannot handle into an error that says how to fix the file. */
function editBase(text: string, parsed: ParsedYaml, plan: ConfigEditPlan, expected: Record<string, unknown>, source: string): string {
  try {
    return applyConfigEdits(text, parsed.doc, plan, expected);
  } catch (e) {
    if (e instanceof UnwritableValueError) {
      const where = formatPath(e.path).replace(/^\./, '');
      throw new RunConfigError([{
        title: 'Cannot merge external providers into the base config',
        source,
        details: [`The merge rewrites the part of the base config holding ${where} (written in flow style or empty), `
          + `but ${e.found} there cannot be written back so that llama-stack reads the same value.`],
        resolution: 'Write that part of the base config in block style, one "key:" at the start of each line, so that the merge '
          + `edits it in place instead of rewriting it; or ${e.fix}.`,
      }]);
    }
    if (!(e instanceof UneditableLayoutError)) throw e;
    throw new RunConfigError([{
      title: 'Cannot merge external providers into the base config',
      source,
      details: [`The merge edits ${e.path} in place, but ${e.message}.`],
      resolution: `Write ${e.path} in plain block style, one "key:" at the start of each line, and redeploy.`,
    }]);
  }
}

/** The seed's override warning, naming the provider, the API, both types and the image used. */
function overrideWarning(p: ResolvedExternalProvider, base: ReplacedProvider): string {
  const lines = [
    `External provider '${p.providerId}' overrides base provider in API '${p.api}'`,
    `  Base type: ${base.providerType ?? '(none)'}`,
    `  External type: ${p.metadata.spec.providerType}`,
  ];
  if (base.condition !== undefined) {
    lines.push(`  Base entry: provider_id ${base.providerId} (enabled only when ${base.condition} is set)`);
  }
  lines.push(`  Using: the external provider from image ${p.image ?? 'unknown'}`);
  return lines.join('\n');
}

/** The id a base entry is known by, and how it was written. */
function baseIdentity(entry: unknown): { id: string; replaced: ReplacedProvider } | undefined {
  if (!isRecord(entry) || typeof entry.provider_id !== 'string') return undefined;
  const written = entry.provider_id;
  const providerType = typeof entry.provider_type === 'string' ? entry.provider_type : undefined;
  const conditional = CONDITIONAL_ID.exec(written);
  return {
    id: conditional ? conditional[2] : written,
    replaced: {
      providerId: written,
      ...(providerType !== undefined ? { providerType } : {}),
      ...(conditional ? { condition: conditional[1] } : {}),
    },
  };
}

/** A provider the merge adds to a section: an external provider or a served model's. */
interface AddedProvider {
  readonly api: LlamaStackApi;
  readonly providerId: string;
  readonly image?: string;
}

/**
 * The list at `path` (the models list) must be a list under mappings, and neither may be shared
 * (anchored or aliased): the merge appends to it.
 */
function checkListShape(parsed: ParsedYaml, path: readonly string[], editing: boolean, source: string): void {
  if (!editing || !isMap(parsed.doc.contents)) return;
  let node: unknown = parsed.doc.contents;
  let value: unknown = parsed.value;
  for (const [depth, key] of path.entries()) {
    const at = path.slice(0, depth + 1).join('.');
    node = isMap(node) ? node.get(key, true) : undefined;
    value = isRecord(value) ? value[key] : undefined;
    const expected = depth === path.length - 1 ? 'a list' : 'a mapping';
    const problem = sharedNode(node) ? `${at}: is a YAML alias or carries an anchor; the merge cannot change a shared node. Write it out in full.`
      : value !== undefined && value !== null && (depth === path.length - 1 ? !Array.isArray(value) : !isRecord(value))
        ? `${at}: found ${describe(value)}; expected ${expected}, where the served models are registered.` : undefined;
    if (problem !== undefined) {
      throw new RunConfigError([{ title: 'Cannot register the served models in the base config', source, details: [problem], resolution: BASE_RESOLUTION }]);
    }
    if (value === undefined || value === null) return;
  }
}

/**
 * Rejects base configs the merge cannot edit: a top level that is not a mapping, a `providers` that
 * is not a mapping, a provider list that is not a list, shared (anchored or aliased) nodes the merge
 * would have to change, and base entries to remove that define anchors used elsewhere.
 */
function checkBaseShape(parsed: ParsedYaml, providers: readonly AddedProvider[], source: string): void {
  const issues: RunConfigIssue[] = [];
  const issue = (details: string, p?: AddedProvider): void => {
    issues.push({
      title: 'Cannot merge external providers into the base config',
      providerId: p?.providerId,
      image: p?.image,
      source,
      details: [details],
      resolution: BASE_RESOLUTION,
    });
  };
  const root = parsed.doc.contents;
  const value = parsed.value;
  if (value !== null && !isRecord(value)) {
    issue(`The base config must be a mapping (version, apis, providers, ...); found ${describe(value)}.`);
    throw new RunConfigError(issues);
  }
  if (!isMap(root)) return;

  const providersNode = root.get('providers', true) as unknown;
  const baseProviders = isRecord(value) ? value.providers : undefined;
  if (sharedNode(providersNode)) {
    issue('providers: is a YAML alias or carries an anchor; the merge cannot change a shared node. Write the section out in full.');
  } else if (baseProviders !== undefined && baseProviders !== null && !isRecord(baseProviders)) {
    issue(`providers: found ${describe(baseProviders)}; expected a mapping from API names to provider lists.`);
  }
  if (issues.length > 0 || !isMap(providersNode) || !isRecord(baseProviders)) {
    if (issues.length > 0) throw new RunConfigError(issues);
    return;
  }

  const aliasNames = new Set<string>();
  visit(parsed.doc, { Alias: (_, alias) => { aliasNames.add(alias.source); } });
  const seen = new Set<string>();
  for (const p of providers) {
    if (seen.has(p.api)) continue;
    seen.add(p.api);
    const listNode = providersNode.get(p.api, true) as unknown;
    const list = baseProviders[p.api];
    if (sharedNode(listNode)) {
      issue(`providers.${p.api}: is a YAML alias or carries an anchor; the merge cannot change a shared node. Write the list out in full.`, p);
      continue;
    }
    if (list !== undefined && list !== null && !Array.isArray(list)) {
      issue(`providers.${p.api}: found ${describe(list)}; expected a list of providers.`, p);
      continue;
    }
    const items = isNode(listNode) && 'items' in listNode ? (listNode as { items: unknown[] }).items : [];
    items.forEach((item, index) => {
      const identity = baseIdentity((list as unknown[])[index]);
      const replacedBy = providers.find((q) => q.api === p.api && q.providerId === identity?.id);
      const anchor = replacedBy ? usedAnchorIn(item, aliasNames) : undefined;
      if (replacedBy && anchor !== undefined) {
        issue(`providers.${p.api}[${index}] ('${identity!.replaced.providerId}') would be replaced by the external provider, `
          + `but it defines the anchor &${anchor} that other parts of the config refer to. Copy the shared content to where it is used.`,
        replacedBy);
      }
    });
  }
  if (issues.length > 0) throw new RunConfigError(issues);
}

function sharedNode(node: unknown): boolean {
  return isAlias(node) || (isNode(node) && (node as Node).anchor !== undefined);
}

/** The first anchor defined inside `node` that some alias of the document refers to. */
function usedAnchorIn(node: unknown, aliasNames: ReadonlySet<string>): string | undefined {
  let found: string | undefined;
  if (!isNode(node)) return undefined;
  visit(node, {
    Node: (_, n) => {
      if (n.anchor !== undefined && aliasNames.has(n.anchor)) {
        found = n.anchor;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

