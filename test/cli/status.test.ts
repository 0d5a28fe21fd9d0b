import { writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { asInput } from './hostile-manifests';
import { cli } from './run';
import { CliIo, UsageError } from '../../src/cli/io';
import { statusCommand } from '../../src/cli/status-command';
import { tempDir } from '../temp-dir';

// Resources as `kubectl get -o yaml` prints them: server-set metadata, spec and status.
const DGD = {
  apiVersion: 'nvidia.com/v1alpha1',
  kind: 'DynamoGraphDeployment',
  metadata: {
    name: 'llama-8b',
    namespace: 'default',
    uid: '0b6c0d3e-1a2b-4c5d-8e9f-0a1b2c3d4e5f',
    resourceVersion: '4711',
    generation: 1,
    annotations: { 'kube-inference.io/provider': 'dynamo', 'kube-inference.io/selection-reason': 'default → dynamo (GPU inference default)' },
  },
  spec: { backendFramework: 'vllm', services: { Frontend: { componentType: 'frontend', replicas: 1 }, VllmWorker: { componentType: 'worker', replicas: 2 } } },
  status: { state: 'successful', conditions: [{ type: 'Ready', status: 'True', reason: 'AllReady', message: 'All resources are ready', lastTransitionTime: '2026-01-30T10:00:00Z' }] },
};
const WORKSPACE = {
  apiVersion: 'kaito.sh/v1beta1',
  kind: 'Workspace',
  metadata: { name: 'gemma-cpu', namespace: 'default' },
  resource: { count: 1, labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux' } } },
  status: { state: 'Pending', conditions: [{ type: 'InferenceReady', status: 'False', reason: 'WorkspaceInferenceStatusPending', message: 'Inference workload is not ready', lastTransitionTime: '2026-01-30T10:00:00Z' }] },
};

async function run(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { readStdin: async () => stdin, stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; }, cwd: process.cwd() };
  const code = await statusCommand.run(args, io);
  return { code, stdout, stderr };
}

const file = (content: string) => {
  const path = join(tempDir('status-'), 'saved.yaml');
  writeFileSync(path, content);
  return path;
};

describe('kube-inference status -f FILE', () => {
  test('prints the unified status of a saved DynamoGraphDeployment, with the recorded selection reason', async () => {
    const r = await run(['-f', file(stringify(DGD))]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(parse(r.stdout)).toEqual({
      phase: 'Running',
      provider: { name: 'dynamo', resourceName: 'llama-8b', resourceKind: 'DynamoGraphDeployment', selectionReason: 'default → dynamo (GPU inference default)' },
      replicas: { desired: 2, ready: 2, available: 2 },
      endpoint: { service: 'llama-8b-frontend', port: 8000, basePath: '/v1' },
    });
  });

  test('reads standard input, multi-document YAML and kubectl Lists; one YAML document per resource', async () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [WORKSPACE, DGD], metadata: { resourceVersion: '' } };
    const r = await run(['-f', '-'], `${stringify(list)}---\n${stringify(DGD)}`);
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS());
    expect(docs.map((d) => `${d.provider.resourceKind}/${d.provider.resourceName} ${d.phase}`))
      .toEqual(['Workspace/gemma-cpu Deploying', 'DynamoGraphDeployment/llama-8b Running', 'DynamoGraphDeployment/llama-8b Running']);
    expect(docs[0].message).toBe('Inference workload is not ready');
  });

  test('-o json prints an object for one resource and an array for several', async () => {
    const one = await run(['-f', '-', '-o', 'json'], stringify(WORKSPACE));
    expect(JSON.parse(one.stdout)).toMatchObject({ phase: 'Deploying', endpoint: { service: 'gemma-cpu', port: 80 } });
    const two = await run(['-f', '-', '--output', 'json'], `${stringify(WORKSPACE)}---\n${stringify(DGD)}`);
    expect(JSON.parse(two.stdout).map((s: any) => s.phase)).toEqual(['Deploying', 'Running']);
  });

  test('escape sequences and bidirectional controls in the cluster\'s messages are shown, not obeyed, in YAML and JSON', async () => {
    const hostile = '\u001b[2J\u001b]52;c;ZXZpbA==\u0007\rnot ready \u202egnp.exe\u009b';
    // As `kubectl get -o json` prints it: the controls escaped.
    const input = asInput([{ ...WORKSPACE, status: { ...WORKSPACE.status, conditions: [{ ...WORKSPACE.status.conditions[0], message: hostile }] } }]);
    for (const format of ['yaml', 'json']) {
      const r = await cli(['status', '-f', '-', '-o', format], { stdin: input });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      // Escaped as JSON and YAML read them: the message is still the cluster's, for a program reading the report.
      expect((format === 'json' ? JSON.parse(r.stdout) : parse(r.stdout)).message).toBe(hostile);
    }
  });

  test('a resource no provider understands: exit 1, nothing on stdout, stderr names the document', async () => {
    const r = await run(['-f', '-'], `${stringify(DGD)}---\n${stringify({ apiVersion: 'acme.io/v1', kind: 'Model', metadata: { name: 'x' } })}`);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: <stdin> document 2: no provider reads the status of acme.io/v1 Model; supported: DynamoGraphDeployment (dynamo), Workspace (kaito), RayService (kuberay)\n');
  });

  test('Kubernetes\' own objects of a synth output are skipped with a note; with nothing else, exit 1', async () => {
    const others = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'stack' } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'in' } },
    ].map((o) => stringify(o)).join('---\n');
    const r = await run(['-f', '-'], `${stringify(DGD)}---\n${others}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('resourceKind: DynamoGraphDeployment');
    expect(r.stderr).toBe('note: skipped 3 Kubernetes object(s) with no model or server status: ConfigMap/cm, Deployment/stack, Ingress/in\n');
    const alone = await run(['-f', '-'], others);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('error: no model deployment (Workspace, InferenceSet, DynamoGraphDeployment, RayService) or server pod in the input');
  });

  test('unreadable input: exit 1 with the reason', async () => {
    const r = await run(['-f', join(tmpdir(), 'does-not-exist.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*does-not-exist\.yaml does not exist\.\n$/);
  });

  test('FILE may be given as the other commands take it, and no FILE reads standard input', async () => {
    const withFlag = await run(['-f', file(stringify(DGD))]);
    expect(await run([file(stringify(DGD))])).toEqual(withFlag);
    expect(await run([], stringify(DGD))).toEqual(withFlag);
  });

  test('usage errors', async () => {
    await expect(run(['-f', '-', '-o', 'table'])).rejects.toThrow("unknown output format 'table': use yaml or json");
    await expect(run(['--bogus'])).rejects.toThrow(UsageError);
  });
});

test('`kube-inference status` is a registered subcommand', async () => {
  const help = await cli(['--help']);
  expect(help.stdout).toMatch(/^ {2}status {13}Print the unified status of saved Workspace\/DynamoGraphDeployment\/RayService resources$/m);
  const r = await cli(['status', '-f', '-'], { stdin: stringify(DGD) });
  expect(r.code).toBe(0);
  expect(parse(r.stdout).phase).toBe('Running');
  const usage = await cli(['status', '-o', 'table']);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain("error: unknown output format 'table': use yaml or json");
});
