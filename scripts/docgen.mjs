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
/** Runs TypeDoc on one entry point into `dir`; returns its one Markdown page. */
function typedoc(entryPoint, name, dir, logLevel) {
  execFileSync(join(root, 'node_modules', '.bin', 'typedoc'), [
    '--plugin', 'typedoc-plugin-markdown',
    '--router', 'module',
    '--entryPoints', entryPoint,
    '--tsconfig', 'tsconfig.json',
    '--out', dir,
    '--readme', 'none',
    '--disableSources', // source links would carry commit hashes: not deterministic
    '--excludePrivate',
    '--hideGenerator',
    '--name', name,
    '--logLevel', logLevel,
  ], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  return readFileSync(join(dir, 'README.md'), 'utf8');
}

/**
 * The page of `kube-inference-constructs/pulumi`, to follow the main one in API.md: its declarations are
 * headed `pulumi.<Name>` and linked so (the main page has a LlamaStackWithProviders of its own). Types of
 * the main entry point it refers to are named, not linked (TypeDoc reports them: logged at error level only).
 */
function pulumiSection(page) {
  const names = [...page.matchAll(/^### (\w+)$/gm)].map((m) => m[1]);
  const renamed = new Set(names.map((n) => n.toLowerCase()));
  return page
    .replace(/^\*\*kube-inference-constructs\/pulumi\*\*\n\n\*\*\*\n\n/, '')
    .replace(/^### (\w+)$/gm, '### pulumi.$1')
    .replace(/\]\(#(\w+)\)/g, (link, anchor) => (renamed.has(anchor) ? `](#pulumi${anchor})` : link));
}

try {
  const main = typedoc('src/index.ts', 'kube-inference-constructs API', join(out, 'main'), 'Warn');
  const pulumi = pulumiSection(typedoc('src/pulumi/index.ts', 'kube-inference-constructs/pulumi', join(out, 'pulumi'), 'Error'));
  const generated = '<!-- Generated from the TypeScript source by `npx projen docgen`; do not edit by hand. -->\n\n'
    + `${main}\n***\n\n${pulumi}`;

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
