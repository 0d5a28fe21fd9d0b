import { parse } from 'yaml';
import { render } from './helpers';
import { ModelDeploymentProps, ProviderRegistry } from '../../src/model-deployment';

const VLLM: ModelDeploymentProps = {
  provider: { name: 'kaito' },
  model: { id: 'microsoft/Phi-4-mini-instruct' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1 } },
};
const LLAMACPP: ModelDeploymentProps = {
  model: { id: 'google/gemma-3-1b-it-qat-q8_0-gguf' },
  engine: { type: 'llamacpp' },
  image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
};
const v1alpha1 = { providers: ProviderRegistry.builtIn({ kaito: { apiVersion: 'kaito.sh/v1alpha1' } }) };

describe('KAITO Workspace', () => {
  test('resource and inference sit at the top level; no spec', () => {
    const { resource } = render(VLLM);
    expect(resource.apiVersion).toBe('kaito.sh/v1beta1');
    expect(resource.kind).toBe('Workspace');
    expect(resource.spec).toBeUndefined();
    expect(resource.resource).toBeDefined();
    expect(resource.inference).toBeDefined();
  });

  test('vLLM uses the preset named by the model id, the HF token as modelAccessSecret, and GPU node labels', () => {
    const { resource, objects } = render({ ...VLLM, secrets: { huggingFaceToken: 'hf-token' } });
    expect(objects).toHaveLength(1); // no options → no ConfigMap
    expect(resource.inference).toEqual({ preset: { name: 'microsoft/Phi-4-mini-instruct', presetOptions: { modelAccessSecret: 'hf-token' } } });
    expect(resource.resource).toEqual({ count: 1, labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux', 'nvidia.com/gpu.present': 'true' } } });
  });

  test('vLLM options go through the ConfigMap that inference.config names', () => {
    const { resource, objects } = render({
      ...VLLM,
      model: { id: 'microsoft/Phi-4-mini-instruct', servedName: 'phi' },
      engine: { type: 'vllm', contextLength: 8192, trustRemoteCode: true, args: { 'gpu-memory-utilization': '0.85', 'enforce-eager': '', 'quantization': 'awq' } },
    }, 'phi');
    expect(resource.inference.config).toBe('phi-inference-config');
    const configMap = objects.find((o) => o.kind === 'ConfigMap');
    expect(configMap.metadata.name).toBe('phi-inference-config');
    expect(configMap.metadata.labels['app.kubernetes.io/component']).toBe('inference-config');
    expect(Object.keys(configMap.data)).toEqual(['inference_config.yaml']);
    const text = configMap.data['inference_config.yaml'];
    expect(parse(text)).toEqual({
      vllm: {
        'enforce-eager': true,
        'gpu-memory-utilization': 0.85,
        'max-model-len': 8192,
        'quantization': 'awq',
        'served-model-name': 'phi',
        'trust-remote-code': true,
      },
    });
    // Sorted keys, so the same input gives the same bytes.
    expect(text).toBe('vllm:\n  enforce-eager: true\n  gpu-memory-utilization: 0.85\n  max-model-len: 8192\n  quantization: awq\n  served-model-name: phi\n  trust-remote-code: true\n');
  });

  test('llama.cpp runs the user image from inference.template, with context size, env, token and GPU', () => {
    const { resource, warnings } = render({
      ...LLAMACPP,
      engine: { type: 'llamacpp', contextLength: 4096, args: { 'cache-type-k': 'q8_0' } },
      resources: { gpu: { count: 1 }, memory: '16Gi' },
      env: [{ name: 'LLAMA_LOG', value: 'info' }],
      secrets: { huggingFaceToken: 'hf-token' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      podTemplate: { metadata: { labels: { team: 'ml' }, annotations: { 'prometheus.io/scrape': 'true' } } },
      nodeSelector: { pool: 'gpu' },
    });
    expect(warnings).toEqual([]);
    expect(resource.resource.labelSelector.matchLabels).toEqual({ 'kubernetes.io/os': 'linux', 'nvidia.com/gpu.present': 'true', 'pool': 'gpu' });
    expect(resource.inference.preset).toBeUndefined();
    expect(resource.inference.template).toEqual({
      metadata: { labels: { 'team': 'ml', 'kube-inference.io/model-deployment': 'md' }, annotations: { 'prometheus.io/scrape': 'true' } },
      spec: {
        containers: [{
          name: 'model',
          image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
          args: ['huggingface://google/gemma-3-1b-it-qat-q8_0-gguf', '--address=:5000', '--ctx-size', '4096', '--cache-type-k', 'q8_0'],
          ports: [{ containerPort: 5000 }],
          env: [{ name: 'LLAMA_LOG', value: 'info' }],
          envFrom: [{ secretRef: { name: 'hf-token' } }],
          resources: { requests: { memory: '16Gi' }, limits: { 'nvidia.com/gpu': '1' } },
        }],
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      },
    });
  });

  test('llama.cpp with source custom passes no model reference (the image has the model)', () => {
    const { resource } = render({ ...LLAMACPP, model: { source: 'custom' } });
    expect(resource.inference.template.spec.containers[0].args).toEqual(['--address=:5000']);
  });

  test('CPU-only workspaces select Linux nodes only', () => {
    expect(render(LLAMACPP).resource.resource.labelSelector).toEqual({ matchLabels: { 'kubernetes.io/os': 'linux' } });
  });

  test('replicas map to resource.count', () => {
    expect(render({ ...LLAMACPP, scaling: { replicas: 3 } }).resource.resource.count).toBe(3);
  });

  test('preset workspaces have no pod template: what cannot be expressed is reported, pod metadata goes on the Workspace', () => {
    const { resource, warnings } = render({
      ...VLLM,
      image: 'my/vllm:1',
      env: [{ name: 'A', value: 'b' }],
      tolerations: [{ operator: 'Exists' }],
      resources: { gpu: { count: 1 }, memory: '32Gi' },
      podTemplate: { metadata: { labels: { team: 'ml' }, annotations: { note: 'x' } } },
    });
    expect(warnings).toEqual([
      'KAITO vLLM presets have no pod template; ignored: image (KAITO manages preset images); env; tolerations; resources.memory/cpu (KAITO sizes preset pods); '
      + 'podTemplate.metadata (applied to the Workspace instead: preset pods are generated by KAITO)',
    ]);
    expect(resource.metadata.labels.team).toBe('ml');
    expect(resource.metadata.annotations.note).toBe('x');
  });

  test('kaito.sh/v1alpha1 is selectable; it has no modelAccessSecret, and its instanceType default is reported for CPU', () => {
    const preset = render({ ...VLLM, ...v1alpha1, secrets: { huggingFaceToken: 'hf-token' } });
    expect(preset.resource.apiVersion).toBe('kaito.sh/v1alpha1');
    expect(preset.resource.inference).toEqual({ preset: { name: 'microsoft/Phi-4-mini-instruct' } });
    expect(preset.warnings).toEqual([
      'kaito.sh/v1alpha1 has no inference.preset.presetOptions.modelAccessSecret: secrets.huggingFaceToken is not passed to the preset (use kaito.sh/v1beta1)',
    ]);
    const cpu = render({ ...LLAMACPP, ...v1alpha1 });
    expect(cpu.resource.apiVersion).toBe('kaito.sh/v1alpha1');
    expect(cpu.warnings).toEqual([
      'kaito.sh/v1alpha1 defaults resource.instanceType to Standard_NC24ads_A100_v4: with node auto-provisioning KAITO would create a GPU node for this CPU-only workspace (use kaito.sh/v1beta1, or bring your own nodes)',
    ]);
  });

  test('an unsupported apiVersion is refused when the provider is configured', () => {
    expect(() => ProviderRegistry.builtIn({ kaito: { apiVersion: 'kaito.sh/v1' as any } }))
      .toThrow('KAITO apiVersion "kaito.sh/v1" is not supported; use kaito.sh/v1beta1 or kaito.sh/v1alpha1');
  });

  test('KAITO has no overrides: every key is reported as unknown', () => {
    const { warnings } = render({ ...LLAMACPP, provider: { overrides: { instanceType: 'Standard_NC6' } } });
    expect(warnings).toEqual(['provider.overrides.instanceType: unknown override key for the kaito provider, ignored (the kaito provider has no overrides here)']);
  });

  test('the endpoint label and standard labels', () => {
    const { resource } = render(LLAMACPP, 'gemma');
    expect(resource.metadata.labels).toEqual({
      'app.kubernetes.io/component': 'inference',
      'app.kubernetes.io/instance': 'gemma',
      'app.kubernetes.io/managed-by': 'kube-inference-constructs',
      'app.kubernetes.io/name': 'model-deployment',
      'kube-inference.io/engine-type': 'llamacpp',
      'kube-inference.io/managed-by': 'kube-inference-constructs',
      'kube-inference.io/model-deployment': 'gemma',
      'kube-inference.io/model-source': 'huggingface',
      'kube-inference.io/provider': 'kaito',
    });
  });
});
