// How the CLI writes YAML (`render`'s manifests, `status`'s report): as `cdk8s synth` does (the `yaml` library, YAML 1.1, lines never
// folded, documents joined by `---`), except that a string is double-quoted wherever one of the
// readers a manifest meets would take its plain form for something else. The library quotes what its
// own YAML 1.1 schema resolves; the readers that follow see more:
// - kubectl (and client-go, Helm, Argo CD: sigs.k8s.io/yaml) resolves numbers with goyaml.v2
//   (io/goyaml-schema.ts): `0O17`, `0X1F`, `0B11`, `0_x1F` and `1__0` are numbers there;
// - PyYAML (`yaml.safe_load`, which the Llama Stack server and most Python tools use): its own YAML 1.1
//   patterns (io/pyyaml-schema.ts), and a plain `=` it cannot load;
// - YAML 1.2 readers (the core schema: `0o17` is 15 there), and the library's own YAML 1.1 reader, which
//   resolves `.`, `0:30` and `2024-1-2` that its writer leaves plain;
// - the merge key `<<`, which goyaml.v2 and PyYAML merge instead of reading as a key (and PyYAML
//   cannot load as a value); the library's merge key tag is left out, so it is a string like any other.
// A string with a character some reader treats specially (a tab, which ends a plain scalar in PyYAML;
// controls, DEL and C1 controls, which PyYAML refuses raw; NEL, LINE and PARAGRAPH SEPARATOR, which
// YAML 1.1 readers take for line breaks; the byte order mark; bidirectional controls, which reorder what
// a terminal or an editor shows) is double-quoted with JSON's escapes and those characters escaped too
// (io/scalars.ts quoteString), which every reader reads alike.
import { Document, Scalar, ScalarTag, Tags } from 'yaml';
import { stringifyString } from 'yaml/util';
import { asKubectlReads, asPyYamlReads } from '../io';
import { BIDI_CONTROLS, quoteString } from '../io/scalars';

const STR = 'tag:yaml.org,2002:str';
const MERGE = 'tag:yaml.org,2002:merge';

/** Characters that make a string double-quoted, escaped. */
const SPECIAL_CHARACTERS = new RegExp(`[\\t\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F${BIDI_CONTROLS}\\u2028\\u2029\\uFEFF\\uFFFE\\uFFFF\\uD800-\\uDFFF]`, 'u');

/** The implicit (plain-scalar) patterns of a schema, but its strings'. */
const implicitPatterns = (tags: Tags): RegExp[] => tags
  .filter((t): t is ScalarTag => typeof t === 'object' && 'test' in t && t.test instanceof RegExp && t.default === true && t.tag !== STR)
  .map((t) => t.test!);

/** The merge key of goyaml.v2 and PyYAML (the library's merge tag is not a default one: its pattern is not among the schema's). */
const MERGE_KEY = /^<<$/;

/**
 * What every text some reader above resolves starts with (or the empty text, a null): a sign, a dot, a digit,
 * `~`, `<` (the merge key), `=` (PyYAML's value), and the first letters of the booleans and nulls (y, n, t, f,
 * o) and of the library's YAML 1.1 floats, whose exponent pattern takes `e5`. Most strings of a manifest
 * start otherwise and skip the patterns (test/cli/yaml-output.test.ts holds the set against them).
 */
const MAY_RESOLVE = /^(?:$|[-+.0-9~<=eEyYnNtTfFoO])/;

let readerPatterns: RegExp[] | undefined;

/**
 * Whether kubectl, PyYAML, a YAML 1.2 reader or the `yaml` library reading YAML 1.1 (cdk8s's `Include`)
 * resolves `text`, written plain, to anything but a string. The library's writer leaves some of what its
 * own reader resolves plain: `.` (NaN), `0:30` (30), `2024-1-2` (a date).
 */
export function someReaderResolves(text: string): boolean {
  if (readerPatterns === undefined) {
    const yaml11 = new Document(null, { version: '1.1' }).schema.tags;
    readerPatterns = [
      ...implicitPatterns(yaml11),
      ...implicitPatterns(asKubectlReads(yaml11)),
      ...implicitPatterns(asPyYamlReads(yaml11)),
      ...implicitPatterns(new Document(null, { version: '1.2' }).schema.tags),
      MERGE_KEY,
    ];
  }
  return readerPatterns.some((pattern) => pattern.test(text));
}

/** Whether `text` must be double-quoted (and escaped) so that every reader above reads it as written. */
export function mustQuote(text: string): boolean {
  return SPECIAL_CHARACTERS.test(text) || (MAY_RESOLVE.test(text) && someReaderResolves(text));
}

/**
 * The schema's tags with the library's string tag writing what {@link mustQuote} names double-quoted, and
 * without its merge key tag, which would write the string `<<` plain.
 */
const quotingStrings = (tags: Tags): Tags => tags.filter((t) => typeof t !== 'object' || t.tag !== MERGE).map((t) => {
  if (typeof t !== 'object' || t.tag !== STR || 'collection' in t) return t;
  const tag: ScalarTag = {
    ...t,
    stringify: (item, ctx, onComment, onChompKeep) => {
      const value = (item as Scalar).value;
      return typeof value === 'string' && mustQuote(value) ? quoteString(value) : stringifyString(item, ctx, onComment, onChompKeep);
    },
  };
  return tag;
});

/** Documents (plain data) as one YAML stream, the same bytes as cdk8s's `Yaml.stringify` where no string needs quoting. */
export function stringifyYaml(documents: readonly unknown[]): string {
  return documents.map((document) => (document === undefined ? '\n'
    : new Document(document, { version: '1.1', keepUndefined: true, customTags: quotingStrings }).toString({ lineWidth: 0 }))).join('---\n');
}
