// Small shape checks over untrusted input (a YAML document's spec, or props from JavaScript),
// each recording a problem at the field's path instead of throwing at the first mistake.
import { ProblemCollector } from './errors';
import { LABEL_VALUE } from './name-patterns';
import { qualifiedName } from './schema/kubernetes/names';

/** A Kubernetes quantity (`4`, `500m`, `32Gi`, `1e3`), as the API server parses it. */
export const QUANTITY = /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
/** The largest value of a Kubernetes `int32` field. */
export const INT32_MAX = 2147483647;
/** The largest value a Kubernetes `int64` field can get from JSON without losing precision. */
export const INT64_SAFE_MAX = Number.MAX_SAFE_INTEGER;

/** A plain mapping (not null, not a list, not a date that YAML 1.1 read from a timestamp). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * A mapping of plain data, as an object literal, `JSON.parse` or a YAML reader makes it: not a list,
 * and no instance of a class (a Date, a Map, a Set, binary data) either.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The API group of an apiVersion: `apps` for `apps/v1`, `` for the core group's `v1`. */
export function apiGroupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
}

/** `a.b` from `a` and `b`; `b` alone when the base is empty. */
export function joinPath(base: string, field: string): string {
  return base === '' ? field : `${base}.${field}`;
}

/** How a value reads in a message: its JSON, or its type for big values. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return `a date (${value.toISOString().slice(0, 10)})`;
  if (typeof value === 'object') return 'a map';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * Validates and reads fields of untrusted objects. Every method records a problem (and returns
 * `undefined`) instead of throwing, so one pass reports every mistake.
 */
/**
 * Whether an `apiVersion` is of Kubernetes' own API groups (`v1`, `apps/v1`, `*.k8s.io`), as opposed to
 * a custom resource's (a group with a dot of its own, such as `kaito.sh`).
 */
export function isKubernetesApiVersion(apiVersion: string): boolean {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return !group.includes('.') || group.endsWith('.k8s.io');
}

/** What a DNS-1123 subdomain is, for messages. */
/**
 * The ObjectMeta fields the API server writes (k8s.io/apimachinery/pkg/apis/meta/v1/types.go): a document
 * saved from a cluster (`kubectl get -o yaml`) carries them, and they say nothing about what it renders.
 */
export const SERVER_WRITTEN_METADATA: readonly string[] = [
  'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink',
];

export const SUBDOMAIN_HINT = 'a DNS-1123 subdomain (at most 253 lower-case letters, digits, "-" and ".")';

export class ShapeChecker {
  public constructor(public readonly problems: ProblemCollector) {}

  /** A map whose keys are the caller's to check. Returns the map or undefined. */
  public map(value: unknown, path: string): Record<string, unknown> | undefined {
    if (value === undefined) return undefined;
    if (!isRecord(value)) {
      this.problems.add(path, `expected a map, got ${describeValue(value)}`);
      return undefined;
    }
    return value;
  }

  /** A map with only the given keys; unknown keys are problems. Returns the map or undefined. */
  public object(value: unknown, path: string, allowed: readonly string[]): Record<string, unknown> | undefined {
    const map = this.map(value, path);
    if (map === undefined) return undefined;
    for (const key of Object.keys(map)) {
      if (!allowed.includes(key)) {
        this.problems.add(joinPath(path, key), `unknown field; expected one of: ${allowed.join(', ')}`);
      }
    }
    return map;
  }

  /** A string (optionally non-empty and matching a pattern). */
  public string(value: unknown, path: string, options: { pattern?: RegExp; patternHint?: string; allowEmpty?: boolean } = {}): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.problems.add(path, `expected a string, got ${describeValue(value)}`);
      return undefined;
    }
    if (!options.allowEmpty && value.length === 0) {
      this.problems.add(path, 'must not be empty');
      return undefined;
    }
    if (options.pattern && !options.pattern.test(value)) {
      this.problems.add(path, `${JSON.stringify(value)} is not ${options.patternHint ?? `matching ${options.pattern}`}`);
      return undefined;
    }
    return value;
  }

  /** One of the given strings. */
  public enumeration<T extends string>(value: unknown, path: string, allowed: readonly T[]): T | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.problems.add(path, `expected one of ${allowed.join(', ')}, got ${describeValue(value)}`);
      return undefined;
    }
    return value as T;
  }

  /**
   * An integer in [min, max]. The default maximum is Kubernetes' `int32` (replicas, ports, counts):
   * a larger number would be refused by the API server, or wrap around in an operator.
   */
  public integer(value: unknown, path: string, min = 0, max = INT32_MAX): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.problems.add(path, `expected an integer, got ${describeValue(value)}`);
      return undefined;
    }
    if (value < min) {
      this.problems.add(path, `must be at least ${min}, got ${value}`);
      return undefined;
    }
    if (value > max) {
      this.problems.add(path, max === INT32_MAX
        ? `must be at most ${INT32_MAX} (Kubernetes stores it as a 32-bit integer), got ${value}`
        : `must be at most ${max}, got ${value}`);
      return undefined;
    }
    return value;
  }

  /** A boolean. */
  public boolean(value: unknown, path: string): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      this.problems.add(path, `expected true or false, got ${describeValue(value)}`);
      return undefined;
    }
    return value;
  }

  /** A Kubernetes quantity such as `32Gi` or `500m`. */
  public quantity(value: unknown, path: string): string | undefined {
    if (typeof value === 'number') {
      this.problems.add(path, `expected a quantity string, got number ${value} (quote it: "${value}")`);
      return undefined;
    }
    return this.string(value, path, { pattern: QUANTITY, patternHint: 'a Kubernetes quantity such as "4", "500m" or "32Gi"' });
  }

  /** A map of strings to strings. */
  public stringMap(value: unknown, path: string): Record<string, string> | undefined {
    if (value === undefined) return undefined;
    if (!isRecord(value)) {
      this.problems.add(path, `expected a map of strings, got ${describeValue(value)}`);
      return undefined;
    }
    let ok = true;
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== 'string') {
        this.problems.add(joinPath(path, key), `expected a string, got ${describeValue(item)}`);
        ok = false;
      }
    }
    return ok ? value as Record<string, string> : undefined;
  }

  /** A map of Kubernetes labels (valid keys and values) or annotations (valid keys). */
  public labelMap(value: unknown, path: string, kind: 'label' | 'annotation'): Record<string, string> | undefined {
    const map = this.stringMap(value, path);
    if (!map) return undefined;
    let ok = true;
    for (const [key, item] of Object.entries(map)) {
      if (qualifiedName(key).length > 0) {
        this.problems.add(joinPath(path, key), `${JSON.stringify(key)} is not a valid ${kind} key ([prefix/]name, name at most 63 characters)`);
        ok = false;
      }
      if (kind === 'label' && (item.length > 63 || !LABEL_VALUE.test(item))) {
        this.problems.add(joinPath(path, key), `${JSON.stringify(item)} is not a valid label value (at most 63 alphanumerics, '-', '_' or '.')`);
        ok = false;
      }
    }
    return ok ? map : undefined;
  }

  /** A list. */
  public list(value: unknown, path: string): unknown[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.problems.add(path, `expected a list, got ${describeValue(value)}`);
      return undefined;
    }
    return value;
  }
}

/** Orders release lines by major, then minor (`0.10` after `0.9`, `1.0` after `0.8`; a patch is not compared). */
export function compareVersions(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

/** Orders strings by code unit, the same on every machine (`localeCompare` depends on the locale). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
