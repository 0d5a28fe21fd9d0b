import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { expectSchemaValid } from './helpers';

// examples/model-deployment-app, synthesised with the real cdk8s CLI against the compiled package
// (the test task compiles first), renders a mix of all three providers, every CR schema-valid.
const ROOT = join(__dirname, '..', '..');

test('the example app renders KAITO, Dynamo and KubeRay resources that validate against the CRDs', () => {
  const out = mkdtempSync(join(tmpdir(), 'model-deployment-app-'));
  execFileSync(join(ROOT, 'node_modules', '.bin', 'cdk8s'), ['synth', '--output', out], { cwd: join(ROOT, 'examples', 'model-deployment-app'), stdio: 'pipe' });
  const objects = parseAllDocuments(readFileSync(join(out, 'models.k8s.yaml'), 'utf8')).map((d) => d.toJS());
  expect(objects.map((o) => `${o.kind}/${o.metadata.name} ${o.metadata.annotations?.['kube-inference.io/provider'] ?? '-'}`)).toEqual([
    'DynamoGraphDeployment/llama-8b dynamo',
    'Workspace/gemma-cpu kaito',
    'DynamoGraphDeployment/llama-70b-pd dynamo',
    'ConfigMap/phi-4-mini-inference-config -',
    'Workspace/phi-4-mini kaito',
    'RayService/qwen3-ray kuberay',
    // The server in front of three of them: its merge step gets their endpoints.
    'ServiceAccount/assistant-sa -',
    'Deployment/assistant -',
    'Service/assistant-service -',
  ]);
  const merge = objects.find((o) => o.kind === 'Deployment').spec.template.spec.initContainers.find((c: any) => c.name === 'merge-config');
  expect(JSON.parse(merge.args[merge.args.indexOf('--served-models') + 1]).map((m: any) => `${m.providerId}/${m.model} ${m.url}`)).toEqual([
    'llama-8b/meta-llama/Llama-3.1-8B-Instruct http://llama-8b-frontend.default.svc.cluster.local:8000/v1',
    'phi-4-mini/phi-4-mini-instruct http://phi-4-mini.default.svc.cluster.local:80/v1',
    'qwen3-ray/qwen3-8b http://qwen3-ray-serve-svc.default.svc.cluster.local:8000/v1',
  ]);
  expectSchemaValid(objects);
});
