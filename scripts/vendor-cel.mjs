#!/usr/bin/env node
// Bundles the CEL library (@marcbachmann/cel-js, published as an ES module only) into one CommonJS
// file, src/schema/vendor/cel-js.cjs, which this CommonJS library loads with a plain require(). So
// every consumer can load it: Jest's CommonJS runtime with the default ts-jest set-up of `cdk8s init`
// cannot require() an ES module, whatever the Node.js release. With --check, fails when the committed
// file is not what this script would write (a stale bundle after an upgrade of the package).
//
// Two changes are made to the library's source on the way (PATCHES), for what src/schema/cel.ts cannot
// do from outside, to bound its work as the Kubernetes API server bounds CEL:
// - its `string.matches(string)` uses JavaScript's backtracking RegExp (exponential time, a different
//   syntax); it is left out, and cel.ts registers one with Go's RE2 semantics (an Environment cannot
//   replace a registered overload);
// - `Environment.setEvaluationHook(hook)` has the evaluator call `hook(node)` before each node it
//   evaluates, which cel.ts uses to count the cost of an evaluation and stop it at the API server's limit.
// A replaced text that is no longer in the source (an upgrade) fails the script: review the patch.
//
//   node scripts/vendor-cel.mjs          rewrite src/schema/vendor/cel-js.cjs
//   node scripts/vendor-cel.mjs --check  exit 1 when it is stale
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = join(root, 'node_modules', '@marcbachmann', 'cel-js');
const target = join(root, 'src', 'schema', 'vendor', 'cel-js.cjs');

const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const license = readFileSync(join(pkgDir, 'LICENSE'), 'utf8').trim();
const banner = [
  `// ${pkg.name} ${pkg.version} (${pkg.homepage}), bundled into CommonJS and patched by scripts/vendor-cel.mjs: do not edit.`,
  `// Its licence (${pkg.license}):`,
  ...license.split('\n').map((line) => `//   ${line}`.trimEnd()),
].join('\n');

const PATCHES = {
  'functions.js': [
    [
      `  functionOverload('string.matches(string): bool', (a, b) => {
    try {
      return new RegExp(b).test(a)
    } catch (_err) {
      throw evaluationError('invalid_regular_expression', \`Invalid regular expression: \${b}\`)
    }
  })
`,
      '',
    ],
  ],
  'evaluator.js': [
    [
      `  clone(opts) {
`,
      `  // Added by kube-inference-constructs (scripts/vendor-cel.mjs): hook(node) is called before each node is evaluated.
  setEvaluationHook(hook) {
    this.#evaluator.evaluationHook = hook
    return this
  }

  clone(opts) {
`,
    ],
    [
      `  run(ast, ctx) {
    return ast.evaluate(this, ast, ctx)
  }
`,
      `  run(ast, ctx) {
    this.evaluationHook?.(ast)
    return ast.evaluate(this, ast, ctx)
  }
`,
    ],
  ],
};

/** Applies PATCHES to the library's modules as esbuild loads them; each replaced text must be found once. */
const patchCel = {
  name: 'patch-cel',
  setup(b) {
    b.onLoad({ filter: /cel-js[\\/]lib[\\/][a-z-]+\.js$/ }, (args) => {
      const patches = PATCHES[basename(args.path)];
      if (!patches) return undefined;
      let text = readFileSync(args.path, 'utf8');
      for (const [from, to] of patches) {
        if (text.split(from).length !== 2) throw new Error(`vendor-cel: ${basename(args.path)} no longer holds the text to patch:\n${from}`);
        text = text.replace(from, () => to);
      }
      return { contents: text, loader: 'js' };
    });
  },
};

const built = await build({
  entryPoints: [join(pkgDir, 'lib', 'index.js')],
  plugins: [patchCel],
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
