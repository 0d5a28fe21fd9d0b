/**
 * Small checks shared by the parsers of provider metadata and provider settings. Each records a
 * problem line (`field: what was found, what was expected`) instead of throwing, so that one run
 * reports every problem of a file.
 */

import { isRecord } from '../checks';
import { renderScalar, WholeFloat } from '../io/scalars';

/** A plain mapping read from YAML or JSON. */
export type PlainMap = Readonly<Record<string, unknown>>;


/** Describes a value's type for messages: `a number (1)`, `a list`, `nothing`. */
export function describe(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return `a date (${value.toISOString().slice(0, 10)})`;
  if (value instanceof WholeFloat) return `a number (${renderScalar(value, true)})`;
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `'${clip(value)}'`;
  return `a ${typeof value} (${String(value)})`;
}

/** Shortens long user text for a message. */
export function clip(text: string, max = 80): string {
  const oneLine = JSON.stringify(text).slice(1, -1);
  return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}

/** Rules for one string field. */
export interface StringRule {
  /** Absent is allowed. */
  readonly optional?: boolean;
  /** The value must match. */
  readonly pattern?: RegExp;
  /** What is expected, e.g. `a Python module path such as my_org.custom_vllm`. */
  readonly expected: string;
}

/** Reads a string field; records a problem and returns undefined when it is absent or wrong. */
export function readString(
  map: PlainMap, key: string, path: string, rule: StringRule, problems: string[],
): string | undefined {
  const value = map[key];
  if (value === undefined || value === null) {
    if (!rule.optional) problems.push(`${path}: missing; expected ${rule.expected}.`);
    return undefined;
  }
  if (typeof value !== 'string') {
    const quoteHint = typeof value === 'number' || typeof value === 'boolean' || value instanceof Date || value instanceof WholeFloat
      ? ` YAML read the unquoted value as ${describe(value)}; quote it.`
      : '';
    problems.push(`${path}: found ${describe(value)}; expected ${rule.expected}.${quoteHint}`);
    return undefined;
  }
  if (value.trim() === '' || (rule.pattern && !rule.pattern.test(value))) {
    problems.push(`${path}: found ${describe(value)}; expected ${rule.expected}.`);
    return undefined;
  }
  return value;
}

/** Reads a nested mapping; records a problem and returns an empty map when it is absent or not a mapping. */
export function readMap(map: PlainMap, key: string, path: string, problems: string[]): PlainMap {
  const value = map[key];
  if (isRecord(value)) return value;
  problems.push(`${path}: found ${describe(value)}; expected a mapping.`);
  return {};
}

/** Names the keys of `map` that are not in `known`, as dotted paths (in document order). */
export function unknownKeys(map: PlainMap, known: readonly string[], prefix: string): string[] {
  return Object.keys(map).filter((k) => !known.includes(k)).map((k) => (prefix ? `${prefix}.${k}` : k));
}
