import { problemsFor, render } from './helpers';
import { ModelDeploymentProps, ProviderRegistry } from '../../src/model-deployment';

const AGG: ModelDeploymentProps = {
  model: { id: 'Qwen/Qwen3-8B' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1 }, memory: '32Gi', cpu: '8' },
};
const DISAGG: ModelDeploymentProps = {
  model: { id: 'Qwen/Qwen3-32B' },
  engine: { type: 'sglang', contextLength: 32768 },
  serving: { mode: 'disaggregated' },
  scaling: { prefill: { replicas: 1, gpu: { count: 2 }, memory: '96Gi', cpu: '16' }, decode: { replicas: 3, gpu: { count: 1 } } },
};
const services = (props: ModelDeploymentProps) => render(props).resource.spec.services;

describe('Dynamo DynamoGraphDeployment (nvidia.com/v1alpha1)', () => {
  test('aggregated: a frontend and one worker, resources in Dynamo\'s shape (GPU count as a string)', () => {
    const s = services(AGG);
    expect(Object.keys(s)).toEqual(['Frontend', 'VllmWorker']);
    expect(s.VllmWorker.resources).toEqual({ requests: { cpu: '8', memory: '32Gi' }, limits: { gpu: '1', memory: '32Gi' } });
    expect(s.VllmWorker.subComponentType).toBeUndefined();
  });

  test('disaggregated: prefill and decode workers with subComponentType and --disaggregation-mode', () => {
    const s = services(DISAGG);
    expect(Object.keys(s).sort()).toEqual(['Frontend', 'SglangDecodeWorker', 'SglangPrefillWorker']);
    expect(s.SglangPrefillWorker).toMatchObject({
      componentType: 'worker',
      subComponentType: 'prefill',
      replicas: 1,
      resources: { requests: { cpu: '16', memory: '96Gi' }, limits: { gpu: '2', memory: '96Gi' } },
    });
    expect(s.SglangDecodeWorker).toMatchObject({ componentType: 'worker', subComponentType: 'decode', replicas: 3, resources: { limits: { gpu: '1' } } });
    expect(s.SglangPrefillWorker.extraPodSpec.mainContainer).toEqual({
      image: 'nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.1',
      command: ['python3', '-m', 'dynamo.sglang'],
      args: ['--model-path', 'Qwen/Qwen3-32B', '--disaggregation-mode', 'prefill', '--tp-size', '2', '--context-length', '32768'],
    });
    expect(s.SglangDecodeWorker.extraPodSpec.mainContainer.args).toEqual(['--model-path', 'Qwen/Qwen3-32B', '--disaggregation-mode', 'decode', '--context-length', '32768']);
  });

  test.each([
    [undefined, ['--http-port', '8000', '--router-mode', 'round-robin']],
    ['kv', ['--http-port', '8000', '--router-mode', 'kv']],
    ['random', ['--http-port', '8000', '--router-mode', 'random']],
    ['none', ['--http-port', '8000']],
  ])('routerMode %s becomes a frontend argument, never an unknown field', (routerMode, args) => {
    const s = services({ ...AGG, provider: { name: 'dynamo', overrides: routerMode ? { routerMode } : {} } });
    expect(s.Frontend.extraPodSpec.mainContainer.command).toEqual(['python3', '-m', 'dynamo.frontend']);
    expect(s.Frontend.extraPodSpec.mainContainer.args).toEqual(args);
    expect(Object.keys(s.Frontend)).not.toContain('routerMode');
  });

  test('frontend replicas and resources: seed defaults, overridable', () => {
    expect(services(AGG).Frontend).toMatchObject({ componentType: 'frontend', replicas: 1, resources: { requests: { cpu: '2', memory: '4Gi' } } });
    const s = services({ ...AGG, provider: { overrides: { frontend: { replicas: 3, resources: { memory: '8Gi' } } } } });
    expect(s.Frontend).toMatchObject({ replicas: 3, resources: { requests: { cpu: '2', memory: '8Gi' } } });
  });

  test.each([
    ['vllm', 'vllm-runtime', 'dynamo.vllm', '--model'],
    ['sglang', 'sglang-runtime', 'dynamo.sglang', '--model-path'],
    ['trtllm', 'tensorrtllm-runtime', 'dynamo.trtllm', '--model-path'],
  ] as const)('%s: default image %s, module %s, model flag %s', (engine, image, module, modelFlag) => {
    const { resource } = render({ ...AGG, engine: { type: engine } });
    expect(resource.spec.backendFramework).toBe(engine);
    const main = resource.spec.services[`${engine[0].toUpperCase()}${engine.slice(1)}Worker`].extraPodSpec.mainContainer;
    expect(main.image).toBe(`nvcr.io/nvidia/ai-dynamo/${image}:1.0.1`);
    expect(main.command).toEqual(['python3', '-m', module]);
    expect(main.args.slice(0, 2)).toEqual([modelFlag, 'Qwen/Qwen3-8B']);
  });

  test('the Dynamo version of the default images is configurable; image overrides all components', () => {
    const providers = ProviderRegistry.builtIn({ dynamo: { version: '0.7.1' } });
    const s = render({ ...AGG, providers }).resource.spec.services;
    expect(s.Frontend.extraPodSpec.mainContainer.image).toBe('nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1');
    const custom = services({ ...AGG, image: 'registry.example.com/dynamo/vllm:dev' });
    expect([custom.Frontend, custom.VllmWorker].map((c: any) => c.extraPodSpec.mainContainer.image)).toEqual(['registry.example.com/dynamo/vllm:dev', 'registry.example.com/dynamo/vllm:dev']);
  });

  test('engine flags: served name, tensor parallelism over the GPUs, context length, trust-remote-code, sorted args', () => {
    const s = services({
      ...AGG,
      model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen' },
      resources: { gpu: { count: 4 } },
      engine: { type: 'vllm', contextLength: 4096, trustRemoteCode: true, args: { 'quantization': 'fp8', 'enforce-eager': '', 'gpu-memory-utilization': '0.9' } },
    });
    expect(s.VllmWorker.extraPodSpec.mainContainer.args).toEqual([
      '--model', 'Qwen/Qwen3-8B', '--served-model-name', 'qwen', '--tensor-parallel-size', '4',
      '--max-model-len', '4096', '--trust-remote-code', '--enforce-eager', '--gpu-memory-utilization', '0.9', '--quantization', 'fp8',
    ]);
    // The user's own tensor parallelism wins.
    const own = services({ ...AGG, resources: { gpu: { count: 4 } }, engine: { type: 'vllm', args: { 'tensor-parallel-size': '2' } } });
    expect(own.VllmWorker.extraPodSpec.mainContainer.args).toEqual(['--model', 'Qwen/Qwen3-8B', '--tensor-parallel-size', '2']);
  });

  test('trtllm ignores the context length (with a warning)', () => {
    const { resource, warnings } = render({ ...AGG, engine: { type: 'trtllm', contextLength: 8192 } });
    expect(resource.spec.services.TrtllmWorker.extraPodSpec.mainContainer.args).toEqual(['--model-path', 'Qwen/Qwen3-8B']);
    expect(warnings).toHaveLength(1);
  });

  test('HF token as envFromSecret, env, pod metadata, node selector and tolerations on every component', () => {
    const s = services({
      ...AGG,
      secrets: { huggingFaceToken: 'hf-token' },
      env: [{ name: 'VLLM_LOGGING_LEVEL', value: 'DEBUG' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      podTemplate: { metadata: { labels: { team: 'ml' }, annotations: { 'sidecar.istio.io/inject': 'false' } } },
      nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    });
    for (const c of [s.Frontend, s.VllmWorker]) {
      expect(c.envFromSecret).toBe('hf-token');
      expect(c.envs).toEqual([{ name: 'VLLM_LOGGING_LEVEL', value: 'DEBUG' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }]);
      expect(c.extraPodMetadata).toEqual({ labels: { 'team': 'ml', 'kube-inference.io/model-deployment': 'md' }, annotations: { 'sidecar.istio.io/inject': 'false' } });
      expect(c.extraPodSpec.nodeSelector).toEqual({ 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' });
      expect(c.extraPodSpec.tolerations).toEqual([{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    }
  });

  test('a non-NVIDIA GPU type goes under resources.limits.custom', () => {
    const s = services({ ...AGG, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } });
    expect(s.VllmWorker.resources.limits).toEqual({ custom: { 'amd.com/gpu': '1' } });
  });

  test('scale to zero keeps the frontend and sets the worker to 0 replicas', () => {
    expect(services({ ...AGG, scaling: { replicas: 0 } }).VllmWorker.replicas).toBe(0);
  });

  test('wrong override types fail naming the path and type; bad quantities too', () => {
    expect(problemsFor({ ...AGG, provider: { name: 'dynamo', overrides: { routerMode: 'fastest', frontend: { replicas: '2', resources: { cpu: 'two' } } } } })).toEqual([
      { field: 'provider.overrides.frontend.resources.cpu', message: '"two" is not a Kubernetes quantity such as "2" or "4Gi"' },
      { field: 'provider.overrides.routerMode', message: 'expected one of kv, round-robin, random, none, got string "fastest"' },
      { field: 'provider.overrides.frontend.replicas', message: 'expected integer, got string "2"' },
    ]);
  });

  test('an unknown apiVersion has no transformer', () => {
    expect(() => ProviderRegistry.builtIn({ dynamo: { apiVersion: 'nvidia.com/v1beta1' } }))
      .toThrow('Dynamo apiVersion "nvidia.com/v1beta1" has no transformer; supported: nvidia.com/v1alpha1');
  });
});
