#!/usr/bin/env node
// Generates API.md from the TypeScript source with TypeDoc (one Markdown page).
//   node scripts/docgen.mjs          write API.md
//   node scripts/docgen.mjs --check  fail, showing the difference, when API.md is stale
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'API.md');
const out = mkdtempSync(join(tmpdir(), 'docgen-'));
try {
  execFileSync(join(root, 'node_modules', '.bin', 'typedoc'), [
    '--plugin', 'typedoc-plugin-markdown',
    '--router', 'module',
    '--entryPoints', 'src/index.ts',
    '--tsconfig', 'tsconfig.json',
    '--out', out,
    '--readme', 'none',
    '--disableSources', // source links would carry commit hashes: not deterministic
    '--excludePrivate',
    '--hideGenerator',
    '--name', 'kube-inference-constructs API',
    '--logLevel', 'Warn',
  ], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  const generated = '<!-- Generated from the TypeScript source by `npx projen docgen`; do not edit by hand. -->\n\n'
    + readFileSync(join(out, 'README.md'), 'utf8');

  if (!process.argv.includes('--check')) {
    writeFileSync(target, generated);
    process.stdout.write('API.md written\n');
  } else {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== generated) {
      const fresh = join(out, 'API.md');
      writeFileSync(fresh, generated);
      spawnSync('git', ['--no-pager', 'diff', '--no-index', '--stat', '--', target, fresh], { stdio: 'inherit' });
      spawnSync('git', ['--no-pager', 'diff', '--no-index', '--', target, fresh], { stdio: 'inherit' });
      process.stderr.write('\nAPI.md is stale: run `npx projen docgen` and commit the result.\n');
      process.exitCode = 1;
    } else {
      process.stdout.write('API.md is current\n');
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
