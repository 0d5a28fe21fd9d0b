/**
 * Deploying custom providers and overriding distribution providers, end to end: the Deployment
 * rendered by LlamaStackWithProviders runs in bubblewrap sandboxes (init containers in order, network
 * unshared, volumes bound as mounted) in a distribution image holding the real llama-stack from PyPI;
 * real provider wheels are installed by real pip, the real merge step assembles the config, and the
 * real `llama stack run` serves it: the tests ask the server which providers it runs and call a route
 * an external provider serves.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import {
  describeWithLlamaStack, EACH_SERVER, env, freePort, LLAMA_STACK, LLAMA_STACK_RUN_YAML_ERA, LMEVAL, PACKAGES_DIR, renderStack, Scenario,
  starterImage, TRUSTYAI_FMS,
} from './helpers';
import { providerKey } from '../../src';
import { distributionImageOf, findRelease } from '../../src/run-config/releases';
import { buildahSupport } from '../sandbox/buildah';
import { mergeImage } from '../sandbox/images';
import { PodRun } from '../sandbox/pod-runner';
import { sampleProviderWheels, SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

const ECHO = 'registry.test/acme/echo-provider:0.1.0';
const FMS_IMAGE = 'registry.test/trustyai/fms-provider:0.4.0';
const LMEVAL_IMAGE = 'registry.test/trustyai/lmeval-provider:0.5.0';
const SAMPLE_METADATA = fs.readFileSync(path.join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8');

/** What `GET /v1/providers` says about the external providers, as `api/provider_id=provider_type`. */
async function listed(pod: PodRun, ids: string[]): Promise<string[]> {
  const res = await pod.server!.request('GET', '/v1/providers');
  expect(res.status).toBe(200);
  return (res.body.data as any[]).filter((p) => ids.includes(p.provider_id)).map((p) => `${p.api}/${p.provider_id}=${p.provider_type}`).sort();
}

/** Asks the echo model of an external inference provider, through the server's OpenAI-compatible route. */
async function chat(pod: PodRun, model: string, text: string): Promise<any> {
  const res = await pod.server!.request('POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: text }] });
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
  return res.body;
}

function ready(pod: PodRun): void {
  if (pod.phase !== 'Running') throw new Error(`the server did not come up:\n${pod.describe()}`);
}

// Real providers from PyPI (TrustyAI's FMS and LM-Eval, one depending on llama-stack itself) are served
// on the real cluster: test/cluster/llama-stack.test.ts.
describeWithLlamaStack('Deploy custom providers on the real server (llama-stack 0.7.3)', {}, () => {
  let s: Scenario;
  beforeAll(() => {
    s = new Scenario('us1');
    const echoWheels = sampleProviderWheels(s.path('wheels', 'echo'));
    s.distribution()
      .distribution({}, distributionImageOf(findRelease(LLAMA_STACK)!, 'starter'))
      .provider(ECHO, { metadata: SAMPLE_METADATA, wheels: echoWheels });
  });
  afterAll(() => s.dispose());

  test('the merge container runs the merge image built from containers/merge (host CLI only as a reported fallback)', () => {
    const merge = mergeImage();
    if (buildahSupport().ok && process.env.KIC_MERGE_IMAGE !== 'host-cli') {
      expect(merge).toMatchObject({ kind: 'buildah', image: { mode: 'rootfs' } });
      // The CLI and, beside it, the init scripts it writes into the pod.
      expect(fs.existsSync(path.join(merge.image.dir, 'usr', 'local', 'lib', 'kube-inference', 'kube-inference'))).toBe(true);
      expect(fs.existsSync(path.join(merge.image.dir, 'usr', 'local', 'lib', 'kube-inference', 'preflight.py'))).toBe(true);
      expect(fs.existsSync(path.join(merge.image.dir, 'usr', 'bin', 'python3'))).toBe(false); // nothing of the host
    } else {
      expect(merge.kind).toBe('host-cli');
      expect(merge.fallbackReason).toBeTruthy();
    }
  });

  test('the quick start: a named distribution, one provider, no user config — the server serves the provider', async () => {
    const port = await freePort();
    const pod = await s.run(renderStack({
      distribution: { name: 'starter' },
      serverVersion: LLAMA_STACK,
      port,
      externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO, config: { prefix: '> ' } }] },
    }), { serve: {} });
    ready(pod);
    expect([...pod.initContainers, ...pod.containers].map((c) => `${c.name}:${c.reason}`)).toEqual([
      'write-init-scripts:Completed', 'inspect-distribution:Completed', 'install-provider-acme-echo:Completed',
      'extract-distribution-config:Completed', 'merge-config:Completed', 'llama-stack:Started',
    ]);
    // The upstream image keeps its config only inside the installed package.
    const extracted = pod.container('extract-distribution-config').stdout;
    expect(extracted).toMatch(/Found distribution config at \/\S+\/site-packages\/llama_stack\/distributions\/starter\/config\.yaml \(distribution 'starter' in the installed package\)/);
    const base = parse(fs.readFileSync(env().starterConfig, 'utf8'));
    const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
    expect(Object.keys(merged)).toEqual(Object.keys(base));
    expect(merged.providers.inference.slice(0, -1)).toEqual(base.providers.inference);
    expect(merged.providers.inference.at(-1)).toEqual({
      provider_id: 'acme-echo', provider_type: 'remote::acme-echo', module: 'acme_echo_provider', config: { prefix: '> ' },
    });

    // The sample provider's dependency is new to the server; nothing of the server is shadowed.
    expect(pod.volumeFile('external-providers', 'installed-packages.txt')).toBe(
      `acme-echo-provider==0.1.0 provider=acme-echo image=${ECHO}\nacme-text-utils==1.0.0 provider=acme-echo image=${ECHO}\n`);
    const server = pod.container('llama-stack');
    expect(server.argv).toEqual(['/bin/sh', '/opt/llama-stack/scripts/start-server.sh']);
    expect(pod.server!.logs()).toContain('Preflight passed: 1 external provider(s) ready (0 warning(s)).');

    // The real server lists it and serves its model.
    expect(await listed(pod, ['acme-echo'])).toEqual(['inference/acme-echo=remote::acme-echo']);
    const answer = await chat(pod, 'acme-echo/echo', 'hello   there  world');
    expect(answer.choices[0].message).toMatchObject({ role: 'assistant', content: '> hello there world' });
    expect((await pod.server!.request('GET', '/v1/version')).body).toEqual({ version: LLAMA_STACK });

    // Its state went to the storage volume (HOME), writable for the pod's non-root user.
    expect(fs.existsSync(path.join(pod.volumes['llama-storage'], '.llama', 'distributions', 'starter', 'kvstore.db'))).toBe(true);

    // `import <module>` works with the server container's PYTHONPATH (a new sandbox on the same volumes).
    const exec = await pod.exec('llama-stack', ['python3', '-c', 'import acme_echo_provider, acme_text_utils; print(acme_echo_provider.__file__); print(acme_text_utils.echo("a  b"))']);
    expect(exec.stdout).toBe(`${PACKAGES_DIR}/acme_echo_provider/__init__.py\necho: a b\n`);
    // The shared volume is read-only in the server container.
    const write = await pod.exec('llama-stack', ['/bin/sh', '-c', `touch ${PACKAGES_DIR}/x`]);
    expect(write.stderr).toContain('Read-only file system');
    // A pod restart runs the init containers again over the same emptyDir: the installer finds its
    // own complete install and succeeds instead of reporting itself as a duplicate.
    const again = await pod.exec('install-provider-acme-echo', ['/bin/sh', '/opt/llama-stack/scripts/install-provider.sh']);
    expect(again.reason).toBe('Completed');
    expect(again.stdout).toContain("Provider 'acme-echo' is already installed");
    await pod.stop();
  });

  test.each([
    ['a non-root uid', { runAsUser: 1001, runAsGroup: 1001, fsGroup: 1001 }],
    ['the image\'s default user (root)', { runAsUser: 0, runAsGroup: 0, fsGroup: 0, restricted: false }],
  ])('any storage.mountPath works for %s: the server\'s state goes to the storage volume', async (_, podSecurity) => {
    const pod = await s.run(renderStack({
      port: await freePort(),
      podSecurity,
      storage: { mountPath: '/var/lib/llama-stack' },
      externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO }] },
    }), { serve: {} });
    ready(pod);
    expect(fs.existsSync(path.join(pod.volumes['llama-storage'], '.llama', 'distributions', 'starter', 'kvstore.db'))).toBe(true);
    await pod.stop();
  });
});

describeWithLlamaStack('Override distribution providers on the real server', { versions: [...EACH_SERVER, LLAMA_STACK_RUN_YAML_ERA] }, () => {
  let s: Scenario;
  const DISTRIBUTION_03 = `registry.test/llama-stack/distribution-starter:${LLAMA_STACK_RUN_YAML_ERA}`;
  beforeAll(() => {
    s = new Scenario('us2');
    const wheels = sampleProviderWheels(s.path('wheels'));
    EACH_SERVER.forEach((version) => s.distribution({}, starterImage(version), version));
    s.distribution({}, DISTRIBUTION_03, LLAMA_STACK_RUN_YAML_ERA)
      .provider(ECHO, { metadata: SAMPLE_METADATA, wheels });
  });
  afterAll(() => s.dispose());

  test.each(EACH_SERVER)('an external provider with the id of a distribution provider replaces it, with a warning in merge-log.txt (%s)', async (version) => {
    const pod = await s.run(renderStack({
      distribution: { image: starterImage(version) }, port: await freePort(), externalProviders: { inference: [{ providerId: 'fireworks', image: ECHO }] },
    }), { serve: {} });
    ready(pod);
    const log = pod.volumeFile('merged-config', 'merge-log.txt');
    expect(log).toContain("WARNING: External provider 'fireworks' overrides base provider in API 'inference'");
    expect(log).toContain('remote::fireworks');
    expect(log).toContain('remote::acme-echo');
    expect(pod.container('merge-config').logs).toContain("WARNING: External provider 'fireworks' overrides");
    const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
    expect(merged.providers.inference.filter((p: any) => p.provider_id === 'fireworks')).toEqual([
      { provider_id: 'fireworks', provider_type: 'remote::acme-echo', module: 'acme_echo_provider' },
    ]);
    // The server runs the external provider under the distribution's id.
    expect(await listed(pod, ['fireworks'])).toEqual(['inference/fireworks=remote::acme-echo']);
    expect((await chat(pod, 'fireworks/echo', 'hi')).choices[0].message.content).toBe('echo: hi'); // the default prefix
    await pod.stop();
  });

  test('llama-stack 0.3 with a user run.yaml: external providers take precedence over its ids, the real 0.3 server serves them', async () => {
    const userConfig = fs.readFileSync(env(LLAMA_STACK_RUN_YAML_ERA).starterConfig, 'utf8');
    const pod = await s.run(renderStack({
      distribution: { image: DISTRIBUTION_03 },
      port: await freePort(),
      userConfig: { config: userConfig },
      externalProviders: { inference: [{ providerId: 'fireworks', image: ECHO, config: { prefix: 'v> ' } }] },
    }), { serve: {} });
    ready(pod);
    // No extraction: the user's config is mounted as the base config; the release's file name is run.yaml.
    expect(pod.initContainers.map((c) => c.name)).toEqual(['write-init-scripts', 'inspect-distribution', 'install-provider-fireworks', 'merge-config']);
    expect(pod.volumeFile('merged-config', 'merge-log.txt')).toContain("WARNING: External provider 'fireworks' overrides base provider in API 'inference'");
    const merged = parse(pod.volumeFile('merged-config', 'run.yaml'));
    expect(merged.providers.inference.filter((p: any) => p.provider_id === 'fireworks')).toEqual([
      { provider_id: 'fireworks', provider_type: 'remote::acme-echo', module: 'acme_echo_provider', config: { prefix: 'v> ' } },
    ]);
    expect((await pod.server!.request('GET', '/v1/version')).body).toEqual({ version: LLAMA_STACK_RUN_YAML_ERA });
    expect(await listed(pod, ['fireworks'])).toEqual(['inference/fireworks=remote::acme-echo']);
    expect((await chat(pod, 'fireworks/echo', 'from  0.3')).choices[0].message.content).toBe('v> from 0.3');
    await pod.stop();
  });
});

describeWithLlamaStack('A provider built for another llama-stack release', {
  versions: [LLAMA_STACK_RUN_YAML_ERA], providers: [LMEVAL.name],
}, () => {
  let s: Scenario;
  const DISTRIBUTION_03 = `registry.test/llama-stack/distribution-starter:${LLAMA_STACK_RUN_YAML_ERA}`;
  beforeAll(() => {
    s = new Scenario('other-release');
    s.distribution({}, DISTRIBUTION_03, LLAMA_STACK_RUN_YAML_ERA)
      .realProvider(LMEVAL_IMAGE, LMEVAL, LLAMA_STACK_RUN_YAML_ERA);
  });
  afterAll(() => s.dispose());

  test('lmeval\'s closure resolved for 0.7.3 fails on a 0.3.5 server before it starts, naming both versions of each package', async () => {
    const pod = await s.run(renderStack({
      distribution: { image: DISTRIBUTION_03 },
      port: await freePort(),
      externalProviders: { eval: [{ providerId: 'trustyai_lmeval', image: LMEVAL_IMAGE, config: {} }] },
    }), { serve: {} });
    const c = pod.container(`install-provider-${providerKey('trustyai_lmeval')}`);
    expect(c.reason).toBe('Error');
    // The whole report is in the log (the termination message keeps its last 2 KiB, the resolution).
    expect(c.logs).toContain("ERROR: Cannot install provider 'trustyai_lmeval' due to dependency conflict");
    expect(c.message).toMatch(/Resolution: A provider runs with the server's own copy of every package/);
    // Its own requirements reject the server's versions: e.g. opentelemetry 1.44 against the server's 1.39.
    expect(c.logs).toMatch(new RegExp('opentelemetry-exporter-otlp 1\\.44\\.0 requires opentelemetry-exporter-otlp-proto-http==1\\.44\\.0 '
      + '\\(the provider image ships opentelemetry-exporter-otlp-proto-http 1\\.44\\.0\\), but the server \\(distribution image '
      + `${DISTRIBUTION_03.replace(/[.]/g, '\\.')}, Python 3\\.12\\.\\d+\\) has opentelemetry-exporter-otlp-proto-http 1\\.39\\.1`));
    // llama-stack itself is not among them: the server's 0.3.5 satisfies lmeval's unpinned requirement,
    // and what only llama-stack 0.7.3 required (oci, which would want a newer urllib3) does not count.
    expect(c.logs).not.toMatch(/requires llama-stack/);
    expect(c.logs).not.toMatch(/^ {2}oci /m);
    expect(pod.containers[0].state).toBe('waiting');
    expect(fs.readdirSync(path.join(pod.volumes['external-providers'], 'python-packages'))).toEqual([]);
  });
});

describeWithLlamaStack('Override a provider id as llama-stack writes it, in an image that keeps its config in a file', {
  providers: [TRUSTYAI_FMS.name],
}, () => {
  let s: Scenario;
  const ODH_IMAGE = 'registry.test/opendatahub/llama-stack:0.7.3';
  const ODH = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'llama-stack', 'odh-distribution-config.yaml'), 'utf8');
  beforeAll(() => {
    s = new Scenario('us2-ids');
    // The OpenDataHub image keeps its config at /opt/app-root/config.yaml; its safety API has `trustyai_fms`.
    s.distribution({ configs: { '/opt/app-root/config.yaml': ODH }, distroName: '' }, ODH_IMAGE)
      .realProvider(FMS_IMAGE, TRUSTYAI_FMS);
  });
  afterAll(() => s.dispose());

  test('trustyai_fms of the ODH config is replaced: directories named after the key, the id unchanged in the config', async () => {
    const key = providerKey('trustyai_fms');
    // The ODH distribution's other providers are not in the test image: the init containers run, not the server.
    const pod = await s.run(renderStack({
      distribution: { image: ODH_IMAGE },
      externalProviders: { safety: [{ providerId: 'trustyai_fms', image: FMS_IMAGE, config: { orchestrator_url: 'http://fms:8033' } }] },
    }), { runMain: false });
    expect(pod.status).toBe('Initialized');
    expect(pod.initContainers.map((c) => c.name)).toEqual(['write-init-scripts', 'inspect-distribution', `install-provider-${key}`, 'extract-distribution-config', 'merge-config']);
    expect(pod.container('extract-distribution-config').stdout).toContain('Found distribution config at /opt/app-root/config.yaml (search path)');
    expect(JSON.parse(pod.volumeFile('external-providers', `metadata/${key}/crd-config.yaml`))).toMatchObject({ providerId: 'trustyai_fms', api: 'safety' });
    // installed-packages.txt names the provider by its key: an id such as trustyai_fms could forge the line.
    expect(pod.volumeFile('external-providers', 'installed-packages.txt')).toContain(`llama-stack-provider-trustyai-fms==0.4.0 provider=${key} image=${FMS_IMAGE}\n`);
    const log = pod.volumeFile('merged-config', 'merge-log.txt');
    expect(log).toContain("WARNING: External provider 'trustyai_fms' overrides base provider in API 'safety'\n  Base type: remote::trustyai_fms");
    const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
    expect(merged.providers.safety.filter((p: any) => p.provider_id === 'trustyai_fms')).toEqual([{
      provider_id: 'trustyai_fms',
      provider_type: 'remote::trustyai_fms',
      module: 'llama_stack_provider_trustyai_fms',
      config: { orchestrator_url: 'http://fms:8033' },
    }]);
  });
});
