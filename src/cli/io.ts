import { parseArgs, ParseArgsConfig } from 'util';

/** What a CLI command may touch of the outside world; tests pass their own. */
export interface CliIo {
  /** Reads all of standard input. */
  readonly readStdin: () => Promise<string>;
  /** Writes to standard output. */
  readonly stdout: (text: string) => void;
  /** Writes to standard error. */
  readonly stderr: (text: string) => void;
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
}

/** A subcommand of `kube-inference`: takes its own arguments and returns the exit code. */
export interface Command {
  /** The subcommand's name, e.g. `render`. */
  readonly name: string;
  /** Full usage text for `kube-inference <name> --help`. */
  readonly usage: string;
  /** Runs the command; resolves to the process exit code. */
  readonly run: (args: string[], io: CliIo) => Promise<number>;
}

/** Bad command-line usage (unknown flag, missing value): reported with the usage text, exit code 2. */
export class UsageError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The real process streams. */
export function processIo(): CliIo {
  return {
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) {
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    },
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
  };
}

/** Parses a command's arguments with `util.parseArgs`; bad usage becomes a {@link UsageError}. */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
