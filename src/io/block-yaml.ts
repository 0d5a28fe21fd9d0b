import { isScalar } from 'yaml';
import type { Document, ScalarTag } from 'yaml';

/*
 * A reader of the YAML that manifests and configs are written in (`render`'s output, `kubectl get -o yaml`,
 * PyYAML's dumps, JSON, most hand-written files): block mappings and sequences, flow collections on one
 * line (`{name: a, namespace: b}`, JSON), plain and quoted scalars over one line or several, literal block
 * scalars, comments and `---` between documents. On that subset it gives the values the `yaml` library's
 * composer gives — scalars resolved by the same schema's tags, in the same order, folded as it folds them,
 * keys made strings as its toJS makes them — in a single pass over the lines, where the library lexes,
 * parses, composes a node tree and converts it (about 1.4 MB/s: the larger part of `validate`).
 *
 * It gives up (returns undefined) on anything else: anchors, aliases, tags, directives, flow collections over
 * several lines, folded or kept block scalars, indentation indicators, tabs, CR, unusual indentation,
 * duplicate keys, the merge key, or more depth or nodes than the caller's limits allow. The caller then
 * reads the text with the library, which reads what it can and names what it cannot. So this never accepts
 * what the library refuses, and never reads a value otherwise (test/io/block-yaml.test.ts holds both
 * against the library on real manifests and configs, the library's own writer's output and thousands of
 * mutations of them).
 */

/** Bounds the caller reads with (safe-yaml.ts YamlLimits): beyond them the library's errors apply. */
export interface BlockYamlBounds {
  readonly maxDepth: number;
  readonly maxNodes: number;
}

/** The text leaves the subset: thrown inside the reader, caught at its entry. */
class BeyondSubset {}
const BEYOND = new BeyondSubset();
function beyond(): never {
  throw BEYOND;
}

/**
 * How plain scalars resolve in a schema, as the composer does it (yaml compose/compose-scalar.js,
 * findScalarTagByTest): the first default tag whose pattern matches, for keys also the tags that are a
 * default for keys only (the merge key); else the text is a string. Quoted and block scalars are strings.
 */
export class PlainScalars {
  private readonly forValues: ScalarTag[];
  private readonly forKeys: ScalarTag[];
  private readonly options: Parameters<ScalarTag['resolve']>[2];

  /** The resolution of `document`'s schema, with its options (the composer's: each document is made with them). */
  public constructor(document: Document) {
    const { schema } = document;
    // A schema in compat mode reports ambiguous scalars as warnings, which the reader cannot see.
    if (schema.compat) throw new Error('internal error: the block reader takes a schema without compat tags');
    this.options = document.options;
    const scalarTags = schema.tags.filter((t): t is ScalarTag => !('collection' in t && t.collection) && t.test !== undefined);
    this.forValues = scalarTags.filter((t) => t.default === true);
    this.forKeys = scalarTags.filter((t) => t.default === true || t.default === 'key');
  }

  public resolve(text: string, atKey: boolean): unknown {
    const tag = (atKey ? this.forKeys : this.forValues).find((t) => t.test!.test(text));
    if (tag === undefined) return text;
    let failed = false;
    let value: unknown;
    try {
      value = tag.resolve(text, () => { failed = true; }, this.options);
    } catch {
      beyond();
    }
    // A resolution the library would report as an error is the library's to report.
    if (failed) beyond();
    return isScalar(value) ? value.value : value;
  }
}

/**
 * The values of the documents of `text`, null for an empty one (`---` with nothing after it), as the library
 * counts them; or undefined when the text is not in the subset or crosses the bounds.
 */
export function readBlockYamlStream(text: string, scalars: PlainScalars, bounds: BlockYamlBounds): unknown[] | undefined {
  if (OUTSIDE_CHARACTERS.test(text) || OUTSIDE_LINES.test(text)) return undefined;
  try {
    return new BlockReader(text, scalars, bounds).stream();
  } catch (e) {
    if (e === BEYOND) return undefined;
    throw e;
  }
}

/** Characters the reader leaves to the library: tabs and CR (indentation and line rules of their own), the byte order mark, NEL and the Unicode line separators. */
const OUTSIDE_CHARACTERS = /[\t\r\uFEFF\u0085\u2028\u2029]/;
/** Directives and the document end marker. */
const OUTSIDE_LINES = /^(?:%|\.\.\.(?: |$))/m;
/** The rest of a line after a value: nothing, or a comment after a space. */
const LINE_END = /^(?: *| +#.*)$/;
/** A plain key: no indicator first, no `#`, no space last. */
const PLAIN_KEY = /^[^-?:,[\]{}#&*!|>'"%@` ][^#]*$/;
/** The flow indicators, which end a plain scalar inside a flow collection. */
const FLOW_INDICATORS = new Set([',', '[', ']', '{', '}']);
/** Continuation lines of a plain scalar the reader leaves to the library: an indicator first, or a document marker. */
const CONTINUATION_START = /^(?:[-?:](?: |$)|[,[\]{}#&*!|>'"%@`]|---|\.\.\.)/;
/** Characters that start something other than a plain scalar, or a plain scalar the reader leaves to the library. */
const NOT_PLAIN_START = new Set([',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', '?', ':', '"', "'"]);
/** The library refuses implicit keys longer than 1024 characters; well short of that, the reader gives up. */
const MAX_KEY_LENGTH = 1000;

/** The double-quoted escapes the library reads (yaml compose/resolve-flow-scalar.js escapeCodes). */
const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  'a': '\x07',
  'b': '\b',
  'e': '\x1b',
  'f': '\f',
  'n': '\n',
  'r': '\r',
  't': '\t',
  'v': '\v',
  'N': '\u0085',
  '_': '\u00a0',
  'L': '\u2028',
  'P': '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
};
const HEX_LENGTHS: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

class BlockReader {
  private readonly lines: string[];
  /** The line being read. */
  private i = 0;
  /** Keys, values and list items read, counted as the library's shape check counts its tokens, or more. */
  private nodes = 0;

  public constructor(text: string, private readonly scalars: PlainScalars, private readonly bounds: BlockYamlBounds) {
    this.lines = text.split('\n');
  }

  public stream(): unknown[] {
    const values: unknown[] = [];
    this.skip();
    while (this.i < this.lines.length) {
      const marked = this.isDocumentStart(this.i);
      if (marked) {
        if (!LINE_END.test(this.lines[this.i].slice(3))) beyond();
        this.i++;
        this.skip();
      }
      if (this.i < this.lines.length && !this.isDocumentStart(this.i)) {
        values.push(this.collectionAt(this.indentOf(this.i), 1));
        this.skip();
        if (this.i < this.lines.length && !this.isDocumentStart(this.i)) beyond();
      } else if (marked) {
        values.push(null);
      }
    }
    return values;
  }

  private isDocumentStart(line: number): boolean {
    const text = this.lines[line];
    return text.startsWith('---') && (text.length === 3 || text[3] === ' ');
  }

  /** Spaces before the line's content; -1 for a document marker, which ends every collection. */
  private indentOf(line: number): number {
    if (this.isDocumentStart(line)) return -1;
    return afterSpaces(this.lines[line], 0);
  }

  /** Moves past blank and comment lines. */
  private skip(): void {
    while (this.i < this.lines.length && isBlankOrComment(this.lines[this.i])) this.i++;
  }

  /**
   * A collection at `depth`: beyond what the library's shape check allows, which bounds depth by two per
   * indentation level plus the indicators on a line, the reader gives up.
   */
  private enter(depth: number): void {
    if (2 * depth + 5 > this.bounds.maxDepth) beyond();
  }

  /**
   * Moves to the next line with content and says whether it is at `column`, where the next key or item of a
   * collection there would be; false when the collection has ended (a less indented line, a document marker,
   * the end). A more indented line gives up: the collection's last value would go on over it.
   */
  private atColumn(column: number): boolean {
    this.skip();
    if (this.i >= this.lines.length) return false;
    const indent = this.indentOf(this.i);
    if (indent > column) beyond();
    return indent === column;
  }

  private count(nodes: number): void {
    this.nodes += nodes;
    if (this.nodes > this.bounds.maxNodes) beyond();
  }

  /** The mapping or sequence that starts at column `column` of the current line (a JSON document is one). */
  private collectionAt(column: number, depth: number): unknown {
    const line = this.lines[this.i];
    if (line[column] === '{' || line[column] === '[') {
      const flow = this.flow(line, column, depth);
      if (!LINE_END.test(line.slice(flow.end))) beyond();
      this.i++;
      return flow.value;
    }
    if (isSequenceItem(line, column)) return this.sequence(column, depth);
    if (this.keyAt(line, column) !== undefined) return this.mapping(column, depth);
    return beyond();
  }

  /** The value of a key or item whose text ended at its indicator: a collection on the lines below, or null. */
  private nodeBelow(parentIndent: number, sequenceAtParent: boolean, depth: number): unknown {
    this.skip();
    if (this.i >= this.lines.length) return this.scalars.resolve('', false);
    const indent = this.indentOf(this.i);
    if (indent > parentIndent) return this.collectionAt(indent, depth);
    // A sequence may stand at its key's column.
    if (sequenceAtParent && indent === parentIndent && isSequenceItem(this.lines[this.i], indent)) return this.sequence(indent, depth);
    return this.scalars.resolve('', false);
  }

  private sequence(column: number, depth: number): unknown[] {
    this.enter(depth);
    const items: unknown[] = [];
    while (this.atColumn(column)) {
      const line = this.lines[this.i];
      // The key after a sequence at its key's column; anything else there is the caller's to refuse.
      if (!isSequenceItem(line, column)) return items;
      this.count(2);
      const contentColumn = afterSpaces(line, column + 1);
      const content = line.slice(contentColumn);
      if (content === '' || content[0] === '#') {
        this.i++;
        items.push(this.nodeBelow(column, false, depth + 1));
      } else if (isSequenceItem(line, contentColumn)) {
        beyond();
      } else if (this.keyAt(line, contentColumn) !== undefined) {
        items.push(this.mapping(contentColumn, depth + 1));
      } else {
        items.push(this.inlineValue(content, column, depth + 1));
      }
    }
    return items;
  }

  /** A mapping whose first key is at `column` of the current line (after `- ` when in a sequence item). */
  private mapping(column: number, depth: number): Record<string, unknown> {
    this.enter(depth);
    const map: Record<string, unknown> = {};
    // The identities the library's duplicate check compares (safe-yaml.ts checkStructure: String(key.value)).
    const seen = new Set<string>();
    // The first key is on the current line, after `- ` in a sequence item.
    for (let first = true; first || this.atColumn(column); first = false) {
      const line = this.lines[this.i];
      const key = this.keyAt(line, column);
      if (key === undefined) beyond();
      this.count(3);
      const content = line.slice(afterSpaces(line, key.end + 1));
      let value: unknown;
      if (content === '' || content[0] === '#') {
        this.i++;
        value = this.nodeBelow(column, true, depth + 1);
      } else {
        value = this.inlineValue(content, column, depth + 1);
      }
      addPair(map, seen, key.value, value);
    }
    return map;
  }

  /** A plain key's value: a string, a number, a boolean or null; the merge key and a float of whole value give up. */
  private plainKey(text: string): Key {
    if (text === '<<') beyond();
    const value = this.scalars.resolve(text, true);
    if (value !== null && typeof value === 'object') beyond();
    return value as Key;
  }

  /**
   * The key at `column` of `line` and the column of its `:`, if the line holds a key there. A key the
   * library would read as other than a string, a number, a boolean or null (a float of whole value) gives up.
   */
  private keyAt(line: string, column: number): { value: Key; end: number } | undefined {
    const first = line[column];
    let value: Key;
    let end: number;
    // A flow collection is a value (as a key, the library's to read).
    if (first === '{' || first === '[') return undefined;
    if (first === '"' || first === "'") {
      const quoted = readQuoted(line, column);
      if (quoted === undefined) return undefined;
      value = quoted.value;
      end = quoted.end;
      if (line[end] !== ':' || (end + 1 < line.length && line[end + 1] !== ' ')) return undefined;
    } else {
      end = separatorAt(line, column);
      if (end < 0) return undefined;
      const text = line.slice(column, end);
      if (!PLAIN_KEY.test(text) || text.endsWith(' ')) beyond();
      value = this.plainKey(text);
    }
    if (end - column > MAX_KEY_LENGTH) beyond();
    return { value, end };
  }

  /**
   * A value that starts on its key's or item's line (`content`, from its first character); consumes its lines.
   * A line indented more than the parent after a scalar (one continued over lines, or an error) is left to the
   * collections' loops, which give up on it.
   */
  private inlineValue(content: string, parentIndent: number, depth: number): unknown {
    const first = content[0];
    this.i++;
    if (first === '"' || first === "'") {
      this.count(1);
      return this.quoted(content, parentIndent);
    }
    if (first === '|') {
      const chomp = /^\|(-?)(?: *| +#.*)$/.exec(content);
      if (chomp === null) beyond();
      this.count(1);
      return this.literal(parentIndent, chomp[1] === '-');
    }
    if (first === '{' || first === '[') {
      const flow = this.flow(content, 0, depth);
      if (!LINE_END.test(content.slice(flow.end))) beyond();
      return flow.value;
    }
    if (NOT_PLAIN_START.has(first) || (first === '-' && (content.length === 1 || content[1] === ' '))) beyond();
    const comment = content.indexOf(' #');
    const text = (comment < 0 ? content : content.slice(0, comment)).replace(/ +$/, '');
    if (!isPlainLine(text)) beyond();
    this.count(1);
    // A comment ends a plain scalar; without one it may go on over the lines below.
    return this.plainValue(comment < 0 ? this.plainLines(text, parentIndent) : text);
  }

  /**
   * A plain scalar whose first line is `first`, with the lines below that go on with it (indented more than
   * the parent, up to a comment or a less indented line), folded as the library folds them
   * (yaml compose/resolve-flow-scalar.js plainValue); consumes them.
   */
  private plainLines(first: string, parentIndent: number): string {
    const lines = [first];
    let next = this.i;
    for (let at = this.i; at < this.lines.length; at++) {
      const line = this.lines[at];
      if (/^ *$/.test(line)) continue;
      const indent = this.indentOf(at);
      const text = line.slice(indent);
      if (indent <= parentIndent || text[0] === '#') break;
      // A line that would start something else, or hold a comment, is the library's to read.
      if (CONTINUATION_START.test(text) || text.includes(' #') || !isPlainLine(text)) beyond();
      lines.push(...this.lines.slice(next, at), text.replace(/ +$/, ''));
      next = at + 1;
    }
    this.i = next;
    return unfoldLines(lines.join('\n'));
  }

  /** A plain value's value; a plain `<<` gives up (PyYAML refuses it outside a key: safe-yaml.ts checkMergeValues). */
  private plainValue(text: string): unknown {
    if (text === '<<') beyond();
    return this.scalars.resolve(text, false);
  }

  /**
   * A quoted scalar that starts at `content` (the rest of the line before the current one) and may go on over
   * the lines below, each indented more than the parent; consumes them.
   */
  private quoted(content: string, parentIndent: number): string {
    const quote = content[0];
    let close = closingQuote(content, quote, 1);
    const lines = [content.slice(1, close < 0 ? undefined : close)];
    let rest = close < 0 ? '' : content.slice(close + 1);
    while (close < 0) {
      if (this.i >= this.lines.length) beyond();
      const line = this.lines[this.i];
      if (!/^ *$/.test(line) && this.indentOf(this.i) <= parentIndent) beyond();
      this.i++;
      close = closingQuote(line, quote, 0);
      lines.push(close < 0 ? line : line.slice(0, close));
      rest = close < 0 ? '' : line.slice(close + 1);
    }
    if (!LINE_END.test(rest)) beyond();
    return unquote(quote, lines.join('\n'));
  }

  /** The flow collection (`{…}` or `[…]`) at `column` of `line`, closed on that line, and the column after it. */
  private flow(line: string, column: number, depth: number): { value: unknown; end: number } {
    this.enter(depth);
    this.count(1);
    const isMapping = line[column] === '{';
    const close = isMapping ? '}' : ']';
    const map: Record<string, unknown> = {};
    const seen = new Set<string>();
    const items: unknown[] = [];
    let at = afterSpaces(line, column + 1);
    while (line[at] !== close) {
      if (isMapping) {
        const key = this.flowScalar(line, at, true);
        // `key: value`, JSON's `"key":value`, or `key:[…]` (a plain key ends at a `:` before a space or a flow
        // indicator); other forms (`a :`, a key alone) are the library's.
        if (line[key.end] !== ':') beyond();
        const value = this.flowNode(line, afterSpaces(line, key.end + 1), depth);
        addPair(map, seen, key.value as Key, value.value);
        this.count(3);
        at = afterSpaces(line, value.end);
      } else {
        const item = this.flowNode(line, at, depth);
        items.push(item.value);
        this.count(2);
        at = afterSpaces(line, item.end);
      }
      if (line[at] === close) break;
      if (line[at] !== ',') beyond();
      at = afterSpaces(line, at + 1);
      // An empty entry or a trailing comma: the library's rules.
      if (line[at] === ',' || line[at] === close) beyond();
    }
    return { value: isMapping ? map : items, end: at + 1 };
  }

  private flowNode(line: string, at: number, depth: number): { value: unknown; end: number } {
    return line[at] === '{' || line[at] === '[' ? this.flow(line, at, depth + 1) : this.flowScalar(line, at, false);
  }

  /**
   * A scalar in a flow collection and the column after it: quoted, or plain up to a flow indicator (`,[]{}`)
   * or a `:` before a space or one.
   */
  private flowScalar(line: string, at: number, atKey: boolean): { value: unknown; end: number } {
    const first = line[at];
    if (first === '"' || first === "'") return readQuoted(line, at) ?? beyond();
    if (first === undefined || NOT_PLAIN_START.has(first) || (first === '-' && (line[at + 1] === ' ' || FLOW_INDICATORS.has(line[at + 1])))) beyond();
    let end = at;
    for (; end < line.length && !FLOW_INDICATORS.has(line[end]); end++) {
      if (line[end] === ':' && (line[end + 1] === ' ' || FLOW_INDICATORS.has(line[end + 1]))) break;
      // A comment inside a flow collection.
      if (line[end] === '#' && line[end - 1] === ' ') beyond();
    }
    // One not closed on the line ends here, and its collection gives up.
    const text = line.slice(at, end);
    if (text.endsWith(' ')) {
      // A space before a key's `:` is the library's to read.
      if (line[end] === ':') beyond();
      return { value: this.plainValue(text.replace(/ +$/, '')), end };
    }
    return { value: atKey ? this.plainKey(text) : this.plainValue(text), end };
  }

  /**
   * A literal block scalar (`|` or `|-`) whose header ended the previous line: its lines are those indented
   * more than its parent, each less its first line's indentation (yaml compose/resolve-block-scalar.js).
   */
  private literal(parentIndent: number, strip: boolean): string {
    const start = this.i;
    let contentIndent = -1;
    let end = start;
    let last = -1;
    for (; end < this.lines.length; end++) {
      const line = this.lines[end];
      if (/^ *$/.test(line)) continue;
      const indent = this.indentOf(end);
      if (indent <= parentIndent) break;
      if (contentIndent < 0) contentIndent = indent;
      else if (indent < contentIndent) beyond();
      last = end;
    }
    // Indented by one only, or empty: the library's rules for those are its own.
    if (contentIndent < parentIndent + 2) beyond();
    const lines: string[] = [];
    for (let n = start; n <= last; n++) {
      const line = this.lines[n];
      // A blank line with more spaces than the content's indentation keeps them, or needs an indicator.
      if (line.length <= contentIndent && /^ *$/.test(line)) lines.push('');
      else if (/^ *$/.test(line)) beyond();
      else lines.push(line.slice(contentIndent));
    }
    for (let n = last + 1; n < end; n++) if (this.lines[n].length > contentIndent) beyond();
    this.i = end;
    return strip ? lines.join('\n') : `${lines.join('\n')}\n`;
  }
}

/** The column of the first character from `column` on that is not a space (the line's length if none). */
function afterSpaces(line: string, column: number): number {
  let n = column;
  while (line.charCodeAt(n) === 32) n++;
  return n;
}

/** A key as the library's toJS reads it: a string, a number, a boolean or null (the empty string). */
type Key = string | number | bigint | boolean | null;

/**
 * Adds a pair as the library's toJS does (yaml nodes/addPairToJSMap.js): a key the object has already, if
 * only by its prototype (`__proto__`, `toString`), is defined as its own. A duplicate key gives up: the
 * library refuses it (`seen` holds the identities its check compares, safe-yaml.ts checkStructure).
 */
function addPair(map: Record<string, unknown>, seen: Set<string>, key: Key, value: unknown): void {
  const identity = String(key);
  if (seen.has(identity)) beyond();
  seen.add(identity);
  const name = key === null ? '' : identity;
  if (name in map) Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
  else map[name] = value;
}

/** A line of a plain scalar: `a: b: c` and `a: b:` are mappings the block context does not allow. */
function isPlainLine(text: string): boolean {
  return !text.includes(': ') && !text.endsWith(':');
}

function isBlankOrComment(line: string): boolean {
  const n = afterSpaces(line, 0);
  return n === line.length || line[n] === '#';
}

/** Whether `line` holds a block sequence item (`-` then a space or the end) at `column`. */
function isSequenceItem(line: string, column: number): boolean {
  return line[column] === '-' && (line.length === column + 1 || line[column + 1] === ' ');
}

/** The column of the first `:` from `column` on that a space or the line's end follows; -1 if none. */
function separatorAt(line: string, column: number): number {
  for (let at = line.indexOf(':', column); at >= 0; at = line.indexOf(':', at + 1)) {
    if (at + 1 === line.length || line[at + 1] === ' ') return at;
  }
  return -1;
}

/**
 * The one-line quoted scalar at `column` of `text` and the column after its closing quote; undefined when it
 * does not close on the line.
 */
function readQuoted(text: string, column: number): { value: string; end: number } | undefined {
  const close = closingQuote(text, text[column], column + 1);
  return close < 0 ? undefined : { value: unquote(text[column], text.slice(column + 1, close)), end: close + 1 };
}

/** The index of the quote that closes a scalar quoted with `quote` in `text`, from `from` on; -1 if none. */
function closingQuote(text: string, quote: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const ch = text[at];
    if (quote === '"') {
      // An escape's character is never the closing quote (at the line's end it is the line break).
      if (ch === '\\') at++;
      else if (ch === '"') return at;
    } else if (ch === "'") {
      if (text[at + 1] !== "'") return at;
      at++;
    }
  }
  return -1;
}

/**
 * The value of a quoted scalar whose text between the quotes is `source` (lines joined by `\n`), as the
 * library reads it (yaml compose/resolve-flow-scalar.js singleQuotedValue, doubleQuotedValue): line breaks
 * folded, escapes read; an escape it would report gives up.
 */
function unquote(quote: string, source: string): string {
  if (quote === "'") return unfoldLines(source).replace(/''/g, "'");
  let value = '';
  for (let at = 0; at < source.length; at++) {
    const ch = source[at];
    if (ch === '\n') {
      // A single line break folds to a space; each further one (blank lines) is kept.
      let breaks = '';
      while (source[at + 1] === ' ' || source[at + 1] === '\n') if (source[++at] === '\n') breaks += '\n';
      value += breaks || ' ';
    } else if (ch === ' ') {
      // Spaces before a line break are dropped.
      const start = at;
      while (source[at + 1] === ' ') at++;
      if (source[at + 1] !== '\n') value += source.slice(start, at + 1);
    } else if (ch !== '\\') {
      value += ch;
    } else {
      const escape = source[++at];
      const length = HEX_LENGTHS[escape];
      if (escape === '\n') {
        // An escaped line break joins the lines, without the next one's leading spaces.
        while (source[at + 1] === ' ') at++;
      } else if (length !== undefined) {
        const hex = source.substr(at + 1, length);
        if (hex.length !== length || !/^[0-9a-fA-F]+$/.test(hex)) beyond();
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) beyond();
        value += String.fromCodePoint(code);
        at += length;
      } else if (Object.prototype.hasOwnProperty.call(ESCAPES, escape)) {
        value += ESCAPES[escape];
      } else {
        beyond();
      }
    }
  }
  return value;
}

/**
 * Lines of a single-quoted scalar folded as the library folds them (yaml compose/resolve-flow-scalar.js
 * unfoldLines): each line trimmed, a line break a space, blank lines line breaks.
 */
function unfoldLines(source: string): string {
  const lines = source.split('\n');
  if (lines.length === 1) return source;
  let value = lines[0].replace(/ +$/, '');
  let separator = ' ';
  for (const line of lines.slice(1, -1)) {
    const trimmed = line.replace(/^ +| +$/g, '');
    if (trimmed === '') {
      if (separator === '\n') value += separator;
      else separator = '\n';
    } else {
      value += separator + trimmed;
      separator = ' ';
    }
  }
  return value + separator + lines[lines.length - 1].replace(/^ +/, '');
}
