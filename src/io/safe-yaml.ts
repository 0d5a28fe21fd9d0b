import { Composer, CST, Document, isAlias, isCollection, isPair, isScalar, Lexer, LineCounter, Node, parseDocument, Parser, visit } from 'yaml';
import type { DocumentOptions, ParseOptions, SchemaOptions, Tags } from 'yaml';
import { PlainScalars, readBlockYamlStream } from './block-yaml';
import { asKubectlReads } from './goyaml-schema';
import { asPyYamlReads, PYYAML_ONLY_LINE_BREAKS } from './pyyaml-schema';
import { RunConfigError } from '../run-config/errors';

/**
 * Bounds for one untrusted YAML input. Provider metadata comes from third-party images and the base
 * config from users, so a hostile or broken file must end in a clear error, never in a crash, a hang
 * or unbounded memory.
 */
export interface YamlLimits {
  /** Largest accepted input, in bytes (UTF-8). */
  readonly maxBytes: number;
  /** Deepest accepted nesting of collections. */
  readonly maxDepth: number;
  /** Most alias expansions accepted when resolving the document (alias-bomb guard). */
  readonly maxAliasCount: number;
  /**
   * Most keys, values and list items (counted as the lexer's value tokens). Parsed documents take
   * far more memory than their text, most of it per node, so this bounds the memory of a parse.
   */
  readonly maxNodes: number;
}

/** Limits for `lls-provider-spec.yaml`: a handful of short fields. */
export const METADATA_LIMITS: YamlLimits = { maxBytes: 64 * 1024, maxDepth: 16, maxAliasCount: 50, maxNodes: 1000 };

/**
 * Limits for the base config and for `crd-config.yaml`. A ConfigMap holds at most 1 MiB, so no real
 * config is larger; real configs nest about eight levels deep and hold about 1,000 nodes.
 */
export const CONFIG_LIMITS: YamlLimits = { maxBytes: 1024 * 1024, maxDepth: 64, maxAliasCount: 1000, maxNodes: 50000 };

/** Who and what a parse concerns, so that its errors name the provider, its image and the fix. */
export interface YamlSource {
  /** The file or input being read, e.g. `metadata/custom-vllm/lls-provider-spec.yaml`. */
  readonly source: string;
  /** The provider concerned, if any. */
  readonly providerId?: string;
  /** That provider's image, if known. */
  readonly image?: string;
  /** How to fix the file when it cannot be read. */
  readonly resolution: string;
}

/** A parsed untrusted document: the CST-preserving document and its plain value. */
export interface ParsedYaml {
  /** The document, with source ranges and comments (the merge edits the text in place by its ranges). */
  readonly doc: Document.Parsed;
  /** The document's value as plain data (`null` for an empty document). */
  readonly value: unknown;
  /** Maps source offsets to lines and columns. */
  readonly lineCounter: LineCounter;
}

/**
 * Parses untrusted YAML within limits. Rejects more than one document, syntax errors (with line and
 * column), duplicate keys, nesting deeper than the limit and alias expansion beyond the limit.
 *
 * The file is read as llama-stack reads it, with the implicit types of PyYAML's `safe_load` (YAML 1.1):
 * `on` and `yes` are booleans, `<<` merges, `1e-7` (no dot) and `y` are strings. What PyYAML cannot
 * load or would read otherwise is refused: a plain `=`, a plain `<<` that is not a key, and NEL, LINE
 * SEPARATOR or PARAGRAPH SEPARATOR outside escapes (line breaks to PyYAML only).
 */
export function parseUntrustedYaml(text: string, limits: YamlLimits, where: YamlSource): ParsedYaml {
  const fail = failWith(where);
  checkText(text, limits, fail);
  checkLineBreaks(text, fail);
  return parseCheckedYaml(text, limits, fail);
}

/** {@link parseUntrustedYaml} of a text whose size and characters are checked. */
function parseCheckedYaml(text: string, limits: YamlLimits, fail: (details: string[]) => never): ParsedYaml {
  const docs = parseDocuments(text, limits, fail, false, asPyYamlReads);
  if (docs.length > 1) {
    fail([`The file holds ${docs.length} YAML documents (separated by '---'); exactly one is expected.`]);
  }
  if (docs[0]) checkMergeValues(docs[0], fail);
  return docs[0] ?? { doc: parseDocument('', { version: '1.1' }), value: null, lineCounter: new LineCounter() };
}

/**
 * The value of {@link parseUntrustedYaml}, for a caller that needs nothing else (no source ranges): block-style
 * text is read by block-yaml.ts in one pass, to the same value; what it leaves, and every error, is
 * parseUntrustedYaml's.
 */
export function readUntrustedYaml(text: string, limits: YamlLimits, where: YamlSource): unknown {
  const fail = failWith(where);
  checkText(text, limits, fail);
  checkLineBreaks(text, fail);
  pyYamlScalars ??= new PlainScalars(new Document(null, readerOptions(asPyYamlReads)));
  const values = readBlockYamlStream(text, pyYamlScalars, limits);
  if (values !== undefined && values.length <= 1) return values[0] ?? null;
  return parseCheckedYaml(text, limits, fail).value;
}

/**
 * Like {@link parseUntrustedYaml}, for a stream of several documents (manifests): the same checks and
 * limits on the whole text, then the value of every document; empty documents are dropped.
 *
 * Manifests are read as kubectl reads them (goyaml.v2, YAML 1.1; goyaml-schema.ts): `yes` is true, `0x1f`
 * and `0O17` are numbers, but a timestamp such as `2024-01-01` and a base-60 number such as `1:20` stay
 * strings. Block-style text is read by block-yaml.ts in one pass, to the same values; what it leaves is
 * read by the library, which names any error.
 */
export function parseUntrustedYamlStream(text: string, limits: YamlLimits, where: YamlSource): unknown[] {
  const fail = failWith(where);
  checkText(text, limits, fail);
  kubectlScalars ??= new PlainScalars(new Document(null, readerOptions(asKubectlReads)));
  return readBlockYamlStream(text, kubectlScalars, limits)?.filter((value) => value !== null)
    ?? parseDocuments(text, limits, fail, true, asKubectlReads).map((parsed) => parsed.value);
}

/** How plain scalars resolve for kubectl and for PyYAML, each made on its first use. */
let kubectlScalars: PlainScalars | undefined;
let pyYamlScalars: PlainScalars | undefined;

/** The options every document is read with; `customTags` makes the schema a reader's (kubectl's, PyYAML's). */
function readerOptions(customTags?: (tags: Tags) => Tags): ParseOptions & DocumentOptions & SchemaOptions {
  return {
    version: '1.1',
    customTags,
    // Findings go into the error message; the library must not print to the console on its own.
    logLevel: 'error',
    // The library's own duplicate-key check is quadratic in the number of keys (minutes on a 1 MiB
    // map); duplicates are rejected in linear time by checkStructure below instead.
    uniqueKeys: false,
    // No prettyErrors: it builds a context snippet with a regular expression that exhausts memory on
    // deeply nested input; we format positions ourselves from the line counter instead.
  };
}

/** Size and characters, checked on the text before any parsing (depth and node count: while it is lexed). */
function checkText(text: string, limits: YamlLimits, fail: (details: string[]) => never): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBytes) {
    fail([`The file is ${bytes} bytes; the limit is ${limits.maxBytes} bytes.`]);
  }

  const badCharacter = NOT_PRINTABLE.exec(text);
  if (badCharacter) {
    const code = badCharacter[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    fail([`Character U+${code} at ${positionOf(text, badCharacter.index)} is not allowed in YAML (llama-stack's parser rejects it too).`]);
  }
}

/** NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR break lines for PyYAML only: the two readers would disagree. */
function checkLineBreaks(text: string, fail: (details: string[]) => never): void {
  const found = PYYAML_ONLY_LINE_BREAKS.exec(text);
  if (found) {
    const code = found[0].charCodeAt(0);
    const escape = code === 0x85 ? '\\N' : code === 0x2028 ? '\\L' : '\\P';
    fail([`Character U+${code.toString(16).toUpperCase().padStart(4, '0')} at ${positionOf(text, found.index)} is a line break for `
      + 'llama-stack\'s YAML reader (PyYAML), so the file would not mean there what it means here. Inside a double-quoted '
      + `string write it as the escape ${escape}; elsewhere remove it.`]);
  }
}

/**
 * PyYAML resolves a plain `<<` anywhere to the merge type, which `safe_load` can only use as a mapping
 * key: elsewhere it refuses the file, where this parser would read the string "<<".
 */
function checkMergeValues(parsed: ParsedYaml, fail: (details: string[]) => never): void {
  let offset: number | undefined;
  visit(parsed.doc, {
    Scalar: (key, node) => {
      if (key === 'key' || node.type !== 'PLAIN' || node.source !== '<<') return undefined;
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  if (offset !== undefined) {
    const { line, col } = parsed.lineCounter.linePos(offset);
    fail([`A plain << at line ${line}, column ${col} is the YAML 1.1 merge key outside a key, which llama-stack's YAML reader `
      + '(PyYAML safe_load) refuses; quote it: "<<".']);
  }
}

function failWith(where: YamlSource): (details: string[]) => never {
  return (details) => {
    throw new RunConfigError([{
      title: `Cannot read ${where.source}`,
      providerId: where.providerId,
      image: where.image,
      source: where.source,
      details,
      resolution: where.resolution,
    }]);
  };
}

/** Parses every document of a checked text; `numbered` prefixes errors with the document number. */
function parseDocuments(
  text: string, limits: YamlLimits, fail: (details: string[]) => never, numbered = false, customTags?: (tags: Tags) => Tags,
): ParsedYaml[] {
  const lineCounter = new LineCounter();
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const composer = new Composer(readerOptions(customTags));
  // parseAllDocuments, with the text lexed once for both the parser and the shape check.
  const docs = Array.from(composer.compose(checkedSyntax(text, limits, lineCounter, fail)));
  if (docs.length === 0) {
    // Nothing but comments, directives or whitespace: no document, unless the stream itself is broken.
    const { errors } = composer.streamInfo();
    if (errors.length > 0) {
      fail(errors.slice(0, 5).map((e) => `YAML parse error at ${at(e.pos[0])}: ${e.message.split('\n')[0]}`));
    }
    return [];
  }
  const parsed: ParsedYaml[] = [];
  docs.forEach((doc, index) => {
    const which = numbered ? `document ${index + 1}: ` : '';
    if (doc.errors.length > 0) {
      fail(doc.errors.slice(0, 5).map((e) => `${which}YAML parse error at ${at(e.pos[0])}: ${describeYamlError(e.message, limits)}`));
    }
    // A tag no reader here resolves (`!!python/object:…`, `!custom`) would be dropped silently, its value
    // kept without it; PyYAML's safe_load refuses such tags.
    const unresolved = doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED');
    if (unresolved.length > 0) {
      fail(unresolved.slice(0, 5).map((w) => `${which}The tag ${shortTag(w.message)} at ${at(w.pos[0])} is not a YAML type that can be read here (strings, numbers, `
        + 'booleans, null, mappings and lists): remove it.'));
    }
    const problem = checkStructure(doc.contents, limits.maxDepth);
    if (problem) {
      fail([`${which}${problem.message} (at ${at(problem.offset)}).`]);
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      fail([`${which}The document cannot be resolved: ${message} (more than ${limits.maxAliasCount} alias expansions are refused).`]);
    }
    if (!numbered || (value !== null && value !== undefined)) {
      parsed.push({ doc, value: value ?? null, lineCounter });
    }
  });
  return parsed;
}

/** The tag a TAG_RESOLVE_FAILED warning names, as written (`!!python/object:os.system`, `!custom`). */
function shortTag(message: string): string {
  const tag = /^Unresolved tag: (\S+)/.exec(message)?.[1] ?? 'given';
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
}

/**
 * Characters a YAML stream may not contain (YAML 1.1 §5.1, as PyYAML enforces): C0 controls other
 * than tab and line breaks, DEL, C1 controls other than NEL, lone surrogates, U+FFFE and U+FFFF.
 */
const NOT_PRINTABLE = /[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** `line L, column C` (1-based) of an offset, without parsing. */
function positionOf(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** Token types that start a key, a value or a list item. */
const VALUE_TOKENS: ReadonlySet<string> = new Set([
  'alias', 'scalar', 'single-quoted-scalar', 'double-quoted-scalar', 'block-scalar-header',
  'flow-seq-start', 'flow-map-start', 'seq-item-ind', 'map-value-ind', 'explicit-key-ind',
]);

/**
 * The parser's syntax tree of `text`, lexed once, with an upper bound of the nesting depth and the number
 * of value tokens checked on each token before the parser sees it: the parser's memory grows with both,
 * so a hostile file is refused with at most the limits' worth of nodes built.
 */
function* checkedSyntax(text: string, limits: YamlLimits, lineCounter: LineCounter, fail: (details: string[]) => never): Generator<CST.Token> {
  const parser = new Parser(lineCounter.addNewLine);
  const shape = new ShapeScan();
  lineCounter.addNewLine(0);
  for (const lexeme of new Lexer().lex(text)) {
    shape.add(lexeme);
    if (shape.depthBound > limits.maxDepth) {
      fail([`Collections are nested more than ${limits.maxDepth} levels deep.`]);
    }
    if (shape.nodes > limits.maxNodes) {
      fail([`The document holds more than ${limits.maxNodes} keys, values and list items, the limit that bounds the memory of the merge.`]);
    }
    yield* parser.next(lexeme);
  }
  yield* parser.end();
}

/**
 * From the lexer's tokens alone (linear time, constant memory): the number of value tokens, and an
 * upper bound of the nesting depth — open flow brackets, plus two levels per open indentation level
 * (a block sequence may sit at its key's column), plus the block indicators (`-`, `?`, `:`) on the
 * current line.
 */
class ShapeScan {
  public depthBound = 0;
  public nodes = 0;
  private flow = 0;
  private lineIndicators = 0;
  private atLineStart = true;
  private readonly indents: number[] = [];

  public add(token: string): void {
    const type = CST.tokenType(token);
    if (type === 'newline') {
      this.atLineStart = true;
      this.lineIndicators = 0;
      return;
    }
    if (type !== null && VALUE_TOKENS.has(type)) this.nodes++;
    if (type === 'flow-seq-start' || type === 'flow-map-start') this.flow++;
    else if ((type === 'flow-seq-end' || type === 'flow-map-end') && this.flow > 0) this.flow--;
    else if ((type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind') && this.flow === 0) this.lineIndicators++;
    if (this.atLineStart && this.flow === 0) {
      const column = type === 'space' ? token.length : 0;
      while (this.indents.length > 0 && this.indents[this.indents.length - 1] >= column) this.indents.pop();
      this.indents.push(column);
      this.atLineStart = false;
    }
    this.depthBound = Math.max(this.depthBound, this.flow + 2 * this.indents.length + this.lineIndicators);
  }
}

/** Rewords the library's messages that would otherwise confuse (a stack overflow is really "too deep"). */
function describeYamlError(message: string, limits: YamlLimits): string {
  if (/call stack/i.test(message)) {
    return `collections are nested too deeply (the limit is ${limits.maxDepth} levels)`;
  }
  return message.split('\n')[0];
}

interface StructureProblem {
  readonly message: string;
  readonly offset: number;
}

/**
 * Walks the node tree iteratively (no recursion, so no stack overflow on hostile input) and reports
 * the first collection nested deeper than `maxDepth` or the first duplicate mapping key. Aliases are
 * leaves here, so the walk is linear in the size of the text.
 */
function checkStructure(root: Node | null, maxDepth: number): StructureProblem | undefined {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (!isCollection(node)) {
      continue;
    }
    const offset = node.range?.[0] ?? 0;
    if (depth >= maxDepth) {
      return { message: `Collections are nested more than ${maxDepth} levels deep`, offset };
    }
    const seen = new Set<string>();
    for (const item of node.items) {
      if (isPair(item)) {
        const key = keyIdentity(item.key);
        if (key !== undefined) {
          if (seen.has(key)) {
            const keyOffset = (item.key as Node).range?.[0] ?? offset;
            return { message: `Duplicate key '${truncate(key)}' in a mapping`, offset: keyOffset };
          }
          seen.add(key);
        }
        stack.push({ node: item.key, depth: depth + 1 }, { node: item.value, depth: depth + 1 });
      } else {
        stack.push({ node: item, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

/** The identity of a scalar key as it would appear in the plain data; collection keys are not compared. */
function keyIdentity(key: unknown): string | undefined {
  if (isScalar(key)) {
    return String(key.value);
  }
  if (isAlias(key)) {
    return `*${key.source}`;
  }
  return undefined;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
