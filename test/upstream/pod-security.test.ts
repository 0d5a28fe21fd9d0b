// The Llama Stack server's pods under the Pod Security admission controller's own checks
// (k8s.io/pod-security-admission, `restricted`, latest): every pod the construct renders by default is
// admitted by a namespace that enforces `restricted`, whatever it runs (providers, the CA bundle's
// join, workers, the platform's ids); the operator's samples as `render` writes them too.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { upstreamAdmission, upstreamAdmissionSupport } from './admission';
import { LlamaStackWithProvidersProps } from '../../src';
import { cli } from '../cli/run';
import { find, render, THREE_PROVIDERS } from '../llama-stack/helpers';
import { describeWhen } from '../sandbox/host';

const SAMPLES = join(__dirname, '..', 'fixtures', 'operator-samples');

const VARIANTS: Record<string, LlamaStackWithProvidersProps> = {
  'a plain server': { distribution: { name: 'starter' } },
  'external providers (installers, extraction, merge, preflight)': THREE_PROVIDERS,
  'a CA bundle of several keys (joined by an init container)': { distribution: { name: 'starter' }, caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', 'b.crt'] } },
  'workers, a user config, storage': { distribution: { name: 'starter' }, workers: 2, userConfig: { configMapName: 'cfg' }, storage: { size: '5Gi' } },
  'ids left to the platform (OpenShift)': { ...THREE_PROVIDERS, podSecurity: { idsFromPlatform: true } },
};

describeWhen('the server\'s pods under Pod Security admission (restricted)', upstreamAdmissionSupport(), 'the upstream admission checker (Go)', () => {
  test.each(Object.entries(VARIANTS))('%s: admitted', (_, props) => {
    const [result] = upstreamAdmission([find(render(props), 'Deployment')]);
    expect(result).toMatchObject({ validator: 'k8s.io/pod-security-admission@v0.35.0', errors: [], accepted: true });
  });

  test('the checker refuses what restricted refuses: the relaxed profile, a hostPath volume', () => {
    const [relaxed] = upstreamAdmission([find(render({ distribution: { name: 'starter' }, podSecurity: { restricted: false } }), 'Deployment')]);
    expect(relaxed.accepted).toBe(false);
    expect(relaxed.errors).toContain('pod security restricted: allowPrivilegeEscalation != false (container "llama-stack" must set securityContext.allowPrivilegeEscalation=false)');
    const [hostPath] = upstreamAdmission([find(render({ distribution: { name: 'starter' }, volumes: [{ name: 'h', hostPath: { path: '/data' } }] }), 'Deployment')]);
    expect(hostPath.errors).toEqual([expect.stringContaining('pod security restricted: restricted volume types (volume "h" uses restricted volume type "hostPath")')]);
  });

  test('the operator\'s samples, as render writes them', async () => {
    const files = ['', 'v1alpha1'].flatMap((dir) => readdirSync(join(SAMPLES, dir)).filter((f) => f.endsWith('.yaml')).map((f) => join(SAMPLES, dir, f)));
    const deployments: any[] = [];
    for (const file of files) {
      const r = await cli(['render', file]);
      expect(r.code).toBe(0);
      deployments.push(...parseAllDocuments(r.stdout).map((d) => d.toJS()).filter((o) => o.kind === 'Deployment'));
    }
    expect(deployments).toHaveLength(8);
    for (const result of upstreamAdmission(deployments)) expect(result).toMatchObject({ errors: [], accepted: true });
  });
});
