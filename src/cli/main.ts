#!/usr/bin/env node
import { COMMANDS } from './commands';
import { CliIo, processIo, terminalSafe, UsageError } from './io';
import { packageVersion } from '../run-config/merge-image';
import { closest } from '../suggest';

const NAME_WIDTH = Math.max(...COMMANDS.map((c) => c.name.length));

const HELP = (): string => [
  'Usage: kube-inference <command> [options]',
  '',
  'Commands:',
  ...COMMANDS.map((c) => `  ${c.name.padEnd(NAME_WIDTH)} ${c.summary}`),
  '',
  'Options:',
  '  -h, --help     print this help (`kube-inference help <command>` or `<command> --help`: a command\'s options)',
  '  -V, --version  print the version of kube-inference-constructs',
  '',
].join('\n');

/**
 * Runs the CLI with the given arguments; resolves to the exit code. Never throws. What it writes to
 * standard error passes {@link terminalSafe}: messages carry text from outside.
 */
export async function runCli(argv: string[], streams: CliIo): Promise<number> {
  const io: CliIo = { ...streams, stderr: (text) => streams.stderr(terminalSafe(text)) };
  const [first, ...afterFirst] = argv;
  if (first === '--version' || first === '-V') {
    io.stdout(`${packageVersion()}\n`);
    return 0;
  }
  // `help <command>` is `<command> --help`.
  const [name, ...rest] = first === 'help' && afterFirst.length > 0 ? [afterFirst[0], '--help'] : argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(HELP());
    return name === undefined ? 2 : 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const meant = closest(name, name.startsWith('-') ? ['--help', '--version'] : COMMANDS.map((c) => c.name));
    io.stderr(`error: unknown ${name.startsWith('-') ? 'option' : 'command'} '${name}'${meant ? `; did you mean '${meant}'?` : ''}\n\n${HELP()}`);
    return 2;
  }
  const command = entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`error: ${e.message}\n\n${command.usage}`);
      return 2;
    }
    // Anything else is a bug in this tool, not in the user's input: say so plainly.
    const detail = e instanceof Error ? e.stack ?? e.message : String(e);
    io.stderr(`error: kube-inference ${name} failed unexpectedly; please report this.\n${detail}\n`);
    return 70;
  }
}

/** Runs the command line of this process (the package's `bin`, launcher.ts, calls it). */
export function main(): void {
  void runCli(process.argv.slice(2), processIo()).then((code) => {
    process.exitCode = code;
  });
}

if (require.main === module) main();
