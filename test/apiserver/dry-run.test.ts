/**
 * What the library renders, sent to a real Kubernetes API server (test/apiserver/server.ts) of each
 * tested minor with server-side dry-run and strict field validation, into namespaces that enforce Pod
 * Security `restricted`, with the vendored CRDs installed: every object must be accepted, without a
 * warning, and `validate`'s offline checks for that minor must accept it too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Cluster, DryRunResult } from './cluster';
import { ApiServer, apiServerVersion, describeWithApiServer, TESTED_MINORS } from './server';
import { cli } from '../cli/run';
import { find, render, THREE_PROVIDERS } from '../llama-stack/helpers';

const ROOT = path.join(__dirname, '..', '..');
const SAMPLES = path.join(ROOT, 'test', 'fixtures', 'operator-samples');
const NAMESPACE = 'kube-inference-tests';

const objectsOf = (yaml: string) => parseAllDocuments(yaml).map((d) => d.toJS()).filter((o) => o !== null);

describe.each(TESTED_MINORS)('Kubernetes %s', (minor) => describeWithApiServer(minor, 'rendered objects on a real API server', () => {
  let server: ApiServer;
  let cluster: Cluster;
  let checked = 0;
  beforeAll(async () => {
    cluster = await Cluster.start(minor);
    server = cluster.server;
  }, 180_000);
  afterAll(async () => {
    // eslint-disable-next-line no-console
    console.log(`kube-apiserver ${apiServerVersion(minor)} checked ${checked} rendered objects`);
    await server?.stop();
  });

  /** Sends the objects: each must be accepted without a warning, online and offline. */
  const expectAccepted = async (objects: readonly any[]) => {
    const results: DryRunResult[] = await cluster.dryRun(objects, NAMESPACE);
    checked += results.length;
    expect(results.filter((r) => !r.accepted || r.warnings.length > 0)).toEqual([]);
    const offline = await cli(['validate', '--target-version', minor, '-'], { stdin: objects.map((o) => JSON.stringify(o)).join('\n---\n') });
    expect(offline.stderr).toContain(`${objects.length} object(s): ${objects.length} valid, 0 invalid, 0 without a schema`);
  };

  test('the vendored CRDs install, except Dynamo\'s before Kubernetes 1.30 (its CEL rules use optionalOldSelf)', () => {
    const refused = [...cluster.refusedCrds.keys()];
    expect(refused).toEqual(Number(minor.split('.')[1]) < 30 ? ['nvidia.com/DynamoGraphDeployment'] : []);
    for (const message of cluster.refusedCrds.values()) expect(message).toContain("found no matching overload for 'hasValue'");
  });

  test('the examples\' committed manifests', async () => {
    for (const example of ['llama-stack-app', 'model-deployment-app']) {
      const dir = path.join(ROOT, 'examples', example, 'dist');
      for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
        await expectAccepted(objectsOf(fs.readFileSync(path.join(dir, file), 'utf8')));
      }
    }
  });

  test('the operator\'s samples as render writes them', async () => {
    for (const file of ['', 'v1alpha1'].flatMap((d) => fs.readdirSync(path.join(SAMPLES, d)).filter((f) => f.endsWith('.yaml')).map((f) => path.join(SAMPLES, d, f)))) {
      const r = await cli(['render', file]);
      expect(r.code).toBe(0);
      await expectAccepted(objectsOf(r.stdout));
    }
  });

  test.each([
    ['providers, a CA bundle of several keys, storage, workers', { ...THREE_PROVIDERS, caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', 'b.crt'] }, storage: { size: '5Gi' }, workers: 2 }],
    ['replicas, autoscaling, network, a Route', { distribution: { name: 'starter' }, replicas: 3, autoscaling: { maxReplicas: 5 }, network: { expose: true, exposeAs: 'Route' as const, allowedFrom: { namespaces: ['web'], labels: ['team'] } } }],
    ['ids left to the platform, an inline config', { ...THREE_PROVIDERS, podSecurity: { idsFromPlatform: true }, userConfig: { config: { version: 2, apis: ['inference'] } } }],
  ])('LlamaStackWithProviders: %s', async (_, props) => {
    await expectAccepted(render(props));
  });

  test('validate and the server judge the items of a List alike', async () => {
    const items = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok' }, data: { a: 'b' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-a-string' }, data: { a: 1 } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'port' }, spec: { ports: [{ port: '80' }] } },
    ];
    const online = await cluster.dryRun(items, NAMESPACE);
    const offline = await cli(['validate', '--target-version', minor, '-'], { stdin: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
    expect(online.map((r) => r.accepted)).toEqual([true, false, false]);
    expect(offline.stderr).toContain('3 object(s): 1 valid, 2 invalid, 0 without a schema');
    expect(offline.stderr).toContain('item 2 (ConfigMap "not-a-string"): data[a]: Invalid value: 1: must be a string (quote it in YAML: "1")');
    expect(offline.stderr).toContain('item 3 (Service "port"): spec.ports[0].port: Invalid value: "80": must be an integer (int32)');
  });

  test('the server refuses what it should, in its own words: an unknown field, a privileged pod', async () => {
    const deployment = find(render({ distribution: { name: 'starter' } }), 'Deployment');
    const [unknown] = await cluster.dryRun([{ ...deployment, spec: { ...deployment.spec, replicaz: 2 } }], NAMESPACE);
    expect(unknown).toMatchObject({ accepted: false, error: expect.stringContaining('unknown field "spec.replicaz"') });
    const [relaxed] = await cluster.dryRun([find(render({ distribution: { name: 'starter' }, podSecurity: { restricted: false } }), 'Deployment')], NAMESPACE);
    // Pod Security admission warns on a Deployment (it refuses only its pods).
    expect(relaxed.accepted).toBe(true);
    expect(relaxed.warnings).toEqual([expect.stringContaining('would violate PodSecurity "restricted:latest"')]);
  });
}));
