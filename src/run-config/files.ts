import * as fs from 'node:fs';
import * as path from 'node:path';

/** An input larger than the limit of its kind: reported, not read further. */
export class InputTooLargeError extends Error {
  public readonly path: string;
  public readonly limit: number;

  public constructor(file: string, limit: number) {
    super(`${file} is larger than ${limit} bytes`);
    this.name = 'InputTooLargeError';
    this.path = file;
    this.limit = limit;
  }
}

/**
 * Reads a file as UTF-8 until its end, in chunks, whatever its kind: a regular file, or a pipe, FIFO,
 * socket or `/dev/stdin`, whose size the file system reports as 0. Stops as soon as more than
 * `maxBytes` have come, so a huge input is never loaded whole.
 *
 * @throws InputTooLargeError beyond `maxBytes`; the file system's error as is otherwise
 */
export function readTextCapped(file: string, maxBytes: number): string {
  const { fd, owned } = openForReading(file);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, maxBytes + 1 - total));
      const n = readSome(fd, chunk);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new InputTooLargeError(file, maxBytes);
    }
    // Decoded once whole: a character split between two chunks stays one character.
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    if (owned) fs.closeSync(fd);
  }
}

/**
 * Opens `file`; `/dev/stdin` that cannot be opened because standard input is a socket (as Node's
 * child processes get, ENXIO) is read from descriptor 0 itself.
 */
function openForReading(file: string): { fd: number; owned: boolean } {
  try {
    return { fd: fs.openSync(file, 'r'), owned: true };
  } catch (e) {
    if (file === '/dev/stdin' && (e as NodeJS.ErrnoException).code === 'ENXIO') return { fd: 0, owned: false };
    throw e;
  }
}

/** One read; on a non-blocking descriptor with nothing to read yet (EAGAIN), waits a little and tries again. */
function readSome(fd: number, buffer: Buffer): number {
  for (;;) {
    try {
      return fs.readSync(fd, buffer, 0, buffer.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** A file to write. */
export interface OutputFile {
  /** File name within the output directory. */
  readonly name: string;
  /** Content. */
  readonly text: string;
}

/**
 * Writes files so that a reader never sees a half-written one: each goes to a temporary file in the
 * same directory, is flushed to disk, and only when all are written are they renamed into place
 * (a rename within a directory is atomic). On failure the temporary files are removed.
 */
export function writeFilesAtomically(dir: string, files: readonly OutputFile[]): void {
  fs.mkdirSync(dir, { recursive: true });
  const staged: Array<{ temp: string; final: string }> = [];
  try {
    for (const file of files) {
      // In a container every run is PID 1, so a name with the pid alone may be left over from a crash: overwrite it.
      const temp = path.join(dir, `.${file.name}.${process.pid}.tmp`);
      staged.push({ temp, final: path.join(dir, file.name) });
      const fd = fs.openSync(temp, 'w', 0o644);
      try {
        fs.writeFileSync(fd, file.text, 'utf8');
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
    for (const { temp, final } of staged) {
      fs.renameSync(temp, final);
    }
  } catch (e) {
    for (const { temp } of staged) {
      fs.rmSync(temp, { force: true });
    }
    throw e;
  }
  syncDirectory(dir);
}

/** Flushes the directory entry of the renames; some file systems do not support it, which is harmless. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Not supported here (e.g. some network or overlay file systems): the renames still happened.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** `ENOENT` and friends in words. */
export function describeFsError(e: unknown): string {
  if (e instanceof InputTooLargeError) {
    return `${e.path} is larger than the limit of ${e.limit} bytes (${e.limit / 1024} KiB); it was not read further.`;
  }
  const err = e as NodeJS.ErrnoException;
  const what = err.path ?? 'The path';
  switch (err.code) {
    case 'ENOENT': return `${what} does not exist.`;
    case 'EACCES':
    case 'EPERM': return `${what}: permission denied for this user.`;
    case 'EROFS': return `${what} is on a read-only file system.`;
    case 'EISDIR': return `${what} is a directory, not a file.`;
    case 'ENOTDIR': return `${what} is not a directory.`;
    case 'ENOSPC': return `No space left on the device holding ${what}.`;
    default: return err.message ?? String(e);
  }
}
