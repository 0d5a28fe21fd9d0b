import { realpathSync } from 'fs';
import { resolve } from 'path';
import { isRecord } from '../checks';
import { Problem, ProblemCollector } from '../errors';
import { describeFsError, InputTooLargeError, isWithin, NotARegularFileError, OutsideDirectoryError, readRegularFileCapped, METADATA_LIMITS } from '../io';

/**
 * The `metadataFile`s of a document's providers, read by `render` itself: a document is input from
 * elsewhere (a pull request, a generator), so a path in it is resolved against the document's own
 * directory (the working directory for standard input) and may not leave it, even through a symlink;
 * only a regular file is read, and at most the metadata size limit. The text goes to the construct as
 * the provider's `metadata`; what was read from a file is never repeated in a message.
 */
export class MetadataFiles {
  /** Provider field (`externalProviders.<section>[<i>]`) → the path the document gives. */
  private readonly fromFile = new Map<string, string>();

  public constructor(private readonly baseDir: string) {}

  /** The providers with each `metadataFile` read into `metadata`; problems name the document's fields. */
  public read(providers: unknown, problems: ProblemCollector, documentField: (field: string) => string): unknown {
    if (!isRecord(providers)) return providers;
    return Object.fromEntries(Object.entries(providers).map(([section, list]) => [section, Array.isArray(list)
      ? list.map((p, i) => {
        if (!isRecord(p) || typeof p.metadataFile !== 'string') return p;
        const field = `externalProviders.${section}[${i}]`;
        if (p.metadata !== undefined) {
          // The construct's own message for the same mistake.
          problems.add(documentField(`${field}.metadata`), `provider '${String(p.providerId)}' (image ${String(p.image)}) gives both metadata and metadataFile: give one of them.`);
          return p;
        }
        const { metadataFile, ...rest } = p;
        const text = this.readOne(metadataFile, documentField(`${field}.metadataFile`), problems);
        this.fromFile.set(field, metadataFile);
        return text === undefined ? p : { ...rest, metadata: text };
      })
      : list]));
  }

  /**
   * A problem of the construct as the document's reader sees it: one about metadata read from a file
   * names `metadataFile`, without the file's content.
   */
  public problem(p: Problem): Problem {
    for (const [field, file] of this.fromFile) {
      if (p.field === `${field}.metadata` || p.field.startsWith(`${field}.metadata.`) || p.field.startsWith(`${field}.metadata[`)) {
        return {
          field: `${field}.metadataFile`,
          message: `'${file}' is not a provider metadata file the construct accepts (lls-provider-spec.yaml, as the provider image holds it). `
            + 'Its content is not repeated here: give the same YAML inline as metadata to see each problem.',
        };
      }
    }
    return p;
  }

  private readOne(given: string, field: string, problems: ProblemCollector): string | undefined {
    const outside = () => problems.add(field, `'${given}' is outside the document's directory ${this.baseDir}: a document may only name files inside `
      + 'its own directory (the working directory for standard input). Copy the file next to the document.');
    // Checked as written first (nothing outside is looked at), then as resolved (a symlink may lead out).
    const file = resolve(this.baseDir, given);
    if (!isWithin(this.baseDir, file)) return void outside();
    let real: string;
    try {
      real = realpathSync(file);
    } catch (e) {
      problems.add(field, `cannot read '${given}': ${describeFsError(e)} Give the path of the image's lls-provider-spec.yaml, relative to the document's directory.`);
      return undefined;
    }
    const realBase = realpathSync(this.baseDir);
    if (!isWithin(realBase, real)) return void outside();
    try {
      // Where the file opened is, checked again on the open file: a directory swapped for a symlink since
      // the check above cannot lead the read out.
      return readRegularFileCapped(real, METADATA_LIMITS.maxBytes, realBase);
    } catch (e) {
      if (e instanceof OutsideDirectoryError) {
        outside();
      } else if (e instanceof NotARegularFileError) {
        problems.add(field, `'${given}' is ${e.kind}, not a regular file: give the path of a file.`);
      } else if (e instanceof InputTooLargeError) {
        problems.add(field, `'${given}' is larger than the limit of ${METADATA_LIMITS.maxBytes} bytes for provider metadata; it was not read further.`);
      } else {
        problems.add(field, `cannot read '${given}': ${describeFsError(e)}`);
      }
      return undefined;
    }
  }
}
