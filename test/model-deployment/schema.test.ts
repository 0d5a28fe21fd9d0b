import { execFileSync } from 'child_process';
import { join } from 'path';
import { render, vendoredCrds } from './helpers';
import { ModelDeploymentProps, ProviderRegistry } from '../../src/model-deployment';
import { CrdValidator } from '../../src/schema/crd-validator';

// Every rendered custom resource must validate against the vendored CRD schema. `render()` checks
// that for every object of every test; this file adds a matrix over providers, engines, modes
// and API versions, and tests the validator itself (it must be able to fail).
const DISAGG = { serving: { mode: 'disaggregated' as const }, scaling: { prefill: { replicas: 2, gpu: { count: 2 }, memory: '64Gi', cpu: '8' }, decode: { replicas: 1, gpu: { count: 1 } } } };
const FULL = {
  env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
  secrets: { huggingFaceToken: 'hf-token' },
  podTemplate: { metadata: { labels: { team: 'ml' }, annotations: { note: 'x' } } },
  nodeSelector: { pool: 'gpu' },
  tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' as const, effect: 'NoSchedule' as const }],
};

const MATRIX: [string, ModelDeploymentProps][] = [
  ['KAITO v1beta1 vLLM preset with options', { ...FULL, provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } }, model: { id: 'o/m', servedName: 'm' }, engine: { type: 'vllm', contextLength: 4096, args: { 'max-num-seqs': '8' } }, resources: { gpu: { count: 1 } } }],
  ['KAITO v1beta1 InferenceSet (vLLM, 3 replicas)', { ...FULL, provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } }, model: { id: 'o/m' }, engine: { type: 'vllm' }, scaling: { replicas: 3 }, resources: { gpu: { count: 1 } } }],
  ['KAITO v1beta1 llama.cpp on GPU', { ...FULL, provider: { overrides: { instanceType: 'Standard_NC6s_v3', ggufFile: 'm.gguf' } }, model: { id: 'o/m-gguf' }, engine: { type: 'llamacpp', contextLength: 2048 }, image: 'r:1', resources: { gpu: { count: 1 }, memory: '8Gi', cpu: '2' } }],
  ['KAITO v1alpha1 vLLM preset', { ...FULL, providers: ProviderRegistry.builtIn({ kaito: { apiVersion: 'kaito.sh/v1alpha1' } }), provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } }, model: { id: 'o/m' }, engine: { type: 'vllm', contextLength: 4096 }, resources: { gpu: { count: 1 } } }],
  ['KAITO v1alpha1 InferenceSet (llama.cpp, 2 replicas)', { ...FULL, providers: ProviderRegistry.builtIn({ kaito: { apiVersion: 'kaito.sh/v1alpha1' } }), provider: { overrides: { instanceType: 'Standard_D8s_v5' } }, model: { id: 'o/m-gguf' }, engine: { type: 'llamacpp' }, image: 'r:1', scaling: { replicas: 2 } }],
  ['KAITO v1alpha1 llama.cpp on CPU', { ...FULL, providers: ProviderRegistry.builtIn({ kaito: { apiVersion: 'kaito.sh/v1alpha1' } }), provider: { overrides: { instanceType: 'Standard_D8s_v5' } }, model: { id: 'o/m-gguf' }, engine: { type: 'llamacpp' }, image: 'r:1' }],
  ['Dynamo vLLM aggregated', { ...FULL, model: { id: 'o/m' }, engine: { type: 'vllm', trustRemoteCode: true }, resources: { gpu: { count: 4 }, memory: '64Gi', cpu: '16' }, provider: { overrides: { routerMode: 'kv', frontend: { replicas: 2, resources: { cpu: '1', memory: '2Gi' } } } } }],
  ['Dynamo SGLang disaggregated', { ...FULL, ...DISAGG, model: { id: 'o/m' }, engine: { type: 'sglang', contextLength: 8192 } }],
  ['Dynamo TensorRT-LLM disaggregated', { ...FULL, ...DISAGG, model: { id: 'o/m' }, engine: { type: 'trtllm' } }],
  ['Dynamo with an AMD GPU', { model: { id: 'o/m' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } }],
  ['KubeRay aggregated', { ...FULL, provider: { name: 'kuberay', overrides: { head: { rayStartParams: { 'num-cpus': '0' } } } }, model: { id: 'o/m' }, engine: { type: 'vllm', args: { 'max-num-seqs': '64' } }, resources: { gpu: { count: 2 }, memory: '48Gi' } }],
  ['KubeRay disaggregated', { ...FULL, ...DISAGG, provider: { name: 'kuberay' }, model: { id: 'o/m' }, engine: { type: 'vllm', contextLength: 8192 } }],
];

describe('every rendered custom resource validates against its vendored CRD', () => {
  test.each(MATRIX)('%s', (_, props) => {
    const { objects } = render(props); // render() validates each custom resource
    expect(objects.filter((o) => o.apiVersion !== 'v1').length).toBe(1);
  });
});

describe('CrdValidator (generic: any CRD file, any apiVersion/kind)', () => {
  const ws = (extra: object) => ({ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name: 'w' }, resource: { labelSelector: {} }, ...extra });

  test('lists the types the vendored CRDs serve', () => {
    expect(vendoredCrds().types.map((t) => `${t.apiVersion} ${t.kind}`)).toEqual([
      'kaito.sh/v1alpha1 InferenceSet', 'kaito.sh/v1alpha1 Workspace', 'kaito.sh/v1beta1 InferenceSet', 'kaito.sh/v1beta1 Workspace',
      'nvidia.com/v1alpha1 DynamoGraphDeployment', 'nvidia.com/v1beta1 DynamoGraphDeployment', 'ray.io/v1 RayService', 'ray.io/v1alpha1 RayService',
    ]);
  });

  test('reports unknown fields (the API server would prune them silently), wrong types, enums and missing required fields', () => {
    const result = vendoredCrds().validate({
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'DynamoGraphDeployment',
      metadata: { name: 'd' },
      spec: { backendFramework: 'tgi', services: { Frontend: { 'router-mode': 'kv', 'replicas': '2', 'resources': { limits: { gpu: 1 } } } } },
    });
    expect(result.valid).toBe(false);
    expect(result.violations).toEqual([
      { path: 'spec.backendFramework', message: 'must be one of: "sglang", "vllm", "trtllm"' },
      { path: 'spec.services.Frontend.router-mode', message: 'unknown field (not in the CRD schema)' },
      { path: 'spec.services.Frontend.replicas', message: 'must be integer' },
      { path: 'spec.services.Frontend.resources.limits.gpu', message: 'must be string' },
    ]);
    expect(vendoredCrds().validate(ws({ resource: {} })).violations).toEqual([{ path: 'resource.labelSelector', message: 'required field is missing' }]);
  });

  test('a KAITO Workspace with `spec` (as the seed writes it) is invalid: resource and inference are top-level', () => {
    const result = vendoredCrds().validate({ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name: 'w' }, spec: { resource: {}, inference: {} } });
    expect(result.violations).toContainEqual({ path: 'spec', message: 'unknown field (not in the CRD schema)' });
  });

  test('fields only in v1beta1 are rejected in v1alpha1', () => {
    const preset = { inference: { preset: { name: 'p', presetOptions: { modelAccessSecret: 's' } } } };
    expect(vendoredCrds().validate(ws(preset)).valid).toBe(true);
    expect(vendoredCrds().validate({ ...ws(preset), apiVersion: 'kaito.sh/v1alpha1' }).violations)
      .toEqual([{ path: 'inference.preset.presetOptions.modelAccessSecret', message: 'unknown field (not in the CRD schema)' }]);
  });

  test('preserve-unknown-fields sections accept anything', () => {
    expect(vendoredCrds().validate(ws({ inference: { template: { anything: { goes: 1 } } } })).valid).toBe(true);
  });

  test('metadata is checked as the API server would', () => {
    const violations = vendoredCrds().validate(ws({ metadata: { name: 'Bad_Name', namespace: 'NS', labels: { 'a/b/c': 'x', 'ok': 'not ok!' }, annotations: { n: 1 } } })).violations;
    expect(violations.map((v) => `${v.path}: ${v.message.slice(0, 60)}`)).toEqual([
      'metadata.annotations[n]: Invalid value: 1: must be a string (quote it in YAML: "1")',
      'metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain mu',
      'metadata.namespace: Invalid value: "NS": a lowercase RFC 1123 label must consist',
      'metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alp',
      'metadata.labels: Invalid value: "not ok!": a valid label must be an empty str',
    ]);
    expect(vendoredCrds().validate(ws({ metadata: {} })).violations).toEqual([{ path: 'metadata.name', message: 'Required value: name or generateName is required' }]);
  });

  test('x-kubernetes-validations CEL rules are evaluated; transition rules (oldSelf) are skipped', () => {
    const rayService = (managedBy: string) => ({
      apiVersion: 'ray.io/v1',
      kind: 'RayService',
      metadata: { name: 'r' },
      spec: { rayClusterConfig: { managedBy, headGroupSpec: { template: { spec: { containers: [{ name: 'ray-head', image: 'i' }] } } } } },
    });
    expect(vendoredCrds().validate(rayService('ray.io/kuberay-operator'))).toEqual({ valid: true, violations: [], notes: [] });
    expect(vendoredCrds().validate(rayService('me')).violations).toEqual([
      { path: 'spec.rayClusterConfig.managedBy', message: "the managedBy field value must be either 'ray.io/kuberay-operator' or 'kueue.x-k8s.io/multikueue'" },
    ]);
    const pvc = (pvcs: object[]) => ({ apiVersion: 'nvidia.com/v1alpha1', kind: 'DynamoGraphDeployment', metadata: { name: 'd' }, spec: { pvcs } });
    expect(vendoredCrds().validate(pvc([{ name: 'cache', create: false }])).valid).toBe(true);
    expect(vendoredCrds().validate(pvc([{ name: 'cache', create: true }])).violations).toHaveLength(1);
  });

  test('rules using functions the CEL library lacks are notes, not violations', () => {
    const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "isURL(self.url)"
                - rule: "self.size <= 3"
                  message: size must be at most 3
                - rule: "self.size <"
              properties:
                url: { type: string }
                size: { type: integer, format: int32 }
    - name: v0
      served: false
      storage: false
      schema:
        openAPIV3Schema: { type: object }
`;
    const validator = CrdValidator.fromYaml(crd);
    expect(validator.types).toEqual([{ apiVersion: 'example.com/v1', kind: 'Widget' }]);
    const result = validator.validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { url: 'https://x', size: 4 } });
    expect(result.violations).toEqual([{ path: 'spec', message: 'size must be at most 3' }]);
    expect(result.notes).toHaveLength(2);
    expect(result.notes[0]).toMatch(/^spec: could not evaluate x-kubernetes-validations rule "isURL\(self.url\)"/);
    expect(result.notes[1]).toMatch(/^spec: could not evaluate x-kubernetes-validations rule "self.size <"/);
    // A second object: the rules are parsed once per schema, a syntax error kept with its rule.
    const second = validator.validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2 ** 31 } });
    expect(second.violations).toEqual([{ path: 'spec.size', message: 'must match format "int32"' }, { path: 'spec', message: 'size must be at most 3' }]);
    expect(second.notes).toEqual(result.notes);
  });

  test('unknown kinds and non-objects are violations', () => {
    expect(vendoredCrds().validate({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } }).violations[0].message)
      .toMatch(/^no CRD loaded for apps\/v1 Deployment \(loaded: /);
    expect(vendoredCrds().validate([]).violations).toEqual([{ path: '', message: 'must be an object' }]);
    expect(vendoredCrds().supports('ray.io/v1', 'RayService')).toBe(true);
    expect(() => CrdValidator.fromYaml('kind: ConfigMap')).toThrow('expected a CustomResourceDefinition (apiextensions.k8s.io/v1)');
  });
});

describe('scripts/import-crds.mjs', () => {
  test('--check: src/imports is exactly what cdk8s import generates from crds/, and the CRDs are the vendored ones', () => {
    const out = execFileSync('node', [join(__dirname, '..', '..', 'scripts', 'import-crds.mjs'), '--check'], { encoding: 'utf8' });
    expect(out).toBe('import-crds: src/imports is current (5 modules)\n');
  });
});
