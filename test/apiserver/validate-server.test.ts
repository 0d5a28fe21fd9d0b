/**
 * `kube-inference validate --server` against a real API server (the newest minor tested): the bundled
 * CLI reads a kubeconfig, as a user's, and sends each object with server-side dry-run and strict field
 * validation; the server's refusals and warnings are reported per object, and nothing is written.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster } from './cluster';
import { ApiServer, describeWithApiServer, KUBECONFIG_NAMESPACE, NEWEST_TESTED_MINOR } from './server';
import { runBuiltCli } from '../cli/built-cli';

const MINOR = NEWEST_TESTED_MINOR;
/** The namespace of the kubeconfig's context (ApiServer.kubeconfig). */
const CONTEXT_NAMESPACE = KUBECONFIG_NAMESPACE;

/** `validate <args> -` on `input`, the user's kubeconfig out of reach unless `env` names one. */
const validate = (args: string[], input: string, env: NodeJS.ProcessEnv = {}) =>
  runBuiltCli(['validate', ...args, '-'], { input, timeout: 60_000, env: { KUBECONFIG: '', ...env } });

const yaml = (...objects: object[]) => objects.map((o) => JSON.stringify(o)).join('\n---\n');
const configMap = (name: string, data: Record<string, unknown> = { a: 'b' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describeWithApiServer(MINOR, 'validate --server', () => {
  let server: ApiServer;
  let kubeconfig: string;
  beforeAll(async () => {
    const cluster = await Cluster.start(MINOR);
    server = cluster.server;
    await cluster.createNamespaces([CONTEXT_NAMESPACE]);
    kubeconfig = server.kubeconfig();
  }, 180_000);
  afterAll(async () => server?.stop());

  test('each object judged by the server, in its words; nothing is written', async () => {
    const privileged = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'privileged' },
      spec: { selector: { matchLabels: { app: 'p' } }, template: { metadata: { labels: { app: 'p' } }, spec: { containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] } } },
    };
    const workspace = { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name: 'ws' }, resource: { instanceType: 'x', labelSelector: { matchLabels: { a: 'b' } } }, inference: { preset: { name: 'phi-4' }, bogus: 1 } };
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    const r = validate(['--server', '--kubeconfig', kubeconfig], yaml(configMap('ok'), configMap('typo', { a: 1 }), privileged, workspace, widget));
    // Server-side apply's words (a typed patch), as `kubectl apply --server-side --dry-run=server` prints them.
    expect(r.stderr).toContain('error: <stdin> document 2 (ConfigMap "typo"): failed to create typed patch object (kube-inference-cli/typo; /v1, Kind=ConfigMap): .data.a: expected string');
    expect(r.stderr).toContain('warning: <stdin> document 3 (Deployment "privileged"): would violate PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true)');
    expect(r.stderr).toContain('error: <stdin> document 4 (Workspace "ws"): failed to create typed patch object (kube-inference-cli/ws; kaito.sh/v1beta1, Kind=Workspace): .inference.bogus: field not declared in schema');
    expect(r.stderr).toContain('error: <stdin> document 5 (Widget "w"): the cluster serves no example.com/v1 Widget (for a custom resource: is its CRD installed?)');
    expect(r.stderr).toContain('5 object(s): 2 accepted, 3 refused by https://127.0.0.1:');
    expect(r.code).toBe(1);
    expect((await server.request('GET', `/api/v1/namespaces/${CONTEXT_NAMESPACE}/configmaps/ok`)).status).toBe(404);
  });

  test('an apiVersion that is not one never reaches a request path', () => {
    const r = validate(['--server', '--kubeconfig', kubeconfig], yaml({ apiVersion: 'v1/namespaces/kube-system/secrets/x', kind: 'Secret', metadata: { name: 'y' } }));
    expect(r.stderr).toContain('error: <stdin> document 1 (Secret "y"): apiVersion "v1/namespaces/kube-system/secrets/x" is not <group>/<version> or <version>');
    expect(r.code).toBe(1);
  });

  test('an object that exists already is judged as its update (server-side apply)', async () => {
    expect((await server.request('POST', `/api/v1/namespaces/${CONTEXT_NAMESPACE}/configmaps`, configMap('exists'))).status).toBe(201);
    const r = validate(['--server', '--kubeconfig', kubeconfig], yaml(configMap('exists', { a: 'changed' })));
    expect(r.stderr).toContain('1 object(s): 1 accepted, 0 refused');
    expect(r.code).toBe(0);
    expect((await server.request('GET', `/api/v1/namespaces/${CONTEXT_NAMESPACE}/configmaps/exists`)).body.data).toEqual({ a: 'b' });
  });

  test('$KUBECONFIG and --context pick the cluster, as kubectl does', () => {
    expect(validate(['--server'], yaml(configMap('ok')), { KUBECONFIG: kubeconfig }).code).toBe(0);
    expect(validate(['--server', '--kubeconfig', kubeconfig, '--context', 'test'], yaml(configMap('ok'))).code).toBe(0);
    const r = validate(['--server', '--kubeconfig', kubeconfig, '--context', 'prod'], yaml(configMap('ok')));
    expect(r.stderr).toBe('error: the kubeconfig has no context "prod" (it has: test)\n');
    expect(r.code).toBe(1);
  });

  test('an exec credential plugin runs once a run, told what client-go tells it (KUBERNETES_EXEC_INFO)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-exec-plugin-'));
    const calls = path.join(dir, 'calls');
    const plugin = path.join(dir, 'plugin.js');
    fs.writeFileSync(plugin, 'require("fs").appendFileSync(process.env.CALLS, `${process.env.KUBERNETES_EXEC_INFO}\\n`);\n'
      + 'console.log(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: process.env.TOKEN } }));\n');
    const config = JSON.parse(fs.readFileSync(kubeconfig, 'utf8'));
    const exec = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: [plugin],
      interactiveMode: 'Never',
      provideClusterInfo: true,
      env: [{ name: 'CALLS', value: calls }, { name: 'TOKEN', value: config.users[0].user.token }],
    };
    const execConfig = path.join(dir, 'kubeconfig.json');
    fs.writeFileSync(execConfig, JSON.stringify({ ...config, users: [{ name: 'tester', user: { exec } }] }));
    const r = validate(['--server', '--kubeconfig', execConfig], yaml(configMap('one'), configMap('two'), configMap('three')));
    expect(r.stderr).toContain('3 object(s): 3 accepted, 0 refused');
    const cluster = config.clusters[0].cluster;
    expect(fs.readFileSync(calls, 'utf8').trim().split('\n').map((line) => JSON.parse(line))).toEqual([{
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { 'server': cluster.server, 'certificate-authority-data': cluster['certificate-authority-data'] } },
    }]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a cluster that cannot be reached or a kubeconfig that cannot be read: one line, exit 1', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-kubeconfig-'));
    const closed = path.join(dir, 'closed.yaml');
    fs.writeFileSync(closed, fs.readFileSync(kubeconfig, 'utf8').replace(/https:\/\/127\.0\.0\.1:\d+/, 'https://127.0.0.1:1'));
    const r = validate(['--server', '--kubeconfig', closed], yaml(configMap('ok')));
    expect(r.stderr).toMatch(/^error: cannot reach https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED.*\n$/);
    expect(r.code).toBe(1);
    const missing = validate(['--server', '--kubeconfig', path.join(dir, 'none.yaml')], yaml(configMap('ok')));
    expect(missing.stderr).toMatch(/^error: cannot read the kubeconfig .*none\.yaml: /);
    expect(missing.code).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
