import { dynamoComponents, dynamoMain, GPU_VLLM, problemsFor, render } from './helpers';
import { checkOverrides, DYNAMO_OVERRIDES, DynamoOverrides, KUBERAY_OVERRIDES, overrideValue } from '../../src/model-deployment';

describe('provider.overrides (seed 003 §4.15)', () => {
  test('the documented keys and defaults of Dynamo and KubeRay', () => {
    expect(DYNAMO_OVERRIDES.routerMode).toMatchObject({ type: 'string', enum: ['kv', 'round-robin', 'random', 'none'], default: 'round-robin' });
    expect(DYNAMO_OVERRIDES.frontend.properties).toMatchObject({
      replicas: { type: 'integer', default: 1 },
      resources: { properties: { cpu: { type: 'string', default: '2' }, memory: { type: 'string', default: '4Gi' } } },
    });
    expect(KUBERAY_OVERRIDES.head.properties).toMatchObject({
      resources: { properties: { cpu: { default: '2' }, memory: { default: '4Gi' } } },
      rayStartParams: { type: 'stringMap', default: {} },
    });
  });

  test('unknown keys at any depth are warnings naming the path; the rest still applies', () => {
    const { warnings, resource } = render({
      ...GPU_VLLM,
      provider: { name: 'dynamo', overrides: { routerMode: 'kv', routermode: 'kv', frontend: { replicsa: 2, resources: { cpu: '3', gpu: '1' } } } as DynamoOverrides },
    });
    expect(warnings).toEqual([
      'provider.overrides.routermode: unknown override key for the dynamo provider, ignored (known keys here: routerMode, frontend, prefill, decode, runtimeVersionOverride)',
      'provider.overrides.frontend.replicsa: unknown override key for the dynamo provider, ignored (known keys here: replicas, resources)',
      'provider.overrides.frontend.resources.gpu: unknown override key for the dynamo provider, ignored (known keys here: cpu, memory)',
    ]);
    // Names Object.prototype holds are unknown keys like any other.
    const inherited = render({ ...GPU_VLLM, provider: { name: 'dynamo', overrides: { toString: 'x', valueOf: 1, frontend: { constructor: 2 } } as DynamoOverrides } });
    expect(inherited.warnings).toEqual([
      'provider.overrides.toString: unknown override key for the dynamo provider, ignored (known keys here: routerMode, frontend, prefill, decode, runtimeVersionOverride)',
      'provider.overrides.valueOf: unknown override key for the dynamo provider, ignored (known keys here: routerMode, frontend, prefill, decode, runtimeVersionOverride)',
      'provider.overrides.frontend.constructor: unknown override key for the dynamo provider, ignored (known keys here: replicas, resources)',
    ]);
    const frontend = dynamoComponents(resource).Frontend;
    expect(frontend.replicas).toBe(1);
    expect(dynamoMain(frontend).resources.requests).toEqual({ cpu: '3', memory: '4Gi' });
  });

  test('wrong types fail synth naming the path and the expected type', () => {
    expect(problemsFor({ ...GPU_VLLM, provider: { name: 'dynamo', overrides: { routerMode: 1, frontend: 'big' } as any } })).toEqual([
      { field: 'provider.overrides.routerMode', message: 'expected one of kv, round-robin, random, none, got number 1' },
      { field: 'provider.overrides.frontend', message: 'expected map, got string "big"' },
    ]);
    expect(problemsFor({ ...GPU_VLLM, provider: { name: 'dynamo', overrides: { frontend: { replicas: 0 } } } })).toEqual([
      { field: 'provider.overrides.frontend.replicas', message: 'expected integer >= 1, got number 0' },
    ]);
    expect(problemsFor({ ...GPU_VLLM, provider: { name: 'dynamo', overrides: [] as any } })).toEqual([
      { field: 'provider.overrides', message: 'expected a map of provider-specific settings' },
    ]);
  });

  test('overrides are checked against the selected provider, also when it was auto-selected', () => {
    const { warnings } = render({ ...GPU_VLLM, provider: { overrides: { head: { resources: { cpu: '4' } } } } });
    expect(warnings).toEqual(['provider.overrides.head: unknown override key for the dynamo provider, ignored (known keys here: routerMode, frontend, prefill, decode, runtimeVersionOverride)']);
  });

  test('checkOverrides and overrideValue are usable on their own', () => {
    expect(checkOverrides('kuberay', KUBERAY_OVERRIDES, { head: { rayStartParams: { 'num-gpus': '0' } } }, 'x')).toEqual({ problems: [], warnings: [] });
    expect(checkOverrides('kuberay', KUBERAY_OVERRIDES, undefined)).toEqual({ problems: [], warnings: [] });
    expect(overrideValue({ head: { resources: { cpu: '4' } } }, ['head', 'resources', 'cpu'])).toBe('4');
    expect(overrideValue({ head: 'x' }, ['head', 'resources'])).toBeUndefined();
  });
});
