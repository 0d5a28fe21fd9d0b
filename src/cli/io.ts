import { fstatSync, writeSync } from 'fs';
import { parseArgs, ParseArgsConfig } from 'util';
import { readTextCapped } from '../io';
import { BIDI_CONTROLS, unicodeEscape } from '../io/scalars';
import { closest } from '../suggest';

/** What a CLI command may touch of the outside world; tests pass their own. */
export interface CliIo {
  /**
   * Reads all of standard input, up to `maxBytes`.
   * @throws InputTooLargeError (from io/files) beyond `maxBytes`, having read no further
   */
  readonly readStdin: (maxBytes: number) => Promise<string>;
  /** Writes to standard output. */
  readonly stdout: (text: string) => void;
  /** Writes to standard error. */
  readonly stderr: (text: string) => void;
  /** Directory relative paths are resolved against. */
  readonly cwd: string;
}

/**
 * Controls a terminal obeys or that change what it shows: C0 controls but newline and tab (ESC starts
 * escape sequences that clear the screen, set the title or write the clipboard; CR overwrites a line),
 * DEL, C1 controls (CSI, OSC), and the bidirectional controls, which reorder the text shown.
 */
const TERMINAL_CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F${BIDI_CONTROLS}]`, 'g');

/**
 * Text for a terminal, with {@link TERMINAL_CONTROLS} written as `\uXXXX`: what came from outside (a
 * server's message, a kubeconfig's context name, a pod's termination message, a document's kind) is
 * shown, never obeyed. The escape is JSON's too, so JSON output stays valid JSON.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROLS, unicodeEscape);
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

/** Exit code of a program stopped by SIGPIPE (128 + 13), as `cat` reports when its reader goes away. */
export const EXIT_BROKEN_PIPE = 141;

/**
 * The real process streams. A reader that stops early (`render | head -c 10`) ends the run quietly
 * with {@link EXIT_BROKEN_PIPE}; any other failure to write standard output (a full disk behind
 * `> file`) is reported in one line with exit code 1, never with a stack trace.
 */
export function processIo(): CliIo {
  process.stdout.on('error', stdoutFailed);
  process.stderr.on('error', () => undefined);
  // Node writes to a file with one write(2) and ignores a short count, so on a full disk it would
  // drop the rest and exit 0: a file gets every byte written here, or the run fails.
  const toFile = isRegularFile(1);
  return {
    // The capped reader merge-config uses for `--base-config /dev/stdin`: pipes, files and sockets alike.
    readStdin: async (maxBytes) => readTextCapped('/dev/stdin', maxBytes),
    stdout: (text) => (toFile ? writeWhole(1, text) : process.stdout.write(text)),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
  };
}

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** Writes all of `text` to `fd`, however many write(2) calls it takes. */
function writeWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
  } catch (e) {
    stdoutFailed(e as NodeJS.ErrnoException);
  }
}

function stdoutFailed(e: NodeJS.ErrnoException): never {
  if (e.code !== 'EPIPE') process.stderr.write(`error: cannot write standard output: ${e.code === 'ENOSPC' ? 'no space left on the device' : e.message}\n`);
  process.exit(e.code === 'EPIPE' ? EXIT_BROKEN_PIPE : 1);
}

/**
 * Parses a command's arguments with `util.parseArgs`; bad usage becomes a {@link UsageError}, which
 * for a mistyped option names the option meant.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    const unknown = (e as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '(-[^']*)'/.exec((e as Error).message) : null;
    if (unknown) {
      const meant = closest(unknown[1].split('=')[0], Object.keys(config.options ?? {}).map((o) => `--${o}`));
      throw new UsageError(`unknown option '${unknown[1]}'${meant ? `; did you mean '${meant}'?` : ''}`);
    }
    throw new UsageError((e as Error).message);
  }
}
