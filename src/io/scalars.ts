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

/**
 * A float whose value is a whole number, as a YAML or JSON text wrote it (`1.0`, `3.0e+0`, `2.5e+15`): a
 * JavaScript number cannot tell it from the integer, while PyYAML, JSON readers in Python and the settings
 * they fill can, so the readers of provider config keep it as this and the writers write it as a float again.
 * `toJSON` gives the number, so that any other writer writes at least its value.
 */
export class WholeFloat {
  public constructor(public readonly value: number) {}

  public toJSON(): number {
    return this.value;
  }
}

/**
 * A scalar the writers take: a bigint is a whole number too big for a JavaScript number (PyYAML reads it as
 * a Python int); a {@link WholeFloat} a float of whole value.
 */
export type ScalarValue = string | number | bigint | boolean | null | WholeFloat;

export function isScalarValue(value: unknown): value is ScalarValue {
  return value === null || value instanceof WholeFloat || ['string', 'number', 'bigint', 'boolean'].includes(typeof value);
}

/**
 * `value` with plain numbers where it holds a {@link WholeFloat} (its number) or a bigint (the nearest number),
 * as a JSON reader in Go or JavaScript has them: the values checks compare with numbers. Parts without either are
 * the same objects, so that a value without them is returned as it is.
 */
export function plainNumbers(value: unknown): unknown {
  if (value instanceof WholeFloat) return value.value;
  if (typeof value === 'bigint') return Number(value);
  // Nothing is allocated for a part without either: validate reads megabytes of such documents.
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    value.forEach((item, i) => {
      const plain = plainNumbers(item);
      if (items === undefined && !Object.is(plain, item)) items = value.slice(0, i);
      items?.push(plain);
    });
    return items ?? value;
  }
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value);
    let changed: [string, unknown][] | undefined;
    entries.forEach(([k, v], i) => {
      const plain = plainNumbers(v);
      if (changed === undefined && !Object.is(plain, v)) changed = entries.slice(0, i);
      changed?.push([k, plain]);
    });
    // fromEntries, not assignment: a key `__proto__` stays a key.
    return changed === undefined ? value : Object.fromEntries(changed);
  }
  return value;
}

/** The number a text of `float` form stands for: a {@link WholeFloat} when it is a whole number (but -0, a float already). */
export function floatValue(n: number): number | WholeFloat {
  return Number.isFinite(n) && Number.isInteger(n) && !Object.is(n, -0) ? new WholeFloat(n) : n;
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
  if (value instanceof WholeFloat) return floatText(value.value);
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
 * The bidirectional controls (ALM, LRM, RLM, the embeddings and overrides, the isolates), as a character class
 * body: they reorder what an editor or a terminal shows of the text around them, so every writer here escapes them.
 */
export const BIDI_CONTROLS = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';

/**
 * Characters JSON leaves raw that YAML readers treat specially: DEL and C1 controls (PyYAML refuses
 * them raw; NEL is a line break to it), LINE and PARAGRAPH SEPARATOR (line breaks to PyYAML), the
 * byte order mark and the non-characters U+FFFE and U+FFFF; and the bidirectional controls, which
 * reorder what an editor or a terminal shows of the text around them.
 */
const ESCAPE_BEYOND_JSON = new RegExp(`[\\u007F-\\u009F${BIDI_CONTROLS}\\u2028\\u2029\\uFEFF\\uFFFE\\uFFFF]`, 'g');

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

/** `n` written as a float: with a dot (`1.0`, `2500000000000000.0`, `1.0e+300`, `1.0e-7`) and a signed exponent, both of which PyYAML needs. */
function floatText(n: number): string {
  const text = String(n);
  const e = text.indexOf('e');
  const mantissa = e < 0 ? text : text.slice(0, e);
  return mantissa.includes('.') ? text : `${mantissa}.0${e < 0 ? '' : text.slice(e)}`;
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
  return floatText(n);
}
