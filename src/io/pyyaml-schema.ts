import type { ScalarTag, Tags } from 'yaml';
import { floatValue, WholeFloat } from './scalars';
import { scalarTag } from './yaml-tags';

/*
 * How llama-stack's reader resolves plain (unquoted) scalars: PyYAML's `yaml.safe_load`, a YAML 1.1
 * reader whose implicit types differ from the `yaml` library's own YAML 1.1 schema in ways that
 * change values: `y` and `n` are strings, `1e-7` (no dot) is a string, `.` is a string, `09` is a
 * string, `-0` is the integer 0, and a plain `=` makes `safe_load` fail. The patterns below are
 * PyYAML's (yaml/resolver.py and yaml/constructor.py, PyYAML 6.0.3), so that what we read is what
 * the server will read.
 */

/** `tag:yaml.org,2002:bool`, true and false values. */
const PY_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const PY_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;

/** `tag:yaml.org,2002:int`: binary, old-style octal, decimal, hexadecimal, base 60. */
const PY_INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;

/** `tag:yaml.org,2002:float`: a dot is required, an exponent needs its sign; base 60; .inf and .nan. */
const PY_FLOAT = /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** `tag:yaml.org,2002:timestamp`: a date needs two-digit month and day; a date-time may have one. */
const PY_TIMESTAMP = /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;

/** `tag:yaml.org,2002:value`: PyYAML resolves a plain `=` to it and `safe_load` has no constructor for it. */
const PY_VALUE = /^=$/;

/**
 * PyYAML's `construct_yaml_int`. Python integers have no negative zero (`-0` is 0) and no size limit:
 * one beyond 2^53, which a JavaScript number cannot hold exactly, is a bigint, so that it is kept and
 * written back digit for digit.
 */
function resolveInt(text: string): number | bigint {
  let value = text.replace(/_/g, '');
  const negative = value.startsWith('-');
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1);
  let n: bigint;
  if (value.startsWith('0b')) n = BigInt(value);
  else if (value.startsWith('0x')) n = BigInt(value);
  else if (value.includes(':')) n = value.split(':').reduce((sum, part) => sum * BigInt(60) + BigInt(part), BigInt(0));
  else if (value.startsWith('0') && value.length > 1) n = BigInt(`0o${value.slice(1)}`);
  else n = BigInt(value);
  if (negative) n = -n;
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** PyYAML's `construct_yaml_float`: a whole value (`1.0`) is a {@link WholeFloat}, which the writers write as a float again. */
function resolveFloat(text: string): number | WholeFloat {
  return floatValue(floatOf(text));
}

function floatOf(text: string): number {
  let value = text.replace(/_/g, '').toLowerCase();
  const sign = value.startsWith('-') ? -1 : 1;
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1);
  if (value === '.inf') return sign * Infinity;
  if (value === '.nan') return NaN;
  if (value.includes(':')) return sign * value.split(':').reduce((sum, part) => sum * 60 + parseFloat(part), 0);
  return sign * parseFloat(value);
}

const IMPLICIT_TYPES: ReadonlySet<string> = new Set(['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float']);

/**
 * `customTags` for the `yaml` library in YAML 1.1 mode that make it resolve plain scalars as PyYAML's
 * `safe_load` does: the library's booleans, integers and floats are replaced by PyYAML's, timestamps
 * take PyYAML's pattern, and a plain `=` is an error (PyYAML cannot load it either).
 */
export function asPyYamlReads(tags: Tags): Tags {
  const trueTag = scalarTag(tags, 'tag:yaml.org,2002:bool', (t) => t.test?.test('true') === true);
  const falseTag = scalarTag(tags, 'tag:yaml.org,2002:bool', (t) => t.test?.test('false') === true);
  const intTag = scalarTag(tags, 'tag:yaml.org,2002:int', (t) => t.format === undefined);
  const floatTag = scalarTag(tags, 'tag:yaml.org,2002:float', (t) => t.format === undefined);
  const timestampTag = scalarTag(tags, 'tag:yaml.org,2002:timestamp');
  const pyTags: ScalarTag[] = [
    { ...trueTag, test: PY_TRUE },
    { ...falseTag, test: PY_FALSE },
    { ...intTag, test: PY_INT, resolve: resolveInt },
    { ...floatTag, test: PY_FLOAT, resolve: resolveFloat },
    {
      identify: () => false,
      default: true,
      tag: 'tag:yaml.org,2002:value',
      test: PY_VALUE,
      resolve: (text, onError) => {
        onError('a plain "=" is the YAML 1.1 value key, which llama-stack\'s YAML reader (PyYAML safe_load) refuses; quote it: "="');
        return text;
      },
    },
  ];
  return [
    ...tags.filter((t) => typeof t !== 'object' || (!IMPLICIT_TYPES.has(t.tag) && t !== timestampTag)),
    ...pyTags,
    { ...timestampTag, test: PY_TIMESTAMP },
  ];
}

/**
 * Characters PyYAML takes for line breaks and the `yaml` library does not (NEL, LINE SEPARATOR,
 * PARAGRAPH SEPARATOR): where they stand unescaped, the two readers see different values.
 */
export const PYYAML_ONLY_LINE_BREAKS = /[\u0085\u2028\u2029]/;
