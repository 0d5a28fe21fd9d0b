#!/usr/bin/env node
// Bundles the compiled CLI (lib/cli/main.js and what it imports: this library's modules, cdk8s,
// constructs, yaml) into one CommonJS file, lib/cli/kube-inference.bundle.cjs, which the package's `bin`,
// lib/cli/kube-inference.cjs (the launcher, src/cli/launcher.ts), loads with V8's code cache. Every
// `kube-inference` run starts by loading its modules, and loading ~250 small files (module resolution,
// two copies of yaml: cdk8s bundles its own) cost more than the rendering itself; one file is read and
// compiled once. The code is not minified, so a reported stack trace stays readable.
//
// Left out, and loaded from the package's node_modules when a command needs them: ajv, re2js and
// kubernetes-models (`validate` only), the CommonJS build of the CEL library (CEL selection rules
// only). The init scripts and vendored CRDs are read from their directories in lib/ and crds/ as
// before: `__dirname` in each bundled module of lib/ names the module's own directory.
//
// The licences of the bundled packages are written beside it, to kube-inference.cjs.LICENSES.txt.
//
// Usage: node scripts/bundle-cli.mjs   (after tsc; the compile task runs it)
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
const outDir = join(lib, 'cli');
const outFile = join(outDir, 'kube-inference.bundle.cjs');
const binFile = join(outDir, 'kube-inference.cjs');

/** A path from the bundle's directory, as a require() in it must name it. */
const fromBundle = (file) => {
  const rel = relative(outDir, file).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
};

const keepModuleDirectories = {
  name: 'keep-module-directories',
  setup(b) {
    // The CEL library's CommonJS build is loaded from lib/schema/vendor/ when a rule is evaluated.
    b.onResolve({ filter: /\/vendor\/cel-js\.cjs$/ }, (args) => ({ path: fromBundle(resolve(args.resolveDir, args.path)), external: true }));
    // `__dirname` of a module of lib/ stays its own directory (the init scripts, the vendored CRDs).
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(lib + sep)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!/\b__dirname\b/.test(text)) return undefined;
      const dir = JSON.stringify(relative(outDir, dirname(args.path)).split(sep).join('/') || '.');
      return { contents: text.replace(/\b__dirname\b/g, `require("path").join(__dirname, ${dir})`), loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: [join(lib, 'cli', 'main.js')],
  outfile: outFile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // One copy of yaml: cdk8s's own (a bundled dependency of cdk8s) is replaced by the package's.
  alias: { yaml: join(root, 'node_modules', 'yaml') },
  external: ['ajv', 'kubernetes-models', '@kubernetes/client-node', 're2js'],
  plugins: [keepModuleDirectories],
  banner: { js: '// The kube-inference CLI, bundled by scripts/bundle-cli.mjs; licences of the bundled packages: kube-inference.cjs.LICENSES.txt' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

// The licence of every package the bundle holds, from its own package.json and LICENSE file.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
  if (m) packages.set(m[2], join(root, m[1]));
}
const notices = [...packages.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, dir]) => {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const licenseFile = ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license'].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!licenseFile) throw new Error(`bundle-cli: ${name} has no LICENSE file; its licence must ship with the bundle`);
  return [`${name} ${pkg.version} (${pkg.license})`, '', readFileSync(licenseFile, 'utf8').trim()].join('\n');
});
writeFileSync(`${binFile}.LICENSES.txt`, `The kube-inference CLI (kube-inference.bundle.cjs) bundles these packages:\n\n${notices.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`);

// The package's bin: the launcher tsc compiled (lib/cli/launcher.js), which loads the bundle beside it.
writeFileSync(binFile, `#!/usr/bin/env node\n${readFileSync(join(outDir, 'launcher.js'), 'utf8')}`, { mode: 0o755 });
chmodSync(binFile, 0o755);
