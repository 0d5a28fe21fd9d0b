/**
 * The library as a new user gets it: the package is packed (`npm pack`, the tarball a release
 * publishes) and installed from the npm registry's real dependencies into fresh consumer projects,
 * which then type-check, run their own tests and synthesise:
 *   - cdk8s apps in the `cdk8s init typescript-app` layout (its package.json, tsconfig.json and default
 *     jest/ts-jest set-up, read from the cdk8s-cli template), with the newest cdk8s and constructs and
 *     with the oldest the peer ranges allow;
 *   - Pulumi programs with `moduleResolution: node` (most existing Pulumi projects, `pulumi new
 *     typescript`) and with `nodenext`, on the lowest and the newest Pulumi SDK and Kubernetes provider,
 *     run under the engine mocks (the Pulumi CLI is not installed here).
 * Installs use the npm cache, so later runs are faster; the registry is needed (under CI=true its
 * absence fails the suite, elsewhere the suite is skipped with the reason).
 */
import { execFileSync, spawnSync } from 'child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { registryProblem, VERSIONS } from './npm';
import { describeWhen } from '../sandbox/host';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'consumer');
const TEMPLATE = join(ROOT, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
const CDK8S_CLI = join(ROOT, 'node_modules', '.bin', 'cdk8s');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string; peerDependencies: Record<string, string>; peerDependenciesMeta: unknown; dependencies: Record<string, string>; bin: unknown;
};

const problem = registryProblem('cdk8s');

/** Runs a command in `cwd`; fails the test with the end of its output when it fails. */
function run(cwd: string, command: string, args: string[]): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: 'true', NODE_OPTIONS: '' } });
  if (r.status !== 0) {
    const output = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}:\n${output}`);
  }
  return r.stdout;
}

const npmInstall = (cwd: string, specs: string[]) => run(cwd, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel', 'error', ...specs]);

const git = (cwd: string, ...args: string[]) => run(cwd, 'git', ['-c', 'user.name=consumer', '-c', 'user.email=consumer@example.com', '-c', 'init.defaultBranch=main', ...args]);
const commitAll = (cwd: string) => {
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '--allow-empty', '-m', 'render');
};

/** The first code block of each README section named, in the language given, as written. */
function readmeBlocks(language: string, headings: readonly string[]): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return headings.map((heading) => {
    const at = readme.indexOf(`${heading}\n`);
    expect(at).toBeGreaterThanOrEqual(0);
    const section = readme.slice(at, readme.indexOf('\n## ', at + 1));
    const block = new RegExp(`\`\`\`${language}\\n([^]*?)\`\`\``).exec(section);
    if (!block) throw new Error(`no ${language} block under ${heading} in the README`);
    return block[1];
  });
}

/**
 * The README's GitOps recipe: the `run` steps of its workflow (without `npm ci`: the test installed the
 * project already) and its render step for YAML documents, as written there.
 */
function gitopsRecipe(): { steps: string[]; render: string } {
  const heading = '## Manifests in git (GitOps)';
  const [workflowText] = readmeBlocks('yaml', [heading]);
  const [render] = readmeBlocks('sh', [heading]);
  const workflow = parseYaml(workflowText) as { jobs: { manifests: { steps: { run?: string }[] } } };
  const runs = workflow.jobs.manifests.steps.flatMap((s) => (s.run === undefined ? [] : [s.run]));
  expect(runs[0]).toBe('npm ci');
  expect(render).toMatch(/^npx kube-inference render .* -o dist\/\n$/);
  expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('first delete the line `dist/` from `.gitignore`');
  return { steps: runs.slice(1), render: render.trim() };
}

let tarball: string;
let work: string;

describeWhen('the packed library in fresh consumer projects', problem === undefined ? { ok: true } : { ok: false, reason: problem }, 'the npm registry', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'consumer-'));
    // `npm pack` of the compiled package (the test task compiles first).
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, packed[0].filename);
    const files = packed[0].files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['lib/index.js', 'lib/pulumi/index.d.ts', 'lib/schema/vendor/cel-js.cjs', 'lib/llama-stack/scripts/preflight.py', 'crds/ray.io_rayservices.yaml', 'crds-json/ray.io_rayservices.json']));
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('src/'))).toEqual([]);
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('the package declares cdk8s and constructs as peers, Pulumi as optional peers, and both CLI names', () => {
    expect(PKG.peerDependencies).toEqual({
      '@kubernetes/client-node': '^1.4.0', '@pulumi/kubernetes': '^4.10.0', '@pulumi/pulumi': '^3.100.0', 'cdk8s': '^2.68.12', 'constructs': '^10.3.0',
    });
    expect(PKG.peerDependenciesMeta).toEqual({ '@pulumi/pulumi': { optional: true }, '@pulumi/kubernetes': { optional: true }, '@kubernetes/client-node': { optional: true } });
    expect(Object.keys(PKG.dependencies)).not.toEqual(expect.arrayContaining(['cdk8s']));
    expect(PKG.bin).toEqual({ 'kube-inference': 'lib/cli/kube-inference.cjs', 'kube-inference-constructs': 'lib/cli/kube-inference.cjs' });
    for (const [name, version] of Object.entries(VERSIONS.lowest)) expect(PKG.peerDependencies[name]).toBe(`^${version}`);
  });

  describe.each([['newest', VERSIONS.newest, true], ['lowest (older pins)', VERSIONS.lowest, false]] as const)('a cdk8s app with the %s cdk8s and constructs', (_, versions, withPlus33) => {
    let app: string;
    beforeAll(() => {
      app = join(work, `cdk8s-${versions.cdk8s}`);
      mkdirSync(app);
      // The files `cdk8s init typescript-app` writes (its post-install `cdk8s import` needs the network).
      for (const f of ['tsconfig.json', 'jest.config.js', 'cdk8s.yaml']) cpSync(join(TEMPLATE, f), join(app, f));
      const pkg = JSON.parse(readFileSync(join(TEMPLATE, 'package.json'), 'utf8').replace('{{ $base }}', 'consumer'));
      delete pkg.dependencies;
      delete pkg.devDependencies['cdk8s-cli'];
      writeFileSync(join(app, 'package.json'), JSON.stringify(pkg, null, 2));
      for (const f of ['main.ts', 'main.test.ts']) cpSync(join(FIXTURES, 'cdk8s-app', f), join(app, f));
      npmInstall(app, [tarball, `cdk8s@${versions.cdk8s}`, `constructs@${versions.constructs}`, ...(withPlus33 ? ['cdk8s-plus-33'] : [])]);
    });

    test('one copy of cdk8s and constructs (the app\'s), and no Pulumi or Kubernetes client', () => {
      const ls = JSON.parse(run(app, 'npm', ['ls', '--all', '--json', 'cdk8s', 'constructs', '@pulumi/pulumi', '@kubernetes/client-node']));
      const copies = (name: string, tree: any = ls): string[] => Object.entries<any>(tree.dependencies ?? {})
        .flatMap(([n, d]) => [...(n === name ? [d.version] : []), ...copies(name, d)]);
      expect([...new Set(copies('cdk8s'))]).toEqual([versions.cdk8s]);
      expect([...new Set(copies('constructs'))]).toEqual([versions.constructs]);
      expect(copies('@pulumi/pulumi')).toEqual([]);
      expect(copies('@kubernetes/client-node')).toEqual([]);
    });

    test('tsc, the default jest set-up, and cdk8s synth', () => {
      run(app, 'npx', ['tsc', '--build']);
      run(app, 'npx', ['jest']);
      run(app, CDK8S_CLI, ['synth', '--no-check-upgrade']);
      const manifest = readFileSync(join(app, 'dist', 'consumer.k8s.yaml'), 'utf8');
      expect(manifest).toContain('kind: DynamoGraphDeployment');
      // The model's endpoint reaches the Llama Stack provider config, and through models the server's own.
      expect(manifest).toContain('"config":{"url":"http://llama-8b-frontend:8000/v1"}');
      expect(manifest).toContain('[{"providerId":"llama-8b","url":"http://llama-8b-frontend:8000/v1","model":"meta-llama/Llama-3.1-8B-Instruct"}]');
    });

    // The README's recipe, run as written: its workflow's steps and its render step, in a git
    // repository of the project after the one edit it asks for (dist/ out of .gitignore).
    test('the README\'s GitOps recipe fails on an uncommitted, a stale and a deleted manifest, and passes once committed', () => {
      const recipe = gitopsRecipe();
      const gitignore = readFileSync(join(TEMPLATE, '{{}}.gitignore'), 'utf8');
      expect(gitignore.split('\n')).toContain('dist/');
      writeFileSync(join(app, '.gitignore'), gitignore.split('\n').filter((line) => line !== 'dist/').join('\n'));
      // `npx cdk8s` finds the cdk8s CLI the template installs as a dev dependency (linked from ours).
      mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', 'cdk8s-cli'), join(app, 'node_modules', 'cdk8s-cli'));
      symlinkSync('../cdk8s-cli/bin/cdk8s', join(app, 'node_modules', '.bin', 'cdk8s'));
      rmSync(join(app, 'dist'), { recursive: true, force: true });
      git(app, 'init', '-q');
      commitAll(app);
      /** Runs the steps in order until one fails; returns the failing step's output, or undefined when all pass. */
      const runSteps = (steps: readonly string[]): string | undefined => {
        for (const step of steps) {
          const r = spawnSync('bash', ['-eo', 'pipefail', '-c', step], { cwd: app, encoding: 'utf8', env: { ...process.env, CI: 'true', NODE_OPTIONS: '' } });
          if (r.status !== 0) return `${step}\n${r.stdout}${r.stderr}`;
        }
        return undefined;
      };

      // cdk8s synth: a manifest never committed, then committed, then stale.
      const synthSteps = recipe.steps;
      expect(runSteps(synthSteps)).toMatch(/^git add --all dist\/[^]*new file mode/);
      commitAll(app);
      expect(runSteps(synthSteps)).toBeUndefined();
      const main = readFileSync(join(app, 'main.ts'), 'utf8');
      writeFileSync(join(app, 'main.ts'), main.replace('contextLength: 8192', 'contextLength: 4096'));
      expect(runSteps(synthSteps)).toMatch(/^git add --all dist\/[^]*\n\+.*4096/);
      writeFileSync(join(app, 'main.ts'), main);
      expect(runSteps(synthSteps)).toBeUndefined();

      // render -o from YAML documents: a deleted document's manifest is removed, and the check fails until committed.
      git(app, 'rm', '-q', '-r', 'dist');
      mkdirSync(join(app, 'stacks'));
      const docs = parseAllDocuments(readFileSync(join(ROOT, 'test', 'fixtures', 'llsd', 'two-stacks.yaml'), 'utf8'));
      for (const doc of docs) writeFileSync(join(app, 'stacks', `${doc.toJS().metadata.name}.yaml`), doc.toString());
      const renderSteps = synthSteps.map((step) => (step === 'npx cdk8s synth' ? recipe.render : step));
      expect(renderSteps).not.toEqual(synthSteps);
      expect(runSteps(renderSteps)).toContain('new file mode');
      commitAll(app);
      expect(runSteps(renderSteps)).toBeUndefined();
      expect(readdirSync(join(app, 'dist')).sort()).toEqual(['.kube-inference-render', 'ai.team-a.k8s.yaml', 'ai.team-b.k8s.yaml']);
      writeFileSync(join(app, 'dist', 'kustomization.yaml'), 'resources: [ai.team-a.k8s.yaml, ai.team-b.k8s.yaml]\n');
      rmSync(join(app, 'stacks', 'team-b.yaml'));
      const failed = runSteps(renderSteps);
      expect(failed).toMatch(/deleted file mode[^]*ai\.team-b\.k8s\.yaml|ai\.team-b\.k8s\.yaml[^]*deleted file mode/);
      expect(readdirSync(join(app, 'dist')).sort()).toEqual(['.kube-inference-render', 'ai.team-a.k8s.yaml', 'kustomization.yaml']);
      commitAll(app);
      expect(runSteps(renderSteps)).toBeUndefined();
    });

    /** A README program, as a whole main.ts, synthesised with the template's ts-node (type-checked as it runs). */
    const synth = (name: string, program: string): string => {
      writeFileSync(join(app, `${name}.ts`), program);
      const out = join(app, `${name}-dist`);
      const r = spawnSync('npx', ['ts-node', `${name}.ts`], { cwd: app, encoding: 'utf8', env: { ...process.env, CDK8S_OUTDIR: out, NODE_OPTIONS: '' } });
      if (r.status !== 0) throw new Error(`${name}.ts (from the README) failed:\n${r.stdout}\n${r.stderr}`);
      return readdirSync(out).map((f) => readFileSync(join(out, f), 'utf8')).join('---\n');
    };

    // The README's two cdk8s quick starts, each a whole main.ts, run as written with the template's ts-node.
    test('the README\'s cdk8s quick starts synthesise as written', () => {
      const [stack, model] = readmeBlocks('ts', ['## Quick start (cdk8s)', '## Quick start: ModelDeployment, served through the stack']);
      const stackYaml = synth('readme-stack', stack);
      expect(stackYaml).toMatch(/kind: Deployment[^]*image: quay.io\/acme\/acme-echo-provider:0.1.0/);
      // What the README says the quick start writes: the merge image writes the init scripts into the pod.
      expect(parseAllDocuments(stackYaml).map((d) => d.toJS()).filter((d) => d).map((d) => d.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
      const models = synth('readme-model', model);
      expect(models).toContain('kind: DynamoGraphDeployment');
      expect(models).toContain('"providerId":"llama-8b","url":"http://llama-8b-frontend.models.svc.cluster.local:8000/v1","model":"meta-llama/Llama-3.1-8B-Instruct"');
    });

    if (withPlus33) {
      // The app's own cdk8s-plus objects where the props name objects, and its Ingress on the stack's Service.
      test('the README\'s cdk8s-plus example synthesises as written with the app\'s cdk8s-plus-33', () => {
        const [plus] = readmeBlocks('ts', ['### cdk8s-plus objects']);
        const docs = parseAllDocuments(synth('readme-plus', plus)).map((d) => d.toJS()).filter((d) => d);
        const ingress = docs.find((d) => d.kind === 'Ingress');
        const service = docs.find((d) => d.kind === 'Service');
        expect(ingress.spec.defaultBackend).toEqual({ service: { name: service.metadata.name, port: { number: 8321 } } });
        const pod = docs.find((d) => d.kind === 'Deployment').spec.template.spec;
        const account = docs.find((d) => d.kind === 'ServiceAccount');
        expect(pod.serviceAccountName).toBe(account.metadata.name);
        const secret = docs.find((d) => d.kind === 'Secret');
        expect(pod.containers[0].env).toContainEqual({ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'token' } } });
      });
    }

    test('npx runs the CLI by the package name and by its own', () => {
      expect(run(app, 'npx', ['kube-inference-constructs', '--version'])).toBe(`${PKG.version}\n`);
      expect(run(app, 'npx', ['kube-inference', 'help', 'render'])).toContain('Usage: kube-inference render');
    });

    // The installed CLI is one bundled file that still reads the init scripts from lib/ and loads ajv
    // and kubernetes-models from the app's node_modules: render, then validate what it rendered.
    test('the installed CLI renders, and validates what it rendered', () => {
      const rendered = join(app, 'rendered');
      run(app, 'npx', ['kube-inference', 'render', join(ROOT, 'test', 'fixtures', 'llsd', 'two-stacks.yaml'), '-o', rendered]);
      expect(readFileSync(join(rendered, 'ai.team-a.k8s.yaml'), 'utf8')).toContain('install-provider.sh');
      expect(run(app, 'npx', ['kube-inference', 'validate', '--strict', rendered])).toBe('');
      // Asking the cluster needs the optional peer @kubernetes/client-node, which the project has not installed.
      const server = spawnSync('npx', ['kube-inference', 'validate', '--server', rendered], { cwd: app, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      expect({ code: server.status, stderr: server.stderr }).toEqual({
        code: 1,
        stderr: expect.stringContaining('an optional peer dependency this installation lacks: install it beside kube-inference-constructs '
          + '(npm install @kubernetes/client-node@^1.4.0), or validate offline without --server.'),
      });
    });
  });

  describe.each([
    ['node', 'lowest', VERSIONS.lowest],
    ['node', 'newest', VERSIONS.newest],
    ['nodenext', 'newest', VERSIONS.newest],
    ['nodenext', 'lowest', VERSIONS.lowest],
  ] as const)('a Pulumi program with moduleResolution %s and the %s SDK', (resolution, _, versions) => {
    let program: string;
    beforeAll(() => {
      program = join(work, `pulumi-${resolution}-${versions['@pulumi/pulumi']}`);
      mkdirSync(program);
      // The tsconfig of `pulumi new typescript`, with the module settings under test.
      const compilerOptions = resolution === 'node'
        ? { module: 'commonjs', moduleResolution: 'node' }
        : { module: 'nodenext', moduleResolution: 'nodenext' };
      writeFileSync(join(program, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { strict: true, outDir: 'bin', target: 'es2020', ...compilerOptions, sourceMap: true, experimentalDecorators: true, declaration: false, noFallthroughCasesInSwitch: true, noImplicitReturns: true, forceConsistentCasingInFileNames: true },
        files: ['index.ts', 'run-with-mocks.ts'],
      }, null, 2));
      writeFileSync(join(program, 'package.json'), JSON.stringify({ name: 'consumer-program', main: 'bin/index.js', private: true }, null, 2));
      for (const f of ['index.ts', 'run-with-mocks.ts']) cpSync(join(FIXTURES, 'pulumi-app', f), join(program, f));
      npmInstall(program, [tarball, `@pulumi/pulumi@${versions['@pulumi/pulumi']}`, `@pulumi/kubernetes@${versions['@pulumi/kubernetes']}`,
        'typescript@~5.9.3', '@types/node@^20']);
    });

    test('the README\'s Pulumi quick start type-checks and runs as written', () => {
      const [readme] = readmeBlocks('ts', ['## Quick start (Pulumi)']);
      const dir = join(program, 'readme');
      mkdirSync(dir);
      writeFileSync(join(dir, 'index.ts'), readme);
      cpSync(join(program, 'run-with-mocks.ts'), join(dir, 'run-with-mocks.ts'));
      cpSync(join(program, 'tsconfig.json'), join(dir, 'tsconfig.json'));
      run(program, 'npx', ['tsc', '-p', 'readme']);
      const result = JSON.parse(run(dir, 'node', ['bin/run-with-mocks.js'])) as { exported: Record<string, unknown>; registered: string[] };
      expect(result.exported).toEqual({ service: 'llama-stack-service', modelIds: ['llama-8b/meta-llama/Llama-3.1-8B-Instruct'] });
    });

    test('type-checks, compiles and registers the components and their objects', () => {
      run(program, 'npx', ['tsc']);
      const result = JSON.parse(run(program, 'node', ['bin/run-with-mocks.js'])) as { exported: Record<string, unknown>; registered: string[] };
      expect(result.exported).toEqual({ serviceName: 'llama-stack-service', modelProvider: 'dynamo', modelIds: ['llama-8b/meta-llama/Llama-3.1-8B-Instruct'] });
      expect(result.registered).toEqual(expect.arrayContaining([
        'kube-inference:llama-stack:LlamaStackWithProviders',
        'kube-inference:model-deployment:ModelDeployment',
        'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment',
        'kubernetes:apps/v1:Deployment',
      ]));
    });
  });
});
