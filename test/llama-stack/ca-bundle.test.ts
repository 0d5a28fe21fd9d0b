// The CA bundle of caBundle (the operator's tlsConfig.caBundle): one key mounted as it is, several joined
// by an init container whose rendered command is run here as the pod would run it.
import { spawnSync } from 'child_process';
import { X509Certificate } from 'crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { errorOf, find, podSpec, render } from './helpers';
import { tempDir } from '../temp-dir';

const FIXTURES = join(__dirname, '..', 'fixtures', 'ca-bundle');

describe('caBundle', () => {
  test('one key (ca-bundle.crt by default) is mounted as it is and named by SSL_CERT_FILE', () => {
    const pod = podSpec(render({ distribution: { name: 'starter' }, caBundle: { configMapName: 'corporate-ca' } }));
    expect(pod.initContainers).toBeUndefined();
    expect(pod.volumes).toContainEqual({ name: 'ca-bundle', configMap: { name: 'corporate-ca', items: [{ key: 'ca-bundle.crt', path: 'ca-bundle.crt' }] } });
    const server = pod.containers[0];
    expect(server.volumeMounts).toContainEqual({ name: 'ca-bundle', mountPath: '/etc/ssl/certs/ca-bundle', readOnly: true });
    expect(server.env).toContainEqual({ name: 'SSL_CERT_FILE', value: '/etc/ssl/certs/ca-bundle/ca-bundle.crt' });
  });

  test('the user\'s SSL_CERT_FILE wins', () => {
    const env = podSpec(render({ distribution: { name: 'starter' }, caBundle: { configMapName: 'ca' }, env: [{ name: 'SSL_CERT_FILE', value: '/mine.pem' }] })).containers[0].env;
    expect(env.filter((e: any) => e.name === 'SSL_CERT_FILE')).toEqual([{ name: 'SSL_CERT_FILE', value: '/mine.pem' }]);
  });

  test('several keys are joined at pod start into one file of every certificate, a file without a final newline included', () => {
    // b.crt ends without a line break and comes first: joined as they are, its END line would run into a.crt's BEGIN line.
    const manifests = render({ distribution: { name: 'starter' }, caBundle: { configMapName: 'corporate-ca', configMapKeys: ['b.crt', 'a.crt'] } });
    const pod = podSpec(manifests);
    const joinStep = pod.initContainers.find((c: any) => c.name === 'join-ca-bundle');
    expect(joinStep.image).toBe(pod.containers[0].image);
    expect(pod.containers[0].env).toContainEqual({ name: 'SSL_CERT_FILE', value: '/etc/ssl/certs/ca-bundle/ca-bundle.crt' });

    // The container's own command, with its two directories moved under a temporary root.
    const root = tempDir('ca-bundle-');
    const moved = (p: string) => p.replace('/etc/ssl/certs/', `${root}/`);
    mkdirSync(moved('/etc/ssl/certs/ca-bundle-source'));
    mkdirSync(moved('/etc/ssl/certs/ca-bundle'));
    for (const key of ['a.crt', 'b.crt']) copyFileSync(join(FIXTURES, key), moved(`/etc/ssl/certs/ca-bundle-source/${key}`));
    expect(readFileSync(join(FIXTURES, 'b.crt'), 'utf8').endsWith('\n')).toBe(false);
    const [shell, ...args] = joinStep.command.map(moved);
    const r = spawnSync(shell, args, { encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const bundle = readFileSync(moved('/etc/ssl/certs/ca-bundle/ca-bundle.crt'), 'utf8');
    // As OpenSSL reads PEM: each BEGIN and END marker on a line of its own.
    const certificates = bundle.match(/^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+\n-----END CERTIFICATE-----$/gm) ?? [];
    expect(certificates.map((pem) => new X509Certificate(pem).subject)).toEqual(['CN=test-ca-b', 'CN=test-ca-a']);
    expect(find(manifests, 'Deployment').spec.template.spec.volumes).toContainEqual({ name: 'ca-bundle', emptyDir: { sizeLimit: '16Mi' } });
  });

  test('a missing key stops the join step with the error of cat', () => {
    const pod = podSpec(render({ distribution: { name: 'starter' }, caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', 'gone.crt'] } }));
    const root = tempDir('ca-bundle-');
    const moved = (p: string) => p.replace('/etc/ssl/certs/', `${root}/`);
    mkdirSync(moved('/etc/ssl/certs/ca-bundle-source'));
    mkdirSync(moved('/etc/ssl/certs/ca-bundle'));
    copyFileSync(join(FIXTURES, 'a.crt'), moved('/etc/ssl/certs/ca-bundle-source/a.crt'));
    const [shell, ...args] = pod.initContainers[0].command.map(moved);
    const r = spawnSync(shell, args, { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('gone.crt');
  });

  test('keys are ConfigMap keys, listed once, at most 50; the ConfigMap is named', () => {
    const message = errorOf({ distribution: { name: 'starter' }, caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', '../x', 'a.crt'] } });
    expect(message).toContain('caBundle.configMapKeys[1]: ');
    expect(message).toContain("caBundle.configMapKeys[2]: 'a.crt' is listed twice.");
    expect(errorOf({ distribution: { name: 'starter' }, caBundle: { configMapName: 'ca', configMapKeys: Array.from({ length: 51 }, (_, i) => `k${i}`) } }))
      .toContain('caBundle.configMapKeys: 51 keys: at most 50');
    expect(errorOf({ distribution: { name: 'starter' }, caBundle: {} as any })).toContain('caBundle.configMapName: missing');
  });
});

