import { join } from 'path';
import { cli } from './run';

const MIXED = join(__dirname, '..', 'fixtures', 'manifests', 'mixed.yaml');

describe('kube-inference validate', () => {
  test('names each invalid object, field and reason, and exits 1', async () => {
    const r = await cli(['validate', MIXED]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${MIXED} document 2 (Deployment "broken"): spec.template.spec.containers[0].ports[0].containerPort: must be integer`);
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
    expect(r.stderr).toContain('error: <stdin> document 1 item 2 (Deployment "broken"): spec.template.spec.containers[0].ports[0].containerPort: must be integer');
    expect(r.stderr).toContain('error: <stdin> document 2 item 1 (ConfigMap "typed"): data.a: must be string');
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
    expect(ok.stderr).toBe('1 object(s): 1 valid, 0 invalid, 0 without a schema\n');
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
});
