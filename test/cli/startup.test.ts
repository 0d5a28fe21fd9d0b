// What the CLI loads: the start-up cost of every `kube-inference` run is mostly module loading (measured
// in `npm run bench`), so the CLI users run is one bundled file, and the big modules a command does not
// need stay out of it (and out of the library's own modules, which the bundle is made of). Asserts
// which files are loaded, never how long anything takes.
import { spawnSync } from 'child_process';
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { BUILT_CLI } from './built-cli';
import { tempDir } from '../temp-dir';

const LIB = join(__dirname, '..', '..', 'lib');
const BUNDLE = join(LIB, 'cli', 'kube-inference.bundle.cjs');
const UNBUNDLED = join(LIB, 'cli', 'main.js');
const LLSD = join(__dirname, '..', 'fixtures', 'llsd', 'two-stacks.yaml');

/** The files a run of the built CLI loaded, as the CommonJS loader's cache lists them at exit. */
function loadedModules(bin: string, args: string[], input?: string): string[] {
  const dir = tempDir('cli-startup-');
  const preload = join(dir, 'list-modules.js');
  const list = join(dir, 'modules.json');
  writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify(Object.keys(require.cache))));\n`);
  const r = spawnSync(process.execPath, ['-r', preload, bin, ...args], { input, encoding: 'utf8', timeout: 20_000 });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: expect.not.stringContaining('failed unexpectedly') });
  return (JSON.parse(readFileSync(list, 'utf8')) as string[]).filter((f) => f !== preload);
}

const MODEL = `apiVersion: airunway.ai/v1alpha1
kind: ModelDeployment
metadata: {name: qwen, namespace: ai}
spec:
  model: {id: Qwen/Qwen3-8B}
  engine: {type: vllm, contextLength: 8192}
  provider: {name: dynamo}
  resources: {gpu: {count: 1}, memory: 32Gi}
`;

describe('the bundled CLI', () => {
  test('renders from its one file, cdk8s and yaml included, loaded by the launcher', () => {
    expect(loadedModules(BUILT_CLI, ['render', LLSD])).toEqual([BUILT_CLI, BUNDLE]);
    expect(loadedModules(BUILT_CLI, ['render', '-'], MODEL)).toEqual([BUILT_CLI, BUNDLE]);
  });

  test('validate reads built-in kinds\' vendored schemas as data; ajv loads for custom resources only', () => {
    const loaded = loadedModules(BUILT_CLI, ['render', LLSD]);
    expect(loaded).not.toContainEqual(expect.stringMatching(/node_modules\/(ajv|kubernetes-models)\//));
    expect(loadedModules(BUILT_CLI, ['validate', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: b}\n')).toEqual([BUILT_CLI, BUNDLE]);
    const workspace = 'apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata: {name: w}\nresource: {labelSelector: {}}\n';
    expect(loadedModules(BUILT_CLI, ['validate', '-'], workspace)).toContainEqual(expect.stringMatching(/node_modules\/ajv\//));
  });
});

describe('render, unbundled, loads only what it renders with', () => {
  test('a LlamaStackDistribution: no cdk8s-plus (MBs of generated classes), no generated CRD classes, no validator', () => {
    const loaded = loadedModules(UNBUNDLED, ['render', LLSD]);
    expect(loaded.filter((f) => /node_modules\/cdk8s-plus-/.test(f))).toEqual([]);
    expect(loaded.filter((f) => /lib\/imports\//.test(f))).toEqual([]);
    expect(loaded.filter((f) => /node_modules\/(ajv|kubernetes-models)\//.test(f))).toEqual([]);
  });

  test('a ModelDeployment: no classes generated from CRDs (their types only), no cdk8s-plus', () => {
    const loaded = loadedModules(UNBUNDLED, ['render', '-'], MODEL);
    expect(loaded.filter((f) => /node_modules\/cdk8s-plus-/.test(f))).toEqual([]);
    expect(loaded.filter((f) => /lib\/imports\//.test(f))).toEqual([]);
    expect(loaded.filter((f) => /lib\/model-deployment\//.test(f)).length).toBeGreaterThan(0);
  });
});
