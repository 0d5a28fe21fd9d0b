/**
 * What the providers render, parsed by the runtimes' own argument parsers, in-process, by
 * test/model-deployment/runtime_args_check.py (see there what each parser runs). The parsers come from
 * the tool environments of scripts/test-setup/llama-stack-envs.mjs, two per Dynamo release checked
 * (1.6.1, the default runtime release, and 1.0.1), each with the engine that release pins:
 *   - `ai-dynamo-vllm-1.6.1` (ai-dynamo[vllm] 1.6.1, vLLM 0.31.0) and `ai-dynamo-vllm` (1.0.1, vLLM
 *     0.16.0): every Dynamo frontend command (dynamo.frontend), every Dynamo vLLM worker's whole argument
 *     list (dynamo.vllm: Dynamo's groups, then vLLM's engine parser and Dynamo's cross-checks), and every
 *     KAITO vLLM inference config, turned into arguments as KAITO's inference_api.py does and parsed by
 *     vLLM's server parser (also by vLLM 0.29.0, from the `ray-llm` environment: see KAITO_VLLMS);
 *   - `ai-dynamo-sglang-1.6.1` (SGLang 0.5.21) and `ai-dynamo-sglang` (1.0.1, SGLang 0.5.9): every Dynamo
 *     SGLang worker's whole argument list (dynamo.sglang: Dynamo's groups, then SGLang's ServerArgs
 *     parser), up to the model download.
 * Not checked here: the TensorRT-LLM worker (tensorrt-llm is not installable without NVIDIA's own
 * index) and KAITO's llama.cpp runner (LocalAI, a Go program whose module is not served). KubeRay's
 * engine_kwargs are taken by Ray Serve LLM and vLLM 0.29.0 in ray-serve-llm.test.ts.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { parseAllDocuments } from 'yaml';
import { dynamoComponents, dynamoMain, KAITO_GPU_NODE, problemsOf, render } from './helpers';
import { ModelDeploymentProps, ProviderRegistry } from '../../src/model-deployment';
import { DEFAULT_DYNAMO_VERSION } from '../../src/model-deployment/providers/dynamo/provider';
import { describeWhen } from '../sandbox/host';
import { ToolEnv, testEnvsSupport, toolEnv } from '../sandbox/test-envs';

/** A Dynamo release checked here: its tool environments and the engine versions it pins. */
interface DynamoRelease {
  readonly dynamo: string;
  readonly vllm: string;
  readonly sglang: string;
  readonly vllmTool: string;
  readonly sglangTool: string;
  readonly vllmEnv: ReturnType<typeof toolEnv>;
  readonly sglangEnv: ReturnType<typeof toolEnv>;
}
const release = (dynamo: string, vllm: string, sglang: string, vllmTool: string, sglangTool: string): DynamoRelease =>
  ({ dynamo, vllm, sglang, vllmTool, sglangTool, vllmEnv: toolEnv(vllmTool), sglangEnv: toolEnv(sglangTool) });
const RELEASES: readonly DynamoRelease[] = [
  release('1.6.1', '0.31.0', '0.5.21', 'ai-dynamo-vllm-1.6.1', 'ai-dynamo-sglang-1.6.1'),
  release('1.0.1', '0.16.0', '0.5.9', 'ai-dynamo-vllm', 'ai-dynamo-sglang'),
];
const CHECK = path.join(__dirname, 'runtime_args_check.py');
const EXAMPLE_APP = path.join(__dirname, '..', '..', 'examples', 'model-deployment-app', 'dist', 'models.k8s.yaml');

type Parser = 'module' | 'frontend' | 'dynamo-vllm' | 'dynamo-sglang' | 'kaito-vllm';
interface Case { readonly id: string; readonly parser: Parser; readonly args: readonly string[] }
interface Result {
  readonly id: string;
  readonly ok: boolean;
  readonly error: string | null;
  readonly values: Record<string, unknown> | null;
  readonly deprecations: string[] | null;
}

/** A Python process of runtime_args_check.py in a tool environment, and the lines it answered with. */
interface Checker { readonly child: ChildProcess; readonly lines: AsyncIterator<string>; stderr: string }
/** One checker per tool environment's Python, for the whole file: vLLM's and SGLang's imports take seconds each. */
const checkers = new Map<string, Checker>();
afterAll(() => {
  for (const checker of checkers.values()) checker.child.kill();
  checkers.clear();
});

/** Runs the cases through the parsers in the tool environment's checker. */
async function parse(env: ToolEnv, cases: readonly Case[]): Promise<Record<string, Result>> {
  let checker = checkers.get(env.python);
  if (!checker) {
    const child = spawn(env.python, [CHECK], { stdio: ['pipe', 'pipe', 'pipe'] });
    const started: Checker = { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator](), stderr: '' };
    child.stderr!.on('data', (chunk) => (started.stderr = (started.stderr + chunk).slice(-4096)));
    child.stdin!.on('error', () => undefined); // a checker that died: its end of the lines says so below
    checkers.set(env.python, checker = started);
  }
  checker.child.stdin!.write(`${JSON.stringify(cases)}\n`);
  const line = await checker.lines.next();
  if (line.done) {
    checkers.delete(env.python); // the next test starts a new one
    throw new Error(`runtime_args_check.py in ${env.name} ended without an answer: ${checker.stderr}`);
  }
  const results = Object.fromEntries((JSON.parse(line.value) as Result[]).map((r) => [r.id, r]));
  expect(Object.keys(results).sort()).toEqual(cases.map((c) => c.id).sort());
  return results;
}

/** Every case passed: no error for any id. */
function expectAccepted(results: Record<string, Result>): void {
  for (const [id, r] of Object.entries(results)) expect({ id, error: r.error }).toEqual({ id, error: null });
}

/** A container argument as the program receives it: Kubernetes turns the `$$` we write back into `$`. */
const received = (arg: string) => arg.replace(/\$\$/g, '$');

const BASE: ModelDeploymentProps = { model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen' }, engine: { type: 'vllm' } };
const DISAGG: Partial<ModelDeploymentProps> = {
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { replicas: 1, gpu: { count: 2 } }, decode: { replicas: 2, gpu: { count: 1 } } },
};

/** The example app's rendered objects of one kind. */
function exampleObjects(kind: string): any[] {
  const objects = parseAllDocuments(fs.readFileSync(EXAMPLE_APP, 'utf8')).map((d) => d.toJS()).filter((o) => o?.kind === kind);
  expect(objects.length).toBeGreaterThan(0);
  return objects;
}

/**
 * The Dynamo components of every engine, serving mode and router mode, plus the example app's, by
 * `<deployment> <component>`: each its `type` and its container `main`.
 */
function dynamoServices(version: string): Record<string, any> {
  const providers = ProviderRegistry.builtIn({ dynamo: { version } });
  const deployments: Record<string, any> = {};
  for (const engine of ['vllm', 'sglang', 'trtllm'] as const) {
    for (const mode of ['aggregated', 'disaggregated'] as const) {
      for (const routerMode of ['kv', 'round-robin', 'random', 'none'] as const) {
        const props: ModelDeploymentProps = {
          ...BASE,
          ...(mode === 'disaggregated' ? DISAGG : { resources: { gpu: { count: 2 } } }),
          engine: { type: engine, contextLength: 4096, trustRemoteCode: engine !== 'trtllm', args: engine === 'trtllm' ? {} : ENGINE_ARGS[engine] },
          provider: { name: 'dynamo', overrides: { routerMode, frontend: { replicas: 2 } } },
          providers,
        };
        deployments[`${engine}/${mode}/${routerMode}`] = render(props).resource;
      }
    }
  }
  // The example app renders the default release.
  if (version === DEFAULT_DYNAMO_VERSION) {
    for (const dgd of exampleObjects('DynamoGraphDeployment')) deployments[`example-app/${dgd.metadata.name}`] = dgd;
  }
  const services: Record<string, any> = {};
  for (const [name, dgd] of Object.entries(deployments)) {
    for (const [key, c] of Object.entries(dynamoComponents(dgd))) services[`${name} ${key}`] = { type: c.type, main: dynamoMain(c) };
  }
  return services;
}

/** Engine options a user would pass, one of each kind of value (number, float, choice, a `$` that must survive). */
const ENGINE_ARGS = {
  vllm: { 'gpu-memory-utilization': '0.85', 'max-num-seqs': '64', 'dtype': 'bfloat16', 'enforce-eager': '', 'kv-cache-dtype': 'auto' },
  sglang: { 'mem-fraction-static': '0.85', 'max-running-requests': '64', 'dtype': 'bfloat16', 'enable-metrics': '', 'chat-template': 'tpl$HOME' },
} as const;

/** The worker services whose container runs `python3 -m dynamo.<engine>`. */
function workers(services: Record<string, any>, engine: string): [string, any][] {
  const found = Object.entries(services).filter(([, s]) => s.type !== 'frontend' && s.main.command[2] === `dynamo.${engine}`);
  expect(found.length).toBeGreaterThan(0);
  return found;
}

/** For each service: its module is runnable, and its whole argument list passes `parser`. */
function serviceCases(found: [string, any][], parser: Parser): Case[] {
  return found.flatMap(([id, s]) => {
    const main = s.main;
    expect(main.command.slice(0, 2)).toEqual(['python3', '-m']);
    return [
      { id: `${id} module`, parser: 'module' as const, args: [main.command[2]] },
      { id, parser, args: main.args.map(received) },
    ];
  });
}

for (const r of RELEASES) {
  describeWhen(`rendered Dynamo ${r.dynamo} frontends and vLLM workers, parsed by ai-dynamo ${r.dynamo} with vLLM ${r.vllm}`, testEnvsSupport(r.vllmEnv), `${r.vllmTool} tool environment`, () => {
    let services: Record<string, any>;
    beforeAll(() => {
      services = dynamoServices(r.dynamo);
    });

    test('every frontend command runs a module and every frontend argument list passes dynamo.frontend\'s parser', async () => {
      const frontends = Object.entries(services).filter(([, s]) => s.type === 'frontend');
      expectAccepted(await parse(r.vllmEnv.value!, serviceCases(frontends, 'frontend')));
    });

    test('every vLLM worker, aggregated, prefill and decode, passes dynamo.vllm\'s whole parser (Dynamo\'s checks and vLLM\'s)', async () => {
      const found = workers(services, 'vllm');
      expect(found.some(([, s]) => s.type === 'prefill')).toBe(true);
      const results = await parse(r.vllmEnv.value!, serviceCases(found, 'dynamo-vllm'));
      expectAccepted(results);
      // With the kv router the workers publish KV events from the config we render. Dynamo 1.0.1 also
      // made one up for the other router modes, warning that this is deprecated; later releases do not
      // (1.6.1: dynamo/vllm/args.py, create_kv_events_config), and warn of nothing we render.
      for (const [id] of found.filter(([key]) => key.includes('/kv '))) expect({ id, deprecations: results[id].deprecations }).toEqual({ id, deprecations: [] });
      const automatic = found.filter(([key, s]) => key.includes('/none ') && s.type !== 'decode');
      expect(automatic.length).toBeGreaterThan(0);
      if (r.dynamo === '1.0.1') {
        for (const [id] of automatic) expect(results[id].deprecations!.join('\n')).toMatch(/Automatic KV events configuration is deprecated/);
      } else {
        for (const [id] of found) expect({ id, deprecations: results[id].deprecations }).toEqual({ id, deprecations: [] });
      }
    });

    test('the checks can fail: what Dynamo or vLLM refuses is reported with the parser\'s message', async () => {
      const results = await parse(r.vllmEnv.value!, [
        { id: 'bad mode', parser: 'frontend', args: ['--http-port', '8000', '--router-mode', 'fastest'] },
        { id: 'unknown frontend flag', parser: 'frontend', args: ['--http-port', '8000', '--no-such-flag'] },
        { id: 'no module', parser: 'module', args: ['dynamo.nothing'] },
        { id: 'unknown engine flag', parser: 'dynamo-vllm', args: ['--model', 'Qwen/Qwen3-8B', '--no-such-flag', '1'] },
        { id: 'prefill without KV transfer', parser: 'dynamo-vllm', args: ['--model', 'Qwen/Qwen3-8B', '--disaggregation-mode', 'prefill'] },
        { id: 'bad number', parser: 'dynamo-vllm', args: ['--model', 'Qwen/Qwen3-8B', '--max-model-len', 'lots'] },
      ]);
      expect(results['bad mode'].error).toMatch(/^exit 2: dynamo\.frontend: error: argument --router-mode: invalid choice: 'fastest' \(choose from 'round-robin', 'random', .*'kv'/);
      expect(results['unknown frontend flag'].error).toBe("exit 1: Unknown arguments specified: ['--no-such-flag']");
      expect(results['no module'].ok).toBe(false);
      expect(results['unknown engine flag'].error).toMatch(/unrecognized arguments: --no-such-flag/);
      expect(results['prefill without KV transfer'].error).toMatch(/you must explicitly provide --kv-transfer-config/);
      expect(results['bad number'].error).toMatch(/--max-model-len/);
    });
  });

  describeWhen(`rendered Dynamo ${r.dynamo} SGLang workers, parsed by ai-dynamo ${r.dynamo} with SGLang ${r.sglang}`, testEnvsSupport(r.sglangEnv), `${r.sglangTool} tool environment`, () => {
    test('every SGLang worker, aggregated, prefill and decode, passes dynamo.sglang\'s whole parser up to the model download', async () => {
      const found = workers(dynamoServices(r.dynamo), 'sglang');
      expect(found.some(([, s]) => s.type === 'prefill')).toBe(true);
      expectAccepted(await parse(r.sglangEnv.value!, serviceCases(found, 'dynamo-sglang')));
    });

    test('the check can fail: an argument SGLang does not know, or a bad value, is reported with its parser\'s message', async () => {
      const results = await parse(r.sglangEnv.value!, [
        { id: 'unknown', parser: 'dynamo-sglang', args: ['--model-path', 'Qwen/Qwen3-8B', '--no-such-flag'] },
        { id: 'bad choice', parser: 'dynamo-sglang', args: ['--model-path', 'Qwen/Qwen3-8B', '--disaggregation-mode', 'both'] },
      ]);
      expect(results.unknown.error).toMatch(/unrecognized arguments: --no-such-flag/);
      expect(results['bad choice'].error).toMatch(/argument --disaggregation-mode: invalid choice: 'both'/);
    });
  });
}

/**
 * The vLLM releases KAITO's vLLM options are parsed by: KAITO v0.12.0's preset image carries vLLM 0.26.0
 * (its supported_models.yaml tag history), which no tool environment has; 0.29.0 (Ray 2.60's `ray[llm]` pin)
 * is the nearest above it, 0.16.0 the nearest below, and 0.31.0 the newest.
 */
const KAITO_VLLMS = [
  { vllm: '0.31.0', tool: 'ai-dynamo-vllm-1.6.1' },
  { vllm: '0.29.0', tool: 'ray-llm' },
  { vllm: '0.16.0', tool: 'ai-dynamo-vllm' },
].map((v) => ({ ...v, env: toolEnv(v.tool) }));

for (const v of KAITO_VLLMS) {
  describeWhen(`KAITO vLLM inference configs, read as KAITO's inference_api.py reads them and parsed by vLLM ${v.vllm}`, testEnvsSupport(v.env), `${v.tool} tool environment`, () => {
    const KAITO: ModelDeploymentProps = {
      model: { id: 'microsoft/Phi-4-mini-instruct' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
      provider: { name: 'kaito', overrides: KAITO_GPU_NODE },
    };
    const configOf = (props: ModelDeploymentProps) => render(props).objects.find((o) => o.kind === 'ConfigMap').data['inference_config.yaml'];

    test('every rendered option reaches vLLM as written, and vLLM\'s server parser accepts it', async () => {
      const args = { 'gpu-memory-utilization': '0.85', 'max-num-seqs': '64', 'dtype': 'float16', 'quantization': 'awq', 'tensor-parallel-size': '1' };
      const cases: Case[] = [
        { id: 'options', parser: 'kaito-vllm', args: [configOf({ ...KAITO, model: { id: KAITO.model.id, servedName: 'phi' }, engine: { type: 'vllm', contextLength: 8192, args } })] },
        // YAML 1.1 readers would turn these names into booleans, numbers or sexagesimals; vLLM must see the text.
        ...['yes', 'on', 'NO', '1_000', '1:20', '0x10', '~', 'a=b'].map((name) => (
          { id: `servedName ${name}`, parser: 'kaito-vllm' as const, args: [configOf({ ...KAITO, model: { id: KAITO.model.id, servedName: name } })] })),
        ...exampleObjects('ConfigMap').filter((c) => c.data?.['inference_config.yaml'])
          .map((c) => ({ id: `example-app ${c.metadata.name}`, parser: 'kaito-vllm' as const, args: [c.data['inference_config.yaml']] })),
      ];
      const results = await parse(v.env.value!, cases);
      expectAccepted(results);
      expect(results.options.values).toEqual({
        'dtype': 'float16',
        'gpu-memory-utilization': 0.85,
        'max-model-len': 8192,
        'max-num-seqs': 64,
        'quantization': 'awq',
        'served-model-name': ['phi'],
        'tensor-parallel-size': 1,
      });
      for (const name of ['yes', 'on', 'NO', '1_000', '1:20', '0x10', '~', 'a=b']) {
        expect(results[`servedName ${name}`].values).toEqual({ 'served-model-name': [name] });
      }
    });

    test('why synth refuses switches for KAITO: vLLM reads "--flag True" and "--flag False" wrongly or exits', async () => {
      const results = await parse(v.env.value!, [
        { id: 'one switch', parser: 'kaito-vllm', args: ['vllm:\n  trust-remote-code: true\n'] },
        { id: 'false', parser: 'kaito-vllm', args: ['vllm:\n  enforce-eager: false\n'] },
        { id: 'two switches', parser: 'kaito-vllm', args: ['vllm:\n  enforce-eager: true\n  trust-remote-code: true\n'] },
        { id: 'unknown', parser: 'kaito-vllm', args: ['vllm:\n  no-such-option: "1"\n'] },
      ]);
      // The value after a switch is not the switch's: it lands in vllm serve's positional model argument…
      expect(results['one switch'].values).toEqual({ 'trust-remote-code': true, 'model_tag': 'True' });
      // …so "false" turns the switch on…
      expect(results.false.values).toEqual({ 'enforce-eager': true, 'model_tag': 'False' });
      // …and a second switch leaves a value nothing takes.
      expect(results['two switches'].error).toBe('exit 2: runtime_args_check.py: error: unrecognized arguments: True');
      expect(results.unknown.error).toBe('exit 2: runtime_args_check.py: error: unrecognized arguments: --no-such-option');
      // Synth refuses all of these for KAITO, naming the field.
      for (const args of [{ 'enforce-eager': 'false' }, { 'enforce-eager': 'true' }, { 'enforce-eager': '' }]) {
        expect(problemsOf(() => render({ ...KAITO, engine: { type: 'vllm', args } })).map((p) => p.field)).toEqual(['engine.args.enforce-eager']);
      }
      expect(problemsOf(() => render({ ...KAITO, engine: { type: 'vllm', trustRemoteCode: true } })).map((p) => p.field)).toEqual(['engine.trustRemoteCode']);
    });
  });
}
