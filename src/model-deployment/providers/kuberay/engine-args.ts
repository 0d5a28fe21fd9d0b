// `engine.args` checked and typed at synth as the vLLM the Ray release pins takes them. Names: a name that is not
// an argument of that vLLM is refused by Ray Serve LLM when it builds the application ("Unknown engine argument"),
// which a user would otherwise first see in the RayService's status once a GPU cluster is up. Values: Ray hands
// engine_kwargs to vLLM's AsyncEngineArgs unparsed, so each text is converted here as vLLM's own CLI converts the
// same flag's text (the meaning `engine.args` has on KAITO and Dynamo), and a text that CLI would refuse is refused.
import { EngineArgType, RAY_SERVE_LLM_ENGINE_ARGS } from './engine-args.generated';
import { Problem } from '../../../errors';
import { closest } from '../../../suggest';
import { typedArgValue } from '../../engine-flags';
import { ResolvedModelDeployment } from '../../resolved-spec';

const { ray, vllm, args: ARG_TYPES } = RAY_SERVE_LLM_ENGINE_ARGS;
const NAMES = Object.keys(ARG_TYPES);

/**
 * Whether the vLLM behind a RayService is the one the table was read from: Ray's own image of that release
 * (scripts/import-vllm-engine-args.mjs). Another release or image may carry another vLLM.
 */
export function vllmArgsKnown(rayVersion: string, ownImage: boolean): boolean {
  return rayVersion === ray && ownImage;
}

/** An `engine.args` key as vLLM's field name (serve-config.ts writes each key with underscores). */
export function engineArgName(key: string): string {
  return key.replace(/-/g, '_');
}

/** Problems for `engine.args` names vLLM does not have. */
function nameProblems(d: ResolvedModelDeployment): Problem[] {
  return Object.keys(d.engine.args).sort().flatMap((key) => {
    const name = engineArgName(key);
    if (name in ARG_TYPES) return [];
    const near = closest(name, NAMES);
    const suggestion = near === undefined ? '' : `; did you mean "${key.includes('-') ? near.replace(/_/g, '-') : near}"?`;
    return [{
      field: `engine.args.${key}`,
      message: `Ray Serve LLM ${ray} hands engine_kwargs to vLLM ${vllm}, which has no engine argument "${name}": `
        + `Ray would refuse the application ("Unknown engine argument: ${name}")${suggestion}`,
    }];
  });
}

/** A converted value, or what vLLM's CLI would have taken instead. */
type Conversion = { readonly value: unknown } | { readonly expected: string };

const HUMAN_INT_HELP = 'a whole number, or one with a k/m/g/t (×1000) or K/M/G/T (×1024) suffix such as "8k"';
const EXPECTED: Readonly<Record<EngineArgType['kind'], string>> = {
  'flag': 'a switch: "" (or "true") sets it, "false" unsets it',
  'flag-or-str': 'a text, or "" for the bare flag',
  'str': 'a text',
  'int': 'a whole number such as "4096"',
  'human-int': HUMAN_INT_HELP,
  'human-int-or-auto': `${HUMAN_INT_HELP}, or "auto"`,
  'float': 'a finite number such as "0.9"',
  'json': 'JSON such as {"key": "value"}',
  'json-or-str': 'a text, or a JSON object',
  'config': 'a JSON object',
  'text': 'a text',
};

/** Python's `int()` of a base-10 text (surrounding spaces, a sign, `_` between digits), if it is one. */
function pythonInt(text: string): number | undefined {
  const m = /^\s*([+-]?)([0-9](?:_?[0-9])*)\s*$/.exec(text);
  const n = m ? Number(m[1] + m[2].replace(/_/g, '')) : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Python's `float()` of a finite decimal text; JSON has no infinities or NaN for the Serve config to carry. */
function pythonFloat(text: string): number | undefined {
  const digits = '[0-9](?:_?[0-9])*';
  const m = new RegExp(`^\\s*([+-]?(?:${digits}(?:\\.(?:${digits})?)?|\\.${digits})(?:[eE][+-]?${digits})?)\\s*$`).exec(text);
  const n = m ? Number(m[1].replace(/_/g, '')) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

const DECIMAL: Readonly<Record<string, number>> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
const BINARY: Readonly<Record<string, number>> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/**
 * vLLM's `human_readable_int` (vllm/utils/argparse_utils.py): `25.6k` is int(25.6 × 1000); a binary suffix takes
 * whole numbers only; anything else is Python's `int()`.
 */
function humanReadableInt(text: string): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?)([kKmMgGtT])$/.exec(text.trim());
  if (!m) return pythonInt(text);
  const [, number, suffix] = m;
  if (suffix in DECIMAL) return Math.trunc(Number(number) * DECIMAL[suffix]);
  return /^[0-9]+$/.test(number) ? Number(number) * BINARY[suffix] : undefined;
}

/**
 * vLLM's `_expand_json_human_readable_numbers` (vllm/engine/arg_utils.py), which a config argument's text goes
 * through before it is read as JSON: bare `80m`-style tokens outside JSON strings become whole numbers.
 */
function expandHumanReadableNumbers(text: string): string | undefined {
  let refused = false;
  const parts = text.split(/("(?:[^"\\]|\\.)*")/).map((part, i) => i % 2 === 1 ? part
    : part.replace(/\b\d+(?:\.\d+)?[kKmMgGtT]\b/g, (token) => {
      const n = humanReadableInt(token);
      if (n === undefined) refused = true;
      return String(n);
    }));
  return refused ? undefined : parts.join('');
}

function parseJson(text: string | undefined): { value: unknown } | undefined {
  if (text === undefined) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One value as the argument's type callable makes it (undefined where it raises). */
function convertScalar(kind: EngineArgType['kind'], text: string): { value: unknown } | undefined {
  const some = (value: unknown) => value === undefined ? undefined : { value };
  switch (kind) {
    case 'int': return some(pythonInt(text));
    case 'human-int': return some(humanReadableInt(text));
    case 'human-int-or-auto': return some(text.trim() === '-1' || text.trim().toLowerCase() === 'auto' ? -1 : humanReadableInt(text));
    case 'float': return some(pythonFloat(text));
    case 'json': return parseJson(text);
    // union_dict_and_str: a text that looks like an object is JSON, anything else stays text.
    case 'json-or-str': return /^\s*\{[\s\S]*\}\s*$/.test(text) ? parseJson(text) : { value: text };
    case 'config': {
      const parsed = parseJson(expandHumanReadableNumbers(text));
      return parsed && isObject(parsed.value) ? parsed : undefined;
    }
    default: return { value: text };
  }
}

/**
 * An `engine.args` text as vLLM's CLI reads `--<flag> <text>` (`--<flag>` alone for ""): argparse's steps for the
 * argument's action, type callable, nargs and choices.
 */
function convertEngineArg(type: EngineArgType, text: string): Conversion {
  const refused = { expected: EXPECTED[type.kind] + (type.choices ? ` (one of ${type.choices.map((c) => JSON.stringify(c)).join(', ')})` : '') };
  if (type.kind === 'flag') return text === '' || text === 'true' ? { value: true } : text === 'false' ? { value: false } : refused;
  if (type.kind === 'flag-or-str') return { value: text === '' ? true : text };
  if (type.kind === 'text') return { value: text };
  // A bare flag for an argument that takes a value: argparse exits with "expected one argument".
  if (text === '') return refused;
  const converted = type.optional && text === 'None' ? { value: null } : convertScalar(type.kind, text);
  if (converted === undefined) return refused;
  if (type.choices && !type.choices.includes(converted.value as string | number)) return refused;
  return type.list ? { value: [converted.value] } : converted;
}

/** Problems for `engine.args` values vLLM's CLI would refuse for their flag. */
function valueProblems(d: ResolvedModelDeployment): Problem[] {
  return Object.keys(d.engine.args).sort().flatMap((key) => {
    const type = ARG_TYPES[engineArgName(key)];
    const text = d.engine.args[key];
    const result = type === undefined ? { value: text } : convertEngineArg(type, text);
    if (!('expected' in result)) return [];
    return [{
      field: `engine.args.${key}`,
      message: `vLLM ${vllm}'s CLI would refuse ${JSON.stringify(text)} for --${key.replace(/_/g, '-')}, and Ray Serve LLM ${ray} hands `
        + `engine_kwargs to vLLM unparsed: give ${result.expected}`,
    }];
  });
}

/** Problems for `engine.args` names and values vLLM does not take; none unless {@link vllmArgsKnown}. */
export function engineArgProblems(d: ResolvedModelDeployment, known: boolean): Problem[] {
  return known ? [...nameProblems(d), ...valueProblems(d)] : [];
}

/**
 * `engine.args` as engine_kwargs values, by vLLM's field name. Where the vLLM is known, each as its CLI types
 * the flag (values it refuses are problems of {@link engineArgProblems}, and stay text); elsewhere guessed from
 * the text ({@link typedArgValue}). serve-config.ts writes these, and replica-gpus.ts checks the parallel sizes
 * among them against the GPUs.
 */
export function engineKwargs(args: Readonly<Record<string, string>>, known: boolean): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([key, text]) => {
    const type = known ? ARG_TYPES[engineArgName(key)] : undefined;
    const result = type === undefined ? { value: typedArgValue(text) } : convertEngineArg(type, text);
    return [engineArgName(key), 'value' in result ? result.value : text];
  }));
}
