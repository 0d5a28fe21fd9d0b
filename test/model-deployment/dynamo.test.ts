import { dynamoComponents, dynamoMain, problemsFor, render } from './helpers';
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
/** The v1alpha1 room: an operator before 1.2, which serves nothing else (no deprecation, no runtime-version rule). */
const V1ALPHA1 = ProviderRegistry.builtIn({ dynamo: { apiVersion: 'nvidia.com/v1alpha1', operatorVersion: '1.1' } });
const renderAlpha = (props: ModelDeploymentProps) => render({ providers: V1ALPHA1, ...props });
const services = (props: ModelDeploymentProps) => renderAlpha(props).resource.spec.services;

describe('Dynamo DynamoGraphDeployment (nvidia.com/v1alpha1, operators before 1.2)', () => {
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
      image: 'nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.6.1',
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
    const { objects, resource } = renderAlpha({
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
    expect(renderAlpha({ ...DISAGG, engine: { type: 'trtllm', contextLength: 8192 }, provider: { overrides: { routerMode: 'kv' } } }).objects).toMatchSnapshot();
  });

  test('aggregated TensorRT-LLM has no engine config ConfigMap', () => {
    expect(renderAlpha({ ...AGG, engine: { type: 'trtllm' } }).objects.map((o) => o.kind)).toEqual(['DynamoGraphDeployment']);
  });

  test.each([
    ['vllm', 'VllmWorker', ['--kv-events-config', '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:20080"}']],
    ['sglang', 'SglangWorker', ['--kv-events-config', '{"publisher":"zmq","topic":"kv-events","endpoint":"tcp://*:5557"}']],
    ['trtllm', 'TrtllmWorker', ['--publish-kv-events', '--publish-metrics']],
  ] as const)('routerMode kv: %s workers publish KV events (%s)', (engine, key, flags) => {
    const kv = services({ ...AGG, engine: { type: engine }, provider: { overrides: { routerMode: 'kv' } } });
    expect(kv[key].extraPodSpec.mainContainer.args.slice(2)).toEqual(flags);
    expect(services({ ...AGG, engine: { type: engine } })[key].extraPodSpec.mainContainer.args.slice(2)).toEqual([]);
  });

  // ai-dynamo dynamo/trtllm/backend_args.py and args.py of 1.4.2, 1.5.0 and 1.6.0: the switch was renamed in
  // 1.5 and split in two in 1.6, the old names kept as deprecated aliases for a release.
  test.each([
    ['1.0.1', {}, ['--publish-events-and-metrics']],
    ['1.4.2', {}, ['--publish-events-and-metrics']],
    ['1.5.1', {}, ['--publish-kv-events']],
    ['1.6.1', {}, ['--publish-kv-events', '--publish-metrics']],
    // A user image: the release runtimeVersionOverride names is the workers' release.
    ['1.6.1', { image: 'registry.example.com/trtllm:dev', runtimeVersionOverride: '1.5.0' }, ['--publish-kv-events']],
  ] as const)('routerMode kv: TensorRT-LLM workers of Dynamo %s %j publish with that release\'s switches', (version, user, flags) => {
    const { image, runtimeVersionOverride } = user as { image?: string; runtimeVersionOverride?: string };
    const c = dynamoComponents(render({
      ...AGG,
      engine: { type: 'trtllm' },
      image,
      providers: ProviderRegistry.builtIn({ dynamo: { version } }),
      provider: { overrides: { routerMode: 'kv', ...(runtimeVersionOverride ? { runtimeVersionOverride } : {}) } },
    }).resource);
    expect(dynamoMain(c.TrtllmWorker).args.slice(2)).toEqual(flags);
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

  test('operators before 1.5 read no runtime version from the tag: any tag renders, unwarned; runtimeVersionOverride is refused', () => {
    expect(renderAlpha({ ...AGG, image: 'registry.example.com/dynamo/vllm:dev' }).warnings).toEqual([]);
    expect(problemsFor({ ...AGG, providers: V1ALPHA1, provider: { name: 'dynamo', overrides: { runtimeVersionOverride: '1.0.1' } } })).toEqual([
      { field: 'provider.overrides.runtimeVersionOverride', message: 'Dynamo operator 1.1 has no runtimeVersionOverride (operators from 1.5 have it): remove it' },
    ]);
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
    const { resource } = renderAlpha({ ...AGG, engine: { type: engine } });
    expect(resource.spec.backendFramework).toBe(engine);
    const main = resource.spec.services[`${engine[0].toUpperCase()}${engine.slice(1)}Worker`].extraPodSpec.mainContainer;
    expect(main.image).toBe(`nvcr.io/nvidia/ai-dynamo/${image}:1.6.1`);
    expect(main.command).toEqual(['python3', '-m', module]);
    expect(main.args.slice(0, 2)).toEqual([modelFlag, 'Qwen/Qwen3-8B']);
  });

  test('the Dynamo version of the default images is configurable; image overrides all components', () => {
    const providers = ProviderRegistry.builtIn({ dynamo: { version: '0.7.1', apiVersion: 'nvidia.com/v1alpha1', operatorVersion: '1.1' } });
    const s = renderAlpha({ ...AGG, providers }).resource.spec.services;
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
    const { resource, warnings } = renderAlpha({ ...AGG, engine: { type: 'trtllm', contextLength: 8192 } });
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
    expect(() => ProviderRegistry.builtIn({ dynamo: { apiVersion: 'nvidia.com/v2' } }))
      .toThrow('Dynamo apiVersion "nvidia.com/v2" has no transformer; supported: nvidia.com/v1alpha1, nvidia.com/v1beta1');
  });
});

const components = (props: ModelDeploymentProps) => dynamoComponents(render(props).resource);
const main = dynamoMain;

describe('Dynamo DynamoGraphDeployment (nvidia.com/v1beta1, the default: operator 1.6)', () => {
  test('aggregated: a frontend and a worker, each a podTemplate whose container main runs the runtime, the GPU under its resource name', () => {
    const { resource, warnings } = render(AGG);
    expect(resource.apiVersion).toBe('nvidia.com/v1beta1');
    expect(warnings).toEqual([]);
    // One pod template per component, the runtime in its container `main`.
    const component = (name: string, type: string, container: object) => ({
      name,
      type,
      replicas: 1,
      podTemplate: { metadata: { labels: { 'kube-inference.io/model-deployment': 'md' } }, spec: { containers: [{ name: 'main', image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1', ...container }] } },
    });
    expect(resource.spec).toEqual({
      backendFramework: 'vllm',
      components: [
        component('Frontend', 'frontend', {
          command: ['python3', '-m', 'dynamo.frontend'],
          args: ['--http-port', '8000', '--router-mode', 'round-robin'],
          resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { memory: '4Gi' } },
        }),
        component('VllmWorker', 'worker', {
          command: ['python3', '-m', 'dynamo.vllm'],
          args: ['--model', 'Qwen/Qwen3-8B'],
          resources: { requests: { cpu: '8', memory: '32Gi' }, limits: { 'memory': '32Gi', 'nvidia.com/gpu': '1' } },
        }),
      ],
    });
  });

  test('disaggregated: prefill and decode are component types; the same workers as v1alpha1 renders', () => {
    const c = components(DISAGG);
    expect(Object.values(c).map((x: any) => [x.name, x.type, x.replicas])).toEqual([
      ['Frontend', 'frontend', 1], ['SglangPrefillWorker', 'prefill', 1], ['SglangDecodeWorker', 'decode', 3],
    ]);
    const alpha = services(DISAGG);
    for (const key of ['SglangPrefillWorker', 'SglangDecodeWorker']) {
      const { image, command, args } = main(c[key]);
      expect({ image, command, args }).toEqual(alpha[key].extraPodSpec.mainContainer);
    }
    expect(main(c.SglangPrefillWorker).resources).toEqual({ requests: { cpu: '16', memory: '96Gi' }, limits: { 'memory': '96Gi', 'nvidia.com/gpu': '2' } });
    expect(main(c.SglangDecodeWorker).resources).toEqual({ limits: { 'nvidia.com/gpu': '1' } });
  });

  test('HF token as envFrom, env, pod metadata, identity, node selector and tolerations on every component; a ConfigMap mounted into main', () => {
    const c = components({
      ...AGG,
      secrets: { huggingFaceToken: 'hf-token' },
      env: [{ name: 'VLLM_LOGGING_LEVEL', value: 'DEBUG' }],
      podTemplate: { metadata: { annotations: { 'sidecar.istio.io/inject': 'false' } } },
      nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      serviceAccountName: 'models',
      imagePullSecrets: ['nvcr'],
      resources: { gpu: { count: 1, type: 'amd.com/gpu' } },
    });
    for (const component of Object.values(c) as any[]) {
      expect(component.podTemplate.metadata).toEqual({ labels: { 'kube-inference.io/model-deployment': 'md' }, annotations: { 'sidecar.istio.io/inject': 'false' } });
      expect(component.podTemplate.spec).toMatchObject({
        serviceAccountName: 'models',
        imagePullSecrets: [{ name: 'nvcr' }],
        nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      });
      expect(main(component)).toMatchObject({ env: [{ name: 'VLLM_LOGGING_LEVEL', value: 'DEBUG' }], envFrom: [{ secretRef: { name: 'hf-token' } }] });
    }
    expect(main(c.VllmWorker).resources).toEqual({ limits: { 'amd.com/gpu': '1' } });
    const trt = components({ ...DISAGG, engine: { type: 'trtllm' } });
    expect(trt.TrtllmPrefillWorker.podTemplate.spec.volumes).toEqual([{ name: 'engine-config', configMap: { name: 'md-engine-config' } }]);
    expect(main(trt.TrtllmPrefillWorker).volumeMounts).toEqual([{ name: 'engine-config', mountPath: '/etc/dynamo/engine', readOnly: true }]);
    expect(trt.Frontend.podTemplate.spec.volumes).toBeUndefined();
  });

  // ai-dynamo/dynamo deploy/operator/internal/webhook/validation (runtimeVersionOverrideRequired) and
  // internal/runtimeversion/runtimeversion.go: from operator 1.5, a main image whose tag is not a version
  // needs runtimeVersionOverride; the webhook's own regular expression decides.
  test.each([
    ['registry.example.com/dynamo/vllm:dev', 'the tag "dev" of image "registry.example.com/dynamo/vllm:dev" is not a semantic version such as "1.1.0"'],
    ['registry.example.com:5000/dynamo/vllm', 'image "registry.example.com:5000/dynamo/vllm" has no tag'],
    ['registry.example.com/dynamo/vllm@sha256:' + 'a'.repeat(64), `image "registry.example.com/dynamo/vllm@sha256:${'a'.repeat(64)}" has no tag`],
    ['registry.example.com/dynamo/vllm:1.4.0-01', 'the tag "1.4.0-01" of image "registry.example.com/dynamo/vllm:1.4.0-01" is not a semantic version such as "1.1.0"'],
  ])('a user image %s without a version tag is refused at synth unless runtimeVersionOverride is set', (image, why) => {
    expect(problemsFor({ ...AGG, image, provider: { name: 'dynamo' } })).toEqual([{
      field: 'image',
      message: `${why}: Dynamo operator 1.6 requires runtimeVersionOverride "when the specified main container image has no parseable semantic-version tag". `
        + 'Set provider.overrides.runtimeVersionOverride to the Dynamo release in the image (such as "1.6.1"), or tag the image with it',
    }]);
    const c = components({ ...AGG, image, provider: { name: 'dynamo', overrides: { runtimeVersionOverride: '1.0.1' } } });
    expect(Object.values(c).map((x: any) => x.runtimeVersionOverride)).toEqual(['1.0.1', '1.0.1']);
  });

  test.each(['nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.1', 'registry.example.com:5000/vllm:v1.2.3', 'r.example.com/vllm:V1.4.0-efa'])(
    '%s has a version tag the operator reads: rendered without runtimeVersionOverride', (image) => {
      const c = components({ ...AGG, image });
      expect(Object.values(c).map((x: any) => x.runtimeVersionOverride)).toEqual([undefined, undefined]);
    });

  test('runtimeVersionOverride must be major.minor.patch, as the CRD takes it; operators before 1.5 have no such field', () => {
    expect(problemsFor({ ...AGG, provider: { name: 'dynamo', overrides: { runtimeVersionOverride: 'v1.0.1' } } })).toEqual([
      { field: 'provider.overrides.runtimeVersionOverride', message: '"v1.0.1" is not a Dynamo release as the operator takes it: major.minor.patch, such as "1.6.1"' },
    ]);
    const operator14 = ProviderRegistry.builtIn({ dynamo: { operatorVersion: '1.4' } });
    expect(problemsFor({ ...AGG, providers: operator14, provider: { name: 'dynamo', overrides: { runtimeVersionOverride: '1.0.1' } } })).toEqual([
      { field: 'provider.overrides.runtimeVersionOverride', message: 'Dynamo operator 1.4 has no runtimeVersionOverride (operators from 1.5 have it): remove it' },
    ]);
    expect(render({ ...AGG, providers: operator14, image: 'registry.example.com/dynamo/vllm:dev' }).resource.apiVersion).toBe('nvidia.com/v1beta1');
  });

  test('the operator release decides the schema: v1alpha1 before 1.2; v1alpha1 asked of a newer operator renders with its deprecation', () => {
    expect(render({ ...AGG, providers: ProviderRegistry.builtIn({ dynamo: { operatorVersion: '1.1' } }) }).resource.apiVersion).toBe('nvidia.com/v1alpha1');
    const { resource, warnings } = render({ ...AGG, providers: ProviderRegistry.builtIn({ dynamo: { apiVersion: 'nvidia.com/v1alpha1' } }) });
    expect(resource.apiVersion).toBe('nvidia.com/v1alpha1');
    expect(warnings).toEqual(['nvidia.com/v1alpha1 DynamoGraphDeployment is deprecated from Dynamo operator 1.2 (the operator\'s own warning); '
      + 'operator 1.6 serves nvidia.com/v1beta1: leave the Dynamo provider\'s apiVersion unset to render it']);
    expect(() => ProviderRegistry.builtIn({ dynamo: { apiVersion: 'nvidia.com/v1beta1', operatorVersion: '1.1' } }))
      .toThrow('Dynamo operator 1.1 does not serve nvidia.com/v1beta1 (served from 1.2): use apiVersion nvidia.com/v1alpha1, or target a newer operator');
    expect(() => ProviderRegistry.builtIn({ dynamo: { operatorVersion: 'latest' } })).toThrow('Dynamo operatorVersion "latest" is not a release such as "1.6"');
  });

  test('TensorRT-LLM disaggregated with KV routing: the whole rendering (snapshot)', () => {
    expect(render({ ...DISAGG, engine: { type: 'trtllm', contextLength: 8192 }, provider: { overrides: { routerMode: 'kv' } } }).objects).toMatchSnapshot();
  });
});
