import { Chart, Testing } from 'cdk8s';
import { dynamoComponents, dynamoMain, problemsOf } from './helpers';
import { renderModelDeploymentDocument } from '../../src/model-deployment';

const doc = (overrides: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: 'chat', namespace: 'ai' },
  spec: { model: { id: 'Qwen/Qwen3-8B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, ...spec },
  ...overrides,
});
const renderDoc = (d: unknown) => {
  const chart = new Chart(Testing.app(), 'doc', { namespace: 'ai' });
  const md = renderModelDeploymentDocument(chart, d, 'in.yaml document 1');
  return { md, objects: Testing.synth(chart) };
};

describe('ModelDeployment documents (kube-inference render)', () => {
  test.each(['airunway.ai/v1alpha1', 'kubeairunway.ai/v1alpha1', 'kubefoundry.ai/v1alpha1'])('apiVersion %s renders, named and namespaced from metadata', (apiVersion) => {
    const { md, objects } = renderDoc(doc({ apiVersion }));
    expect(md.name).toBe('chat');
    expect(objects.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['DynamoGraphDeployment ai/chat']);
  });

  test('a status saved from a cluster is ignored', () => {
    expect(renderDoc(doc({ status: { phase: 'Running' } })).objects).toHaveLength(1);
  });

  test('YAML numbers in quantity fields are accepted as quantities, as kubectl does', () => {
    const { objects } = renderDoc(doc({}, { resources: { gpu: { count: 1 }, cpu: 8, memory: '32Gi' } }));
    expect(dynamoMain(dynamoComponents(objects[0]).VllmWorker).resources.requests).toEqual({ cpu: '8', memory: '32Gi' });
  });

  test('metadata: fields outside Kubernetes\' object metadata are refused, the server-written ones of a saved object ignored', () => {
    const metadata = { name: 'chat', lables: { a: 'b' }, zzUnknownField: 1, toString: 'x', constructor: 1, uid: 'u', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' };
    expect(problemsOf(() => renderDoc(doc({ metadata }))).map((p) => `${p.field}: ${p.message}`)).toEqual([
      "metadata.lables: unknown field; did you mean 'labels'? (expected one of: name, namespace, labels, annotations)",
      'metadata.zzUnknownField: unknown field; expected one of: name, namespace, labels, annotations',
      'metadata.toString: unknown field; expected one of: name, namespace, labels, annotations',
      'metadata.constructor: unknown field; expected one of: name, namespace, labels, annotations',
    ]);
    expect(renderDoc(doc({ metadata: { name: 'chat', uid: 'u', generation: 3, managedFields: [] } })).objects).toHaveLength(1);
    // A key the YAML reader keeps as its own (never the prototype).
    const proto = JSON.parse('{"name": "chat", "__proto__": {"a": 1}}');
    expect(problemsOf(() => renderDoc(doc({ metadata: proto }))).map((p) => p.field)).toEqual(['metadata.__proto__']);
  });

  test('envelope problems are reported together, with document paths', () => {
    expect(problemsOf(() => renderDoc({ apiVersion: 'kubefoundry.ai/v1', kind: 'Model', metadata: { namespace: 3 }, extra: true }))).toEqual([
      { field: 'apiVersion', message: 'expected one of airunway.ai/v1alpha1, kubeairunway.ai/v1alpha1, kubefoundry.ai/v1alpha1, got "kubefoundry.ai/v1"' },
      { field: 'kind', message: 'expected ModelDeployment, got "Model"' },
      { field: 'extra', message: 'unknown field; expected apiVersion, kind, metadata, spec' },
      { field: 'metadata.name', message: 'missing: every document needs metadata.name; the rendered objects are named after it' },
      { field: 'metadata.namespace', message: 'expected a string, got 3' },
      { field: 'spec', message: 'missing: a ModelDeployment needs a spec with model and engine' },
    ]);
    expect(problemsOf(() => renderDoc('just text'))).toEqual([{ field: '', message: 'expected a ModelDeployment document (a YAML mapping)' }]);
  });

  test('spec problems name spec.* fields; metadata problems keep metadata.*', () => {
    const problems = problemsOf(() => renderDoc(doc({ metadata: { name: 'Chat' } }, { engine: { type: 'tgi' }, providers: {} })));
    expect(problems).toEqual([{ field: 'spec.providers', message: expect.stringContaining('unknown field') }]);
    expect(problemsOf(() => renderDoc(doc({ metadata: { name: 'Chat' } }, { engine: { type: 'tgi' } })))).toEqual([
      { field: 'spec.engine.type', message: 'expected one of vllm, sglang, trtllm, llamacpp, got string "tgi"' },
      { field: 'metadata.name', message: '"Chat" is not a valid name: lower-case letters, digits and \'-\', starting with a letter, at most 63 characters' },
    ]);
    expect(problemsOf(() => renderDoc(doc({}, { engine: {} })))).toEqual([{ field: 'spec.engine.type', message: 'engine.type is required' }]);
    expect(problemsOf(() => renderDoc(doc({}, { provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } }, engine: { type: 'sglang' } }))))
      .toEqual([{ field: 'spec.engine.type', message: 'KAITO does not support sglang engine' }]);
  });

  test('the errors are labelled with the document', () => {
    expect(() => renderDoc(doc({}, { engine: {} }))).toThrow(/^in\.yaml document 1 has 1 invalid setting:\n {2}- spec\.engine\.type: engine\.type is required$/);
  });
});
