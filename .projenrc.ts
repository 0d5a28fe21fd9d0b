import { javascript, typescript } from 'projen';

const project = new typescript.TypeScriptProject({
  name: 'kube-inference-constructs',
  description:
    'Build-time Kubernetes constructs for AI inference: Llama Stack with deploy-time providers, and one model-serving spec for KAITO, Dynamo and KubeRay.',
  license: 'Apache-2.0',
  copyrightOwner: 'The kube-inference-constructs authors',
  defaultReleaseBranch: 'main',
  packageManager: javascript.NodePackageManager.NPM,
  projenrcTs: true,
  // require() of ES modules (the CEL library is ESM-only) works natively from Node 20.19.
  minNodeVersion: '20.19.0',
  typescriptVersion: '~5.9.3',

  deps: [
    'cdk8s@^2.70.0',
    'cdk8s-plus-28@^2.5.0',
    'constructs@^10.4.0',
    'yaml@^2.8.0',
    'ajv@^8.17.0',
    '@marcbachmann/cel-js@^8.0.0',
    // Schemas of the core Kubernetes kinds (v4: the last line that ships CommonJS).
    'kubernetes-models@^4.5.1',
  ],
  // Pulumi users bring their own SDK and Kubernetes provider (the `kube-inference-constructs/pulumi` entry point).
  peerDeps: ['@pulumi/pulumi@^3.100.0', '@pulumi/kubernetes@^4.10.0'],
  devDeps: ['cdk8s-cli@^2.200.0', 'typedoc@^0.28.0', 'typedoc-plugin-markdown@^4.9.0', 'ts-node@^10.9.2', 'esbuild@^0.25.0'],
  bin: { 'kube-inference': 'lib/cli/main.js' },

  // The repository has no hosted CI of its own here; .ci/run is the CI entry point.
  github: false,
  release: false,
  depsUpgrade: false,
  buildWorkflow: false,
  pullRequestTemplate: false,

  sampleCode: false,
  jestOptions: {
    // Snapshots are part of the contract: never rewrite them silently (use `npx projen test:update`).
    updateSnapshot: javascript.UpdateSnapshot.NEVER,
    jestConfig: {
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      collectCoverage: false,
      testTimeout: 120_000,
      // Jest on Node 20 cannot require() ES modules: compile the ESM-only CEL library to CommonJS.
      transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
      transform: {
        '^.+/@marcbachmann/cel-js/.+\\.js$': new javascript.Transform('ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', moduleResolution: 'node10', isolatedModules: true } }),
      },
    },
  },
  tsconfig: {
    compilerOptions: {
      // Node16 resolution lets the examples import the package by its own name (package self-reference).
      module: 'node16',
      moduleResolution: javascript.TypeScriptModuleResolution.NODE16,
      lib: ['es2022'],
      target: 'ES2022',
      esModuleInterop: true,
      skipLibCheck: true,
      // ts-jest transpiles file by file with node16 modules.
      isolatedModules: true,
    },
  },
  gitignore: ['/examples/**/node_modules/', '/.tmp/', '*.tsbuildinfo', '__pycache__/'],
});

// Subpath exports; `types` first so TypeScript (node16 resolution) finds the declarations.
project.package.addField('exports', {
  '.': { types: './lib/index.d.ts', default: './lib/index.js' },
  './pulumi': { types: './lib/pulumi/index.d.ts', default: './lib/pulumi/index.js' },
  './package.json': './package.json',
});
project.package.addField('files', ['lib', 'crds', 'README.md', 'LICENSE', 'API.md']);

// The init-container scripts are read at run time from beside the compiled module.
project.compileTask.exec('cp src/llama-stack/scripts/*.sh src/llama-stack/scripts/*.py lib/llama-stack/scripts/');

// The main job: synthesise every example with the real cdk8s CLI into manifests.
const synthExamples = project.addTask('synth-examples', {
  description: 'Synthesise every example into manifests with the cdk8s CLI',
});
synthExamples.spawn(project.compileTask);
synthExamples.exec('node scripts/synth-examples.mjs');

// API.md is generated from the source and must be current.
const docgen = project.addTask('docgen', { description: 'Generate API.md from the TypeScript source' });
docgen.exec('node scripts/docgen.mjs');
const docgenCheck = project.addTask('docgen:check', { description: 'Fail when API.md is stale' });
docgenCheck.exec('node scripts/docgen.mjs --check');

// The test command compiles first (CLI tests run the built binary), sets up the Llama Stack test
// environments (real llama-stack releases and provider wheels from PyPI, cached by lock hash) and the
// upstream admission checker (KubeRay's own validation, built from its Go module), runs jest,
// then checks generated files.
project.testTask.prependSpawn(project.addTask('test:setup', {
  description: 'Set up the cached test environments: Llama Stack (scripts/test-setup/llama-stack-envs.mjs) and the upstream admission checker (scripts/test-setup/upstream-admission.mjs)',
  exec: 'node scripts/test-setup/llama-stack-envs.mjs && node scripts/test-setup/upstream-admission.mjs',
}));
project.testTask.prependSpawn(project.compileTask);
project.testTask.spawn(docgenCheck);
// src/imports/ is generated from crds/ by `cdk8s import`; stale generated code fails the tests.
project.addTask('import-crds', { description: 'Regenerate src/imports/ from crds/ with cdk8s import', exec: 'node scripts/import-crds.mjs' });
project.testTask.spawn(project.addTask('import-crds:check', { description: 'Fail when src/imports/ is stale', exec: 'node scripts/import-crds.mjs --check' }));

// Benchmarks print figures; they are never asserted in tests.
const bench = project.addTask('bench', { description: 'Run the benchmarks (merge-config, pod start-up) and print the figures' });
bench.spawn(project.compileTask);
bench.exec('node bench/merge-config/bench.mjs');
bench.exec('ts-node --transpile-only --project test/tsconfig.json bench/pod-startup/bench.ts');

project.synth();
