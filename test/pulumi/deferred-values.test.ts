import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { mockPulumi, valueOf } from './mocks';
import { DeferredValues } from '../../src/pulumi/deferred-values';

mockPulumi();

/** The URNs of every resource a value depends on, as the engine records them for the property it is given to. */
async function dependencies(value: pulumi.Output<unknown>): Promise<string[]> {
  const resources: Set<pulumi.Resource> = await (value as any).allResources();
  return (await Promise.all([...resources].map((r) => valueOf(r.urn)))).map((urn) => urn.split('::').pop()!).sort();
}

describe('DeferredValues.substitute', () => {
  test('a value depends only on the outputs it holds, so a changed ConfigMap is no dependency of a Service', async () => {
    const ns = new k8s.core.v1.Namespace('dv-ns', { metadata: { name: 'ai' } });
    const cm = new k8s.core.v1.ConfigMap('dv-cm', { metadata: { name: 'user-config' } });
    const deferred = new DeferredValues();
    const namespace = deferred.placeholder(ns.metadata.name, 'name');
    const configMap = deferred.placeholder(cm.metadata.name, 'name');
    let checks = 0;
    const [service, deployment] = deferred.substitute([
      { kind: 'Service', metadata: { namespace } },
      { kind: 'Deployment', metadata: { namespace }, volume: configMap, both: `${namespace}/${configMap}` },
    ], () => void checks++);

    expect(await dependencies(service.metadata.namespace)).toEqual(['dv-ns']);
    expect(await dependencies(deployment.volume)).toEqual(['dv-cm']);
    expect(await dependencies(deployment.both)).toEqual(['dv-cm', 'dv-ns']);
    expect(await valueOf(deployment.both)).toBe('ai/user-config');
    expect(checks).toBe(1);
  });

  test('every value waits for the check of all of them: a failing check fails a value that holds none of the invalid outputs', async () => {
    const deferred = new DeferredValues();
    const name = deferred.placeholder(pulumi.output('fine'), 'name');
    deferred.placeholder(pulumi.output('Not A Name'), 'name');
    const [object] = deferred.substitute([{ name }], (values) => {
      throw new Error(`namespace: '${values[1]}' is not a DNS label`);
    });
    await expect(valueOf(object.name)).rejects.toThrow("namespace: 'Not A Name' is not a DNS label");
  });

  describe('in a preview', () => {
    beforeAll(() => pulumi.runtime.setMocks({ newResource: (args) => ({ id: args.name, state: args.inputs }), call: (args) => args.inputs }, 'project', 'stack', true));
    afterAll(() => mockPulumi());

    test('a known value is given while another is not known: it does not wait for the check that cannot run', async () => {
      const deferred = new DeferredValues();
      const known = deferred.placeholder(pulumi.output('ai'), 'name');
      // What an output of a resource yet to be created or replaced is, in a preview.
      const unknown = deferred.placeholder(pulumi.output((pulumi as any).unknown as string), 'name');
      let checks = 0;
      const [object] = deferred.substitute([{ known, unknown }], () => void checks++);
      expect(await valueOf(object.known)).toBe('ai');
      expect(await (object.unknown as any).isKnown).toBe(false);
      expect(checks).toBe(0);
    });
  });
});
