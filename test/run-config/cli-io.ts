import { CliIo } from '../../src/cli/io';

/** A CliIo that records what a command prints. */
export interface RecordingIo extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

export function recordingIo(cwd: string): RecordingIo {
  let out = '';
  let err = '';
  return {
    readStdin: async () => '',
    stdout: (text) => { out += text; },
    stderr: (text) => { err += text; },
    cwd,
    out: () => out,
    err: () => err,
  };
}
