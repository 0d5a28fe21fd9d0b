/** A step of a path into plain data: a mapping key or a list index. */
export type PathSegment = string | number;

/**
 * A value that cannot be written so that llama-stack reads it back unchanged. Callers turn it into an
 * error naming the field (`externalProviders.inference[0].config.threshold`), the provider, or the file.
 */
export class UnwritableValueError extends Error {
  /** Where the value is, from the root of what was being written. */
  public readonly path: readonly PathSegment[];
  /** What was found. */
  public readonly found: string;
  /** What to do instead. */
  public readonly fix: string;

  public constructor(path: readonly PathSegment[], found: string, fix: string) {
    super(`${formatPath(path) || 'the value'}: ${found} cannot be written; ${fix}`);
    this.name = 'UnwritableValueError';
    this.path = path;
    this.found = found;
    this.fix = fix;
  }
}

/** `path` as it reads after a field name: `.config.url`, `[0]`, `["a b"]`; empty for the root. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`)).join('');
}

/** A scalar the writers take: a bigint is a whole number too big for a JavaScript number (PyYAML reads it as a Python int). */
export type ScalarValue = string | number | bigint | boolean | null;

export function isScalarValue(value: unknown): value is ScalarValue {
  return value === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof value);
}

/**
 * A scalar as YAML 1.1 and JSON text that reads back as the same value in PyYAML, the `yaml` library
 * (YAML 1.1 and 1.2) and, with `asJson`, JSON parsers.
 */
export function renderScalar(value: ScalarValue, asJson: boolean, path: readonly PathSegment[] = []): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return formatNumber(value, asJson, path);
  if (typeof value === 'bigint') return value.toString();
  return asJson || !isPlainSafe(value) ? quoteString(value) : value;
}

/** A mapping key: a string, plain when that is safe, else double-quoted. */
export function formatScalarKey(key: string): string {
  return isPlainSafe(key) ? key : quoteString(key);
}

/**
 * Strings that may stand unquoted: printable ASCII with single spaces inside, starting with a letter,
 * `_`, `$` or `/` (so never with an indicator, a digit, a sign or a dot: no number, date or `.inf`),
 * without `: ` or ` #` (which end a plain scalar) or a final `:`, and not a word YAML 1.1 readers take
 * for a boolean or null (PyYAML: yes/no/on/off/true/false/null; other readers also y/n).
 */
const PLAIN_SAFE = /^[A-Za-z_$/][\x21-\x7E]*(?: [\x21-\x7E]+)*$/;
const NOT_PLAIN = /: | #|:$/;
const RESERVED_WORDS = /^(?:y|n|yes|no|on|off|true|false|null)$/i;

function isPlainSafe(text: string): boolean {
  return PLAIN_SAFE.test(text) && !NOT_PLAIN.test(text) && !RESERVED_WORDS.test(text);
}

/**
 * Characters JSON leaves raw that YAML readers treat specially: DEL and C1 controls (PyYAML refuses
 * them raw; NEL is a line break to it), LINE and PARAGRAPH SEPARATOR (line breaks to PyYAML), the
 * byte order mark and the non-characters U+FFFE and U+FFFF; and the bidirectional controls, which
 * reorder what an editor or a terminal shows of the text around them.
 */
const ESCAPE_BEYOND_JSON = /[\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029\uFEFF\uFFFE\uFFFF]/g;

/**
 * A double-quoted string with JSON's escapes only (`\"`, `\\`, `\n`, `\t`, `\uXXXX`, ...), which YAML's
 * double-quoted style reads the same: the text is valid JSON and valid YAML. Lone surrogates are
 * escaped too (`JSON.stringify` does so).
 */
export function quoteString(text: string): string {
  return escapeBeyondJson(JSON.stringify(text));
}

/** JSON text with {@link ESCAPE_BEYOND_JSON} escaped too: valid JSON, and YAML that every reader reads alike. */
export function escapeBeyondJson(json: string): string {
  return json.replace(ESCAPE_BEYOND_JSON, unicodeEscape);
}

/** A UTF-16 code unit as the escape `\\uXXXX` of JSON and of YAML's double-quoted style. */
export function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A number in the form PyYAML (YAML 1.1) resolves to the same value and kind: whole numbers as
 * integers in full digits (`1e+21` would be a string to PyYAML, and digits beyond 2^53 are written
 * exactly); other numbers as floats with a dot and a signed exponent (`1.0e-7`; `1e-7` would be a
 * string); negative zero as `-0.0` (Python's integer 0 has no sign); infinities and NaN as `.inf`,
 * `-.inf`, `.nan`, which JSON cannot carry.
 */
function formatNumber(n: number, asJson: boolean, path: readonly PathSegment[]): string {
  if (!Number.isFinite(n)) {
    if (asJson) {
      throw new UnwritableValueError(path, `the number ${n}`,
        'JSON carries only finite numbers; give a finite number, or a string such as "inf" if the setting accepts one');
    }
    return Number.isNaN(n) ? '.nan' : n > 0 ? '.inf' : '-.inf';
  }
  if (Object.is(n, -0)) return '-0.0';
  if (Number.isInteger(n)) return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  const text = String(n);
  const e = text.indexOf('e');
  if (e < 0 || text.slice(0, e).includes('.')) return text;
  return `${text.slice(0, e)}.0${text.slice(e)}`;
}
