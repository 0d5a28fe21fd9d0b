/**
 * `kube-inference status` on pods of real runs: the install init containers and the preflight of
 * the real distribution image of each line (llama-stack 0.7.3, ogx 1.5.0 and 1.1.3) in the sandbox, the pod written as `kubectl get pod
 * -o yaml` shows it (test/sandbox/kubernetes-pod.ts, in place of a kubelet), and the status read back
 * through the CLI.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { deploymentOf, describeWithLlamaStack, EACH_SERVER, freePort, renderStack, Scenario, starterImage } from './helpers';
import { LlamaStackWithProvidersProps } from '../../src';
import { cli } from '../cli/run';
import { kubernetesPod } from '../sandbox/kubernetes-pod';
import { PodRun } from '../sandbox/pod-runner';
import { buildSyntheticWheel, providerMetadata, providerPackage, sampleProviderWheels, SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

const ECHO = 'registry.test/acme/echo-provider:0.1.0';

describe.each(EACH_SERVER)('on %s', (version) => describeWithLlamaStack('kube-inference status of a server pod (real install and preflight)', { versions: [version] }, () => {
  const render = (props: Partial<LlamaStackWithProvidersProps>) => renderStack({ distribution: { image: starterImage(version) }, ...props });
  let s: Scenario;
  let echo: { metadata: string; wheels: string[] };
  beforeAll(() => {
    s = new Scenario(`status-${version}`);
    echo = { metadata: fs.readFileSync(path.join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8'), wheels: sampleProviderWheels(s.path('wheels', 'echo')) };
    s.distribution({}, starterImage(version), version).provider(ECHO, echo);
  });
  afterAll(() => s.dispose());

  const statusOf = async (pod: PodRun, manifests: any[]) => {
    const r = await cli(['status', '-'], { stdin: stringify(kubernetesPod(pod, deploymentOf(manifests))) });
    if (r.code !== 0) throw new Error(r.stderr);
    return parse(r.stdout);
  };

  test('a provider that fails to install: Failed with its reason; the one before Ready, the one after Pending', async () => {
    const broken = 'registry.test/acme/no-metadata:1';
    s.provider(broken, { wheels: echo.wheels });
    const manifests = render({
      externalProviders: {
        inference: [
          { providerId: 'acme-echo', image: ECHO },
          { providerId: 'no-meta', image: broken },
          { providerId: 'later', image: ECHO },
        ],
      },
    });
    const status = await statusOf(await s.run(manifests), manifests);
    expect(status).toMatchObject({ name: 'stack', pod: 'stack-7c9f8d5b6-x2x4q', phase: 'Failed', restarts: 0 });
    expect(status.message).toMatch(/^init container install-provider-no-meta failed: Error \(exit code 1\): /);
    expect(status.message).toContain('ERROR: Missing /lls-provider/lls-provider-spec.yaml in image registry.test/acme/no-metadata:1');
    expect(status.providers.map((p: any) => [p.providerId, p.api, p.image, p.phase])).toEqual([
      ['acme-echo', 'inference', ECHO, 'Ready'],
      ['no-meta', 'inference', broken, 'Failed'],
      ['later', 'inference', ECHO, 'Pending'],
    ]);
    expect(status.providers[1].reason).toContain('Resolution: ');
  });

  test('a provider preflight refuses: installed, then Failed with the check; the server Failed', async () => {
    const wheel = buildSyntheticWheel(providerPackage({ name: 'acme-broken', initBody: 'import acme_not_shipped' }), s.dir, s.path('wheels', 'broken'));
    const ref = 'registry.test/acme/broken-import:1';
    s.provider(ref, { metadata: providerMetadata({ name: 'acme-broken', wheels: [wheel] }), wheels: [wheel] });
    const manifests = render({ port: await freePort(), externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO }, { providerId: 'broken', image: ref }] } });
    const status = await statusOf(await s.run(manifests, { serve: {} }), manifests);
    expect(status.phase).toBe('Failed');
    expect(status.message).toContain('the server container failed: Error (exit code 1)');
    expect(status.providers.map((p: any) => [p.providerId, p.phase])).toEqual([['acme-echo', 'Ready'], ['broken', 'Failed']]);
    expect(status.providers[1].reason).toMatch(/^preflight failed: Check: import .*acme_not_shipped.* Resolution: /);
  });

  test('a serving server: Ready, every provider Ready', async () => {
    const manifests = render({ port: await freePort(), externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO }] } });
    const pod = await s.run(manifests, { serve: {} });
    try {
      expect(await statusOf(pod, manifests)).toEqual({
        name: 'stack',
        namespace: 'default',
        pod: 'stack-7c9f8d5b6-x2x4q',
        phase: 'Ready',
        restarts: 0,
        providers: [{ providerId: 'acme-echo', api: 'inference', image: ECHO, mode: 'inline', phase: 'Ready' }],
      });
    } finally {
      await pod.stop();
    }
  });
}));
