#!/usr/bin/env node
// Bundles the CEL library (@marcbachmann/cel-js, published as an ES module only) into one CommonJS
// file, src/schema/vendor/cel-js.cjs, which this CommonJS library loads with a plain require(). So
// every consumer can load it: Jest's CommonJS runtime with the default ts-jest set-up of `cdk8s init`
// cannot require() an ES module, whatever the Node.js release. With --check, fails when the committed
// file is not what this script would write (a stale bundle after an upgrade of the package).
//
//   node scripts/vendor-cel.mjs          rewrite src/schema/vendor/cel-js.cjs
//   node scripts/vendor-cel.mjs --check  exit 1 when it is stale
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = join(root, 'node_modules', '@marcbachmann', 'cel-js');
const target = join(root, 'src', 'schema', 'vendor', 'cel-js.cjs');

const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const license = readFileSync(join(pkgDir, 'LICENSE'), 'utf8').trim();
const banner = [
  `// ${pkg.name} ${pkg.version} (${pkg.homepage}), bundled into CommonJS by scripts/vendor-cel.mjs: do not edit.`,
  `// Its licence (${pkg.license}):`,
  ...license.split('\n').map((line) => `//   ${line}`.trimEnd()),
].join('\n');

const built = buildSync({
  entryPoints: [join(pkgDir, 'lib', 'index.js')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  legalComments: 'inline',
  banner: { js: banner },
  write: false,
  logLevel: 'silent',
});
const text = built.outputFiles[0].text;

if (process.argv.includes('--check')) {
  const committed = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (committed !== text) {
    process.stderr.write(`vendor-cel: ${target} is stale: run \`npx projen vendor-cel\` and commit it\n`);
    process.exit(1);
  }
  process.stdout.write(`vendor-cel: src/schema/vendor/cel-js.cjs is current (${pkg.name} ${pkg.version})\n`);
} else {
  writeFileSync(target, text);
  process.stdout.write(`vendor-cel: wrote src/schema/vendor/cel-js.cjs (${pkg.name} ${pkg.version}, ${text.length} bytes)\n`);
}
