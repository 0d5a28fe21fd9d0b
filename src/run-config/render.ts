import { Document } from 'yaml';

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
 * Renders plain data as block YAML ending in a newline. Strings are quoted as a YAML 1.1 reader
 * (PyYAML, used by llama-stack) needs: `on`, `yes` or `1:20` stay strings. Lines are never folded,
 * so the output is stable and diffs stay small.
 */
export function renderYaml(value: unknown, layout: YamlLayout = LLAMA_STACK_LAYOUT): string {
  return new Document(value, { version: '1.1' }).toString({
    indent: layout.indent,
    indentSeq: layout.indentSeq,
    lineWidth: 0,
  });
}

/** Prefixes every non-empty line with `column` spaces (empty lines stay empty: no trailing whitespace). */
export function indentBlock(text: string, column: number): string {
  if (column === 0) return text;
  const pad = ' '.repeat(column);
  return text.split('\n').map((line) => (line === '' ? line : pad + line)).join('\n');
}
