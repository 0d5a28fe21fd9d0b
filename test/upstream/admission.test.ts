// The upstream admission checker itself: it refuses what KubeRay refuses, with KubeRay's messages, and
// never passes off a kind it cannot validate as accepted.
import { upstreamAdmission, upstreamAdmissionSupport } from './admission';
import { describeWhen } from '../sandbox/host';

const rayService = (name: string, spec: object = {}) => ({
  apiVersion: 'ray.io/v1',
  kind: 'RayService',
  metadata: { name },
  spec: {
    serveConfigV2: 'applications: []\n',
    rayClusterConfig: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.52.0' }] } } } },
    ...spec,
  },
});

describeWhen('upstream admission checker', upstreamAdmissionSupport(), 'the upstream admission checker (Go)', () => {
  test('a valid RayService is accepted by KubeRay v1.6.2 code', () => {
    expect(upstreamAdmission([rayService('ok')])).toEqual([expect.objectContaining({
      kind: 'RayService', name: 'ok', validator: 'github.com/ray-project/kuberay/ray-operator@v1.6.2', accepted: true, errors: [],
    })]);
  });

  test('unknown fields are refused as strict decoding does', () => {
    const [r] = upstreamAdmission([rayService('extra', { autoscaling: true })]);
    expect(r).toMatchObject({ accepted: false, errors: ['strict decoding: unknown field "spec.autoscaling"'] });
  });

  test("names KubeRay cannot use are refused by its webhook and its controller's validation", () => {
    const [r] = upstreamAdmission([rayService('x'.repeat(48))]);
    expect(r.accepted).toBe(false);
    expect(r.errors).toEqual([
      expect.stringMatching(/^admission webhook: RayService.ray.io "x{48}" is invalid: metadata.name: .*no more than 47 characters/),
      'controller: The RayService metadata is invalid: RayService name should be no more than 47 characters',
    ]);
  });

  test('spec rules of the controller apply (a named head Service is refused)', () => {
    const spec = rayService('svc').spec;
    const head = { ...spec.rayClusterConfig.headGroupSpec, headService: { metadata: { name: 'mine' } } };
    const [r] = upstreamAdmission([rayService('svc', { rayClusterConfig: { headGroupSpec: head } })]);
    expect(r.errors).toEqual(['controller: The RayService spec is invalid: spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set']);
  });

  test('kinds without upstream validation here come back unjudged (accepted null), one result per object in order', () => {
    const results = upstreamAdmission([{ apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', metadata: { name: 'w' } }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }]);
    expect(results).toEqual([
      { apiVersion: 'kaito.sh/v1beta1', kind: 'Workspace', name: 'w', accepted: null, errors: [], note: expect.stringMatching(/^no upstream validation here: github.com\/kaito-project\/kaito /) },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', accepted: null, errors: [], note: 'no upstream validation here' },
    ]);
  });
});
