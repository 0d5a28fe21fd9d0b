import { spawnSync } from 'node:child_process';
import { WholeFloat } from '../../src/io/scalars';
import { SandboxSupport } from '../sandbox/host';

/**
 * Reads texts with the REAL PyYAML of the host's `python3` — `yaml.safe_load`, as llama-stack does —
 * and hands back the values in a form that keeps what JSON would lose: integers and floats apart,
 * infinities, NaN and negative zero, non-string keys, dates.
 */
const LOADER = String.raw`
import datetime, json, sys, yaml

def canon(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"$int": str(v)}
    if isinstance(v, float):
        return {"$float": "nan" if v != v else repr(v)}
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return {"$map": [[canon(k), canon(x)] for k, x in v.items()]}
    if isinstance(v, (datetime.date, datetime.datetime)):
        return {"$timestamp": v.isoformat()}
    return {"$other": type(v).__name__, "repr": repr(v)}

mode, texts = json.load(sys.stdin)
out = []
for text in texts:
    try:
        out.append({"value": canon(yaml.safe_load(text) if mode == "yaml" else json.loads(text))})
    except Exception as e:
        out.append({"error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")})
json.dump(out, sys.stdout)
`;

/** One text as Python read it: its value in canonical form, or the exception. */
export type PythonResult = { readonly value: unknown; readonly error?: undefined } | { readonly error: string; readonly value?: undefined };

/** Whether `python3` with PyYAML is on this host. */
export function pyyamlSupport(): SandboxSupport {
  const probe = spawnSync('python3', ['-c', 'import yaml; print(yaml.__version__)'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return { ok: false, reason: `python3 with PyYAML is not available: ${probe.error?.message ?? probe.stderr.trim()}. Install it: pip install pyyaml` };
  }
  return { ok: true };
}

/** Loads each text with `yaml.safe_load` (or, with mode `json`, Python's `json.loads`). */
export function pythonLoad(texts: readonly string[], mode: 'yaml' | 'json' = 'yaml'): PythonResult[] {
  const result = spawnSync('python3', ['-c', LOADER], { input: JSON.stringify([mode, texts]), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as PythonResult[];
}

/** Loads one text with `yaml.safe_load`, failing on an exception. */
export function pyyamlValue(text: string): unknown {
  const [result] = pythonLoad([text]);
  if (result.error !== undefined) throw new Error(`PyYAML cannot load the text: ${result.error}`);
  return result.value;
}

/**
 * Where a value Python read differs from the value intended, described; undefined when they agree.
 * Whole JavaScript numbers must come back as Python ints of the same value, other numbers and WholeFloats
 * as floats (NaN as NaN, -0 as -0.0); strings with the same characters; keys as string keys; booleans, null,
 * lists and mappings likewise. Members set to `undefined` count as absent.
 */
export function pythonDifference(python: unknown, intended: unknown, path = ''): string | undefined {
  const here = path || '(top level)';
  const found = (): string => `${here}: Python read ${JSON.stringify(python)?.slice(0, 120)}, intended ${describe(intended)}`;
  if (intended === null || typeof intended === 'boolean' || typeof intended === 'string') {
    return python === intended ? undefined : found();
  }
  if (typeof intended === 'bigint') {
    const p = python as { $int?: string } | null;
    return p?.$int !== undefined && BigInt(p.$int) === intended ? undefined : found();
  }
  if (intended instanceof WholeFloat) {
    const p = python as { $float?: string } | null;
    return p?.$float !== undefined && pythonFloat(p.$float) === intended.value ? undefined : found();
  }
  if (typeof intended === 'number') {
    const p = python as { $int?: string; $float?: string } | null;
    if (Number.isInteger(intended) && !Object.is(intended, -0)) {
      return p?.$int !== undefined && BigInt(p.$int) === BigInt(intended) ? undefined : found();
    }
    return p?.$float !== undefined && Object.is(pythonFloat(p.$float), intended) ? undefined : found();
  }
  if (Array.isArray(intended)) {
    if (!Array.isArray(python) || python.length !== intended.length) return found();
    for (let i = 0; i < intended.length; i++) {
      const d = pythonDifference(python[i], intended[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (typeof intended === 'object' && Object.getPrototypeOf(intended) === Object.prototype) {
    const entries = (python as { $map?: Array<[unknown, unknown]> } | null)?.$map;
    if (!entries) return found();
    const nonString = entries.find(([k]) => typeof k !== 'string');
    if (nonString) return `${here}: Python read a key that is not a string: ${JSON.stringify(nonString[0])}`;
    const read = new Map(entries as Array<[string, unknown]>);
    const wanted = Object.entries(intended as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (read.size !== wanted.length) {
      return `${here}: Python read keys ${JSON.stringify([...read.keys()].map(short))}, intended ${JSON.stringify(wanted.map(([k]) => short(k)))}`;
    }
    for (const [k, v] of wanted) {
      if (!read.has(k)) return `${here}: Python did not read key ${JSON.stringify(k)}`;
      const d = pythonDifference(read.get(k), v, `${path}[${JSON.stringify(short(k))}]`);
      if (d) return d;
    }
    return undefined;
  }
  throw new Error(`${here}: the test intends a value that is not plain data: ${describe(intended)}`);
}

function pythonFloat(repr: string): number {
  if (repr === 'inf') return Infinity;
  if (repr === '-inf') return -Infinity;
  if (repr === 'nan') return NaN;
  return Number(repr);
}

function short(key: string): string {
  return key.length > 40 ? `${key.slice(0, 37)}...` : key;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? 'the number -0' : `the number ${value}`;
  if (typeof value === 'bigint') return `the integer ${value}`;
  return JSON.stringify(value)?.slice(0, 120) ?? String(value);
}
