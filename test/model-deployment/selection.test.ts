import { KAITO_CPU_NODE, problemsFor, render } from './helpers';
import { ModelDeploymentProps, ProviderRegistry, resolveSpec, selectProvider } from '../../src/model-deployment';

const select = (spec: ModelDeploymentProps) => selectProvider(resolveSpec(spec, 'md'), ProviderRegistry.builtIn());

// Seed 003 §4.4, branch by branch, with its reasons.
describe('provider selection without provider.name (seed 003 §4.4)', () => {
  test.each<[string, ModelDeploymentProps, string, string]>([
    ['gpu.count 0', { model: { id: 'o/m' }, engine: { type: 'llamacpp' }, resources: { gpu: { count: 0 } } }, 'kaito', 'no GPU requested → kaito (only CPU provider)'],
    ['resources.gpu omitted', { model: { id: 'o/m' }, engine: { type: 'llamacpp' } }, 'kaito', 'no GPU requested → kaito (only CPU provider)'],
    ['resources omitted, vLLM (the rule does not look at the engine)', { model: { id: 'o/m' }, engine: { type: 'vllm' } }, 'kaito', 'no GPU requested → kaito (only CPU provider)'],
    ['engine trtllm', { model: { id: 'o/m' }, engine: { type: 'trtllm' }, resources: { gpu: { count: 1 } } }, 'dynamo', 'engine=trtllm → dynamo (only trtllm provider)'],
    ['engine sglang', { model: { id: 'o/m' }, engine: { type: 'sglang' }, resources: { gpu: { count: 1 } } }, 'dynamo', 'engine=sglang → dynamo (only sglang provider)'],
    ['engine llamacpp with a GPU', { model: { id: 'o/m' }, engine: { type: 'llamacpp' }, resources: { gpu: { count: 1 } } }, 'kaito', 'engine=llamacpp → kaito (only llamacpp provider)'],
    ['mode disaggregated', {
      model: { id: 'o/m' },
      engine: { type: 'vllm' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } },
    }, 'dynamo', 'mode=disaggregated → dynamo (best disaggregated support)'],
    ['engine sglang beats mode disaggregated (earlier branch)', {
      model: { id: 'o/m' },
      engine: { type: 'sglang' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } },
    }, 'dynamo', 'engine=sglang → dynamo (only sglang provider)'],
    ['engine llamacpp beats mode disaggregated (earlier branch)', {
      model: { id: 'o/m' },
      engine: { type: 'llamacpp' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } },
    }, 'kaito', 'engine=llamacpp → kaito (only llamacpp provider)'],
    ['default: vLLM on GPUs', { model: { id: 'o/m' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } } }, 'dynamo', 'default → dynamo (GPU inference default)'],
  ])('%s → %s', (_, spec, provider, reason) => {
    const { selection, problem, warnings } = select(spec);
    expect(problem).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(selection).toMatchObject({ reason, explicit: false });
    expect(selection!.provider.name).toBe(provider);
  });

  test('KubeRay is never auto-selected: it has no selection rules', () => {
    expect(ProviderRegistry.builtIn().get('kuberay')!.selectionRules).toEqual([]);
    // Even when it would be the only provider.
    const onlyRay = new ProviderRegistry([ProviderRegistry.builtIn().get('kuberay')!]);
    const { selection, problem } = selectProvider(resolveSpec({ model: { id: 'o/m' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } }, 'md'), onlyRay);
    expect(selection).toBeUndefined();
    expect(problem).toEqual({ field: 'provider.name', message: "no registered provider's selection rules match this spec; set provider.name to one of: kuberay" });
  });

  test('provider.name selects explicitly, recorded as "explicit provider selection"', () => {
    const { selection } = select({ model: { id: 'o/m' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, provider: { name: 'kuberay' } });
    expect(selection!.provider.name).toBe('kuberay');
    expect(selection).toMatchObject({ reason: 'explicit provider selection', explicit: true });
  });

  test('an unknown provider.name lists the registered providers', () => {
    expect(problemsFor({ model: { id: 'o/m' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, provider: { name: 'kserve' } as any }))
      .toEqual([{ field: 'provider.name', message: "unknown provider 'kserve'; registered providers: dynamo, kaito, kuberay" }]);
  });

  test('the selected provider and its reason are recorded on the rendered resource', () => {
    for (const [spec, provider, reason] of [
      [{ model: { id: 'o/m' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } }, 'dynamo', 'default → dynamo (GPU inference default)'],
      [{ model: { id: 'o/m-gguf' }, engine: { type: 'llamacpp' }, image: 'runner:1', provider: { overrides: { ...KAITO_CPU_NODE, ggufFile: 'm.gguf' } } }, 'kaito', 'no GPU requested → kaito (only CPU provider)'],
      [{ model: { id: 'o/m' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, provider: { name: 'kuberay' } }, 'kuberay', 'explicit provider selection'],
    ] as [ModelDeploymentProps, string, string][]) {
      const { resource, construct } = render(spec);
      expect(resource.metadata.annotations).toEqual({ 'kube-inference.io/provider': provider, 'kube-inference.io/selection-reason': reason });
      expect(resource.metadata.labels['kube-inference.io/provider']).toBe(provider);
      expect(construct.provider.name).toBe(provider);
      expect(construct.selectionReason).toBe(reason);
    }
  });
});
