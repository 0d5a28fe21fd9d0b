// `provider.overrides` (seed 003 §4.15): an untyped map whose documented keys each provider
// declares here. Unknown keys at any depth are warnings naming the path (typos such as
// `replicsa`); wrong types fail synth naming the path and the expected type.
import { describeValue, isRecord, joinPath } from '../checks';
import { Problem } from '../errors';

/** The type of one override key. */
export type OverrideFieldType = 'string' | 'integer' | 'boolean' | 'stringMap' | 'object';

/** One documented override key. */
export interface OverrideField {
  /** Its type; `stringMap` is `map[string]string`, `object` has `properties`. */
  readonly type: OverrideFieldType;
  /** What it does (shown in documentation). */
  readonly description: string;
  /** Allowed values of a `string`. */
  readonly enum?: readonly string[];
  /** Smallest allowed `integer`. */
  readonly minimum?: number;
  /** Default when omitted (documentation; providers apply it). */
  readonly default?: unknown;
  /** Keys of an `object`. */
  readonly properties?: OverrideSchema;
}

/** The documented override keys of a provider. */
export type OverrideSchema = Readonly<Record<string, OverrideField>>;

/** Problems (wrong types) and warnings (unknown keys) found in `provider.overrides`. */
export interface OverrideCheck {
  /** Wrong types: they fail synth. */
  readonly problems: Problem[];
  /** Unknown keys: reported, ignored. */
  readonly warnings: string[];
}

/**
 * Checks `overrides` against a provider's documented keys.
 * @param provider provider name, for messages
 * @param basePath where the overrides are, e.g. `provider.overrides`
 */
export function checkOverrides(provider: string, schema: OverrideSchema, overrides: unknown, basePath = 'provider.overrides'): OverrideCheck {
  const result: OverrideCheck = { problems: [], warnings: [] };
  if (overrides === undefined) return result;
  if (!isRecord(overrides)) {
    result.problems.push({ field: basePath, message: `expected a map, got ${describeValue(overrides)}` });
    return result;
  }
  walk(provider, schema, overrides, basePath, result);
  return result;
}

function walk(provider: string, schema: OverrideSchema, value: Record<string, unknown>, path: string, result: OverrideCheck): void {
  const known = Object.keys(schema);
  for (const [key, item] of Object.entries(value)) {
    // Own keys only: `toString` or `constructor` is no override, whatever Object.prototype holds.
    const field = Object.prototype.hasOwnProperty.call(schema, key) ? schema[key] : undefined;
    const itemPath = joinPath(path, key);
    if (!field) {
      const hint = known.length === 0
        ? `the ${provider} provider has no overrides here`
        : `known keys here: ${known.join(', ')}`;
      result.warnings.push(`${itemPath}: unknown override key for the ${provider} provider, ignored (${hint})`);
      continue;
    }
    const expected = typeError(field, item);
    if (expected) {
      result.problems.push({ field: itemPath, message: `expected ${expected}, got ${describeValue(item)}` });
      continue;
    }
    if (field.type === 'object' && isRecord(item)) {
      walk(provider, field.properties ?? {}, item, itemPath, result);
    }
    if (field.type === 'stringMap' && isRecord(item)) {
      for (const [entry, entryValue] of Object.entries(item)) {
        if (typeof entryValue !== 'string') {
          result.problems.push({ field: joinPath(itemPath, entry), message: `expected string, got ${describeValue(entryValue)}` });
        }
      }
    }
  }
}

/** The expected type, when `value` does not have it. */
function typeError(field: OverrideField, value: unknown): string | undefined {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') return field.enum ? `one of ${field.enum.join(', ')}` : 'string';
      if (field.enum && !field.enum.includes(value)) return `one of ${field.enum.join(', ')}`;
      return undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'integer';
      if (field.minimum !== undefined && value < field.minimum) return `integer >= ${field.minimum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'boolean';
    case 'stringMap':
      return isRecord(value) ? undefined : 'map of strings (map[string]string)';
    case 'object':
      return isRecord(value) ? undefined : 'map';
  }
}

/** Reads a (validated) override by path, e.g. `['frontend', 'replicas']`. */
export function overrideValue(overrides: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let current: unknown = overrides;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}
