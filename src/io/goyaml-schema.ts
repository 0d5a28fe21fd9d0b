import type { Tags } from 'yaml';
import { floatValue } from './scalars';
import { scalarTag } from './yaml-tags';

/*
 * How kubectl resolves plain (unquoted) scalars of a manifest: sigs.k8s.io/yaml decodes YAML into untyped
 * values with its goyaml.v2 (sigs.k8s.io/yaml goyaml.v2/resolve.go, `resolve`), then writes JSON. Its
 * booleans, nulls, infinities and NaN are YAML 1.1's, as the `yaml` library's YAML 1.1 schema has them;
 * its numbers are not:
 * - a text that starts with a digit or a sign is a number when Go's strconv parses it once every `_`
 *   is dropped: ParseInt and ParseUint with base 0 (`0x`, `0o`, `0b` prefixes in either case, a leading 0
 *   for octal), then the float pattern `yamlStyleFloat` (`1e3`, `09`, `1.`), then big.Int for integers
 *   beyond 64 bits: `0O17` is 15, `0_x1F` is 31, `1__0` is 10;
 * - a text that starts with a dot is a float when strconv.ParseFloat reads it as it is (`.5`, `.5e3`);
 * - no base-60 numbers (`1:20` is a string) and, decoded into untyped values, no timestamps (goyaml.v2
 *   keeps them strings there for compatibility).
 */

/** Any number of `_` after each character of a number: goyaml.v2 drops them all before parsing. */
const U = '_*';
const digits = (set: string) => `(?:[${set}]${U})+`;
const SIGN = `(?:[-+]${U})?`;

/** What strconv.ParseInt/ParseUint with base 0 (and big.Int's SetString) accept, `_` anywhere after the first character. */
const GO_INT_SYNTAX = new RegExp(`^${SIGN}(?:0${U}[xX]${U}${digits('0-9a-fA-F')}|0${U}[oO]${U}${digits('0-7')}|0${U}[bB]${U}${digits('01')}|${digits('0-9')})$`);
/** -2^63, the least int64: below it ParseInt fails with a range error. */
const INT64_MIN = -(BigInt(2) ** BigInt(63));

/**
 * {@link GO_INT_SYNTAX} but for what goyaml.v2 leaves a string: a negative number with a base prefix below
 * int64's range. Its ParseInt fails with a range error, ParseUint then with a syntax error (a sign), which
 * is the error its big.Int fallback looks at; a decimal one is a float by then (yamlStyleFloat). A RegExp,
 * as the `yaml` library takes a tag's pattern, whose `test` also compares the value.
 */
class GoIntPattern extends RegExp {
  public constructor() {
    super(GO_INT_SYNTAX.source);
  }

  public override test(text: string): boolean {
    if (!super.test(text)) return false;
    const plain = text.replace(/_/g, '');
    if (!/^-0[xXoObB]/.test(plain)) return true;
    return -BigInt(plain.slice(1).replace(/^0[oO]/, '0o').replace(/^0[xX]/, '0x').replace(/^0[bB]/, '0b')) >= INT64_MIN;
  }
}
const GO_INT = new GoIntPattern();

/** goyaml.v2's yamlStyleFloat, on the same text (which starts with a digit or a sign: a dot is {@link GO_DOT_FLOAT}'s). */
const GO_FLOAT = new RegExp(`^(?=[-+0-9])${SIGN}(?:\\.${U}${digits('0-9')}|${digits('0-9')}(?:\\.${U}(?:[0-9]${U})*)?)(?:[eE]${U}${SIGN}${digits('0-9')})?$`);
/** What strconv.ParseFloat accepts of a text starting with a dot (no `_` there: ParseFloat allows them after a base prefix only). */
const GO_DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;

/** The largest uint64: beyond it a decimal integer is a float to goyaml.v2 (yamlStyleFloat comes before big.Int). */
const UINT64_MAX = BigInt(2) ** BigInt(64) - BigInt(1);

/**
 * The value of a text {@link GO_INT} matched, as Go reads it: a leading 0 is octal, and an octal with 8 or 9
 * is a float (`09` is 9). Go's integers are exact to 64 bits (big.Int beyond, for a base prefix): one beyond
 * 2^53, which a JavaScript number cannot hold, is a bigint, written back digit for digit; a decimal one beyond
 * uint64 is a float, as goyaml.v2 makes it.
 */
function resolveInt(text: string): number | bigint {
  const plain = text.replace(/_/g, '');
  const negative = plain.startsWith('-');
  const unsigned = plain.replace(/^[-+]/, '');
  const prefix = unsigned.slice(0, 2).toLowerCase();
  const based = prefix === '0x' || prefix === '0o' || prefix === '0b';
  const octal = !based && /^0[0-7]+$/.test(unsigned);
  const magnitude = BigInt(based ? `${prefix}${unsigned.slice(2)}` : octal ? `0o${unsigned.slice(1)}` : unsigned);
  if (!based && !octal && magnitude > UINT64_MAX) return Number(plain);
  const value = negative ? -magnitude : magnitude;
  // Go's integers have no negative zero.
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/**
 * `customTags` for the `yaml` library in YAML 1.1 mode that make it resolve plain scalars as kubectl
 * does: the library's integers, floats (but infinities and NaN), base-60 numbers and timestamps are
 * replaced by goyaml.v2's numbers. Numbers keep what a JavaScript number cannot hold: an integer beyond 2^53 is
 * a bigint, a float of whole value (`1.0`) a {@link WholeFloat}; `plainNumbers` (scalars.ts) gives plain numbers.
 */
export function asKubectlReads(tags: Tags): Tags {
  const intTag = scalarTag(tags, 'tag:yaml.org,2002:int', (t) => t.format === undefined);
  const floatTag = scalarTag(tags, 'tag:yaml.org,2002:float', (t) => t.test?.test('1.5') === true);
  const kept = tags.filter((t) => typeof t !== 'object' || !t.test
    || !['tag:yaml.org,2002:int', 'tag:yaml.org,2002:float', 'tag:yaml.org,2002:timestamp'].includes(t.tag)
    // The library's infinities and NaN are goyaml.v2's.
    || t.test.test('.inf'));
  return [
    ...kept,
    { ...intTag, test: GO_INT, resolve: resolveInt },
    { ...floatTag, test: GO_FLOAT, resolve: (text) => floatValue(Number(text.replace(/_/g, ''))) },
    { ...floatTag, test: GO_DOT_FLOAT, resolve: (text) => floatValue(Number(text)) },
  ];
}
