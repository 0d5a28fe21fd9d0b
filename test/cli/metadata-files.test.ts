/**
 * A document's `metadataFile` is read only inside the document's directory, also when the path changes
 * under the reader: a directory swapped for a symlink between the check of the path and the open of the
 * file (the race is made certain here by swapping inside the check itself). test/cli/render.test.ts runs
 * the other refusals through the CLI.
 */
import * as fs from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { MetadataFiles } from '../../src/cli/metadata-files';
import { ProblemCollector } from '../../src/errors';
import { OutsideDirectoryError, readRegularFileCapped } from '../../src/io/files';

/** Called after each realpathSync of the code under test, with its path: where the test makes its swap. */
let afterRealpath: (path: string) => void = () => {};
jest.mock('fs', () => {
  const actual = jest.requireActual('fs');
  const realpathSync = (p: any, o?: any) => {
    const real = actual.realpathSync(p, o);
    afterRealpath(String(p));
    return real;
  };
  return { ...actual, realpathSync: Object.assign(realpathSync, { native: actual.realpathSync.native }) };
});

describe('a metadataFile whose directory is swapped for a symlink', () => {
  let root: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'kic-metadata-race-')));
    fs.mkdirSync(join(root, 'doc', 'sub'), { recursive: true });
    fs.writeFileSync(join(root, 'doc', 'sub', 'p.yaml'), 'inside: 1\n');
    fs.mkdirSync(join(root, 'secret'));
    fs.writeFileSync(join(root, 'secret', 'p.yaml'), 'TOPSECRET: 1\n');
  });
  afterEach(() => {
    afterRealpath = () => {};
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Replaces doc/sub by a symlink to secret/. */
  const swap = () => {
    fs.renameSync(join(root, 'doc', 'sub'), join(root, 'doc', 'sub.old'));
    fs.symlinkSync(join(root, 'secret'), join(root, 'doc', 'sub'));
  };

  test('after the path was checked, is refused as outside, never read', () => {
    let swapped = false;
    afterRealpath = (path) => {
      // The file's path has been resolved and will be checked: the swap comes now, before the open.
      if (!swapped && path.endsWith('p.yaml')) {
        swapped = true;
        swap();
      }
    };
    const problems = new ProblemCollector();
    const read = new MetadataFiles(join(root, 'doc')).read({ inference: [{ providerId: 'p', image: 'quay.io/a/p:1', metadataFile: 'sub/p.yaml' }] },
      problems, (f) => f);
    expect(swapped).toBe(true);
    expect(JSON.stringify(read)).not.toContain('TOPSECRET');
    expect(problems.problems).toEqual([{
      field: 'externalProviders.inference[0].metadataFile',
      message: `'sub/p.yaml' is outside the document's directory ${join(root, 'doc')}: a document may only name files inside its own directory `
        + '(the working directory for standard input). Copy the file next to the document.',
    }]);
  });

  test('the reader checks where the open file is, not where its path pointed before', () => {
    swap();
    expect(() => readRegularFileCapped(join(root, 'doc', 'sub', 'p.yaml'), 1024, join(root, 'doc'))).toThrow(OutsideDirectoryError);
    expect(readRegularFileCapped(join(root, 'doc', 'sub.old', 'p.yaml'), 1024, join(root, 'doc'))).toBe('inside: 1\n');
  });
});
