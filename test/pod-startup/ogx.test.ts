/**
 * The pod for OGX (llama-stack's name from 0.8) with the real ogx servers from PyPI: 1.5.0, the newest,
 * and 1.1.3, the newest before `ogx run` required TLS (1.2). The Deployment rendered by
 * LlamaStackWithProviders runs in bubblewrap sandboxes in a distribution image laid out as ogx-ai/ogx's
 * containers/Containerfile lays out `ogxai/distribution-<name>`: the sample provider (one wheel for both
 * server lines) is installed, merged and served; plain HTTP is said explicitly, and 1.5 refuses to start
 * without it; the server's own TLS from a Secret is verified by a client; workers start as each release
 * starts them.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { describeWithLlamaStack, env, freePort, OGX, OGX_BEFORE_TLS, ogxDistribution, renderStack, Scenario } from './helpers';
import { compareVersions } from '../../src/checks';
import { distributionImageOf, findRelease } from '../../src/run-config/releases';
import { PodRun } from '../sandbox/pod-runner';
import { sampleProviderWheels, SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

const ECHO = 'registry.test/acme/echo-provider:0.1.0';
const SAMPLE_METADATA = fs.readFileSync(path.join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8');
const echo = (prefix = '> ') => ({ inference: [{ providerId: 'acme-echo', image: ECHO, config: { prefix } }] });

/** ogx 1.3 and later: each worker creates the job queue's tables at start-up (`ogx/core/jobs/`, new in 1.3). */
function racesOnEmptyStore(version: string): boolean {
  return compareVersions(version, '1.3') >= 0;
}

/** Whether the pod serves: running, and four health checks answered OK (a worker may be on its way out). */
async function servesHealth(pod: PodRun): Promise<boolean> {
  if (pod.phase !== 'Running') return false;
  try {
    for (let i = 0; i < 4; i++) {
      if ((await pod.server!.request('GET', '/v1/health')).body?.status !== 'OK') return false;
    }
    return true;
  } catch {
    return false;
  }
}

function ready(pod: PodRun): void {
  if (pod.phase !== 'Running') throw new Error(`the server did not come up:\n${pod.describe()}`);
}

/** The server's `GET /v1/providers` entries of the ids, as `api/provider_id=provider_type`. */
async function listed(pod: PodRun, ids: string[]): Promise<string[]> {
  const res = await pod.server!.request('GET', '/v1/providers');
  expect(res.status).toBe(200);
  return (res.body.data as any[]).filter((p) => ids.includes(p.provider_id)).map((p) => `${p.api}/${p.provider_id}=${p.provider_type}`).sort();
}

async function chat(pod: PodRun, text: string): Promise<any> {
  const res = await pod.server!.request('POST', '/v1/chat/completions', { model: 'acme-echo/echo', messages: [{ role: 'user', content: text }] });
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
  return res.body;
}

for (const version of [OGX, OGX_BEFORE_TLS]) {
  describeWithLlamaStack(`OGX ${version}: the real server in the pod`, { versions: [version] }, () => {
    const release = findRelease(version)!;
    const image = ogxDistribution(version);
    let s: Scenario;
    beforeAll(() => {
      s = new Scenario(`ogx-${version}`);
      s.distribution({}, image, version)
        .distribution({}, distributionImageOf(release, 'starter'), version)
        .provider(ECHO, { metadata: SAMPLE_METADATA, wheels: sampleProviderWheels(s.path('wheels')) });
    });
    afterAll(() => s.dispose());

    test('the quick start: a named distribution, the sample provider, no user config — ogx serves the provider', async () => {
      const pod = await s.run(renderStack({
        distribution: { name: 'starter' }, serverVersion: version, port: await freePort(), externalProviders: echo(),
      }), { serve: {} });
      ready(pod);
      expect([...pod.initContainers, ...pod.containers].map((c) => `${c.name}:${c.reason}`)).toEqual([
        'write-init-scripts:Completed', 'inspect-distribution:Completed', 'install-provider-acme-echo:Completed', 'extract-distribution-config:Completed',
        'merge-config:Completed', 'ogx:Started',
      ]);
      // The image keeps its config only inside the installed ogx package.
      expect(pod.container('extract-distribution-config').stdout)
        .toMatch(/Found distribution config at \/\S+\/site-packages\/ogx\/distributions\/starter\/config\.yaml \(distribution 'starter' in the installed package\)/);
      const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
      const base = parse(fs.readFileSync(env(version).starterConfig, 'utf8'));
      expect(merged.providers.inference.slice(0, -1)).toEqual(base.providers.inference);
      expect(merged.providers.inference.at(-1)).toEqual({
        provider_id: 'acme-echo', provider_type: 'remote::acme-echo', module: 'acme_echo_provider', config: { prefix: '> ' },
      });
      // Plain HTTP inside the cluster, said explicitly: ogx 1.2 and later refuse to start without it.
      expect(merged.server.insecure).toBe(true);
      expect(pod.server!.logs()).toContain('Preflight passed: 1 external provider(s) ready (0 warning(s)).');

      expect((await pod.server!.request('GET', '/v1/health')).body).toEqual({ status: 'OK' });
      expect(await listed(pod, ['acme-echo'])).toEqual(['inference/acme-echo=remote::acme-echo']);
      expect((await chat(pod, 'hello   ogx')).choices[0].message).toMatchObject({ role: 'assistant', content: '> hello ogx' });
      expect((await pod.server!.request('GET', '/v1/version')).body).toEqual({ version });
      // State under the storage volume (HOME, and ogx's ~/.ogx), writable for the non-root user.
      expect(fs.existsSync(path.join(pod.volumes['llama-storage'], '.ogx', 'distributions', 'starter'))).toBe(true);
      expect(fs.existsSync(path.join(pod.volumes['llama-storage'], '.llama'))).toBe(false);
      const exec = await pod.exec('ogx', ['python3', '-c', 'import acme_echo_provider.llama_stack_types as t; print(t.RemoteProviderSpec.__module__)']);
      expect(exec.stdout.trim()).toBe('ogx_api.datatypes');
      await pod.stop();
    });

    test('the volume of a llama-stack server: ogx moves its ~/.llama to ~/.ogx at start, and serves on', async () => {
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-ogx-migrate-'));
      try {
        // What a llama-stack 0.7 pod left on its claim (HOME is the mount path): ~/.llama/distributions/starter.
        const old = path.join(workDir, 'volumes', 'llama-storage', '.llama', 'distributions', 'starter');
        fs.mkdirSync(old, { recursive: true });
        fs.writeFileSync(path.join(old, 'left-by-llama-stack.txt'), 'state\n');
        const pod = await s.run(renderStack({ distribution: { image }, port: await freePort(), storage: { size: '1Gi' } }), { serve: {}, workDir });
        ready(pod);
        expect((await pod.server!.request('GET', '/v1/health')).body).toEqual({ status: 'OK' });
        const volume = pod.volumes['llama-storage'];
        expect(fs.readFileSync(path.join(volume, '.ogx', 'distributions', 'starter', 'left-by-llama-stack.txt'), 'utf8')).toBe('state\n');
        expect(fs.existsSync(path.join(volume, '.llama'))).toBe(false);
        await pod.stop();
      } finally {
        fs.rmSync(workDir, { recursive: true, force: true });
      }
    });

    test('no providers, no config of its own: the image\'s distribution serves (on 1.2 and later started with --insecure)', async () => {
      const pod = await s.run(renderStack({ distribution: { image }, port: await freePort() }), { serve: {} });
      ready(pod);
      expect(pod.initContainers).toEqual([]);
      expect((await pod.server!.request('GET', '/v1/health')).body).toEqual({ status: 'OK' });
      await pod.stop();
      expect(pod.container('ogx').argv[0]).toBe(release.tls === 'required' ? '/bin/sh' : '/usr/local/bin/ogx-entrypoint.sh');
    });

    test('the provider merged at synth time into an inline config', async () => {
      const config = fs.readFileSync(env(version).starterConfig, 'utf8');
      const manifests = renderStack({
        distribution: { image },
        port: await freePort(),
        userConfig: { config },
        externalProviders: { inference: [{ ...echo('synth> ').inference[0], metadata: SAMPLE_METADATA }] },
      });
      const pod = await s.run(manifests, { serve: {} });
      ready(pod);
      expect(pod.initContainers.map((c) => c.name)).toEqual(['inspect-distribution', 'install-provider-acme-echo']);
      expect((await chat(pod, 'at synth')).choices[0].message.content).toBe('synth> at synth');
      await pod.stop();
    });

    test('workers start as the release starts them: OGX_WORKERS read by ogx run (1.2 on), uvicorn\'s factory before', async () => {
      const config = fs.readFileSync(env(version).starterConfig, 'utf8');
      const manifests = renderStack({ distribution: { image }, port: await freePort(), workers: 2, userConfig: { config } });
      let pod = await s.run(manifests, { serve: {} });
      if (racesOnEmptyStore(version) && !(await servesHealth(pod))) {
        // From ogx 1.3 each worker creates the job queue's tables and indexes at start-up, checking first
        // and then creating (ogx/core/jobs/queue.py, ogx/core/storage/sqlstore/sqlalchemy_sqlstore.py
        // create_index): on an empty SQLite store one worker may lose the race ("index … already
        // exists") and ogx run stops (exit 0), before the pod serves or while the other worker already
        // answers (seen: a health check reset). The kubelet starts the container again in the same pod,
        // whose storage volume now has the tables; so does this test.
        await pod.stop();
        expect(pod.container('ogx').logs).toMatch(/sqlite3\.OperationalError: (index|table) \S+ already exists/);
        const restart = s.path('workers-restart');
        fs.cpSync(pod.volumes['llama-storage'], path.join(restart, 'volumes', 'llama-storage'), { recursive: true });
        pod = await s.run(manifests, { serve: {}, workDir: restart });
      }
      ready(pod);
      for (let i = 0; i < 4; i++) expect((await pod.server!.request('GET', '/v1/health')).body).toEqual({ status: 'OK' });
      const workers = () => pod.server!.logs().match(/Started server process \[\d+\]/g)?.length ?? 0;
      // Each worker logs once it has imported the server; wait for that signal (the test's timeout ends a hang).
      while (workers() < 2) await new Promise((r) => setTimeout(r, 200));
      await pod.stop();
      const logs = pod.container('ogx').logs;
      // One "Started server process" per worker (ogx run's own logging leaves out the supervisor's line).
      expect(logs.match(/Started server process \[\d+\]/g)).toHaveLength(2);
      // ogx run itself reads OGX_WORKERS from 1.2 (its own warning about plain HTTP shows it ran);
      // before, uvicorn is started with ogx's factory, and ogx run's log lines are not there.
      expect(logs.includes('TLS is not enabled')).toBe(release.workers === 'env');
    });
  });
}

describeWithLlamaStack(`OGX ${OGX}: TLS`, { versions: [OGX] }, () => {
  const image = ogxDistribution(OGX);
  let s: Scenario;
  let cert: string;
  let key: string;
  beforeAll(() => {
    s = new Scenario('ogx-tls');
    s.distribution({}, image, OGX).provider(ECHO, { metadata: SAMPLE_METADATA, wheels: sampleProviderWheels(s.path('wheels')) });
    // A self-signed certificate for the pod's address (the sandbox serves on the host's loopback).
    const dir = s.path('tls');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=stack-service',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:stack-service', '-keyout', path.join(dir, 'tls.key'), '-out', path.join(dir, 'tls.crt')], { stdio: 'pipe' });
    cert = fs.readFileSync(path.join(dir, 'tls.crt'), 'utf8');
    key = fs.readFileSync(path.join(dir, 'tls.key'), 'utf8');
  });
  afterAll(() => s.dispose());

  /** GET over HTTPS with a client that verifies the server's certificate against the CA given. */
  const verifiedGet = (url: string, ca: string): Promise<{ status: number; body: string }> => new Promise((resolve, reject) => {
    https.get(url, { ca }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });

  test('a certificate from a Secret: the merge names it, the probes and a verifying client speak HTTPS, plain HTTP is refused', async () => {
    const pod = await s.run(renderStack({
      distribution: { image }, port: await freePort(), tls: { secretName: 'stack-tls' }, externalProviders: echo(),
    }), { serve: {}, secrets: { 'stack-tls': { 'tls.crt': cert, 'tls.key': key } } });
    ready(pod);
    expect(pod.server!.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(parse(pod.volumeFile('merged-config', 'config.yaml')).server).toMatchObject({
      tls_certfile: '/opt/llama-stack/tls/tls.crt', tls_keyfile: '/opt/llama-stack/tls/tls.key',
    });
    const health = await verifiedGet(`${pod.server!.url}/v1/health`, cert);
    expect(health).toEqual({ status: 200, body: '{"status":"OK"}' });
    // A client that does not know the CA refuses the server, and the server no longer speaks plain HTTP.
    await expect(verifiedGet(`${pod.server!.url}/v1/health`, '')).rejects.toThrow();
    await expect(fetch(`${pod.server!.url.replace('https:', 'http:')}/v1/health`)).rejects.toThrow();
    await pod.stop();
  });

  test('without --insecure and without a certificate, ogx 1.5 refuses to start, and says why', async () => {
    // The construct refuses, at synth time, to say the server speaks HTTPS when its config has no certificate…
    const config = fs.readFileSync(env(OGX).starterConfig, 'utf8');
    expect(() => renderStack({ distribution: { image }, healthCheck: 'https', userConfig: { config } })).toThrow(/healthCheck: is 'https' without tls/);
    // …so the real server's refusal is reached the one way left: a command of the user's own, on the
    // image's own config, which nothing merges `server.insecure: true` into (the construct warns).
    const pod = await s.run(renderStack({ distribution: { image }, port: await freePort(), command: ['ogx', 'run', 'starter'] }), { serve: {} });
    expect(pod.phase).toBe('Failed');
    expect(pod.container('ogx').logs).toContain("TLS required: set tls_certfile/tls_keyfile in server config or pass '--insecure' to disable.");
  });

  test('apis: [] serves no API in 1.5; a provider merged into such a config has its API listed, and served', async () => {
    // A config of no provider-backed API; the merge adds the sample provider (its API listed, or 1.5 would not serve it).
    const config = { version: 2, distro_name: 'starter', apis: [], providers: {} };
    const pod = await s.run(renderStack({
      distribution: { image }, port: await freePort(), userConfig: { config }, externalProviders: echo(),
    }), { serve: {} });
    ready(pod);
    expect(parse(pod.volumeFile('merged-config', 'config.yaml')).apis).toEqual(['inference']);
    expect((await chat(pod, 'listed')).choices[0].message.content).toBe('> listed');
    expect((await pod.server!.request('GET', '/v1/files')).status).toBe(404);
    await pod.stop();
  });
});
