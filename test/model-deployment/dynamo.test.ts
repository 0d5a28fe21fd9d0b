import { problemsFor, render } from './helpers';
import { DynamoOverrides, ModelDeploymentProps, ProviderRegistry } from '../../src/model-deployment';

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
    // NIXL transfer (SGLang defaults to mooncake), a fixed bootstrap port, listening on the pod
    // address: upstream examples/backends/sglang/deploy/disagg.yaml.
    const transfer = ['--disaggregation-bootstrap-port', '12345', '--disaggregation-transfer-backend', 'nixl', '--host', '0.0.0.0'];
    expect(s.SglangPrefillWorker.extraPodSpec.mainContainer).toEqual({
      image: 'nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.1',
      command: ['python3', '-m', 'dynamo.sglang'],
      args: ['--model-path', 'Qwen/Qwen3-32B', '--disaggregation-mode', 'prefill', '--tp-size', '2', '--context-length', '32768', ...transfer],
    });
    expect(s.SglangDecodeWorker.extraPodSpec.mainContainer.args).toEqual(['--model-path', 'Qwen/Qwen3-32B', '--disaggregation-mode', 'decode', '--context-length', '32768', ...transfer]);
  });

  test('vLLM disaggregated: both roles get the NIXL --kv-transfer-config (a prefill worker exits without it since Dynamo 1.0)', () => {
    const s = services({ ...DISAGG, engine: { type: 'vllm' } });
    for (const [key, role] of [['VllmPrefillWorker', 'prefill'], ['VllmDecodeWorker', 'decode']]) {
      expect(s[key].extraPodSpec.mainContainer.args).toEqual(['--model', 'Qwen/Qwen3-32B', '--disaggregation-mode', role,
        ...(role === 'prefill' ? ['--tensor-parallel-size', '2'] : []), '--kv-transfer-config', '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']);
    }
  });

  test('per-role args replace defaults and engine.args for that role only', () => {
    const s = services({
      ...DISAGG,
      engine: { type: 'vllm', args: { 'block-size': '16' } },
      provider: { overrides: { prefill: { args: { 'kv-transfer-config': '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}', 'block-size': '32' } }, decode: { args: { 'enforce-eager': '' } } } },
    });
    expect(s.VllmPrefillWorker.extraPodSpec.mainContainer.args.slice(4)).toEqual(['--tensor-parallel-size', '2', '--block-size', '32', '--kv-transfer-config', '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}']);
    expect(s.VllmDecodeWorker.extraPodSpec.mainContainer.args.slice(4)).toEqual(['--block-size', '16', '--enforce-eager', '--kv-transfer-config', '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']);
  });

  test('TensorRT-LLM disaggregated: a ConfigMap with one engine config per role, mounted and passed with --extra-engine-args', () => {
    const { objects, resource } = render({
      ...DISAGG,
      engine: { type: 'trtllm', contextLength: 8192 },
      provider: { overrides: { prefill: { engineConfig: { 'kv_cache_config.free_gpu_memory_fraction': '0.5', 'backend': 'pytorch' } }, decode: { engineConfig: { 'cache_transceiver_config.backend': 'NIXL', 'note': 'yes' } } } },
    });
    const configMap = objects.find((o) => o.kind === 'ConfigMap');
    expect(configMap.metadata.name).toBe('md-engine-config');
    // Required settings (upstream engine_configs/*/prefill.yaml, decode.yaml), then the user's;
    // "yes" stays a string for PyYAML.
    expect(configMap.data).toEqual({
      'prefill.yaml': 'backend: pytorch\ncache_transceiver_config:\n  backend: DEFAULT\ndisable_overlap_scheduler: true\nkv_cache_config:\n  free_gpu_memory_fraction: 0.5\n',
      'decode.yaml': 'cache_transceiver_config:\n  backend: NIXL\nnote: "yes"\n',
    });
    const s = resource.spec.services;
    for (const [key, role] of [['TrtllmPrefillWorker', 'prefill'], ['TrtllmDecodeWorker', 'decode']]) {
      const pod = s[key].extraPodSpec;
      expect(pod.volumes).toEqual([{ name: 'engine-config', configMap: { name: 'md-engine-config' } }]);
      expect(pod.mainContainer.volumeMounts).toEqual([{ name: 'engine-config', mountPath: '/etc/dynamo/engine', readOnly: true }]);
      expect(pod.mainContainer.args).toEqual(['--model-path', 'Qwen/Qwen3-32B', '--disaggregation-mode', role,
        ...(role === 'prefill' ? ['--tensor-parallel-size', '2'] : []), '--max-seq-len', '8192', '--extra-engine-args', `/etc/dynamo/engine/${role}.yaml`]);
    }
    expect(s.Frontend.extraPodSpec.volumes).toBeUndefined();
  });

  test('TensorRT-LLM disaggregated with KV routing: the whole rendering (snapshot)', () => {
    expect(render({ ...DISAGG, engine: { type: 'trtllm', contextLength: 8192 }, provider: { overrides: { routerMode: 'kv' } } }).objects).toMatchSnapshot();
  });

  test('aggregated TensorRT-LLM has no engine config ConfigMap', () => {
    expect(render({ ...AGG, engine: { type: 'trtllm' } }).objects.map((o) => o.kind)).toEqual(['DynamoGraphDeployment']);
  });

  test.each([
    ['vllm', 'VllmWorker', ['--kv-events-config', '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:20080"}']],
    ['sglang', 'SglangWorker', ['--kv-events-config', '{"publisher":"zmq","topic":"kv-events","endpoint":"tcp://*:5557"}']],
    ['trtllm', 'TrtllmWorker', ['--publish-events-and-metrics']],
  ] as const)('routerMode kv: %s workers publish KV events (%s)', (engine, key, flags) => {
    const kv = services({ ...AGG, engine: { type: engine }, provider: { overrides: { routerMode: 'kv' } } });
    expect(kv[key].extraPodSpec.mainContainer.args.slice(2)).toEqual(flags);
    expect(services({ ...AGG, engine: { type: engine } })[key].extraPodSpec.mainContainer.args.slice(2)).toEqual([]);
  });

  test('routerMode kv, vLLM disaggregated: the prefill worker publishes KV events, the decode worker (which vLLM keeps silent) does not', () => {
    const s = services({ ...DISAGG, engine: { type: 'vllm' }, provider: { overrides: { routerMode: 'kv' } } });
    expect(s.VllmPrefillWorker.extraPodSpec.mainContainer.args).toContain('--kv-events-config');
    expect(s.VllmDecodeWorker.extraPodSpec.mainContainer.args).not.toContain('--kv-events-config');
  });

  test('per-role overrides are validated with the field and the fix', () => {
    expect(problemsFor({
      ...DISAGG,
      engine: { type: 'trtllm', args: { 'extra-engine-args': '/x.yaml' } },
      provider: { overrides: { prefill: { args: { '--block-size': '1', 'model-path': 'x' }, engineConfig: { 'a': '1', 'a.b': '2', 'bad key': '3' } }, decode: { args: { n: 2 as any } } } }, // a number where a string belongs, as a YAML document may have it
    })).toEqual([
      { field: 'engine.args.extra-engine-args', message: '--extra-engine-args is set by provider.overrides.<role>.engineConfig; remove it from engine.args' },
      { field: 'provider.overrides.prefill.args.--block-size', message: 'provider.overrides.prefill.args keys are flag names without leading dashes: write "block-size", not "--block-size"' },
      { field: 'provider.overrides.prefill.args.model-path', message: '--model-path is set by model.id; set it there instead of in provider.overrides.prefill.args' },
      { field: 'provider.overrides.prefill.engineConfig.a', message: '"a" is both a value and a parent of other keys; set only the nested keys' },
      { field: 'provider.overrides.prefill.engineConfig.bad key', message: '"bad key" is not a dotted path of configuration keys such as "kv_cache_config.free_gpu_memory_fraction"' },
      { field: 'provider.overrides.decode.args.n', message: 'expected string, got number 2' },
      { field: 'provider.name', message: "'dynamo' was selected automatically (engine=trtllm → dynamo (only trtllm provider)); set provider.name to choose another provider" },
    ]);
    expect(problemsFor({ ...DISAGG, provider: { name: 'dynamo', overrides: { decode: { engineConfig: { x: '1' } } } } })).toEqual([
      { field: 'provider.overrides.decode.engineConfig', message: "engine configuration files are TensorRT-LLM's; for sglang put the options in decode.args or engine.args" },
    ]);
  });

  test.each([
    ['registry.example.com/dynamo/vllm:dev', 'the tag "dev", which is not a version'],
    ['registry.example.com:5000/dynamo/vllm', 'no tag'],
    ['registry.example.com/dynamo/vllm@sha256:' + 'a'.repeat(64), 'no tag'],
  ])('a user image without a version tag (%s) warns about runtimeVersionOverride', (image, what) => {
    const { warnings } = render({ ...AGG, image });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`has ${what}: Dynamo operators with runtime-version admission (ai-dynamo/dynamo PR #10494) reject`);
  });

  test.each(['nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.1', 'registry.example.com:5000/vllm:v1.2.3', 'r.example.com/vllm:1.4.0-efa'])('%s has a version tag: no warning', (image) => {
    expect(render({ ...AGG, image }).warnings).toEqual([]);
  });

  test.each([
    [undefined, ['--http-port', '8000', '--router-mode', 'round-robin']],
    ['kv', ['--http-port', '8000', '--router-mode', 'kv']],
    ['random', ['--http-port', '8000', '--router-mode', 'random']],
    ['none', ['--http-port', '8000']],
  ])('routerMode %s becomes a frontend argument, never an unknown field', (routerMode, args) => {
    const s = services({ ...AGG, provider: { name: 'dynamo', overrides: routerMode ? { routerMode: routerMode as DynamoOverrides['routerMode'] } : {} } });
    expect(s.Frontend.extraPodSpec.mainContainer.command).toEqual(['python3', '-m', 'dynamo.frontend']);
    expect(s.Frontend.extraPodSpec.mainContainer.args).toEqual(args);
    expect(Object.keys(s.Frontend)).not.toContain('routerMode');
  });

  test('frontend replicas and resources: defaults, overridable', () => {
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

  test('trtllm takes the context length as --max-seq-len, without a warning', () => {
    const { resource, warnings } = render({ ...AGG, engine: { type: 'trtllm', contextLength: 8192 } });
    expect(resource.spec.services.TrtllmWorker.extraPodSpec.mainContainer.args).toEqual(['--model-path', 'Qwen/Qwen3-8B', '--max-seq-len', '8192']);
    expect(warnings).toEqual([]);
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
    expect(problemsFor({ ...AGG, provider: { name: 'dynamo', overrides: { routerMode: 'fastest', frontend: { replicas: '2', resources: { cpu: 'two' } } } as any } })).toEqual([
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
