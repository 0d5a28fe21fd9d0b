/**
 * Health checks against a request quota, on the real llama-stack 0.7.3 server in a sandbox: its
 * QuotaMiddleware counts every HTTP request by client address, health checks included, so the
 * kubelet's HTTP probes would use up the anonymous quota and get 429 from a healthy server. With
 * `server.quota` in the config the construct renders TCP probes, which open a connection and send no
 * request: the server counts none of them.
 */
import * as fs from 'node:fs';
import { parse } from 'yaml';
import { describeWithLlamaStack, env, freePort, renderStack, Scenario } from './helpers';
import { tcpConnects } from '../sandbox/pod-runner';

describeWithLlamaStack('Health checks and the request quota (llama-stack 0.7.3)', {}, () => {
  let s: Scenario;
  beforeAll(() => {
    s = new Scenario('quota');
    s.distribution();
  });
  afterAll(() => s.dispose());

  test('TCP probes are not counted against the quota; HTTP health checks are, and get 429 once it is used up', async () => {
    const config = parse(fs.readFileSync(env().starterConfig, 'utf8'));
    config.server = { ...config.server, quota: { kvstore: { backend: 'kv_default', namespace: 'quota' }, anonymous_max_requests: 5, authenticated_max_requests: 5, period: 'day' } };
    const port = await freePort();
    const manifests = renderStack({ port, userConfig: { config } });
    const server = manifests.find((m) => m.kind === 'Deployment').spec.template.spec.containers[0];
    for (const probe of [server.startupProbe, server.readinessProbe, server.livenessProbe]) expect(probe.tcpSocket).toEqual({ port: 'http' });

    const pod = await s.run(manifests, { serve: {} });
    if (pod.phase !== 'Running') throw new Error(`the server did not come up:\n${pod.describe()}`);
    // Many more probes than the quota allows, as a kubelet would send them over hours.
    for (let i = 0; i < 30; i++) expect(await tcpConnects(port)).toBe(true);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await pod.server!.request('GET', '/v1/health')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await tcpConnects(port)).toBe(true);
    await pod.stop();
  });
});
