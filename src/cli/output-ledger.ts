import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeFsError, entryAt, readRegularFileCapped } from '../io';

/**
 * The file in which `render -o DIR` records the files it wrote into DIR, so that the next run removes
 * those it no longer writes (a deleted document's file disappears, and a GitOps controller that prunes —
 * Argo CD, Flux — deletes its objects) and never touches a file it did not write. It has no `.yaml` or
 * `.json` extension, so no directory-sourced tool (Argo CD, Flux's kustomize generator, `kubectl apply -f`)
 * reads it as a manifest; it is committed with the manifests.
 */
export const LEDGER_FILE = '.kube-inference-render';

const LEDGER_HEADER = [
  '# Written by `kube-inference render -o`: the files it wrote into this directory, one per line.',
  '# The next render into this directory removes those it no longer writes, and no other file.',
  '# Commit it with the manifests.',
];

/** A ledger of at most this many bytes is read (some 100,000 file names). */
const MAX_LEDGER_BYTES = 4 * 1024 * 1024;

/** A name `render -o` writes: `[<namespace>.]<name>[.<kind>].k8s.yaml`, never a path or a hidden file. */
export function isRenderedFileName(name: string): boolean {
  return name.endsWith('.k8s.yaml') && !name.startsWith('.') && !/[/\\\0\n\r]/.test(name);
}

/** The ledger's text for the files written now, sorted: the same set gives the same bytes. */
export function ledgerText(names: readonly string[]): string {
  return `${[...LEDGER_HEADER, ...[...names].sort()].join('\n')}\n`;
}

/**
 * The files the previous render recorded in `dir`: none when there is no ledger (a first run, or a
 * directory a render never wrote). A ledger that is not one (edited into something else, or a
 * directory) is an error naming it: pruning from it could remove a file render never wrote.
 */
export function readLedger(dir: string): { names: string[] } | { error: string } {
  const file = path.join(dir, LEDGER_FILE);
  let text: string;
  try {
    text = readRegularFileCapped(file, MAX_LEDGER_BYTES);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return { names: [] };
    return { error: `cannot read ${file}, the list of files an earlier render wrote there: ${describeFsError(e)}` };
  }
  const names: string[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line === '' || line.startsWith('#')) continue;
    if (!isRenderedFileName(line)) {
      return {
        error: `${file} line ${index + 1}: ${JSON.stringify(line.slice(0, 200))} is not a file name render writes (<name>.k8s.yaml, no '/'); `
          + 'the file lists what an earlier render wrote into the directory and is rewritten by each run: '
          + 'restore it from version control, or delete it (files of documents removed since are then left in place).',
      };
    }
    names.push(line);
  }
  return { names };
}

/**
 * Removes from `dir` the files the previous render wrote (`previous`) that this one did not
 * (`written`). A name that is now a directory or another non-file was not written by render and is
 * left, with a warning; one already gone is fine. Returns the warnings.
 *
 * @throws the file system's error (with its path) when a file cannot be removed
 */
export function removeStaleFiles(dir: string, previous: readonly string[], written: readonly string[]): string[] {
  const current = new Set(written);
  const warnings: string[] = [];
  for (const name of [...new Set(previous)].sort()) {
    if (current.has(name)) continue;
    const target = path.join(dir, name);
    const stat = entryAt(target);
    if (stat === undefined) continue;
    if (!stat.isFile() && !stat.isSymbolicLink()) {
      warnings.push(`${target} was written by an earlier render and is no longer rendered, but it is not a file now: left in place.`);
      continue;
    }
    // unlink removes a symlink itself, never what it points to.
    fs.unlinkSync(target);
  }
  return warnings;
}
