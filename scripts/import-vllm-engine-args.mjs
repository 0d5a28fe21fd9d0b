#!/usr/bin/env node
// Generates src/model-deployment/providers/kuberay/engine-args.generated.ts: the `engine_kwargs` names Ray
// Serve LLM accepts and the type vLLM's CLI gives each, read from Ray's and vLLM's own code in the `ray-llm`
// tool environment (ray[llm] from PyPI with the vLLM it pins; set up by
// `node scripts/test-setup/llama-stack-envs.mjs`), or (with --check) fails when the generated module is not
// what that environment gives.
//
//   node scripts/import-vllm-engine-args.mjs          regenerate the module
//   node scripts/import-vllm-engine-args.mjs --check  exit 1 when it is stale
//
// Ray takes an engine_kwargs key when it names a field of vLLM's FrontendArgs or AsyncEngineArgs and refuses
// any other with "Unknown engine argument" (ray: python/ray/llm/_internal/serve/engines/vllm/vllm_models.py,
// VLLMEngineConfig.from_llm_config), so those two dataclasses' fields are the list.
// test/model-deployment/ray-serve-llm.test.ts runs the --check, where the environment is there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './test-setup/cache.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'src', 'model-deployment', 'providers', 'kuberay', 'engine-args.generated.ts');
const TOOL = 'ray-llm';

// Each name's type is the one vLLM's own server parser gives its flag (vllm: vllm/entrypoints/launchers/cli_args.py
// make_arg_parser, whose arguments vllm/engine/arg_utils.py _compute_kwargs and EngineArgs.add_cli_args make from the
// dataclasses' type hints): read from the parser's actions, so KubeRay can type an engine_kwargs value as the vLLM
// CLI (KAITO, Dynamo) types the same flag text. A conversion the table does not model is 'text' (passed as written).
const READ_FIELDS = `
import argparse, dataclasses, inspect, json, sys
import ray, vllm
import vllm.platforms
from vllm.platforms.cpu import CpuPlatform
# Building the parser probes for a device; without a GPU vLLM finds none, so its CPU platform is set (the
# arguments and their types are the same on every platform).
vllm.platforms._current_platform = CpuPlatform()
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.entrypoints.launchers.cli_args import FrontendArgs, make_arg_parser
from vllm.utils.argparse_utils import FlexibleArgumentParser, human_readable_int, human_readable_int_or_auto

SCALARS = {str: "str", int: "int", float: "float", json.loads: "json", human_readable_int: "human-int",
           human_readable_int_or_auto: "human-int-or-auto"}

def inner(t, factory):
    """The type a parse_type/optional_type wrapper (arg_utils.py) wraps, or None for another callable."""
    if getattr(t, "__qualname__", "").startswith(factory + ".<locals>."):
        return inspect.getclosurevars(t).nonlocals["return_type"]
    return None

def scalar(t):
    if t is None:
        return "str"
    if getattr(t, "__qualname__", "") == "_compute_kwargs.<locals>.parse_dataclass":
        return "config"
    if getattr(t, "__name__", "") == "union_dict_and_str":
        return "json-or-str"
    return SCALARS.get(t, "text")

def arg_type(action):
    if action.nargs == 0:
        return {"kind": "flag"}
    if type(action) is not argparse._StoreAction:
        return {"kind": "text"}
    if action.nargs == "?" and action.const is True:
        return {"kind": "flag-or-str"}
    assert action.nargs in (None, "+"), (action.dest, action.nargs)
    t, optional = action.type, False
    if inner(t, "optional_type") is not None:
        t, optional = inner(t, "optional_type"), True
    t = inner(t, "parse_type") or t
    out = {"kind": scalar(t)}
    if out["kind"] == "text":
        return out
    if action.nargs == "+":
        out["list"] = True
    if optional:
        out["optional"] = True
    if action.choices:
        out["choices"] = list(action.choices)
    return out

names = {f.name for f in dataclasses.fields(AsyncEngineArgs)} | {f.name for f in dataclasses.fields(FrontendArgs)}
actions = {a.dest: a for a in make_arg_parser(FlexibleArgumentParser())._actions if a.option_strings}
args = {name: arg_type(actions[name]) if name in actions else {"kind": "text"} for name in sorted(names)}
with open(sys.argv[1], "w") as out:
    json.dump({"ray": ray.__version__, "vllm": vllm.__version__, "args": args}, out)
`;

function fail(message) {
  process.stderr.write(`import-vllm-engine-args: ${message}\n`);
  process.exit(1);
}

function readFields() {
  const index = join(cacheRoot(), 'test-envs.json');
  const python = existsSync(index) ? JSON.parse(readFileSync(index, 'utf8')).tools?.[TOOL]?.python : undefined;
  if (!python) fail(`the ${TOOL} tool environment is not set up; run \`node scripts/test-setup/llama-stack-envs.mjs\` first`);
  const dir = mkdtempSync(join(tmpdir(), 'engine-args-'));
  try {
    const out = join(dir, 'fields.json');
    // vLLM logs to stdout on import: the result goes to a file.
    execFileSync(python, ['-c', READ_FIELDS, out], { stdio: ['ignore', 'ignore', 'inherit'] });
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const quote = (v) => JSON.stringify(v).replace(/"/g, "'");

/** Words joined by ', ' into lines of at most `width` characters, each indented by `indent`. */
function wrap(words, indent, width = 120) {
  const lines = [];
  for (const word of words) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + word.length + 2 <= width) lines[last] += ` ${word},`;
    else lines.push(`${indent}${word},`);
  }
  return lines;
}

/** One table entry as TypeScript, `'name': { kind: 'int', optional: true },`, with long choice lists wrapped. */
function entry(name, { choices, ...rest }) {
  const fields = Object.entries(rest).map(([k, v]) => `${k}: ${quote(v)}`).join(', ');
  if (!choices) return [`    '${name}': { ${fields} },`];
  const line = `    '${name}': { ${fields}, choices: [${choices.map(quote).join(', ')}] },`;
  if (line.length <= 150) return [line];
  return [`    '${name}': {`, `      ${fields}, choices: [`, ...wrap(choices.map(quote), '        '), '      ],', '    },'];
}

function render({ ray, vllm, args }) {
  return [
    `// Generated by scripts/import-vllm-engine-args.mjs from Ray ${ray}'s own code (ray[llm] from PyPI, vLLM ${vllm}); do not edit.`,
    '',
    '/**',
    ' * What vLLM\'s CLI makes of a flag\'s text (vllm/engine/arg_utils.py `_compute_kwargs` and `EngineArgs.add_cli_args`,',
    ' * vllm/utils/argparse_utils.py): `flag` a switch (no value); `flag-or-str` a bare flag (true) or a text; `str`;',
    ' * `int` (Python `int()`); `human-int` (`human_readable_int`: `8k`, `1K`); `human-int-or-auto` (also `auto`, -1);',
    ' * `float`; `json` (`json.loads`); `json-or-str` (`union_dict_and_str`: a `{…}` text is JSON); `config` (a JSON',
    ' * object validated as a vLLM config class); `text`: converted by upstream code the table does not model.',
    ' */',
    'export type EngineArgKind = \'flag\' | \'flag-or-str\' | \'str\' | \'int\' | \'human-int\' | \'human-int-or-auto\' | \'float\' | \'json\'',
    '  | \'json-or-str\' | \'config\' | \'text\';',
    '',
    '/** How vLLM\'s CLI types one argument. */',
    'export interface EngineArgType {',
    '  readonly kind: EngineArgKind;',
    '  /** `nargs="+"`: a list (of one element, as each `engine.args` value is one command-line word). */',
    '  readonly list?: boolean;',
    '  /** Wrapped in `optional_type`: the text `None` is None. */',
    '  readonly optional?: boolean;',
    '  /** The values argparse accepts, after conversion. */',
    '  readonly choices?: readonly (string | number)[];',
    '}',
    '',
    '/**',
    ' * The `engine_kwargs` Ray Serve LLM hands to vLLM: the fields of vLLM\'s FrontendArgs and AsyncEngineArgs; Ray',
    ' * refuses any other name with "Unknown engine argument" (ray: python/ray/llm/_internal/serve/engines/vllm/vllm_models.py,',
    ' * VLLMEngineConfig.from_llm_config), and passes the values to AsyncEngineArgs unparsed.',
    ' */',
    'export const RAY_SERVE_LLM_ENGINE_ARGS = {',
    '  /** The Ray release read (`ray[llm]` on PyPI). */',
    `  ray: '${ray}',`,
    '  /** The vLLM release that Ray release pins. */',
    `  vllm: '${vllm}',`,
    '  /**',
    '   * Each argument name, with the type vLLM\'s server parser (vllm/entrypoints/launchers/cli_args.py make_arg_parser)',
    '   * gives its flag; `text` for a name without a flag.',
    '   */',
    '  args: {',
    ...Object.entries(args).flatMap(([name, type]) => entry(name, type)),
    '  } as Readonly<Record<string, EngineArgType>>,',
    '} as const;',
    '',
  ].join('\n');
}

const text = render(readFields());
if (process.argv.includes('--check')) {
  if (!existsSync(target) || readFileSync(target, 'utf8') !== text) {
    fail(`${target} is stale: run \`node scripts/import-vllm-engine-args.mjs\``);
  }
  process.stdout.write('import-vllm-engine-args: engine-args.generated.ts is current\n');
} else {
  writeFileSync(target, text);
  process.stdout.write(`import-vllm-engine-args: ${target} written\n`);
}
