import { readFileSync } from 'fs';
import { resolve } from 'path';
import { parseAllDocuments } from 'yaml';
import { CliIo } from './io';

/** One parsed YAML document of the input. */
export interface InputDocument {
  /** The file it came from (`<stdin>` for standard input). */
  readonly source: string;
  /** Its 0-based position in that file. */
  readonly index: number;
  /** Its content as plain data. */
  readonly value: any;
}

/** The parsed input: every document, or every reason it could not be read. */
export type Inputs =
  | { readonly ok: true; readonly documents: InputDocument[] }
  | { readonly ok: false; readonly errors: string[] };

/** Largest input file accepted; manifests are small, a larger input is a mistake or an attack. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** Aliases a document may expand; protects against alias bombs ("billion laughs"). */
export const MAX_ALIAS_COUNT = 1000;

/**
 * Reads and parses multi-document YAML from files (`-` or no file: standard input).
 * Empty documents are skipped; parse errors name the file, document, line and column.
 */
export async function readInputs(files: readonly string[], io: CliIo): Promise<Inputs> {
  const sources = files.length === 0 ? ['-'] : files;
  const errors: string[] = [];
  const documents: InputDocument[] = [];
  for (const file of sources) {
    const source = file === '-' ? '<stdin>' : file;
    let text: string;
    try {
      text = file === '-' ? await io.readStdin() : readFileSync(resolve(io.cwd, file), 'utf8');
    } catch (e) {
      errors.push(`cannot read ${source}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
      continue;
    }
    if (Buffer.byteLength(text) > MAX_INPUT_BYTES) {
      errors.push(`${source} is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MiB: split it into smaller files.`);
      continue;
    }
    parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true }).forEach((doc, index) => {
      if (doc.errors.length > 0) {
        for (const e of doc.errors) {
          const where = e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : 'unknown position';
          errors.push(`${source} document ${index + 1}: invalid YAML at ${where}: ${e.message.split('\n')[0]}`);
        }
        return;
      }
      let value: unknown;
      try {
        value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
      } catch (e) {
        errors.push(`${source} document ${index + 1}: ${(e as Error).message}`);
        return;
      }
      if (value !== null && value !== undefined) {
        documents.push({ source, index, value });
      }
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, documents };
}
