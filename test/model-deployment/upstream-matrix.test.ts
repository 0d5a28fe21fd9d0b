// Every combination of provider (and the upstream release or API version it targets), engine, serving
// mode and replica count either renders objects that pass the vendored CRD schemas and upstream's own
// admission code where it runs here (render() in helpers.ts checks both), or fails synth with problems
// naming fields: never a crash, never an object upstream refuses.
import { GPU_VLLM, KAITO_CPU_NODE, KAITO_GPU_NODE, problemsOf, render } from './helpers';
import { BuiltInProviderOptions, ModelDeploymentProps, ProviderSpec, ProviderRegistry } from '../../src/model-deployment';
import { ENGINE_TYPES, SERVING_MODES } from '../../src/model-deployment/types';

interface Target {
  readonly label: string;
  readonly provider: 'kaito' | 'dynamo' | 'kuberay';
  readonly options: BuiltInProviderOptions;
  readonly overrides: (gpu: boolean) => Record<string, unknown>;
}

const kaitoNode = (gpu: boolean) => (gpu ? KAITO_GPU_NODE : KAITO_CPU_NODE);
const TARGETS: readonly Target[] = [
  { label: 'KAITO kaito.sh/v1beta1, node auto-provisioning', provider: 'kaito', options: {}, overrides: kaitoNode },
  { label: 'KAITO kaito.sh/v1beta1, bring-your-own nodes', provider: 'kaito', options: { kaito: { nodeProvisioning: 'bring-your-own' } }, overrides: () => ({}) },
  { label: 'KAITO kaito.sh/v1alpha1, node auto-provisioning', provider: 'kaito', options: { kaito: { apiVersion: 'kaito.sh/v1alpha1' } }, overrides: kaitoNode },
  { label: 'Dynamo 1.6.1, operator 1.6, nvidia.com/v1beta1', provider: 'dynamo', options: {}, overrides: () => ({}) },
  { label: 'Dynamo 1.6.1, operator 1.6, router kv', provider: 'dynamo', options: {}, overrides: () => ({ routerMode: 'kv' }) },
  { label: 'Dynamo 1.0.1, operator 1.6, nvidia.com/v1beta1', provider: 'dynamo', options: { dynamo: { version: '1.0.1' } }, overrides: () => ({}) },
  { label: 'Dynamo 1.6.1, operator 1.1, nvidia.com/v1alpha1', provider: 'dynamo', options: { dynamo: { operatorVersion: '1.1' } }, overrides: () => ({}) },
  { label: 'KubeRay, Ray 2.60.0', provider: 'kuberay', options: {}, overrides: () => ({}) },
];

function spec(target: Target, engine: (typeof ENGINE_TYPES)[number], mode: (typeof SERVING_MODES)[number], replicas: number): ModelDeploymentProps {
  const gpu = engine !== 'llamacpp' || mode === 'disaggregated';
  const llamacpp = engine === 'llamacpp'
    ? { model: { id: 'google/gemma-3-1b-it-qat-q8_0-gguf' }, image: 'ghcr.io/sozercan/llama-cpp-runner:latest' }
    : { model: GPU_VLLM.model };
  const ggufFile = engine === 'llamacpp' && target.provider === 'kaito' ? { ggufFile: 'gemma-3-1b-it-q8_0.gguf' } : {};
  const sizing = mode === 'disaggregated'
    ? { serving: { mode }, scaling: { prefill: { replicas, gpu: { count: 1 } }, decode: { replicas, gpu: { count: 2 } } } }
    : { scaling: { replicas }, resources: gpu ? { gpu: { count: 1 }, memory: '32Gi' } : { memory: '8Gi' } };
  return {
    ...llamacpp,
    engine: { type: engine, contextLength: 8192 },
    ...sizing,
    provider: { name: target.provider, overrides: { ...target.overrides(gpu), ...ggufFile } } as ProviderSpec,
    providers: ProviderRegistry.builtIn(target.options),
  };
}

const CASES = TARGETS.flatMap((target) => ENGINE_TYPES.flatMap((engine) => SERVING_MODES.flatMap((mode) =>
  [1, 3].map((replicas) => [target.label, engine, mode, replicas, target] as const))));

describe('provider × engine × serving mode × replicas × upstream version', () => {
  test.each(CASES)('%s: %s %s, %d replica(s)', (_, engine, mode, replicas, target) => {
    const props = spec(target, engine, mode, replicas);
    const provider = props.providers!.get(target.provider)!;
    const supported = provider.capabilities.engines.includes(engine) && provider.capabilities.servingModes.includes(mode);
    if (supported) {
      const { objects } = render(props);
      expect(objects.length).toBeGreaterThan(0);
    } else {
      const problems = problemsOf(() => render(props));
      expect(problems.length).toBeGreaterThan(0);
      for (const p of problems) expect(p.field).toMatch(/^(engine\.type|serving\.mode|[a-z][A-Za-z.]*)$/);
    }
  });
});
