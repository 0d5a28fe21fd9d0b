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
  // The oldest Node.js release the library is supported on (the CI machines run Node 20.20).
  minNodeVersion: '20.19.0',
  typescriptVersion: '~5.9.3',
  keywords: ['cdk8s', 'pulumi', 'kubernetes', 'llama-stack', 'llm', 'inference', 'kaito', 'dynamo', 'kuberay', 'constructs'],
  repository: 'https://github.com/kube-inference/kube-inference-constructs.git',
  homepage: 'https://github.com/kube-inference/kube-inference-constructs#readme',
  bugsUrl: 'https://github.com/kube-inference/kube-inference-constructs/issues',

  deps: [
    'yaml@^2.8.0',
    'ajv@^8.17.0',
    // Schemas of the core Kubernetes kinds (v4: the last line that ships CommonJS).
    'kubernetes-models@^4.5.1',
    // Go's regexp semantics (RE2: linear time, no lookaround or backreferences) for CRD `pattern`s and
    // CEL `matches()`, as the API server evaluates them; a pure-JS port with a CommonJS build.
    're2js@^2.10.0',
  ],
  // The app's own cdk8s and constructs: a second copy nested under this package would make its Chart
  // a different class from the app's. The ranges are what test/consumer/ installs: the lowest and the newest.
  // Pulumi users bring their own SDK and Kubernetes provider (the `kube-inference-constructs/pulumi`
  // entry point); cdk8s users need neither, so they are optional. `validate --server` alone needs
  // @kubernetes/client-node (kubeconfig, contexts and every way of authenticating to a cluster; 1.x: 2.x
  // needs Node 22), some 60 MB with its dependencies: optional too, loaded on first use, and the command
  // says to install it when it is missing.
  peerDeps: ['cdk8s@^2.68.12', 'constructs@^10.3.0', '@pulumi/pulumi@^3.100.0', '@pulumi/kubernetes@^4.10.0', '@kubernetes/client-node@^1.4.0'],
  devDeps: [
    'cdk8s-cli@^2.200.0',
    // What a cdk8s app of today's template uses beside this library: the tests pass its objects as references.
    'cdk8s-plus-33@^2.5.0',
    'typedoc@^0.28.0', 'typedoc-plugin-markdown@^4.9.0', 'ts-node@^10.9.2', 'esbuild@^0.25.0',
    // Bundled into src/schema/vendor/cel-js.cjs by scripts/vendor-cel.mjs, not a runtime dependency.
    '@marcbachmann/cel-js@8.0.0',
    // The tests' environment extends jest's node environment (test/sandbox/environment.cjs).
    'jest-environment-node@^30.0.0',
  ],
  // `npx kube-inference-constructs` runs the CLI straight from the package name. The CLI is the
  // bundle scripts/bundle-cli.mjs makes of lib/cli/main.js (one file to load at every start).
  bin: { 'kube-inference': 'lib/cli/kube-inference.cjs', 'kube-inference-constructs': 'lib/cli/kube-inference.cjs' },

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
      // test/fixtures/ holds other projects' files (e.g. a consumer app's own tests), not this project's tests.
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/fixtures/'],
      // Records what the library renders in every test, for the real API servers (test/apiserver).
      setupFilesAfterEnv: ['<rootDir>/test/apiserver/record-rendered.ts'],
      // Ends what a test file's sandboxes left running (a test that timed out mid-start), so jest exits.
      testEnvironment: '<rootDir>/test/sandbox/environment.cjs',
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
      // No source maps in the published JavaScript: inline maps with their sources made lib/ four
      // times its size, and parsing them was most of the CLI's start-up (bench/cli).
      inlineSourceMap: false,
      inlineSources: false,
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
// The version the next release publishes (npm package and merge image, .github/workflows/release.yml).
project.package.addVersion('0.1.0');

// Projects on `moduleResolution: node` (node10) do not read `exports`: point them at the subpath's types.
project.package.addField('typesVersions', { '*': { pulumi: ['lib/pulumi/index.d.ts'] } });
project.package.addField('files', ['lib', 'crds', 'crds-json', 'kaito-catalog', 'kubernetes-openapi', 'README.md', 'LICENSE', 'API.md', 'CHANGELOG.md']);
// The peers a cdk8s user does not need.
project.package.addField('peerDependenciesMeta', {
  '@pulumi/pulumi': { optional: true }, '@pulumi/kubernetes': { optional: true }, '@kubernetes/client-node': { optional: true },
});

// The init-container scripts are read at run time from beside the compiled module, and so is the
// CommonJS bundle of the CEL library.
project.compileTask.exec('cp src/llama-stack/scripts/*.sh src/llama-stack/scripts/*.py lib/llama-stack/scripts/');
project.compileTask.exec('mkdir -p lib/schema/vendor && cp src/schema/vendor/cel-js.cjs lib/schema/vendor/');
// The CLI users run: lib/cli/main.js and its imports in one file, built after tsc.
project.compileTask.exec('node scripts/bundle-cli.mjs');
project.gitattributes.addAttributes('/src/schema/vendor/cel-js.cjs', 'linguist-generated');
project.gitattributes.addAttributes('/kubernetes-openapi/*.json', 'linguist-generated');

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
// environments (real llama-stack releases and provider wheels from PyPI, cached by lock hash), the
// upstream admission checker (KubeRay's own validation, built from its Go module), the real
// Kubernetes API servers with their etcd and the Pulumi CLI with its language host and Kubernetes
// provider (all built from the Go module proxy), runs jest, then checks generated files.
project.testTask.prependSpawn(project.addTask('test:setup', {
  description: 'Set up the cached test environments (scripts/test-setup/all.mjs): the OGX and llama-stack servers and provider wheels (llama-stack-envs.mjs) beside the Go builds: the upstream admission checker (upstream-admission.mjs), kube-apiserver with etcd and the programs of a single-node cluster (kubernetes.mjs) and the Pulumi CLI with its Node.js language host and Kubernetes provider (pulumi-cli.mjs)',
  exec: 'node scripts/test-setup/all.mjs',
}));
// jest transpiles test files one by one (isolatedModules) without checking their types: they are
// type-checked here, before the long set-up, so a wrong type in a test fails at once.
project.testTask.prependSpawn(project.addTask('typecheck:test', {
  description: 'Type-check the tests (test/tsconfig.json), which jest only transpiles',
  exec: 'tsc --noEmit -p test/tsconfig.json',
}));
// kubernetes-openapi/ is the Kubernetes OpenAPI schemas of each supported minor, read from the
// k8s.io/kubernetes module; stale, it fails the tests.
project.addTask('import-kubernetes-openapi', { description: 'Re-vendor kubernetes-openapi/ from the k8s.io/kubernetes module', exec: 'node scripts/import-kubernetes-openapi.mjs' });
project.testTask.spawn(project.addTask('import-kubernetes-openapi:check', { description: 'Fail when kubernetes-openapi/ is stale', exec: 'node scripts/import-kubernetes-openapi.mjs --check' }));
project.testTask.prependSpawn(project.compileTask);
// Every object the tests render is recorded (test/apiserver/record-rendered.ts) and, after jest, sent
// to the real API servers of each tested Kubernetes minor (test/apiserver/rendered-by-tests.after.ts).
project.testTask.env('KIC_RENDERED_DIR', '.tmp/rendered-by-tests');
project.testTask.prependExec('rm -rf .tmp/rendered-by-tests');
project.testTask.exec('jest --ci --testMatch "<rootDir>/test/apiserver/rendered-by-tests.after.ts"');
project.testTask.spawn(docgenCheck);
// src/imports/ is generated from crds/ by `cdk8s import`; stale generated code fails the tests.
project.addTask('import-crds', { description: 'Regenerate src/imports/ from crds/ with cdk8s import', exec: 'node scripts/import-crds.mjs' });
project.testTask.spawn(project.addTask('import-crds:check', { description: 'Fail when src/imports/ is stale', exec: 'node scripts/import-crds.mjs --check' }));
// validate reads the vendored CRDs from crds-json/, written from crds/; stale, it fails the tests.
project.addTask('crds-json', { description: 'Regenerate crds-json/ (the vendored CRDs as JSON, which validate reads) from crds/', exec: 'node scripts/crds-json.mjs' });
project.testTask.spawn(project.addTask('crds-json:check', { description: 'Fail when crds-json/ is stale', exec: 'node scripts/crds-json.mjs --check' }));

// The KAITO checks read KAITO's model data, generated into a module from kaito-catalog/; stale, it fails the tests.
project.addTask('import-kaito-catalog', { description: 'Regenerate src/model-deployment/providers/kaito/catalog.generated.ts from kaito-catalog/', exec: 'node scripts/import-kaito-catalog.mjs' });
project.testTask.spawn(project.addTask('import-kaito-catalog:check', { description: 'Fail when catalog.generated.ts is stale', exec: 'node scripts/import-kaito-catalog.mjs --check' }));
// Needs the ray-llm test environment: its --check runs in test/model-deployment/ray-serve-llm.test.ts.
project.addTask('import-vllm-engine-args', { description: 'Regenerate src/model-deployment/providers/kuberay/engine-args.generated.ts from Ray Serve LLM\'s own code (the ray-llm test environment)', exec: 'node scripts/import-vllm-engine-args.mjs' });

// src/schema/vendor/cel-js.cjs is the CEL library bundled into CommonJS; stale, it fails the tests.
project.addTask('vendor-cel', { description: 'Rebundle the CEL library into src/schema/vendor/cel-js.cjs', exec: 'node scripts/vendor-cel.mjs' });
project.testTask.spawn(project.addTask('vendor-cel:check', { description: 'Fail when src/schema/vendor/cel-js.cjs is stale', exec: 'node scripts/vendor-cel.mjs --check' }));

// Benchmarks print figures; they are never asserted in tests.
const bench = project.addTask('bench', { description: 'Run the benchmarks (merge-config, render/validate/Pulumi, pod start-up, apply on the single-node cluster) and print the figures' });
bench.spawn(project.compileTask);
bench.exec('node bench/merge-config/bench.mjs');
bench.exec('node bench/cli/bench.mjs');
bench.exec('ts-node --transpile-only --project test/tsconfig.json bench/pod-startup/bench.ts');
bench.exec('ts-node --transpile-only --project test/tsconfig.json bench/provider-services/bench.ts');
bench.exec('ts-node --transpile-only --project test/tsconfig.json bench/cluster/bench.ts');

project.synth();
