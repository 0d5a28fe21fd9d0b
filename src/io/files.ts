import { randomBytes } from 'node:crypto';
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
    return readCapped(fd, file, maxBytes);
  } finally {
    if (owned) fs.closeSync(fd);
  }
}

/** Reads `fd` to its end in chunks, stopping as soon as more than `maxBytes` have come. */
function readCapped(fd: number, file: string, maxBytes: number): string {
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
 * Writes files so that a reader never sees a half-written one, and all of them or none: every target
 * is checked first (a directory or other non-file where a file must go fails before anything is
 * written), then each file goes to a temporary file in the same directory, created exclusively
 * (`O_EXCL`: never an existing file or a symlink planted there), is flushed to disk, and only when all
 * are written are they renamed into place (a rename within a directory is atomic). On failure the
 * temporary files are removed. Errors carry the path they concern (`describeFsError` names it).
 */
export function writeFilesAtomically(dir: string, files: readonly OutputFile[]): void {
  makeDirectory(dir);
  for (const file of files) checkTarget(path.join(dir, file.name));
  const staged: Array<{ temp: string; final: string }> = [];
  try {
    for (const file of files) {
      const { temp, fd } = createTemporary(dir, file.name);
      staged.push({ temp, final: path.join(dir, file.name) });
      try {
        fs.writeFileSync(fd, file.text, 'utf8');
        fs.fsyncSync(fd);
      } catch (e) {
        throw withPath(e, dir);
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

/**
 * `mkdir -p`, one component at a time. Node's own recursive mkdir never returns for a path under
 * /proc (each attempt fails with ENOENT and it tries the parent again), so it is not used.
 */
function makeDirectory(dir: string): void {
  const absolute = path.resolve(dir);
  const parts = absolute.split(path.sep).filter((p) => p !== '');
  let current = path.parse(absolute).root;
  for (const part of parts) {
    current = path.join(current, part);
    try {
      fs.mkdirSync(current);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (!fs.statSync(current).isDirectory()) throw fsError('ENOTDIR', current);
    }
  }
}

/**
 * What is at `target` itself (a symlink is not followed), or undefined when nothing is.
 * @throws the file system's error for anything but a missing path
 */
export function entryAt(target: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A target path that exists must be a regular file (or a symlink, which the rename replaces). */
function checkTarget(target: string): void {
  const stat = entryAt(target);
  if (stat && !stat.isFile() && !stat.isSymbolicLink()) throw new NotARegularFileError(target, fileKind(stat), 'write');
}

/** A new temporary file next to `name`, opened for writing; never one that existed before. */
function createTemporary(dir: string, name: string): { temp: string; fd: number } {
  for (let attempt = 0; ; attempt++) {
    const temp = path.join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      // 'wx' is O_CREAT | O_EXCL: it fails on any existing name, a symlink included, so it never follows one.
      return { temp, fd: fs.openSync(temp, 'wx', 0o644) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw e;
    }
  }
}

/** A path that is not a regular file where one is needed: a directory, a FIFO, a device or a socket. */
export class NotARegularFileError extends Error {
  public readonly path: string;
  /** In words: `a directory`, `a FIFO (named pipe)`, … */
  public readonly kind: string;
  /** Whether the file was to be read or written. */
  public readonly action: 'read' | 'write';

  public constructor(file: string, kind: string, action: 'read' | 'write') {
    super(`${file} is ${kind}, not a regular file`);
    this.name = 'NotARegularFileError';
    this.path = file;
    this.kind = kind;
    this.action = action;
  }
}

/** What a non-regular file is, in words. */
export function fileKind(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** A file that, once opened, is not inside the directory it had to be in (a symlink, or a swap of a directory for one). */
export class OutsideDirectoryError extends Error {
  public readonly path: string;

  public constructor(file: string, public readonly directory: string) {
    super(`${file} is outside ${directory}`);
    this.name = 'OutsideDirectoryError';
    this.path = file;
  }
}

/**
 * Reads a regular file as UTF-8, at most `maxBytes`. Anything else is refused without waiting on it:
 * the file is opened non-blocking (opening a FIFO would otherwise wait for a writer) and checked on
 * the open descriptor, so it cannot be swapped between the check and the read.
 *
 * With `within` (a real path: no symlinks in it), the file opened must be inside that directory: where it
 * is is read from the open descriptor, so that a directory of the path swapped for a symlink between a
 * caller's check and the open cannot lead the read out.
 *
 * @throws NotARegularFileError for a directory, FIFO, device or socket; InputTooLargeError beyond
 *   `maxBytes`; OutsideDirectoryError for a file outside `within`
 */
export function readRegularFileCapped(file: string, maxBytes: number, within?: string): string {
  // eslint-disable-next-line no-bitwise -- open(2) flags are a bit set
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  try {
    if (within !== undefined && !isWithin(within, openedPath(fd, file))) throw new OutsideDirectoryError(file, within);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new NotARegularFileError(file, fileKind(stat), 'read');
    return readCapped(fd, file, maxBytes);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The real path of the file open as `fd`: as the kernel resolved it at the open (Linux's /proc/self/fd);
 * without procfs, `file` resolved again, which must still be the same file.
 */
function openedPath(fd: number, file: string): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    const again = fs.realpathSync(file);
    const [opened, found] = [fs.fstatSync(fd), fs.statSync(again)];
    if (opened.dev !== found.dev || opened.ino !== found.ino) throw fsError('ESTALE', file);
    return again;
  }
}

/** True when `file` is `dir` or below it. */
export function isWithin(dir: string, file: string): boolean {
  const inside = path.relative(dir, file);
  return inside !== '..' && !inside.startsWith(`..${path.sep}`) && !path.isAbsolute(inside);
}

function withPath(e: unknown, p: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err === 'object' && err.path === undefined) err.path = p;
  return e;
}

function fsError(code: string, p: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: ${p}`);
  err.code = code;
  err.path = p;
  return err;
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

/** `ENOENT` and friends in words; `readFix` ends what is said of a file to read that is not a regular file (none: nothing). */
export function describeFsError(e: unknown, readFix = 'give a file, or \'-\' to read standard input'): string {
  if (e instanceof InputTooLargeError) {
    return `${e.path} is larger than the limit of ${e.limit} bytes (${e.limit / 1024} KiB); it was not read further.`;
  }
  if (e instanceof NotARegularFileError) {
    return e.action === 'read'
      ? `${e.path} is ${e.kind}, not a regular file${readFix ? `: ${readFix}` : ''}.`
      : `${e.path} is ${e.kind}, where a file must be written: move it away or choose another output directory. Nothing was written.`;
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
