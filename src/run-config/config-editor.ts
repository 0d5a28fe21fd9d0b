import { Document, isMap, isScalar, isSeq, Node, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { PlainMap } from './fields';
import { indentBlock, LLAMA_STACK_LAYOUT, PathSegment, renderYaml, UnwritableValueError, YamlLayout } from './render';
import { afterLine, columnOf, lineStart, TextEdits } from './text-edits';

/** What happens to one API's provider list. */
export interface SectionEdit {
  /** The API key under `providers`. */
  readonly api: string;
  /** Indexes of base entries to remove (overridden by external providers). */
  readonly removeIndexes: readonly number[];
  /** Entries to append, in order. */
  readonly add: readonly unknown[];
}

/** Entries removed from and appended to a list under nested mappings (the models list). */
export interface ListEdit {
  /** Keys from the top level to the list, e.g. `registered_resources`, `models`. */
  readonly path: readonly string[];
  /** Indexes of base entries to remove. */
  readonly removeIndexes: readonly number[];
  /** Entries to append, in order. */
  readonly add: readonly unknown[];
}

/** Every change the merge makes to the base config. */
export interface ConfigEditPlan {
  /** Provider-list changes, in the order the sections are created. */
  readonly sections: readonly SectionEdit[];
  /** API names to append to the top-level `apis` list. */
  readonly enableApis: readonly string[];
  /** Keys to add to the `server` section (absent from it), in order. */
  readonly serverSettings: PlainMap;
  /** Models to register. */
  readonly registrations?: ListEdit;
}

/** The base config writes a part the merge must change in a layout it cannot edit in place. */
export class UneditableLayoutError extends Error {
  /** The part, e.g. `providers`. */
  public readonly path: string;

  public constructor(at: readonly PathSegment[]) {
    const path = at.length === 0 ? 'the top level' : at.join('.');
    super(`${path} is written with an explicit key ('? key') or a key that does not start its line`);
    this.name = 'UneditableLayoutError';
    this.path = path;
  }
}

/**
 * Applies the plan to the base config's text, touching only what the plan owns: removed entries are
 * cut out line by line, new entries and sections are inserted after the last line of the list or
 * mapping they join, in the file's own indentation. Everything else is copied byte for byte.
 *
 * Flow-style collections (`providers: {}`, `inference: []`) and empty values cannot take block
 * lines, so such a value is replaced as a whole by its merged content, rendered from `expected`.
 *
 * @param text the base config
 * @param doc the parsed base config (its node ranges index `text`)
 * @param plan the changes
 * @param expected the merged config as plain data (the source of re-rendered values)
 * @throws UneditableLayoutError when a part to change uses explicit keys or keys that do not start their line
 * @throws UnwritableValueError when a value of the base config in a part it rewrites cannot be written back
 */
export function applyConfigEdits(text: string, doc: Document.Parsed, plan: ConfigEditPlan, expected: PlainMap): string {
  return new ConfigEditor(text, doc.contents, expected).apply(doc, plan);
}

class ConfigEditor {
  private readonly edits: TextEdits;
  private readonly layout: YamlLayout;

  public constructor(private readonly text: string, root: Node | null, private readonly expected: PlainMap) {
    this.edits = new TextEdits(text);
    this.layout = this.detectLayout(root);
  }

  public apply(doc: Document.Parsed, plan: ConfigEditPlan): string {
    const root = doc.contents;
    if (!isMap(root)) {
      // An empty document (perhaps only comments): the merged content goes before any `...` end marker.
      const [, contentEnd, docEnd] = doc.range;
      const marker = this.text.slice(contentEnd, docEnd).trimStart().startsWith('...') ? this.text.indexOf('...', contentEnd) : -1;
      this.edits.insertLines(marker >= 0 ? marker : this.text.length, this.render(this.expected, []));
      return this.edits.apply();
    }
    if (root.flow) {
      this.replaceDocument(root);
      return this.edits.apply();
    }

    // Lines inserted at one offset (the end of a key's value) go deepest first (TextEdits), then in this order.
    this.editApisList(root, plan.enableApis);
    if (plan.sections.length > 0) this.editProviders(root, plan.sections);
    this.editServer(root, plan.serverSettings);
    if (plan.registrations !== undefined) this.editListAt(root, [], plan.registrations.path, plan.registrations);
    return this.edits.apply();
  }

  /** Adds keys to the `server` section (creating it at the end of the document when there is none). */
  private editServer(root: YAMLMap, settings: PlainMap): void {
    if (Object.keys(settings).length === 0) return;
    const pair = findPair(root, 'server');
    const server = pair?.value;
    if (!pair) {
      this.insertIntoMap(root, [], { server: this.expected.server });
    } else if (!isMap(server) || server.flow || server.items.length === 0) {
      this.replaceValue(pair, ['server'], this.expected.server, this.layout.indent);
    } else {
      this.insertIntoMap(server, ['server'], settings);
    }
  }

  /** The provider-list changes of the plan. */
  private editProviders(root: YAMLMap, sections: readonly SectionEdit[]): void {
    const expectedProviders = this.expected.providers as PlainMap;
    const providersPair = findPair(root, 'providers');
    if (!providersPair) {
      this.insertIntoMap(root, [], { providers: expectedProviders });
      return;
    }
    const providers = providersPair.value;
    if (!isMap(providers) || providers.flow || providers.items.length === 0) {
      this.replaceValue(providersPair, ['providers'], expectedProviders, this.layout.indent);
      return;
    }

    const newSections: Record<string, unknown> = {};
    for (const section of sections) {
      const pair = findPair(providers, section.api);
      const list = pair?.value;
      const dashes = isSeq(list) && !list.flow ? this.blockDashes(list) : undefined;
      if (!pair) {
        newSections[section.api] = expectedProviders[section.api];
      } else if (!isSeq(list) || !dashes || list.items.length === 0) {
        this.replaceValue(pair, ['providers', section.api], expectedProviders[section.api], this.layout.indentSeq ? this.layout.indent : 0);
      } else {
        this.editBlockList(list, dashes, section, ['providers', section.api]);
      }
    }
    if (Object.keys(newSections).length > 0) {
      this.insertIntoMap(providers, ['providers'], newSections);
    }
  }

  /**
   * Removes and appends entries of the list at `rest` below `map` (which sits at `at`): in place when
   * it is a block list with items, else by writing the missing mappings and the list from `expected`.
   */
  private editListAt(map: YAMLMap, at: string[], rest: readonly string[], edit: ListEdit): void {
    const [key, ...deeper] = rest;
    const here = [...at, key];
    const expectedHere = here.reduce<unknown>((v, k) => (v as PlainMap)[k], this.expected);
    const pair = findPair(map, key);
    if (!pair) {
      this.insertIntoMap(map, at, { [key]: expectedHere });
      return;
    }
    const value = pair.value;
    if (deeper.length > 0) {
      if (isMap(value) && !value.flow && value.items.length > 0) this.editListAt(value, here, deeper, edit);
      else this.replaceValue(pair, here, expectedHere, this.layout.indent);
      return;
    }
    const dashes = isSeq(value) && !value.flow && value.items.length > 0 ? this.blockDashes(value) : undefined;
    if (dashes) this.editBlockList(value as YAMLSeq, dashes, edit, here);
    else this.replaceValue(pair, here, expectedHere, this.layout.indentSeq ? this.layout.indent : 0);
  }

  /** Removes and appends entries of a block sequence in place. */
  private editBlockList(list: YAMLSeq, dashes: readonly number[], section: Pick<SectionEdit, 'removeIndexes' | 'add'>, at: PathSegment[]): void {
    for (const index of section.removeIndexes) {
      // From the start of the item's `-` line (comments above it stay: they may describe the section)
      // to the end of the item, including comments indented under it.
      this.edits.delete(lineStart(this.text, dashes[index]), this.endOfContent(valueEnd(list.items[index])));
    }
    this.appendToBlockList(list, dashes, section.add, at);
  }

  private appendToBlockList(list: YAMLSeq, dashes: readonly number[], items: readonly unknown[], at: PathSegment[]): void {
    const last = list.items[list.items.length - 1];
    this.edits.insertLines(this.endOfContent(valueEnd(last)), indentBlock(this.render(items, at), columnOf(this.text, dashes[0])));
  }

  /** Appends API names to a top-level `apis` list, so that llama-stack serves the new sections. */
  private editApisList(root: YAMLMap, names: readonly string[]): void {
    const pair = findPair(root, 'apis');
    const list = pair?.value;
    if (names.length === 0 || !pair || !isSeq(list)) return;
    const dashes = list.flow || list.items.length === 0 ? undefined : this.blockDashes(list);
    if (list.items.length === 0) {
      // `apis: []`, which serves no API in ogx 1.5: the list is written out with the new names.
      this.replaceValue(pair, ['apis'], this.expected.apis, this.layout.indentSeq ? this.layout.indent : 0);
    } else if (dashes) {
      this.appendToBlockList(list, dashes, names, ['apis']);
    } else if (list.flow) {
      // `apis: [a, b]` → `apis: [a, b, c]`: right after the last item, so that a closing bracket on a line
      // of its own, a trailing comma or a comment stay as they are.
      this.edits.insert(valueEnd(list.items[list.items.length - 1]), `, ${names.join(', ')}`);
    } else {
      this.replaceValue(pair, ['apis'], this.expected.apis, this.layout.indentSeq ? this.layout.indent : 0);
    }
  }

  /** Adds keys after the last line of a block mapping's content, at its keys' column. */
  private insertIntoMap(map: YAMLMap, at: PathSegment[], entries: PlainMap): void {
    const column = this.mapColumn(map, at);
    const last = map.items[map.items.length - 1] as Pair;
    const end = this.endOfContent(Math.max(valueEnd(last.key), valueEnd(last.value)));
    this.edits.insertLines(end, indentBlock(this.render(entries, at), column));
  }

  /**
   * Replaces a pair's value (empty, null or flow-style) by block lines below the key, indented
   * `offset` past the key: the old value's text is removed from the key's line (a trailing comment
   * stays) and the block follows that line.
   */
  private replaceValue(pair: Pair, at: PathSegment[], value: unknown, offset: number): void {
    const column = this.keyColumn(pair, at) + offset;
    const block = indentBlock(this.render(value, at), column);
    const node = pair.value as Node | null;
    if (!node?.range) {
      this.edits.insertLines(this.endOfContent(valueEnd(pair.key)), block);
      return;
    }
    const [start, end] = node.range;
    let from = start;
    while (from > 0 && this.text[from - 1] === ' ') from--;
    this.edits.delete(from, end);
    // Keep one space before a comment that followed the value on the key's line.
    if (this.restOfLine(end).startsWith('#')) this.edits.insert(from, ' ');
    this.edits.insertLines(this.endOfContent(end), block);
  }

  /**
   * New block YAML for `value`, which sits at `at` in the config. A value read from the base config
   * that cannot be written back (e.g. a date in a flow-style section the merge rewrites) is reported
   * at its full path.
   */
  private render(value: unknown, at: readonly PathSegment[]): string {
    try {
      return renderYaml(value, this.layout);
    } catch (e) {
      if (e instanceof UnwritableValueError) throw new UnwritableValueError([...at, ...e.path], e.found, e.fix);
      throw e;
    }
  }

  /** A flow-style document (`{}` or `{version: 2}`) is rewritten whole in block style. */
  private replaceDocument(root: YAMLMap): void {
    const [start, end] = root.range!;
    const block = this.render(this.expected, []);
    // A block mapping cannot share a line with `---`; the block's own newline is dropped when the line ends anyway.
    const prefix = this.text.slice(lineStart(this.text, start), start).trim() === '' ? '' : '\n';
    this.edits.delete(start, end);
    this.edits.insert(start, prefix + (this.restOfLine(end) === '' && end < this.text.length ? block.slice(0, -1) : block));
  }

  /**
   * Offsets of the `-` of each item of a block sequence, when every one starts its line (so items
   * can be cut and added as lines); undefined otherwise. Each `-` is the first thing after the
   * previous item other than blank space and comments.
   */
  private blockDashes(list: YAMLSeq): number[] | undefined {
    const dashes: number[] = [];
    let from = list.range?.[0];
    for (const item of list.items) {
      const dash = from === undefined ? undefined : this.nextDash(from);
      if (dash === undefined || this.text.slice(lineStart(this.text, dash), dash).trim() !== '') return undefined;
      dashes.push(dash);
      from = Math.max(valueEnd(item), dash + 1);
    }
    return dashes;
  }

  private nextDash(from: number): number | undefined {
    for (let i = from; i < this.text.length; i++) {
      const c = this.text[i];
      if (c === '-') return i;
      if (c === '#') {
        const newline = this.text.indexOf('\n', i);
        if (newline < 0) return undefined;
        i = newline;
      } else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') {
        return undefined;
      }
    }
    return undefined;
  }

  /** Column of a pair's key, which must be a plain key starting its line. */
  private keyColumn(pair: Pair, at: PathSegment[]): number {
    const column = this.lineKeyColumn(pair);
    if (column === undefined) throw new UneditableLayoutError(at);
    return column;
  }

  /** Column of a block mapping's keys, which must all be plain keys starting their lines. */
  private mapColumn(map: YAMLMap, at: PathSegment[]): number {
    const columns = (map.items as Pair[]).map((p) => this.lineKeyColumn(p));
    if (columns.some((c) => c === undefined || c !== columns[0])) throw new UneditableLayoutError(at);
    return columns[0]!;
  }

  private lineKeyColumn(pair: Pair): number | undefined {
    const key = pair.key;
    if (!isScalar(key) || !key.range) return undefined;
    const start = key.range[0];
    return this.text.slice(lineStart(this.text, start), start).trim() === '' ? columnOf(this.text, start) : undefined;
  }

  /**
   * Offset just past the last line of content ending at `end`. A block collection whose last value is
   * empty reports an end inside the indentation of the next line; that line is not its content.
   */
  private endOfContent(end: number): number {
    const start = lineStart(this.text, end);
    if (end > start && this.text.slice(start, end).trim() === '') return start;
    return afterLine(this.text, end);
  }

  private restOfLine(offset: number): string {
    return this.text.slice(offset, afterLine(this.text, offset)).trim();
  }

  /**
   * The file's indentation: spaces per level from the first block mapping nested in a block mapping,
   * and whether block sequences are indented under their key, from the first one found (preferring
   * `providers`). Files without examples get llama-stack's own layout.
   */
  private detectLayout(root: Node | null): YamlLayout {
    let indent: number | undefined;
    let indentSeq: boolean | undefined;
    const visit = (map: YAMLMap): void => {
      for (const pair of map.items as Pair[]) {
        const keyColumn = this.lineKeyColumn(pair);
        const value = pair.value;
        if (keyColumn !== undefined && isMap(value) && !value.flow && value.items.length > 0 && indent === undefined) {
          const childColumn = this.lineKeyColumn(value.items[0] as Pair);
          if (childColumn !== undefined && childColumn > keyColumn) indent = childColumn - keyColumn;
        }
        const dashes = isSeq(value) && !value.flow ? this.blockDashes(value) : undefined;
        if (keyColumn !== undefined && dashes && dashes.length > 0 && indentSeq === undefined) {
          indentSeq = columnOf(this.text, dashes[0]) > keyColumn;
        }
        if (isMap(value) && !value.flow) visit(value);
      }
    };
    if (isMap(root) && !root.flow) {
      const providers = findPair(root, 'providers')?.value;
      if (isMap(providers) && !providers.flow) visit(providers);
      visit(root);
    }
    return {
      indent: indent ?? LLAMA_STACK_LAYOUT.indent,
      indentSeq: indentSeq ?? LLAMA_STACK_LAYOUT.indentSeq,
    };
  }
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;
}

/** Where a node's value ends (`range[1]`); for block collections this covers comments indented under them. */
function valueEnd(node: unknown): number {
  const range = (node as Node | null)?.range;
  return range ? range[1] : 0;
}
