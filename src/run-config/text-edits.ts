/**
 * Edits of a text by offset, applied all at once. The merge edits the user's config this way, so that
 * every byte it does not own — keys, order, comments, quoting, line folding — is copied unchanged.
 */
export class TextEdits {
  private readonly edits: Array<{
    readonly start: number; readonly end: number; readonly text: string; readonly seq: number; readonly indent?: number;
  }> = [];

  /** The line ending of the source: inserted text follows it, so a CRLF file stays CRLF. */
  private readonly eol: string;

  public constructor(private readonly source: string) {
    this.eol = source.includes('\r\n') ? '\r\n' : '\n';
  }

  /** Inserts `text` (with `\n` line ends) at `offset`. Insertions at one offset keep the order they were made in. */
  public insert(offset: number, text: string, indent?: number): void {
    const converted = this.eol === '\n' ? text : text.replace(/\r?\n/g, this.eol);
    this.edits.push({ start: offset, end: offset, text: converted, seq: this.edits.length, indent });
  }

  /** Deletes the text between `start` (inclusive) and `end` (exclusive). */
  public delete(start: number, end: number): void {
    this.edits.push({ start, end, text: '', seq: this.edits.length });
  }

  /**
   * Inserts a block of whole lines at `offset`, which must be the start of a line or the end of the
   * text; a missing final newline before it is supplied. Blocks inserted at one offset go deepest
   * first: at the end of a nested section, its own new lines must come before a key of an enclosing
   * section (which closes it), whatever order they were asked for in.
   */
  public insertLines(offset: number, lines: string): void {
    const needsNewline = offset > 0 && offset === this.source.length && !this.source.endsWith('\n');
    this.insert(offset, needsNewline ? `\n${lines}` : lines, /^ */.exec(lines)![0].length);
  }

  /** The edited text. Throws when two deletions overlap (a bug in the caller). */
  public apply(): string {
    // At one offset, insertions come before a deletion that starts there (the inserted text is not deleted).
    const isDeletion = (e: { start: number; end: number }): number => (e.end > e.start ? 1 : 0);
    const deeperFirst = (a: { indent?: number }, b: { indent?: number }): number =>
      (a.indent !== undefined && b.indent !== undefined ? b.indent - a.indent : 0);
    const sorted = [...this.edits].sort((a, b) => a.start - b.start || isDeletion(a) - isDeletion(b) || deeperFirst(a, b) || a.seq - b.seq);
    let out = '';
    let cursor = 0;
    for (const edit of sorted) {
      if (edit.start < cursor) {
        throw new Error(`overlapping text edits at offset ${edit.start}`);
      }
      out += this.source.slice(cursor, edit.start) + edit.text;
      cursor = edit.end;
    }
    return out + this.source.slice(cursor);
  }
}

/** Offset of the start of the line holding `offset`. */
export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Column of `offset` in its line (a byte order mark opening the text takes no column). */
export function columnOf(text: string, offset: number): number {
  const start = lineStart(text, offset);
  const bom = start === 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  return offset - start - bom;
}

/**
 * Offset just past the line on which a node ending at `end` ends: `end` itself when the node already
 * ends with its newline, else the offset after the next newline (or the end of the text).
 */
export function afterLine(text: string, end: number): number {
  if (end > 0 && text[end - 1] === '\n') return end;
  const newline = text.indexOf('\n', end);
  return newline < 0 ? text.length : newline + 1;
}
