import { problemsFor, render } from './helpers';
import { ModelDeploymentProps, ProviderRegistry, translateStatus } from '../../src/model-deployment';
import { KAITO_CATALOG_MODELS, KAITO_VLLM_ARCHITECTURES } from '../../src/model-deployment/providers/kaito/catalog.generated';
import { KAITO_LEGACY_PRESET_ALIASES, resolveKaitoPreset } from '../../src/model-deployment/providers/kaito/presets';
import { bytesPerToken } from '../../src/model-deployment/providers/kaito/sizing';
import { pythonDifference, pyyamlSupport, pyyamlValue } from '../run-config/pyyaml';
import { describeWhen } from '../sandbox/host';

const SKU = 'Standard_NC24ads_A100_v4';
const VLLM: ModelDeploymentProps = {
  provider: { name: 'kaito', overrides: { instanceType: SKU } },
  model: { id: 'microsoft/Phi-4-mini-instruct' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1 } },
};
const LLAMACPP: ModelDeploymentProps = {
  model: { id: 'google/gemma-3-1b-it-qat-q8_0-gguf' },
  engine: { type: 'llamacpp' },
  image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
  provider: { overrides: { instanceType: 'Standard_D8s_v5', ggufFile: 'gemma-3-1b-it-q8_0.gguf' } },
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
    expect(resource.resource).toEqual({ instanceType: SKU, labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux', 'nvidia.com/gpu.present': 'true' } } });
  });

  test('vLLM options go through the ConfigMap that inference.config names', () => {
    const { resource, objects } = render({
      ...VLLM,
      model: { id: 'microsoft/Phi-4-mini-instruct', servedName: 'phi' },
      engine: { type: 'vllm', contextLength: 8192, args: { 'gpu-memory-utilization': '0.85', 'quantization': 'awq' } },
    }, 'phi');
    expect(resource.inference.config).toBe('phi-inference-config');
    const configMap = objects.find((o) => o.kind === 'ConfigMap');
    expect(configMap.metadata.name).toBe('phi-inference-config');
    expect(configMap.metadata.labels['app.kubernetes.io/component']).toBe('inference-config');
    expect(Object.keys(configMap.data)).toEqual(['inference_config.yaml']);
    const text = configMap.data['inference_config.yaml'];
    // Every value is a string (KAITO passes str(value)); sorted keys, so the same input gives the same bytes.
    expect(text).toBe('vllm:\n  gpu-memory-utilization: "0.85"\n  max-model-len: "8192"\n  quantization: awq\n  served-model-name: phi\n');
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
          // The runner (kaito-project/aikit runner.go) downloads a file by its URL; the address goes last.
          args: ['https://huggingface.co/google/gemma-3-1b-it-qat-q8_0-gguf/resolve/main/gemma-3-1b-it-q8_0.gguf', '--context-size', '4096', '--cache-type-k', 'q8_0', '--address=:5000'],
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
    const { resource } = render({ ...LLAMACPP, model: { source: 'custom' }, provider: { overrides: { instanceType: 'Standard_D8s_v5' } } });
    expect(resource.inference.template.spec.containers[0].args).toEqual(['--address=:5000']);
  });

  test('CPU-only workspaces select Linux nodes only', () => {
    expect(render(LLAMACPP).resource.resource.labelSelector).toEqual({ matchLabels: { 'kubernetes.io/os': 'linux' } });
  });

  test('one replica is a Workspace without the deprecated resource.count', () => {
    const { resource } = render(LLAMACPP);
    expect(resource.kind).toBe('Workspace');
    expect(resource.resource).toEqual({ instanceType: 'Standard_D8s_v5', labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux' } } });
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

  test('kaito.sh/v1alpha1 is selectable; its Workspace has no modelAccessSecret', () => {
    const preset = render({ ...VLLM, ...v1alpha1, secrets: { huggingFaceToken: 'hf-token' } });
    expect(preset.resource.apiVersion).toBe('kaito.sh/v1alpha1');
    expect(preset.resource.inference).toEqual({ preset: { name: 'microsoft/Phi-4-mini-instruct' } });
    expect(preset.warnings).toEqual([
      'kaito.sh/v1alpha1 Workspace has no inference.preset.presetOptions.modelAccessSecret: secrets.huggingFaceToken is not passed to the preset (use kaito.sh/v1beta1)',
    ]);
  });

  test('an unsupported apiVersion is refused when the provider is configured', () => {
    expect(() => ProviderRegistry.builtIn({ kaito: { apiVersion: 'kaito.sh/v1' as any } }))
      .toThrow('KAITO apiVersion "kaito.sh/v1" is not supported; use kaito.sh/v1beta1 or kaito.sh/v1alpha1');
  });

  test('unknown override keys are reported with the documented ones', () => {
    const { warnings } = render({ ...LLAMACPP, provider: { overrides: { ...LLAMACPP.provider!.overrides, instanceTyp: 'x' } as any } }); // a typo the types refuse; a YAML document may have it
    expect(warnings).toEqual(['provider.overrides.instanceTyp: unknown override key for the kaito provider, ignored (known keys here: nodeProvisioning, instanceType, ggufFile)']);
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

// kaito: api/v1beta1/workspace_validation.go (Workspace.validateCreate) and inferenceset_validation.go.
describe('KAITO admission rules, at synth', () => {
  const byo = { providers: ProviderRegistry.builtIn({ kaito: { nodeProvisioning: 'bring-your-own' } }) };

  test('node auto-provisioning (the default install) without instanceType fails, naming both fixes', () => {
    expect(problemsFor({ ...VLLM, provider: { name: 'kaito' } })).toEqual([{
      field: 'provider.overrides.instanceType',
      message: 'KAITO\'s webhook requires resource.instanceType when node auto-provisioning is enabled (the default KAITO install): '
        + 'set provider.overrides.instanceType to the node SKU KAITO should provision (a GPU SKU such as "Standard_NC24ads_A100_v4"), '
        + 'or, when KAITO was installed with disableNodeAutoProvisioning=true, set provider.overrides.nodeProvisioning: bring-your-own',
    }]);
  });

  test('bring-your-own nodes: no instanceType is rendered, and one given fails', () => {
    const { resource } = render({ ...VLLM, provider: { name: 'kaito', overrides: { nodeProvisioning: 'bring-your-own' } } });
    expect(resource.resource).toEqual({ labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux', 'nvidia.com/gpu.present': 'true' } } });
    expect(render({ ...VLLM, ...byo, provider: { name: 'kaito' } }).resource.resource.instanceType).toBeUndefined();
    expect(problemsFor({ ...VLLM, ...byo }).map((p) => p.field)).toEqual(['provider.overrides.instanceType']);
  });

  test('bring-your-own with the kaito.sh/v1alpha1 Workspace fails: its schema defaults instanceType', () => {
    const registry = ProviderRegistry.builtIn({ kaito: { apiVersion: 'kaito.sh/v1alpha1', nodeProvisioning: 'bring-your-own' } });
    expect(problemsFor({ ...VLLM, providers: registry, provider: { name: 'kaito' } }).map((p) => p.field)).toEqual(['provider.name']);
  });

  test('vLLM flags that take no value cannot go through the inference config', () => {
    expect(problemsFor({ ...VLLM, engine: { type: 'vllm', trustRemoteCode: true, args: { 'enforce-eager': '', 'x': 'false', 'max-num-seqs': '8' } } }).map((p) => p.field))
      .toEqual(['engine.trustRemoteCode', 'engine.args.enforce-eager', 'engine.args.x']);
  });

  test('flags KAITO sets itself cannot be repeated in engine.args', () => {
    expect(problemsFor({ ...VLLM, model: { id: 'o/m', servedName: 's' }, engine: { type: 'vllm', args: { 'model': 'x', 'port': '1', 'served-model-name': 'y' } } }).map((p) => p.field))
      .toEqual(['engine.args.model', 'engine.args.port', 'engine.args.served-model-name']);
  });

  test('ggufFile must be a .gguf path in the repository, for llama.cpp from Hugging Face', () => {
    const gguf = (ggufFile: string) => problemsFor({ ...LLAMACPP, provider: { name: 'kaito', overrides: { instanceType: 'Standard_D8s_v5', ggufFile } } }).map((p) => p.field);
    expect(gguf('../x.gguf')).toEqual(['provider.overrides.ggufFile']);
    expect(gguf('model.bin')).toEqual(['provider.overrides.ggufFile']);
    expect(problemsFor({ ...VLLM, provider: { name: 'kaito', overrides: { instanceType: SKU, ggufFile: 'a.gguf' } } }).map((p) => p.field)).toEqual(['provider.overrides.ggufFile']);
    expect(problemsFor({ ...LLAMACPP, provider: { name: 'kaito', overrides: { instanceType: 'Standard_D8s_v5', ggufFile: 'gemma-3-1b-it-q8_0.gguf' } }, model: { id: LLAMACPP.model.id, servedName: 'gemma' } })).toEqual([{
      field: 'model.servedName',
      message: 'the llama.cpp runner serves gemma-3-1b-it-q8_0.gguf under "gemma-3-1b-it-q8_0" (the file\'s name without .gguf), and takes no other name: '
        + 'remove model.servedName, or set it to "gemma-3-1b-it-q8_0"',
    }]);
    expect(render({ ...LLAMACPP, model: { id: LLAMACPP.model.id, servedName: 'gemma-3-1b-it-q8_0' } }).construct.endpoint.model).toBe('gemma-3-1b-it-q8_0');
  });

  test('a Hugging Face repository without ggufFile is warned: the runner downloads every GGUF file', () => {
    const { warnings, resource } = render({ ...LLAMACPP, provider: { overrides: { instanceType: 'Standard_D8s_v5' } } });
    expect(resource.inference.template.spec.containers[0].args[0]).toBe('huggingface://google/gemma-3-1b-it-qat-q8_0-gguf');
    expect(warnings).toEqual(['the LocalAI runner downloads every GGUF file of google/gemma-3-1b-it-qat-q8_0-gguf (all quantizations): set provider.overrides.ggufFile to the one file to load']);
  });
});

// KAITO v0.12.0's own model data (kaito-catalog/, generated into catalog.generated.ts) read as its
// webhook and controller read it: pkg/utils/plugin/plugin.go, presets/workspace/generator/generator.go,
// api/v1beta1/workspace_validation.go and inference_config_validation.go, the node estimator.
describe('KAITO v0.12 presets, SKUs and sizing, at synth', () => {
  const onSku = (instanceType: string, props: Partial<ModelDeploymentProps> = {}): ModelDeploymentProps =>
    ({ ...VLLM, provider: { name: 'kaito', overrides: { instanceType } }, ...props });

  test('KAITO serves a preset under the last segment of its id, lower-cased; an InferenceSet under its name; servedName wins', () => {
    expect(render(VLLM).construct.endpoint.model).toBe('phi-4-mini-instruct');
    // A short name resolves to its catalogue id first: gemma-3-4b-instruct is google/gemma-3-4b-it.
    expect(render({ ...VLLM, model: { id: 'gemma-3-4b-instruct' } }).construct.endpoint.model).toBe('gemma-3-4b-it');
    expect(render({ ...VLLM, model: { id: 'Qwen/Qwen3-8B' } }).construct.endpoint.model).toBe('qwen3-8b');
    expect(render({ ...VLLM, scaling: { replicas: 2 } }, 'phi').construct.endpoint.model).toBe('phi');
    expect(render({ ...VLLM, model: { id: 'microsoft/Phi-4-mini-instruct', servedName: 'Phi' } }).construct.endpoint.model).toBe('Phi');
    // The llama.cpp runner serves the GGUF file's name without .gguf; without ggufFile the name is unknown.
    expect(render(LLAMACPP).construct.endpoint.model).toBe('gemma-3-1b-it-q8_0');
    expect(render({ ...LLAMACPP, provider: { overrides: { instanceType: 'Standard_D8s_v5' } } }).construct.endpoint.model).toBeUndefined();
  });

  test('the catalogue data hangs together: short names name catalogue models, whose architectures KAITO\'s vLLM runs', () => {
    for (const [alias, id] of Object.entries(KAITO_LEGACY_PRESET_ALIASES)) {
      expect({ alias, kind: resolveKaitoPreset(alias).kind }).toEqual({ alias, kind: 'catalog' });
      expect(KAITO_CATALOG_MODELS.some((m) => m.name.toLowerCase() === id)).toBe(true);
    }
    expect(Object.keys(KAITO_LEGACY_PRESET_ALIASES)).toHaveLength(25);
    expect(KAITO_CATALOG_MODELS).toHaveLength(60);
    for (const m of KAITO_CATALOG_MODELS) {
      const runnable = m.architectures.some((a) => KAITO_VLLM_ARCHITECTURES.includes(a));
      expect({ model: m.name, runnable }).toEqual({ model: m.name, runnable: true });
      expect(resolveKaitoPreset(m.name.toUpperCase()).kind).toBe('catalog');
    }
    // KAITO's own check figure (website/docs/memory-estimator.md): phi-4-mini needs 131072 bytes per token.
    expect(bytesPerToken(KAITO_CATALOG_MODELS.find((m) => m.name === 'microsoft/Phi-4-mini-instruct')!)).toBe(131072);
  });

  test('an unknown short name is refused with the closest preset names; a deprecated one as KAITO words it', () => {
    expect(problemsFor({ ...VLLM, model: { id: 'llama-3.1-8b' } })).toEqual([{
      field: 'model.id',
      message: 'KAITO\'s webhook refuses "Unsupported inference preset name llama-3.1-8b": a KAITO v0.12.0 preset is a Hugging Face id ("org/name") '
        + 'or one of its short names; closest: "llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct", "ibm-granite/granite-4.1-8b"',
    }]);
    expect(problemsFor({ ...VLLM, model: { id: 'phi-2' } })).toEqual([{
      field: 'model.id', message: 'KAITO\'s webhook refuses "Model phi-2 is deprecated and no longer supported": use the Hugging Face id of a current model',
    }]);
    expect(render({ ...VLLM, model: { id: 'Phi-4-Mini-Instruct' } }).resource.inference.preset.name).toBe('Phi-4-Mini-Instruct');
    // A built-in preset that is not a short name of a catalogue model is matched exactly, as KAITO's register is.
    expect(render({ ...VLLM, model: { id: 'falcon-7b' } }).construct.endpoint.model).toBe('falcon-7b');
    expect(problemsFor({ ...VLLM, model: { id: 'Falcon-7B' } }).map((p) => p.field)).toEqual(['model.id']);
  });

  test('a Hugging Face id outside the catalogue renders, with a warning that KAITO reads it from Hugging Face', () => {
    expect(render({ ...VLLM, model: { id: 'Qwen/Qwen3-8B' } }).warnings).toEqual([
      'Qwen/Qwen3-8B is not in KAITO v0.12.0\'s model catalogue: KAITO\'s webhook reads its config.json from Hugging Face when the Workspace '
      + 'is created (its architecture must be one KAITO\'s vLLM runs; a gated repository needs secrets.huggingFaceToken), so synth cannot check '
      + 'the model, its context window or its GPU needs',
    ]);
    expect(render(VLLM).warnings).toEqual([]);
  });

  test('max-model-len beyond the model\'s context window is refused (engine.contextLength is the inference config\'s max-model-len)', () => {
    const phi3 = { id: 'microsoft/Phi-3-mini-4k-instruct' };
    const message = 'KAITO\'s webhook refuses "max-model-len 8192 exceeds model\'s maximum supported context window 4096 (ModelTokenLimit)" '
      + 'for microsoft/Phi-3-mini-4k-instruct: set at most 4096';
    expect(problemsFor({ ...VLLM, model: phi3, engine: { type: 'vllm', contextLength: 8192 } })).toEqual([{ field: 'engine.contextLength', message }]);
    expect(render({ ...VLLM, model: phi3, engine: { type: 'vllm', contextLength: 4096 } }).warnings).toEqual([]);
  });

  test('the instance type must be a SKU of the cloud\'s handler, except Azure N- and D-series sizes', () => {
    const [problem] = problemsFor(onSku('standard_nc24ads_a100_v4'));
    expect(problem.field).toBe('provider.overrides.instanceType');
    expect(problem.message).toMatch(/^KAITO's webhook refuses "Unsupported instance type standard_nc24ads_a100_v4\. Supported SKUs: \[Standard_NC16as_T4_v3 Standard_NC24ads_A100_v4 .* Standard_NV72ads_A10_v5\]" \(its azure SKU handler\): did you mean "Standard_NC24ads_A100_v4"\? /);
    expect(problemsFor(onSku('Standard_E8s_v5')).map((p) => p.field)).toEqual(['provider.overrides.instanceType']);
    render(onSku('Standard_NC6s_v3'));
    render({ ...LLAMACPP, provider: { overrides: { instanceType: 'Standard_D4s_v5', ggufFile: 'gemma-3-1b-it-q8_0.gguf' } } });
    const aws = { providers: ProviderRegistry.builtIn({ kaito: { cloudProvider: 'aws' } }) };
    expect(problemsFor({ ...onSku(SKU), ...aws })[0].message).toMatch(/\(its aws SKU handler\): use one of those; if your KAITO install runs on another cloud/);
    render({ ...onSku('g5.xlarge'), ...aws });
    // Bring-your-own nodes carry no instance type; KAITO reads the nodes' GPU labels instead.
    render({ ...VLLM, provider: { name: 'kaito', overrides: { nodeProvisioning: 'bring-your-own' } } });
    expect(() => ProviderRegistry.builtIn({ kaito: { cloudProvider: 'gcp' as any } })).toThrow('KAITO cloudProvider "gcp" is not supported; use azure, aws, arc (KAITO\'s SKU handlers)');
  });

  test('KAITO\'s node estimate: GPUs other than resources.gpu.count are warned, a SKU too small for the KV cache is refused', () => {
    expect(render(onSku('Standard_NC24ads_A100_v4', { model: { id: 'meta-llama/Llama-3.3-70B-Instruct' } })).warnings).toEqual([
      'KAITO sizes meta-llama/Llama-3.3-70B-Instruct itself: on Standard_NC24ads_A100_v4 (1 GPU, 80 GiB) its node estimator gives 3 nodes per replica '
      + 'and vLLM runs on all 3 GPUs, not resources.gpu.count 1: set resources.gpu.count to 3 so the spec says what runs',
    ]);
    expect(render(onSku('Standard_NC96ads_A100_v4')).warnings).toEqual([
      'KAITO sizes microsoft/Phi-4-mini-instruct itself: on Standard_NC96ads_A100_v4 (4 GPUs, 320 GiB) its node estimator gives 1 node per replica '
      + 'and vLLM runs on all 4 GPUs, not resources.gpu.count 1: set resources.gpu.count to 4 so the spec says what runs',
    ]);
    expect(render(onSku('Standard_NC96ads_A100_v4', { resources: { gpu: { count: 4 } } })).warnings).toEqual([]);
    expect(problemsFor(onSku('Standard_NV12s_v3', { engine: { type: 'vllm', contextLength: 131072 } }))).toEqual([{
      field: 'provider.overrides.instanceType',
      message: 'KAITO cannot place microsoft/Phi-4-mini-instruct on Standard_NV12s_v3: each GPU has 8.0 GiB, of which vLLM may use 6.7 GiB, less than the '
        + '18.3 GiB KAITO reserves for the runtime and a 131072-token KV cache (its node estimator fails the Workspace): choose a SKU with more GPU memory, '
        + 'or a shorter engine.contextLength',
    }]);
  });
});

describe('KAITO InferenceSet for replica counts other than 1', () => {
  test('vLLM: spec.replicas, the template, and a Service in front of the pods KAITO labels', () => {
    const { resource, objects } = render({ ...VLLM, scaling: { replicas: 3 }, secrets: { huggingFaceToken: 'hf' } }, 'phi');
    expect(resource.apiVersion).toBe('kaito.sh/v1beta1');
    expect(resource.kind).toBe('InferenceSet');
    expect(resource.spec.replicas).toBe(3);
    expect(resource.spec.labelSelector).toEqual({ matchLabels: { 'kubernetes.io/os': 'linux', 'nvidia.com/gpu.present': 'true' } });
    expect(resource.spec.template.resource).toEqual({ instanceType: SKU });
    expect(resource.spec.template.inference).toEqual({ preset: { name: 'microsoft/Phi-4-mini-instruct', presetOptions: { modelAccessSecret: 'hf' } } });
    const service = objects.find((o) => o.kind === 'Service');
    expect(service.metadata.name).toBe('phi');
    expect(service.spec.selector).toEqual({ 'inferenceset.kaito.sh/created-by': 'phi' });
    expect(service.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 5000 }]);
  });

  test('llama.cpp: the Service selects our pod label; zero replicas is an InferenceSet too', () => {
    const { objects, resource } = render({ ...LLAMACPP, scaling: { replicas: 0 } }, 'gemma');
    expect(resource.kind).toBe('InferenceSet');
    expect(resource.spec.replicas).toBe(0);
    expect(objects.find((o) => o.kind === 'Service').spec.selector).toEqual({ 'kube-inference.io/model-deployment': 'gemma' });
  });

  test('status: readyReplicas and InferenceSetReady', () => {
    const set = (status: object, replicas = 2) => ({ apiVersion: 'kaito.sh/v1beta1', kind: 'InferenceSet', metadata: { name: 'phi' }, spec: { replicas }, status });
    const ready = translateStatus(set({ replicas: 2, readyReplicas: 2, conditions: [{ type: 'InferenceSetReady', status: 'True', reason: 'inferencesetReady' }] }));
    expect(ready.phase).toBe('Running');
    expect(ready.replicas).toEqual({ desired: 2, ready: 2, available: 2 });
    expect(ready.endpoint).toEqual({ service: 'phi', port: 80, basePath: '/v1' });
    const partial = translateStatus(set({ readyReplicas: 1, conditions: [{ type: 'InferenceSetReady', status: 'False', reason: 'inferencesetNotReady', message: '1/2' }] }));
    expect([partial.phase, partial.message, partial.replicas.ready]).toEqual(['Deploying', '1/2', 1]);
    const failed = translateStatus(set({ conditions: [{ type: 'InferenceSetReady', status: 'False', reason: 'inferencesetFailed', message: 'pool' }] }));
    expect([failed.phase, failed.message]).toEqual(['Failed', 'pool']);
    expect(translateStatus(set({})).phase).toBe('Pending');
  });
});

describeWhen('the inference config read by real PyYAML', pyyamlSupport(), 'python3 with PyYAML', () => {
  test('every value arrives as the string written', () => {
    const args = { a: 'yes', b: 'on', c: '1_000', d: '1:20', e: 'tab\there', f: '=', g: '0x10', h: '~', i: '1e3' };
    const { objects } = render({ ...VLLM, model: { id: 'o/m', servedName: 'no' }, engine: { type: 'vllm', contextLength: 4096, args } });
    const text = objects.find((o) => o.kind === 'ConfigMap').data['inference_config.yaml'];
    expect(pythonDifference(pyyamlValue(text), { vllm: { ...args, 'max-model-len': '4096', 'served-model-name': 'no' } })).toBeUndefined();
  });
});
