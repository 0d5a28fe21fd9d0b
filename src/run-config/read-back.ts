import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '../checks';
import { MAX_WRITE_DEPTH } from './render';
import { CONFIG_LIMITS, readUntrustedYaml, YamlLimits } from '../io';
import { formatPath, PathSegment } from '../io/scalars';

/**
 * Limits for reading back what we wrote: the inputs were checked against {@link CONFIG_LIMITS}, and
 * what the writers add is bounded by them (values nest at most {@link MAX_WRITE_DEPTH} levels, and a
 * block nesting level may count twice in the pre-parse depth bound).
 */
const READ_BACK_LIMITS: YamlLimits = {
  ...CONFIG_LIMITS,
  maxBytes: Number.MAX_SAFE_INTEGER,
  maxNodes: Number.MAX_SAFE_INTEGER,
  maxDepth: 2 * (CONFIG_LIMITS.maxDepth + MAX_WRITE_DEPTH),
};

/**
 * Reads a file we wrote as llama-stack will (YAML 1.1, as PyYAML resolves it; JSON is YAML) and
 * compares it with the value it was written from. A difference is a bug in the writer, never shipped:
 * it throws an internal error naming the file and the first path at which the two differ.
 *
 * @param text the written file
 * @param intended the value it must read back as (members set to `undefined` count as absent)
 * @param file the file's name in the message, e.g. `extra-providers.yaml`
 */
export function verifyReadBack(text: string, intended: unknown, file: string): void {
  let actual: unknown;
  try {
    actual = readUntrustedYaml(text, READ_BACK_LIMITS, { source: file, resolution: '' });
  } catch (e) {
    throw new Error(`internal error: ${file} as written does not parse; please report this with the inputs.\n${(e as Error).message}`);
  }
  const at = firstDifference(actual, intended);
  if (at !== undefined) {
    throw new Error(`internal error: ${file} as written does not read back as intended at ${formatPath(at) || 'the top level'} `
      + `(read ${show(valueAt(actual, at))}, intended ${show(valueAt(intended, at))}); please report this with the inputs.`);
  }
}

/**
 * The first path at which `actual` differs from `expected`, or undefined when they are the same plain
 * data: same types, same numbers (NaN equals NaN, -0 differs from 0, a bigint equals the number of
 * its value), same strings, same keys in any
 * order; other objects (dates, binary data) are compared as `isDeepStrictEqual` does. Members of `expected` set to `undefined` count as absent, as the writers leave them out.
 */
export function firstDifference(actual: unknown, expected: unknown, path: PathSegment[] = []): PathSegment[] | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return path;
    if (actual.length !== expected.length) return path;
    for (let i = 0; i < expected.length; i++) {
      const at = firstDifference(actual[i], expected[i], [...path, i]);
      if (at) return at;
    }
    return undefined;
  }
  if (isPlainObject(expected) && isPlainObject(actual)) {
    const keys = Object.keys(expected).filter((k) => expected[k] !== undefined);
    const extra = Object.keys(actual).find((k) => !keys.includes(k));
    if (extra !== undefined) return [...path, extra];
    for (const key of keys) {
      if (!Object.prototype.hasOwnProperty.call(actual, key)) return [...path, key];
      const at = firstDifference(actual[key], expected[key], [...path, key]);
      if (at) return at;
    }
    return undefined;
  }
  // A whole number beyond 2^53 is read back as a bigint: equal when the values are.
  if (typeof actual === 'bigint' || typeof expected === 'bigint') return asBigInt(actual) === asBigInt(expected) ? undefined : path;
  // Scalars, and what a YAML reader may also give (dates, binary data, sets): compared whole.
  return isDeepStrictEqual(actual, expected) ? undefined : path;
}

function asBigInt(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  return path.reduce<unknown>((v, key) => (isObject(v) ? (v as Record<string, unknown>)[key] : undefined), value);
}

/** A short, exact rendering of a value for the message (strings JSON-escaped, so invisible characters show). */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (value instanceof Date) return `a date ${value.toISOString()}`;
  const text = typeof value === 'string' ? JSON.stringify(value) : isObject(value) ? (Array.isArray(value) ? 'a list' : 'a mapping') : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
