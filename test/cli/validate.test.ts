import { readdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { cli } from './run';
import { KUBERNETES_MINORS } from '../../src/schema/kubernetes/openapi';
import { tempDir } from '../temp-dir';

const MIXED = join(__dirname, '..', 'fixtures', 'manifests', 'mixed.yaml');

describe('kube-inference validate', () => {
  test('names each invalid object, field and reason, and exits 1', async () => {
    const r = await cli(['validate', MIXED]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${MIXED} document 2 (Deployment "broken"): spec.template.spec.containers[0].ports[0].containerPort: Invalid value: "http": must be an integer (int32)`);
    expect(r.stderr).toMatch(/error: .* document 3 \(Workspace "Bad_Name"\): metadata\.name: .*/);
    expect(r.stderr).toMatch(/error: .* document 3 \(Workspace "Bad_Name"\): inference.bogus: unknown field/);
    expect(r.stderr).toContain('warning: ' + MIXED + ' document 4 (Widget "w"): no schema for example.com/v1 Widget');
    expect(r.stderr).toContain('4 object(s): 1 valid, 2 invalid, 1 without a schema');
    expect(r.stderr).not.toContain('document 1 (ConfigMap');
  });

  test('the items of a List (kubectl get -o yaml) and of a typed list are validated each', async () => {
    const list = [
      'apiVersion: v1', 'kind: List', 'metadata: {resourceVersion: ""}', 'items:',
      '- {apiVersion: v1, kind: ConfigMap, metadata: {name: ok}, data: {a: b}}',
      '- {apiVersion: apps/v1, kind: Deployment, metadata: {name: broken}, spec: {selector: {}, template: {spec: {containers: [{name: c, ports: [{containerPort: "80"}]}]}}}}',
      '---',
      'apiVersion: v1', 'kind: ConfigMapList', 'items:', '- {metadata: {name: typed}, data: {a: 1}}', '',
    ].join('\n');
    const r = await cli(['validate', '-'], { stdin: list });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: <stdin> document 1 item 2 (Deployment "broken"): spec.template.spec.containers[0].ports[0].containerPort: Invalid value: "80": must be an integer (int32)');
    expect(r.stderr).toContain('error: <stdin> document 1 item 2 (Deployment "broken"): spec.selector: Invalid value: {}: empty selector is invalid for deployment');
    expect(r.stderr).toContain('error: <stdin> document 2 item 1 (ConfigMap "typed"): data[a]: Invalid value: 1: must be a string (quote it in YAML: "1")');
    expect(r.stderr).toContain('3 object(s): 1 valid, 2 invalid, 0 without a schema');
  });

  test('--strict makes objects without a schema errors', async () => {
    const r = await cli(['validate', '--strict', '-'], { stdin: 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: <stdin> document 1 (Widget "w"): no schema for example.com/v1 Widget');
  });

  test('--crd adds CRDs to validate against', async () => {
    const crd = join(__dirname, '..', 'fixtures', 'manifests', 'widget-crd.yaml');
    const ok = await cli(['validate', '--crd', crd, '-'], { stdin: 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n' });
    expect(ok.stderr).toBe('1 object(s): 1 valid, 0 invalid, 0 without a schema (Kubernetes 1.37)\n');
    expect(ok.code).toBe(0);
    const bad = await cli(['validate', '--crd', crd, '-'], { stdin: 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: three}\n' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('spec.size: must be integer');
  });

  test('a directory means every YAML file below it', async () => {
    const r = await cli(['validate', join(__dirname, '..', 'fixtures', 'llsd')]);
    // LlamaStackDistribution is an input kind with no vendored CRD: reported, not validated.
    expect(r.stderr).toContain('2 object(s): 0 valid, 0 invalid, 2 without a schema');
    expect(r.code).toBe(0);
  });

  test('a directory\'s kustomization.yaml is Kustomize\'s config, not an object: skipped', async () => {
    const dir = tempDir('validate-');
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [cm.yaml]\n');
    writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
    const r = await cli(['validate', '--strict', dir]);
    expect(r).toMatchObject({ code: 0, stderr: '1 object(s): 1 valid, 0 invalid, 0 without a schema (Kubernetes 1.37)\n' });
    const named = await cli(['validate', join(dir, 'kustomization.yaml')]);
    expect(named.code).toBe(1);
  });

  describe('--target-version', () => {
    const check = (minor: string, object: object) => cli(['validate', '--target-version', minor, '-'], { stdin: JSON.stringify(object) });
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: '1api' }, spec: { ports: [{ port: 80 }] } };
    const pod = (env: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', env: [{ name: env, value: 'x' }] }] } });

    test('rules follow the release: Service names and environment variable names were relaxed', async () => {
      expect((await check('1.35', service)).stderr).toContain('metadata.name: Invalid value: "1api": a DNS-1035 label must');
      expect((await check('1.36', service)).code).toBe(0);
      expect((await check('1.31', pod('1ST'))).stderr).toContain('spec.containers[0].env[0].name: Invalid value: "1ST": a valid environment variable name must consist of alphabetic');
      expect((await check('v1.32.4', pod('1ST'))).code).toBe(0);
      expect((await check('1.37', pod('A=B'))).stderr).toContain("must consist only of printable ASCII characters other than '='");
    });

    test('an API version the release no longer serves, or does not serve yet, names the ones it does', async () => {
      const hpa = { apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 2 } };
      const r = await check('1.29', hpa);
      expect(r.stderr).toContain('apiVersion: Kubernetes 1.29 serves no autoscaling/v2beta2 HorizontalPodAutoscaler; Kubernetes 1.29 serves it as autoscaling/v1 HorizontalPodAutoscaler, autoscaling/v2 HorizontalPodAutoscaler');
      expect(r.code).toBe(1);
    });

    test('a release without vendored schemas is bad usage, naming the ones there are', async () => {
      const r = await cli(['validate', '--target-version', '1.27', '-'], { stdin: '' });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('error: --target-version 1.27: the offline checks know Kubernetes 1.29, 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37');
      expect((await cli(['validate', '--target-version', 'latest', '-'], { stdin: '' })).code).toBe(2);
    });

    test('--server takes none of the offline options', async () => {
      const r = await cli(['validate', '--server', '--target-version', '1.30', '-'], { stdin: '' });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--server asks the cluster itself');
      expect((await cli(['validate', '--context', 'x', '-'], { stdin: '' })).stderr).toContain('--kubeconfig and --context go with --server');
    });
  });

  test('values decode as the API server decodes them: null is absent, quantities may be numbers, int-or-string takes both', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', annotations: null },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: 2, memory: '1Gi' }, requests: { cpu: '500m', memory: 1e9 } }, ports: null }] } },
      },
    };
    const r = await cli(['validate', '-'], { stdin: JSON.stringify(deployment) });
    expect(r.stderr).toBe('1 object(s): 1 valid, 0 invalid, 0 without a schema (Kubernetes 1.37)\n');
  });
});

test('the minors validate offers are the minors whose schemas are vendored (scripts/import-kubernetes-openapi.mjs)', () => {
  const vendored = readdirSync(join(__dirname, '..', '..', 'kubernetes-openapi')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  expect([...KUBERNETES_MINORS].sort()).toEqual(vendored.sort());
});
