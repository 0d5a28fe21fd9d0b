import { readFileSync } from 'fs';
import { join } from 'path';
import { parse } from 'yaml';
import { CrdValidator } from './crd-validator';
import { isRecord } from '../checks';
import { ProblemCollector } from '../errors';
import { closest } from '../suggest';
import { quantityValue } from './kubernetes/quantity';

// An `OGXServer` document is checked as the API server checks one before the OGX operator ever sees
// it: against the operator's own CRD (ogx-ai/ogx-k8s-operator v0.14.0,
// config/crd/bases/ogx.io_ogxservers.yaml, vendored in crds/), its structural defaults applied first,
// unknown fields refused (strict field validation), then its schema and CEL rules. Every field the CRD
// has is thereby known; what `render` does with each is in docs/ogx-operator.md, whose field table
// test/docs-tables.test.ts checks against this same CRD.

/** The vendored CRD of the OGX operator (v0.14.0). */
export const OGX_SERVER_CRD_FILE = join(__dirname, '..', '..', 'crds', 'ogx.io_ogxservers.yaml');

/**
 * Fields of this library that the OGX CRD does not have, removed before the document is checked
 * against it and read by `render` itself. An OGXServer holding one must not be applied to a cluster
 * with the operator (the API server would refuse the unknown field).
 */
export const OGX_SERVER_EXTENSION_FIELDS: readonly string[] = ['spec.externalProviders'];

interface LoadedCrd {
  readonly validator: CrdValidator;
  /** The `openAPIV3Schema` of v1beta1. */
  readonly schema: Record<string, any>;
}

let loaded: LoadedCrd | undefined;

/** The CRD, read and compiled once per process (it is 430 KB of YAML). */
function crd(): LoadedCrd {
  if (loaded === undefined) {
    const definition = parse(readFileSync(OGX_SERVER_CRD_FILE, 'utf8'), { maxAliasCount: 100 });
    const version = (definition?.spec?.versions as any[] | undefined)?.find((v) => v?.name === 'v1beta1');
    if (!isRecord(version?.schema?.openAPIV3Schema)) throw new Error(`${OGX_SERVER_CRD_FILE}: no v1beta1 schema`);
    loaded = { validator: new CrdValidator([definition]), schema: version.schema.openAPIV3Schema as Record<string, any> };
  }
  return loaded;
}

/** The CRD's v1beta1 schema (`openAPIV3Schema`), for tests and documentation. */
export function ogxServerSchema(): Record<string, any> {
  return crd().schema;
}

/**
 * The document as the API server would store it, or undefined with problems: a copy without this
 * library's fields ({@link OGX_SERVER_EXTENSION_FIELDS}), the CRD's defaults applied (structural
 * defaulting: a missing field with a `default` gets it, a `null` where the schema does not allow one is
 * dropped first), then checked against the schema and its CEL rules. Problems name the document's
 * fields; an unknown field is named with the nearest field the CRD has there. A rule the CEL evaluator
 * cannot run is checked here when this module knows it, else `warn` says it was not checked.
 */
export function checkAgainstCrd(
  doc: Record<string, unknown>, problems: ProblemCollector, warn: (message: string) => void,
): Record<string, any> | undefined {
  const { validator, schema } = crd();
  const copy = copyData(doc) as Record<string, any>;
  for (const field of OGX_SERVER_EXTENSION_FIELDS) deleteField(copy, field.split('.'));
  applyDefaults(copy, schema);
  const result = validator.validate(copy);
  for (const v of result.violations) {
    problems.add(v.path || '(document)', v.message === UNKNOWN_FIELD ? unknownFieldMessage(v.path, schema) : `${v.message} (the OGXServer CRD).`);
  }
  for (const note of result.notes) {
    if (note.includes(JSON.stringify(POSITIVE_STORAGE_SIZE_RULE))) continue;
    warn(`not every rule of the OGXServer CRD could be checked: ${note}`);
  }
  // The one rule using a Kubernetes CEL library function (`quantity`), which the evaluator does not have.
  const size = copy.spec?.workload?.storage?.size;
  if (size !== undefined && (quantityValue(size) ?? 1) <= 0) {
    problems.add('spec.workload.storage', 'size must be a positive quantity (the OGXServer CRD).');
  }
  return problems.problems.length === 0 ? copy : undefined;
}

/** Removes the field at `path` (`['spec', 'externalProviders']`) when it is there. */
function deleteField(value: Record<string, any>, path: readonly string[]): void {
  const parent = path.slice(0, -1).reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), value);
  if (isRecord(parent)) delete parent[path[path.length - 1]];
}

/** The CRD's rule on `spec.workload.storage` (message "size must be a positive quantity"). */
const POSITIVE_STORAGE_SIZE_RULE = "!has(self.size) || quantity(self.size).isGreaterThan(quantity('0'))";

/** The validator's message for a field its schema does not have. */
const UNKNOWN_FIELD = 'unknown field (not in the CRD schema)';

/**
 * Kubernetes' structural defaulting (k8s.io/apiextensions-apiserver, pkg/apiserver/schema/defaulting):
 * a property missing from an object gets the schema's default (a copy), after a `null` the schema does
 * not allow is pruned; a `null` list item of a non-nullable item schema with a default becomes the
 * default; then every value is defaulted by its own schema, defaults just set included.
 */
function applyDefaults(value: unknown, schema: unknown): void {
  if (!isRecord(schema)) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isRecord(items)) return;
    value.forEach((item, i) => {
      if (item === null && items.nullable !== true && items.default !== undefined) value[i] = copyData(items.default);
      applyDefaults(value[i], items);
    });
    return;
  }
  if (!isRecord(value)) return;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [key, sub] of Object.entries(properties)) {
    if (!isRecord(sub)) continue;
    if (value[key] === null && sub.nullable !== true) delete value[key];
    if (!(key in value) && sub.default !== undefined) value[key] = copyData(sub.default);
  }
  for (const [key, item] of Object.entries(value)) {
    if (Object.prototype.hasOwnProperty.call(properties, key)) applyDefaults(item, properties[key]);
    else if (isRecord(schema.additionalProperties)) applyDefaults(item, schema.additionalProperties);
  }
}

/**
 * A deep copy of YAML or JSON data (mappings and lists; other values as they are), made in this realm:
 * a key such as `__proto__` stays data.
 */
function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, { value: copyData(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The schema of the object holding the field at `path` (`spec.workload.overrides.env[0].valu`). */
function parentSchema(path: string, schema: Record<string, any>): Record<string, any> | undefined {
  const segments = path.match(/[^.[\]]+|\[\d+\]/g) ?? [];
  let at: Record<string, any> | undefined = schema;
  for (const segment of segments.slice(0, -1)) {
    if (at === undefined) return undefined;
    at = segment.startsWith('[') ? at.items : at.properties?.[segment] ?? (isRecord(at.additionalProperties) ? at.additionalProperties : undefined);
  }
  return at;
}

/** An unknown field, with the nearest name the CRD has at that place, and where LlamaStackDistribution fields went. */
function unknownFieldMessage(path: string, schema: Record<string, any>): string {
  const key = path.slice(path.lastIndexOf('.') + 1);
  const known = Object.keys(parentSchema(path, schema)?.properties ?? {});
  const moved = path === 'spec.server' || path === 'spec.replicas'
    ? ' An OGXServer has no spec.server: the LlamaStackDistribution fields moved to spec.distribution, spec.workload, spec.overrideConfig '
      + 'and spec.tls (docs/ogx-operator.md has the table).'
    : '';
  const near = closest(key, known);
  const hint = near !== undefined && near !== key ? `did you mean '${near}'? ` : '';
  const list = known.length > 0 ? `(the OGXServer CRD has: ${known.join(', ')})` : '(the OGXServer CRD has no field here)';
  return `unknown field; ${hint}${list}.${moved}`;
}
