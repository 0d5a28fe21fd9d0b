import { join } from 'path';
import { mockPulumi, valueOf } from './mocks';

// Runs the example Pulumi program under the engine mocks (the Pulumi CLI cannot run here) and
// checks what it registers. The example imports the package by name, i.e. the compiled lib/.
const registered = mockPulumi();

test('the example Pulumi program registers the component and its objects', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const program = require(join(__dirname, '..', '..', 'examples', 'pulumi-app', 'index'));
  expect(await valueOf(program.serviceName)).toBe('llama-stack-service');
  expect(await valueOf(program.servicePort)).toBe(8321);
  expect(await valueOf(program.modelProvider)).toBe('dynamo');
  expect(await valueOf(program.modelSelectionReason)).toMatch(/dynamo/i);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const types = registered.map((r) => r.type);
  expect(types).toContain('kube-inference:llama-stack:LlamaStackWithProviders');
  expect(types).toContain('kube-inference:model-deployment:ModelDeployment');
  expect(types).toContain('kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment');
  // No ConfigMap: the pod runs the merge image, which writes the init scripts.
  expect(types.filter((t) => t.startsWith('kubernetes:')).sort()).toEqual([
    'kubernetes:apps/v1:Deployment', 'kubernetes:core/v1:Namespace', 'kubernetes:core/v1:Service', 'kubernetes:core/v1:ServiceAccount',
    'kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment',
  ]);
  const deployment = registered.find((r) => r.type === 'kubernetes:apps/v1:Deployment')!.inputs;
  expect(deployment.metadata.namespace).toBe('llama-stack');
  expect(deployment.spec.template.spec.initContainers.map((c: any) => c.image)).toContain('quay.io/acme/search-provider:0.3.0');
  expect(await valueOf(program.modelIds)).toEqual(['llama-8b/meta-llama/Llama-3.1-8B-Instruct']);
  expect(await valueOf(program.modelUrl)).toBe('http://llama-8b-frontend.llama-stack.svc.cluster.local:8000/v1');
  const merge = deployment.spec.template.spec.initContainers.find((c: any) => c.name === 'merge-config');
  expect(merge.args[merge.args.indexOf('--served-models') + 1]).toContain('"url":"http://llama-8b-frontend.llama-stack.svc.cluster.local:8000/v1"');
});
