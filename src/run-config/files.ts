import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Reads a file as UTF-8, at most one byte past `maxBytes`: a huge file is never loaded whole, and the
 * parser's size check then reports it. Throws the file system's error as is.
 */
export function readTextCapped(file: string, maxBytes: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(fs.fstatSync(fd).size, maxBytes) + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length;) {
      n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      length += n;
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    fs.closeSync(fd);
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
