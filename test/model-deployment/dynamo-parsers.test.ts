/**
 * What the Dynamo provider renders, parsed by Dynamo's own argument parsers (ai-dynamo 1.0.1, the
 * default runtime release, from the `ai-dynamo` tool environment of
 * scripts/test-setup/llama-stack-envs.mjs), in-process by test/model-deployment/dynamo_args_check.py:
 *   - every frontend command and argument list, by `dynamo.frontend.main.parse_args` (the whole
 *     frontend parser: it rejects unknown arguments);
 *   - the Dynamo-specific part of the vLLM and SGLang worker parsers (the runtime and backend arg
 *     groups and their validation). The engine flags after them go to vLLM's or SGLang's own
 *     parser, which needs the engine installed (torch and CUDA wheels), so they are not checked
 *     here; the TensorRT-LLM worker's Dynamo arg group imports tensorrt_llm, so it is not either.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { render } from './helpers';
import { ModelDeploymentProps } from '../../src/model-deployment';
import { describeWhen } from '../sandbox/host';
import { testEnvsSupport, toolEnv } from '../sandbox/test-envs';

const dynamo = toolEnv('ai-dynamo');
const CHECK = path.join(__dirname, 'dynamo_args_check.py');
const EXAMPLE_APP = path.join(__dirname, '..', '..', 'examples', 'model-deployment-app', 'dist', 'models.k8s.yaml');

interface Case { readonly id: string; readonly parser: 'module' | 'frontend' | 'vllm-dynamo' | 'sglang-dynamo'; readonly args: readonly string[] }
interface Result { readonly id: string; readonly ok: boolean; readonly error: string | null; readonly unknown: string[] | null }

/** Runs the cases through Dynamo's parsers in one Python process. */
function parse(cases: readonly Case[]): Record<string, Result> {
  const out = execFileSync(dynamo.value!.python, [CHECK], { input: JSON.stringify(cases), encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
  return Object.fromEntries((JSON.parse(out) as Result[]).map((r) => [r.id, r]));
}

/** A container argument as the program receives it: Kubernetes turns the `$$` we write back into `$`. */
const received = (arg: string) => arg.replace(/\$\$/g, '$');

/** The rendered services of every deployment, by `<deployment> <service>`. */
function servicesOf(byName: Record<string, any>): Record<string, any> {
  const all: Record<string, any> = {};
  for (const [name, dgd] of Object.entries(byName)) {
    for (const [key, service] of Object.entries<any>(dgd.spec.services)) all[`${name} ${key}`] = service;
  }
  return all;
}

const BASE: ModelDeploymentProps = { model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen' }, engine: { type: 'vllm' } };
const DISAGG: Partial<ModelDeploymentProps> = {
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { replicas: 1, gpu: { count: 2 } }, decode: { replicas: 2, gpu: { count: 1 } } },
};

/** Every engine, serving mode and router mode, plus the example app's Dynamo deployments. */
function deployments(): Record<string, any> {
  const all: Record<string, any> = {};
  for (const engine of ['vllm', 'sglang', 'trtllm'] as const) {
    for (const mode of ['aggregated', 'disaggregated'] as const) {
      for (const routerMode of ['kv', 'round-robin', 'random', 'none']) {
        const props: ModelDeploymentProps = {
          ...BASE,
          ...(mode === 'disaggregated' ? DISAGG : { resources: { gpu: { count: 2 } } }),
          engine: { type: engine, contextLength: 4096 },
          provider: { name: 'dynamo', overrides: { routerMode, frontend: { replicas: 2 } } },
        };
        all[`${engine}/${mode}/${routerMode}`] = render(props).resource;
      }
    }
  }
  const example = parseAllDocuments(fs.readFileSync(EXAMPLE_APP, 'utf8')).map((d) => d.toJS()).filter((o) => o?.kind === 'DynamoGraphDeployment');
  expect(example.length).toBeGreaterThan(0);
  for (const dgd of example) all[`example-app/${dgd.metadata.name}`] = dgd;
  return all;
}

describeWhen('rendered Dynamo arguments, parsed by ai-dynamo 1.0.1', testEnvsSupport(dynamo), 'ai-dynamo tool environment', () => {
  let services: Record<string, any>;
  beforeAll(() => {
    services = servicesOf(deployments());
  });

  test('every frontend command runs a module and every frontend argument list passes dynamo.frontend\'s parser', () => {
    const cases: Case[] = [];
    for (const [id, s] of Object.entries(services).filter(([, service]) => service.componentType === 'frontend')) {
      const main = s.extraPodSpec.mainContainer;
      expect(main.command.slice(0, 2)).toEqual(['python3', '-m']);
      cases.push({ id: `${id} module`, parser: 'module', args: [main.command[2]] });
      cases.push({ id, parser: 'frontend', args: main.args.map(received) });
    }
    const results = parse(cases);
    expect(Object.keys(results)).toHaveLength(cases.length);
    for (const c of cases) expect({ id: c.id, error: results[c.id].error }).toEqual({ id: c.id, error: null });
  });

  test('the check can fail: an argument Dynamo does not know is reported with the parser\'s message', () => {
    const results = parse([
      { id: 'bad mode', parser: 'frontend', args: ['--http-port', '8000', '--router-mode', 'fastest'] },
      { id: 'unknown', parser: 'frontend', args: ['--http-port', '8000', '--no-such-flag'] },
      { id: 'no module', parser: 'module', args: ['dynamo.nothing'] },
    ]);
    expect(results['bad mode'].error).toBe("exit 2: dynamo.frontend: error: argument --router-mode: invalid choice: 'fastest' (choose from 'round-robin', 'random', 'kv', 'direct')");
    expect(results.unknown.error).toBe("exit 1: Unknown arguments specified: ['--no-such-flag']");
    expect(results['no module'].ok).toBe(false);
  });

  test.each([['vllm', 'vllm-dynamo'], ['sglang', 'sglang-dynamo']] as const)(
    '%s workers: the Dynamo part of the worker parser accepts them; the rest is left to the engine\'s parser', (engine, parser) => {
      const workers = Object.entries(services).filter(([, s]) => s.componentType === 'worker' && s.extraPodSpec.mainContainer.command[2] === `dynamo.${engine}`);
      expect(workers.length).toBeGreaterThan(0);
      const cases: Case[] = workers.flatMap(([id, s]) => [
        { id: `${id} module`, parser: 'module' as const, args: [s.extraPodSpec.mainContainer.command[2]] },
        { id, parser, args: s.extraPodSpec.mainContainer.args.map(received) },
      ]);
      const results = parse(cases);
      for (const c of cases) expect({ id: c.id, error: results[c.id].error }).toEqual({ id: c.id, error: null });
      for (const [id, s] of workers) {
        const unknown = results[id].unknown!;
        if (engine === 'vllm') {
          // Dynamo's vLLM group owns --disaggregation-mode (and validated its value above).
          expect(unknown).not.toContain('--disaggregation-mode');
          if (s.subComponentType) expect(s.extraPodSpec.mainContainer.args).toContain('--disaggregation-mode');
        } else {
          // SGLang's own server arguments carry every flag rendered for SGLang, the role included.
          expect(unknown).toEqual(s.extraPodSpec.mainContainer.args);
        }
      }
    });
});
