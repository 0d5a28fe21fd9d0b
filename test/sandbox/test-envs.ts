/**
 * The test environments set up by scripts/test-setup/llama-stack-envs.mjs before jest runs (`npm test`):
 * a Python 3.12 virtual environment per llama-stack release with the real server, the wheels of real
 * out-of-tree providers from PyPI, and a virtual environment per tool (envs.json `tools`, e.g. ai-dynamo-vllm).
 * This module reads the index that script writes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SandboxSupport } from './host';

/** A virtual environment with one llama-stack release, as the set-up script left it. */
export interface LlamaStackEnv {
  /** The llama-stack release, e.g. `0.7.3`. */
  readonly version: string;
  /** The cache directory of this environment. */
  readonly dir: string;
  /** The virtual environment. Not relocatable: its scripts carry this absolute path. */
  readonly venv: string;
  /** The environment's Python 3.12. */
  readonly python: string;
  /** The `llama` CLI (`llama stack run <config>`). */
  readonly llama: string;
  /** The environment's site-packages (holds `llama_stack/distributions/<distro>/`). */
  readonly sitePackages: string;
  /** Name of the distributions' config files in this release: `run.yaml` (≤ 0.3) or `config.yaml` (≥ 0.4). */
  readonly configFileName: string;
  /** The starter distribution's own config, inside the installed package. */
  readonly starterConfig: string;
  /** Environment variables the server needs, as the upstream image sets them (e.g. `TIKTOKEN_CACHE_DIR`). */
  readonly env: Readonly<Record<string, string>>;
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

/** The environment of a llama-stack release, e.g. `llamaStackEnv('0.7.3')`. */
export function llamaStackEnv(version: string): Found<LlamaStackEnv> {
  return lookUp(`llama-stack ${version}`, (index) => index.llamaStack[version], (env) => [env.python, env.llama, env.starterConfig]);
}

/** The wheel directory of a real provider, e.g. `providerWheels('llama-stack-provider-lmeval')`. */
export function providerWheels(name: string): Found<ProviderWheels> {
  return lookUp(name, (index) => index.providerWheels[name], (w) => w.wheels.map((f) => path.join(w.wheelDir, f)));
}

/** The environment of a tool named in envs.json `tools`, e.g. `toolEnv('ai-dynamo-vllm')`. */
export function toolEnv(name: string): Found<ToolEnv> {
  return lookUp(`tool ${name}`, (index) => index.tools?.[name], (env) => [env.python]);
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

function lookUp<T>(what: string, pick: (index: Index) => T | undefined, files: (value: T) => string[]): Found<T> {
  const file = testEnvsIndexFile();
  let index: Index;
  try {
    index = JSON.parse(fs.readFileSync(file, 'utf8')) as Index;
  } catch (e) {
    return missing(what, `no test environment index at ${file} (${(e as Error).message}); run ${SETUP}`);
  }
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
