import { resolve } from 'path';
import { CliIo } from './io';
import { describeFsError, InputTooLargeError, readRegularFileCapped, parseUntrustedYamlStream, YamlLimits } from '../io';
import { plainNumbers } from '../io/scalars';
import { RunConfigError } from '../run-config/errors';

/** One parsed YAML document of the input. */
export interface InputDocument {
  /** The file it came from (`<stdin>` for standard input). */
  readonly source: string;
  /** Its 0-based position in that file. */
  readonly index: number;
  /** Its content as plain data, with plain numbers, as kubectl's JSON has them. */
  readonly value: any;
  /**
   * Its content with numbers as written where a JavaScript number cannot hold them: an integer beyond 2^53 a
   * bigint (kubectl keeps 64 bits), a float of whole value (`1.0`) a WholeFloat. What passes through is
   * written from it, and provider config read from it; `value` when there is no such number.
   */
  readonly exact: any;
}

/** The parsed input: every document, or every reason it could not be read. */
export type Inputs =
  | { readonly ok: true; readonly documents: InputDocument[] }
  | { readonly ok: false; readonly errors: string[] };

/**
 * Limits on input manifests: large enough for any real manifest set, small enough that no input
 * can exhaust memory or time (see parseUntrustedYamlStream).
 */
export const MANIFEST_LIMITS: YamlLimits = { maxBytes: 16 * 1024 * 1024, maxDepth: 64, maxAliasCount: 1000, maxNodes: 2_000_000 };

/**
 * Reads and parses multi-document YAML from files (`-` or no file: standard input), with the same
 * hardened reader as the merge (YAML 1.1, as kubectl reads manifests). Files must be regular files
 * within the size limit: a directory, FIFO or device is refused without being waited on. Empty
 * documents are skipped; errors name the file, document, line and column.
 */
export async function readInputs(files: readonly string[], io: CliIo): Promise<Inputs> {
  const sources = files.length === 0 ? ['-'] : files;
  const errors: string[] = [];
  const documents: InputDocument[] = [];
  for (const file of sources) {
    const source = file === '-' ? '<stdin>' : file;
    let text: string;
    try {
      text = file === '-' ? await io.readStdin(MANIFEST_LIMITS.maxBytes) : readRegularFileCapped(resolve(io.cwd, file), MANIFEST_LIMITS.maxBytes);
    } catch (e) {
      // Named as the user wrote it, not as resolved against the working directory.
      errors.push(file === '-' && !(e instanceof InputTooLargeError)
        ? `cannot read standard input: ${(e as Error).message}`
        : describeFsError(Object.assign(e as object, { path: source })));
      continue;
    }
    try {
      parseUntrustedYamlStream(text, MANIFEST_LIMITS, { source, resolution: 'Fix the YAML.' })
        .forEach((value, index) => documents.push({ source, index, value: plainNumbers(value), exact: value }));
    } catch (e) {
      if (!(e instanceof RunConfigError)) {
        throw e;
      }
      errors.push(...e.issues.flatMap((i) => i.details.map((d) => `${source}: ${d}`)));
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, documents };
}
