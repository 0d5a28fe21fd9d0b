import { WholeFloat } from '../../src/io/scalars';

/**
 * Values that YAML 1.1 readers (PyYAML's `safe_load`, which llama-stack uses) read differently from
 * YAML 1.2, or that break a careless writer: each must come back from our files exactly as given.
 */

/** Strings, as values and as keys. */
export const HOSTILE_STRINGS: readonly string[] = [
  // Characters PyYAML treats specially: tab, NEL, LINE and PARAGRAPH SEPARATOR, BOM, controls.
  'a\tb', '\t', 'tab\t', 'x\u2028y', '\u2028', 'p\u2029q', 'a\u0085b', '\u0085', '\ufeffbom', '\u0000', '\u0007bell',
  '\u001b[31mred', '\u007f', '\u0080', '\u009f', '\u00a0nbsp', '\ufffe', '\uffff', '\ud800', 'lone \udfff', 'é', '😀',
  'a\nb', 'a\n', '\n', 'a\r\nb', '\r', ' ', ' lead', 'trail ', 'a  b', '',
  // YAML 1.1 booleans and nulls, also where YAML 1.2 says string.
  'yes', 'no', 'on', 'off', 'y', 'n', 'Y', 'N', 'YES', 'No', 'On', 'OFF', 'true', 'False', 'TRUE', '~', 'null', 'Null', 'NULL',
  // Numbers of one YAML version or the other.
  '1e-7', '1e5', '1E+5', '1.0e-7', '.inf', '-.inf', '+.INF', '.nan', '.NaN', '.', '.5', '1.', '0o17', '0b101', '0x1F', '0X1F',
  '1_000', '017', '09', '-0', '+1', '0', '1.0', '12:30', '1:20.5', '0:30', '190:20:30', '12345678901234567890', '-0x1FFFFFFFFFFFFFFFF',
  // Numbers to goyaml.v2 (kubectl's reader: Go's strconv after dropping every '_'), some of them to no other reader.
  '0O17', '0B11', '-0o17', '+0x1F', '+0b11', '0_x1F', '1__0', '1_.5', '.5e3', '0x_1',
  // Dates and timestamps.
  '2024-01-01', '2024-1-1', '2024-01-01 10:00:00', '2024-01-01T10:00:00Z', '2001-12-14t21:59:43.10-05:00',
  // The merge key, the value key, indicators and comments.
  '<<', '=', '- a', '-', '? a', '?', ': a', ':', 'a: b', 'a:', 'a #b', '#c', '"q"', "'q'", '%x', '@x', '`x', '!x', '!!str',
  '&x', '*x', '|', '>', '[a]', '{a: 1}', ',', '---', '...', '--- a', 'a: [b, {c: d}]',
  // Ordinary values that must stay as they are.
  '${env.VLLM_URL:=http://localhost:8000/v1}', '${env.X:+x}', 'remote::vllm', 'http://a:1/v1?q=1#f', 'C:\\path\\x',
  '-c', '--port=8000', '0.1.0', '8000m', '2024-1-2', '1.29-release',
  // A string and a key longer than YAML 1.1 readers accept as an implicit key.
  'k'.repeat(1100),
];

/** The hostile strings a YAML file can hold plain, as a mapping's value in block style (each reader then resolves them its own way). */
export const PLAIN_HOSTILE_STRINGS: readonly string[] = HOSTILE_STRINGS.filter((s) => /^(?:[^\s"'`@%&*!|>[\]{},#?:-]|[-?:]\S)[^\n\r\t]*$/.test(s)
  && !/: | #|:$/.test(s) && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/.test(s));

/** Numbers: tiny and huge floats, whole numbers beyond 2^53, negative zero, infinities. */
export const FINITE_NUMBERS: readonly number[] = [
  0, -0, 1, -1, 42, 0.1, -2.5, 1e-7, -1.5e-7, 5e-324, Number.MIN_VALUE, 123456789.123, 1e20, 1e21, -1e21, 2 ** 53, 2 ** 53 + 2,
  2 ** 60, 1e300, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE,
];
export const NON_FINITE_NUMBERS: readonly number[] = [Infinity, -Infinity, NaN];

/** Keys no YAML 1.1 reader accepts in JSON (too long for an implicit key): the YAML writer uses `? key`. */
const LONG = 'k'.repeat(1100);

/**
 * A provider config made of every hostile value: as list items, as mapping values, as keys, nested.
 * `json` leaves out what JSON cannot carry (infinities, NaN, keys over 1000 characters), bigints and floats of
 * whole value.
 */
export function hostileConfig(options: { json?: boolean } = {}): Record<string, unknown> {
  const keys = HOSTILE_STRINGS.filter((s) => !options.json || s !== LONG);
  const numbers = options.json ? FINITE_NUMBERS : [...FINITE_NUMBERS, ...NON_FINITE_NUMBERS];
  const byKey = Object.fromEntries(keys.map((k, i) => [k, HOSTILE_STRINGS[(i + 7) % HOSTILE_STRINGS.length]]));
  return {
    strings: [...HOSTILE_STRINGS],
    numbers: [...numbers],
    threshold: 1e-7,
    enabled: 'yes',
    separator: '\t',
    // JSON.parse cannot hold them exactly (and the pod's crd-config.yaml is read back in JavaScript).
    ...(options.json ? {} : {
      bigints: [BigInt('123456789012345678901234567890'), -(BigInt(2) ** BigInt(64))],
      wholeFloats: [new WholeFloat(1), new WholeFloat(-3), new WholeFloat(2.5e15), new WholeFloat(1e300), new WholeFloat(2 ** 60)],
    }),
    booleans: [true, false],
    nothing: null,
    byKey,
    nested: {
      '<<': { '=': [{ yes: { 1e-7: [['\u2028', { '~': {} }], []] } }] },
      'x\u2028y': { 'a\tb': numbers.map((n) => ({ n, s: String(n) })) },
    },
    empty: { map: {}, list: [] },
  };
}
