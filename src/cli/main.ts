#!/usr/bin/env node
import { COMMANDS } from './commands';
import { CliIo, processIo, UsageError } from './io';

const HELP = (): string => [
  'Usage: kube-inference <command> [options]',
  '',
  'Commands:',
  ...COMMANDS.map((c) => `  ${c.name.padEnd(14)} ${c.summary}`),
  '',
  'Run `kube-inference <command> --help` for the options of a command.',
  '',
].join('\n');

/** Runs the CLI with the given arguments; resolves to the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(HELP());
    return name === undefined ? 2 : 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr(`error: unknown command '${name}'\n\n${HELP()}`);
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

if (require.main === module) {
  void runCli(process.argv.slice(2), processIo()).then((code) => {
    process.exitCode = code;
  });
}
