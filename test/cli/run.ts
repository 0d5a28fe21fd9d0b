import { CliIo } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';

/** The outcome of one in-process CLI run. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `kube-inference <args>` in-process with captured streams. */
export async function cli(args: string[], options: { stdin?: string; cwd?: string } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    readStdin: async () => options.stdin ?? '',
    stdout: (t) => { stdout += t; },
    stderr: (t) => { stderr += t; },
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
