/**
 * The test environments set up by scripts/test-setup/llama-stack-envs.mjs before jest runs (`npm test`):
 * a Python 3.12 virtual environment per server release with the real server (llama-stack, or ogx, its
 * name from 0.8 on), the wheels of real out-of-tree providers from PyPI, and a virtual environment per
 * tool (envs.json `tools`, e.g. ai-dynamo-vllm). torch and its CUDA libraries are in shared layers
 * (envs.json `layers`) that each environment reaches through a `.pth` file. This module reads the index
 * that script writes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SandboxSupport } from './host';

/** The server projects: llama-stack up to 0.7, ogx (the same project renamed) from 0.8. */
export type ServerPackage = 'llama-stack' | 'ogx';

/**
 * A directory of packages several environments share (torch and its CUDA libraries): installed once per
 * set of pins, on each environment's `sys.path` through a `.pth` file in its site-packages naming
 * `sitePackages`. Not relocatable either: bind it at its own path.
 */
export interface SharedLayer {
  /** The layer's name in envs.json `layers`, e.g. `torch-2.13.0-cu13`. */
  readonly name: string;
  /** The cache directory of the layer (`<cache>/layers/<name>-<hash of its pins>`). */
  readonly dir: string;
  /** The directory on `sys.path`. */
  readonly sitePackages: string;
  /** Its `name==version` pins. */
  readonly pins: readonly string[];
}

/** A virtual environment with one server release (llama-stack or ogx), as the set-up script left it. */
export interface LlamaStackEnv {
  /** The server's project (distribution name): `llama-stack` (≤ 0.7) or `ogx` (≥ 0.8). */
  readonly package: ServerPackage;
  /** The release, e.g. `0.7.3`, `1.5.0`. */
  readonly version: string;
  /** The cache directory of this environment. */
  readonly dir: string;
  /** The virtual environment. Not relocatable: its scripts carry this absolute path. */
  readonly venv: string;
  /** The environment's Python 3.12. */
  readonly python: string;
  /** The server's console script, absolute: `<venv>/bin/llama` (`llama stack run <config>`) or `<venv>/bin/ogx` (`ogx run <config>`). */
  readonly cli: string;
  /** The environment's site-packages (holds `llama_stack/distributions/<distro>/` or `ogx/distributions/<distro>/`). */
  readonly sitePackages: string;
  /** Name of the distributions' config files in this release: `run.yaml` (≤ 0.3) or `config.yaml` (≥ 0.4). */
  readonly configFileName: string;
  /** The starter distribution's own config, inside the installed package. */
  readonly starterConfig: string;
  /** Environment variables the server needs, as the upstream image sets them (e.g. `TIKTOKEN_CACHE_DIR`). */
  readonly env: Readonly<Record<string, string>>;
  /** The shared layers on its `sys.path` (outside `dir`: a sandbox must bind them too). */
  readonly layers: readonly SharedLayer[];
  /** A copy of the lock file it was installed from. */
  readonly lock: string;
}

/** The wheels of a real provider and its whole dependency closure: a provider image's `/lls-provider/packages/`. */
export interface ProviderWheels {
  /** Distribution name, e.g. `llama-stack-provider-trustyai-fms`. */
  readonly name: string;
  readonly version: string;
  /** The llama-stack release its closure was resolved for (and that it works with). */
  readonly llamaStack: string;
  /** The cache directory of these wheels. */
  readonly dir: string;
  /** The directory holding the wheels. */
  readonly wheelDir: string;
  /** File names of the wheels in `wheelDir`, sorted. */
  readonly wheels: readonly string[];
  readonly lock: string;
}

/** A virtual environment with one tool (an envs.json `tools` entry) installed from its lock. */
export interface ToolEnv {
  /** The entry's name, e.g. `ai-dynamo-vllm`. */
  readonly name: string;
  /** The tool's release, e.g. `1.0.1`. */
  readonly version: string;
  /** The cache directory of this environment. */
  readonly dir: string;
  /** The virtual environment. Not relocatable: its scripts carry this absolute path. */
  readonly venv: string;
  /** The environment's Python 3.12. */
  readonly python: string;
  /** The shared layers on its `sys.path`. */
  readonly layers: readonly SharedLayer[];
  /** A copy of the lock file it was installed from. */
  readonly lock: string;
}

/** Something from the index, or why it is not there (`reason`: `<what>: <why>`). */
export type Found<T> =
  | { readonly value: T; readonly reason?: undefined }
  | { readonly value?: undefined; readonly reason: string; readonly what: string; readonly why: string };

interface Index {
  readonly llamaStack: Readonly<Record<string, LlamaStackEnv>>;
  readonly providerWheels: Readonly<Record<string, ProviderWheels>>;
  readonly tools?: Readonly<Record<string, ToolEnv>>;
  readonly skipped: Readonly<Record<string, string>>;
}

const SETUP = 'node scripts/test-setup/llama-stack-envs.mjs (npm test runs it before jest)';

/** The cache root of the set-up script: `$KIC_CACHE_DIR` or `${XDG_CACHE_HOME:-$HOME/.cache}/kube-inference-constructs`. */
export function testEnvsCacheDir(): string {
  if (process.env.KIC_CACHE_DIR) return path.resolve(process.env.KIC_CACHE_DIR);
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kube-inference-constructs');
}

/** The index file the set-up script writes. */
export function testEnvsIndexFile(): string {
  return path.join(testEnvsCacheDir(), 'test-envs.json');
}

/**
 * The environment of a server release, e.g. `llamaStackEnv('0.7.3')` (llama-stack) or
 * `llamaStackEnv('1.5.0')` (ogx): release numbers of the two projects do not overlap.
 */
export function llamaStackEnv(version: string): Found<LlamaStackEnv> {
  // Named as the set-up names it (`llama-stack 0.7.3`, `ogx 1.5.0`) once the index says which it is.
  const what = (index?: Index) => {
    const listed = index?.llamaStack[version]?.package ?? (index?.skipped?.[`ogx ${version}`] !== undefined ? 'ogx' : undefined);
    return `${listed ?? 'llama-stack/ogx'} ${version}`;
  };
  return lookUp(what, (index) => index.llamaStack[version],
    (env) => [env.python, env.cli, env.starterConfig, ...(env.layers ?? []).map((l) => l.sitePackages)]);
}

/** The wheel directory of a real provider, e.g. `providerWheels('llama-stack-provider-lmeval')`. */
export function providerWheels(name: string): Found<ProviderWheels> {
  return lookUp(name, (index) => index.providerWheels[name], (w) => w.wheels.map((f) => path.join(w.wheelDir, f)));
}

/** The environment of a tool named in envs.json `tools`, e.g. `toolEnv('ai-dynamo-vllm')`. */
export function toolEnv(name: string): Found<ToolEnv> {
  return lookUp(`tool ${name}`, (index) => index.tools?.[name], (env) => [env.python, ...(env.layers ?? []).map((l) => l.sitePackages)]);
}

/** For `describeWhen`: whether every environment named is there, and why not when some are missing. */
export function testEnvsSupport(...found: Found<unknown>[]): SandboxSupport {
  const whatByWhy = new Map<string, string[]>();
  for (const f of found) {
    if (f.reason !== undefined) whatByWhy.set(f.why, [...(whatByWhy.get(f.why) ?? []), f.what]);
  }
  if (whatByWhy.size === 0) return { ok: true };
  return { ok: false, reason: [...whatByWhy].map(([why, whats]) => `${whats.join(', ')}: ${why}`).join('; ') };
}

/** Looks something up in the index; `name` is its key in the index's `skipped` (a function: as the index names it). */
function lookUp<T>(name: string | ((index?: Index) => string), pick: (index: Index) => T | undefined, files: (value: T) => string[]): Found<T> {
  const file = testEnvsIndexFile();
  let index: Index;
  try {
    index = JSON.parse(fs.readFileSync(file, 'utf8')) as Index;
  } catch (e) {
    return missing(typeof name === 'string' ? name : name(), `no test environment index at ${file} (${(e as Error).message}); run ${SETUP}`);
  }
  const what = typeof name === 'string' ? name : name(index);
  const value = pick(index);
  if (value === undefined) {
    const skipped = index.skipped?.[what];
    return missing(what, skipped ? `not set up: ${skipped}` : `${file} does not list it; run ${SETUP}`);
  }
  const gone = files(value).find((f) => !fs.existsSync(f));
  if (gone) return missing(what, `${gone} listed in ${file} does not exist; run ${SETUP}`);
  return { value };
}

function missing(what: string, why: string): Found<never> {
  return { reason: `${what}: ${why}`, what, why };
}
