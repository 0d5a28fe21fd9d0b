import { isPlainObject } from '../checks';
import { formatScalarKey, isScalarValue, PathSegment, renderScalar, UnwritableValueError } from '../io/scalars';

export { UnwritableValueError, type PathSegment } from '../io/scalars';

/** How new YAML text is laid out, so that it matches the file it is inserted into. */
export interface YamlLayout {
  /** Spaces per nesting level. */
  readonly indent: number;
  /** True when block sequences are indented under their key (`key:\n  - a`), false for `key:\n- a`. */
  readonly indentSeq: boolean;
}

/** The layout llama-stack's own generated configs use. */
export const LLAMA_STACK_LAYOUT: YamlLayout = { indent: 2, indentSeq: false };

/**
 * Deepest nesting the writers accept: far beyond any real config (about eight levels), and shallow
 * enough that writing and reading back cannot exhaust a stack.
 */
export const MAX_WRITE_DEPTH = 100;

/**
 * Renders plain data (mappings, lists, strings, numbers and bigints, booleans, null) as block YAML
 * ending in a newline, so that llama-stack's reader — PyYAML's `safe_load`, YAML 1.1 — reads back exactly the
 * same values: strings stay strings with the same characters, numbers keep their value and kind
 * (whole numbers are integers, others floats), booleans stay booleans, keys stay keys.
 *
 * Strings are written plain only when no YAML 1.1 reader can take them for anything else; all others
 * are double-quoted with JSON escapes, which YAML reads the same (tabs, line and paragraph separators
 * and other characters PyYAML treats specially are escaped). Lines are never folded, so the output is
 * stable and diffs stay small. Members whose value is `undefined` are left out, as JSON does.
 *
 * @throws UnwritableValueError naming the path of a value that is not plain data (a function, a Date,
 *   a Map, a class instance, `undefined` in a list, a cycle, nesting beyond 100 levels)
 */
export function renderYaml(value: unknown, layout: YamlLayout = LLAMA_STACK_LAYOUT): string {
  return `${blockLines(value, 0, [], { layout, ancestors: new Set() }).join('\n')}\n`;
}

/**
 * Renders plain data as compact JSON (the shape of `JSON.stringify` without spacing) that YAML 1.1
 * readers read back as the same values too: LINE SEPARATOR and friends are escaped, a float always
 * has a dot (`1.0e-7`, which PyYAML needs), a large whole number is written out in digits
 * (`1000000000000000000000`, not `1e+21`, which PyYAML reads as a string).
 *
 * @throws UnwritableValueError as {@link renderYaml} does, and for infinities and NaN, which JSON cannot
 *   carry, and keys longer than YAML 1.1 readers accept without the explicit `? key` form JSON lacks
 */
export function renderJson(value: unknown): string {
  return json(value, [], new Set());
}

/** Longest key (as written) a YAML 1.1 reader accepts as an implicit key: PyYAML's limit is 1024 characters. */
const MAX_IMPLICIT_KEY = 1000;

/** The collections being written around the current value (to find cycles). */
type Ancestors = Set<object>;

interface BlockContext {
  readonly layout: YamlLayout;
  readonly ancestors: Ancestors;
}

/** The lines of `value` as a block node whose first line starts at `column`. */
function blockLines(value: unknown, column: number, path: PathSegment[], ctx: BlockContext): string[] {
  const pad = ' '.repeat(column);
  const node = classify(value, path, ctx.ancestors, false);
  if (node.kind === 'inline') return [pad + node.text];
  try {
    ctx.ancestors.add(value as object);
    return node.kind === 'list' ? listLines(node.items, column, path, ctx) : mapLines(node.entries, column, path, ctx);
  } finally {
    ctx.ancestors.delete(value as object);
  }
}

function listLines(items: readonly unknown[], column: number, path: PathSegment[], ctx: BlockContext): string[] {
  const pad = ' '.repeat(column);
  const lines: string[] = [];
  items.forEach((item, index) => {
    // The item's own lines start two columns in; its first line takes the dash instead of the spaces.
    const itemLines = blockLines(item, column + 2, [...path, index], ctx);
    lines.push(`${pad}- ${itemLines[0].slice(column + 2)}`, ...itemLines.slice(1));
  });
  return lines;
}

function mapLines(entries: ReadonlyArray<[string, unknown]>, column: number, path: PathSegment[], ctx: BlockContext): string[] {
  const pad = ' '.repeat(column);
  const lines: string[] = [];
  for (const [key, item] of entries) {
    const keyText = formatScalarKey(key);
    const at = [...path, key];
    const node = classify(item, at, ctx.ancestors, false);
    // A key too long for an implicit key takes the explicit form: `? key` on its own line, then `: value`.
    const explicit = keyText.length > MAX_IMPLICIT_KEY;
    if (explicit) lines.push(`${pad}? ${keyText}`);
    const lead = explicit ? `${pad}:` : `${pad}${keyText}:`;
    if (node.kind === 'inline') {
      lines.push(`${lead} ${node.text}`);
    } else {
      const childColumn = column + (node.kind === 'map' || ctx.layout.indentSeq || explicit ? ctx.layout.indent : 0);
      lines.push(lead, ...blockLines(item, childColumn, at, ctx));
    }
  }
  return lines;
}

function json(value: unknown, path: PathSegment[], ancestors: Ancestors): string {
  const node = classify(value, path, ancestors, true);
  if (node.kind === 'inline') return node.text;
  try {
    ancestors.add(value as object);
    if (node.kind === 'list') return `[${node.items.map((item, i) => json(item, [...path, i], ancestors)).join(',')}]`;
    return `{${node.entries.map(([key, item]) => {
      const keyText = renderScalar(key, true);
      if (keyText.length > MAX_IMPLICIT_KEY) {
        throw new UnwritableValueError([...path, key], `a key of ${key.length} characters`,
          `YAML 1.1 readers such as PyYAML refuse keys over 1024 characters in JSON; use a key of at most ${MAX_IMPLICIT_KEY} characters`);
      }
      return `${keyText}:${json(item, [...path, key], ancestors)}`;
    }).join(',')}}`;
  } finally {
    ancestors.delete(value as object);
  }
}

type Classified =
  | { readonly kind: 'inline'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly unknown[] }
  | { readonly kind: 'map'; readonly entries: ReadonlyArray<[string, unknown]> };

/** A scalar or empty collection as inline text, or a non-empty list or mapping to lay out. */
function classify(value: unknown, path: PathSegment[], ancestors: Ancestors, asJson: boolean): Classified {
  if (isScalarValue(value)) return { kind: 'inline', text: renderScalar(value, asJson, path) };
  if (typeof value === 'object' && value !== null && ancestors.has(value)) {
    throw new UnwritableValueError(path, 'a value that contains itself (a cycle)', 'give a tree of plain data');
  }
  if (path.length >= MAX_WRITE_DEPTH) {
    throw new UnwritableValueError(path, `collections nested more than ${MAX_WRITE_DEPTH} levels deep`, 'flatten the value');
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] === undefined) {
        throw new UnwritableValueError([...path, i], 'undefined (or a hole) in a list', 'remove the item or use null');
      }
    }
    return value.length === 0 ? { kind: 'inline', text: '[]' } : { kind: 'list', items: value };
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return entries.length === 0 ? { kind: 'inline', text: '{}' } : { kind: 'map', entries };
  }
  throw new UnwritableValueError(path, describeNonData(value),
    'give plain data: strings, numbers, booleans, null, lists and mappings (write dates and other values as strings)');
}

function describeNonData(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (value instanceof Date) return `a date (${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  const name = (value as object).constructor?.name;
  return name ? `an object of class ${name}` : 'an object that is not plain data';
}

/** Prefixes every non-empty line with `column` spaces (empty lines stay empty: no trailing whitespace). */
export function indentBlock(text: string, column: number): string {
  if (column === 0) return text;
  const pad = ' '.repeat(column);
  return text.split('\n').map((line) => (line === '' ? line : pad + line)).join('\n');
}
