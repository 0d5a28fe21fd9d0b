// Engine-specific parameters: the unified options mapped onto each engine's flags.
import { EngineType } from './types';

/**
 * The flag (without dashes) that sets the context length, per engine. TensorRT-LLM's PyTorch
 * backend takes it at runtime: Dynamo's worker passes `--max-seq-len` to the LLM API
 * (ai-dynamo: dynamo/trtllm/backend_args.py). llamacpp runs on KAITO, whose llama.cpp template runs
 * the LocalAI runner (`huggingface://…` model URL, `--address`): its flag is LocalAI's
 * `--context-size` (mudler/LocalAI core/cli/run.go, `RunCMD.ContextSize`), not llama-server's `--ctx-size`.
 */
export const CONTEXT_LENGTH_FLAG: Readonly<Record<EngineType, string | undefined>> = {
  vllm: 'max-model-len',
  sglang: 'context-length',
  trtllm: 'max-seq-len',
  llamacpp: 'context-size',
};

/** Engines that accept `--trust-remote-code` at runtime. */
const TRUST_REMOTE_CODE_ENGINES: readonly EngineType[] = ['vllm', 'sglang'];

/** The options of `engine` that become flags. */
export interface EngineFlagOptions {
  /** `engine.contextLength`. */
  readonly contextLength?: number;
  /** `engine.trustRemoteCode`. */
  readonly trustRemoteCode?: boolean;
  /** `engine.args`. */
  readonly args?: Readonly<Record<string, string>>;
}

/**
 * The command-line flags for the unified engine options: the context length and trust-remote-code
 * first, then `engine.args` in sorted key order. Options an engine cannot take at runtime are left
 * out; {@link engineOptionWarnings} says so.
 */
export function engineFlags(engine: EngineType, options: EngineFlagOptions): string[] {
  const flags: string[] = [];
  const contextFlag = CONTEXT_LENGTH_FLAG[engine];
  if (options.contextLength !== undefined && contextFlag) {
    flags.push(`--${contextFlag}`, String(options.contextLength));
  }
  if (options.trustRemoteCode && TRUST_REMOTE_CODE_ENGINES.includes(engine)) {
    flags.push('--trust-remote-code');
  }
  flags.push(...argsToFlags(options.args ?? {}));
  return flags;
}

/** The warnings for options an engine ignores. */
export function engineOptionWarnings(engine: EngineType, options: EngineFlagOptions): string[] {
  const warnings: string[] = [];
  if (options.trustRemoteCode && !TRUST_REMOTE_CODE_ENGINES.includes(engine)) {
    warnings.push(engine === 'trtllm'
      ? 'engine.trustRemoteCode is ignored for trtllm: remote code is resolved when the TensorRT-LLM engine is built'
      : 'engine.trustRemoteCode is ignored for llamacpp: GGUF models carry no code');
  }
  return warnings;
}

/**
 * `engine.args` as flags, in sorted key order so the output is the same for the same input:
 * `--key value`, or a bare `--key` for an empty value.
 */
export function argsToFlags(args: Readonly<Record<string, string>>): string[] {
  return Object.keys(args).sort().flatMap((key) => args[key] === '' ? [`--${key}`] : [`--${key}`, args[key]]);
}

/**
 * Flags the unified spec already sets for an engine, mapped to the field that sets them, so an
 * `engine.args` entry for the same flag is caught instead of being passed twice.
 */
export function flagsOwnedBySpec(engine: EngineType): Record<string, string> {
  const owned: Record<string, string> = {};
  const contextFlag = CONTEXT_LENGTH_FLAG[engine];
  if (contextFlag) owned[contextFlag] = 'engine.contextLength';
  if (TRUST_REMOTE_CODE_ENGINES.includes(engine)) owned['trust-remote-code'] = 'engine.trustRemoteCode';
  return owned;
}

/**
 * An `engine.args` value as a typed value for configuration files (KAITO's `inference_config.yaml`,
 * Ray Serve `engine_kwargs`), where the engine does not parse strings: an empty value is a set flag
 * (`true`), `true`/`false` are booleans, decimal numbers are numbers, anything else stays a string.
 */
export function typedArgValue(value: string): string | number | boolean {
  if (value === '' || value === 'true') return true;
  if (value === 'false') return false;
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(value)) return Number(value);
  return value;
}
