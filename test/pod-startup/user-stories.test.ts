/**
 * Seed 001 User Stories 1 and 2, end to end: the Deployment rendered by LlamaStackWithProviders is
 * executed in bubblewrap sandboxes (init containers in order, network unshared, volumes bound as
 * mounted), with real wheels of the sample provider installed by real pip, the real merge step, and
 * preflight + the stand-in `llama stack run` in the server container.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { DISTRIBUTION, PACKAGES_DIR, referenceConfig, renderStack, Scenario, standInResult } from './helpers';
import { providerKey } from '../../src/run-config/provider-id';
import { buildahSupport } from '../sandbox/buildah';
import { describeWithSandbox } from '../sandbox/host';
import { mergeImage } from '../sandbox/images';
import { buildSyntheticWheel, providerMetadata, providerPackage, sampleProviderWheels, SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

const ECHO = 'registry.test/acme/echo-provider:0.1.0';
const STARTER = referenceConfig('starter-config-v0.7.1.yaml');

describeWithSandbox('User Story 1 - deploy custom providers', () => {
  let s: Scenario;
  let echoWheels: string[];
  beforeAll(() => {
    s = new Scenario('us1');
    echoWheels = sampleProviderWheels(s.path('wheels', 'echo'));
    s.distribution({ configs: { '/opt/app-root/config.yaml': STARTER } })
      .provider(ECHO, { metadata: fs.readFileSync(path.join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8'), wheels: echoWheels });
  });
  afterAll(() => s.dispose());

  test('the merge container runs the merge image built from containers/merge (host CLI only as a reported fallback)', () => {
    const merge = mergeImage();
    if (buildahSupport().ok && process.env.KIC_MERGE_IMAGE !== 'host-cli') {
      expect(merge).toMatchObject({ kind: 'buildah', image: { mode: 'rootfs' } });
      expect(fs.existsSync(path.join(merge.image.dir, 'usr', 'local', 'bin', 'kube-inference'))).toBe(true);
      expect(fs.existsSync(path.join(merge.image.dir, 'usr', 'bin', 'python3'))).toBe(false); // nothing of the host
    } else {
      expect(merge.kind).toBe('host-cli');
      expect(merge.fallbackReason).toBeTruthy();
    }
  });

  test('one provider: installed offline, merged into the distribution config, imported and started', async () => {
    const pod = await s.run(renderStack({
      externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO, config: { prefix: '> ' } }] },
    }));
    expect(pod.phase).toBe('Succeeded');
    expect([...pod.initContainers, ...pod.containers].map((c) => `${c.name}:${c.reason}`)).toEqual([
      'inspect-distribution:Completed', 'install-provider-acme-echo:Completed', 'extract-distribution-config:Completed', 'merge-config:Completed', 'llama-stack:Completed',
    ]);
    expect(pod.container('install-provider-acme-echo').stdout).toContain("Installed 2 package(s) for provider 'acme-echo': acme-echo-provider==0.1.0, acme-text-utils==1.0.0");

    // installed-packages.txt (FR-024a), the metadata copied for the merge step
    expect(pod.volumeFile('external-providers', 'installed-packages.txt')).toBe(
      `acme-echo-provider==0.1.0 provider=acme-echo image=${ECHO}\nacme-text-utils==1.0.0 provider=acme-echo image=${ECHO}\n`);
    expect(JSON.parse(pod.volumeFile('external-providers', 'metadata/acme-echo/crd-config.yaml'))).toMatchObject({ providerId: 'acme-echo', api: 'inference', image: ECHO });

    // The config the server loads: the distribution's, every key kept, plus the provider.
    const base = parse(STARTER);
    const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
    expect(Object.keys(merged)).toEqual(Object.keys(base));
    expect(merged.storage).toEqual(base.storage);
    expect(merged.providers.inference.slice(0, -1)).toEqual(base.providers.inference);
    expect(merged.providers.inference.at(-1)).toEqual({
      provider_id: 'acme-echo', provider_type: 'remote::acme-echo', module: 'acme_echo_provider', config: { prefix: '> ' },
    });
    expect(pod.volumeFile('merged-config', 'merge-log.txt')).toContain('acme-echo');
    expect(parse(pod.volumeFile('merged-config', 'extra-providers.yaml')).providers.inference[0].provider_id).toBe('acme-echo');

    // Preflight, then the (stand-in) server really imported and instantiated the provider from the shared volume.
    const server = pod.container('llama-stack');
    expect(server.argv).toEqual(['/bin/sh', '/opt/llama-stack/scripts/start-server.sh']);
    expect(server.stdout).toContain("Preflight: provider 'acme-echo' (remote::acme-echo, api inference) OK");
    expect(server.stdout).toContain('Preflight passed: 1 external provider(s) ready (0 warning(s)).');
    const result = standInResult(server.stdout)!;
    expect(result.config).toBe('/opt/llama-stack/config/config.yaml');
    expect(result.errors).toEqual([]);
    expect(result.external).toEqual([expect.objectContaining({
      api: 'inference',
      provider_id: 'acme-echo',
      provider_type: 'remote::acme-echo',
      runtime_provider_type: 'remote::acme-echo',
      module_file: `${PACKAGES_DIR}/acme_echo_provider/__init__.py`,
      impl: 'acme_echo_provider.adapter.AcmeEchoInferenceAdapter',
    })]);
    expect(result.builtin.map((b) => b.provider_id)).toContain('fireworks');

    // `import <module>` works with the server container's PYTHONPATH (a new sandbox on the same volumes).
    const exec = await pod.exec('llama-stack', ['python3', '-c', 'import acme_echo_provider, acme_text_utils; print(acme_echo_provider.__file__); print(acme_text_utils.echo("a  b"))']);
    expect(exec.reason).toBe('Completed');
    expect(exec.stdout).toBe(`${PACKAGES_DIR}/acme_echo_provider/__init__.py\necho: a b\n`);
    // The shared volume is read-only in the server container.
    const write = await pod.exec('llama-stack', ['/bin/sh', '-c', `touch ${PACKAGES_DIR}/x`]);
    expect(write.stderr).toContain('Read-only file system');

    // A pod restart runs the init containers again over the same emptyDir: the installer finds its
    // own complete install and succeeds instead of reporting itself as a duplicate.
    const again = await pod.exec('install-provider-acme-echo', ['/bin/sh', '/opt/llama-stack/scripts/install-provider.sh']);
    expect(again.reason).toBe('Completed');
    expect(again.stdout).toContain("Provider 'acme-echo' is already installed");
  });

  test('several providers across APIs: installed, merged and loaded in spec order', async () => {
    const wheels = s.path('wheels', 'multi');
    const make = (name: string, api: string, requires: string[] = []) => {
      const w = buildSyntheticWheel(providerPackage({ name, api, requires, initBody: requires.length ? 'import acme_text_utils' : '' }), s.dir, wheels);
      return { wheel: w, metadata: providerMetadata({ name, api, wheels: [w] }) };
    };
    const guard = make('acme-guard', 'safety', ['acme-text-utils>=1.0']);
    const second = make('acme-second', 'inference');
    const vectors = make('acme-vectors', 'vector_io');
    s.provider('registry.test/acme/guard:1', { metadata: guard.metadata, wheels: [guard.wheel, echoWheels[1]] })
      .provider('registry.test/acme/second:1', { metadata: second.metadata, wheels: [second.wheel] })
      .provider('registry.test/acme/vectors:1', { metadata: vectors.metadata, wheels: [vectors.wheel] });

    // Written out of order on purpose: the spec order is section order (inference, safety, ..., vectorIo ...), then list order.
    const pod = await s.run(renderStack({
      externalProviders: {
        vectorIo: [{ providerId: 'acme-vectors', image: 'registry.test/acme/vectors:1' }],
        safety: [{ providerId: 'acme-guard', image: 'registry.test/acme/guard:1' }],
        inference: [
          { providerId: 'acme-echo', image: ECHO },
          { providerId: 'acme-second', image: 'registry.test/acme/second:1', config: { url: 'http://second:8000' } },
        ],
      },
    }));
    expect(pod.phase).toBe('Succeeded');
    const order = ['acme-echo', 'acme-second', 'acme-guard', 'acme-vectors'];
    expect(pod.initContainers.map((c) => c.name)).toEqual(['inspect-distribution', ...order.map((id) => `install-provider-${id}`), 'extract-distribution-config', 'merge-config']);
    const starts = pod.initContainers.map((c) => c.startedAtMs!);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);

    // acme-text-utils is shipped by two images: installed once, by the first, and reused by the second.
    expect(pod.volumeFile('external-providers', 'installed-packages.txt').trim().split('\n').map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual([
      'acme-echo-provider==0.1.0 provider=acme-echo', 'acme-text-utils==1.0.0 provider=acme-echo',
      'acme-second==1.0.0 provider=acme-second', 'acme-guard==1.0.0 provider=acme-guard', 'acme-vectors==1.0.0 provider=acme-vectors',
    ]);
    expect(pod.container('install-provider-acme-guard').stdout).toContain('Already installed by earlier providers: acme-text-utils==1.0.0');

    const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
    expect(merged.providers.inference.slice(-2).map((p: any) => p.provider_id)).toEqual(['acme-echo', 'acme-second']);
    expect(merged.providers.inference.at(-1).config).toEqual({ url: 'http://second:8000' });
    expect(merged.providers.safety.at(-1)).toMatchObject({ provider_id: 'acme-guard', provider_type: 'remote::acme-guard', module: 'acme_guard' });
    expect(merged.providers.vector_io.at(-1)).toMatchObject({ provider_id: 'acme-vectors', module: 'acme_vectors' });

    const server = pod.container('llama-stack');
    expect(server.stdout).toContain('Preflight passed: 4 external provider(s) ready');
    // The server loads providers in the config's order (its API sections as the distribution lists them).
    const loaded = standInResult(server.stdout)!.external;
    const inConfig = Object.entries(merged.providers).flatMap(([api, list]) => (list as any[]).filter((p) => p.module).map((p) => `${api}/${p.provider_id}`));
    expect(loaded.map((p) => `${p.api}/${p.provider_id}`)).toEqual(inConfig);
    expect(inConfig.sort()).toEqual(['inference/acme-echo', 'inference/acme-second', 'safety/acme-guard', 'vector_io/acme-vectors']);
    expect(loaded.every((p) => p.module_file.startsWith(`${PACKAGES_DIR}/`))).toBe(true);

    const exec = await pod.exec('llama-stack', ['python3', '-c', 'import acme_echo_provider, acme_second, acme_guard, acme_vectors; print("ok")']);
    expect(exec.stdout).toBe('ok\n');
  });
});

describeWithSandbox('User Story 2 - override distribution providers', () => {
  let s: Scenario;
  let wheels: string[];
  beforeAll(() => {
    s = new Scenario('us2');
    wheels = sampleProviderWheels(s.path('wheels'));
    s.distribution({ configs: { '/opt/app-root/config.yaml': STARTER } })
      .provider(ECHO, { metadata: fs.readFileSync(path.join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8'), wheels });
  });
  afterAll(() => s.dispose());

  test('an external provider with the id of a distribution provider replaces it, with a warning in merge-log.txt', async () => {
    const pod = await s.run(renderStack({
      externalProviders: { inference: [{ providerId: 'fireworks', image: ECHO }] },
    }));
    expect(pod.phase).toBe('Succeeded');
    const log = pod.volumeFile('merged-config', 'merge-log.txt');
    expect(log).toContain("WARNING: External provider 'fireworks' overrides base provider in API 'inference'");
    expect(log).toContain('remote::fireworks');
    expect(log).toContain('remote::acme-echo');
    expect(pod.container('merge-config').logs).toContain("WARNING: External provider 'fireworks' overrides");

    const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
    const fireworks = merged.providers.inference.filter((p: any) => p.provider_id === 'fireworks');
    expect(fireworks).toEqual([{ provider_id: 'fireworks', provider_type: 'remote::acme-echo', module: 'acme_echo_provider' }]);
    expect(merged.providers.inference.length).toBe(parse(STARTER).providers.inference.length);

    const loaded = standInResult(pod.container('llama-stack').stdout)!;
    expect(loaded.external.map((p) => p.provider_id)).toEqual(['fireworks']);
    expect(loaded.builtin.find((p) => p.provider_id === 'fireworks')).toBeUndefined();
  });

  test('with a user config (run.yaml of llama-stack 0.3), external providers take precedence over its ids', async () => {
    const userConfig = referenceConfig('starter-run-v0.3.0.yaml');
    const pod = await s.run(renderStack({
      // The release names the config file (run.yaml before 0.4) and the APIs the merge accepts.
      llamaStackVersion: '0.3',
      userConfig: { config: userConfig },
      externalProviders: { inference: [{ providerId: 'vllm', image: ECHO, config: { prefix: 'vllm> ' } }] },
    }));
    expect(pod.phase).toBe('Succeeded');
    // No extraction: the user's config is mounted as the base config.
    expect(pod.initContainers.map((c) => c.name)).toEqual(['inspect-distribution', 'install-provider-vllm', 'merge-config']);
    const log = pod.volumeFile('merged-config', 'merge-log.txt');
    expect(log).toContain("WARNING: External provider 'vllm' overrides base provider in API 'inference'");
    const merged = parse(pod.volumeFile('merged-config', 'run.yaml'));
    expect(merged.providers.inference.filter((p: any) => String(p.provider_id).includes('vllm'))).toEqual([
      { provider_id: 'vllm', provider_type: 'remote::acme-echo', module: 'acme_echo_provider', config: { prefix: 'vllm> ' } },
    ]);
    const server = pod.container('llama-stack');
    expect(standInResult(server.stdout)!.config).toBe('/opt/llama-stack/config/run.yaml');
    expect(standInResult(server.stdout)!.external.map((p) => p.provider_id)).toEqual(['vllm']);
    expect(DISTRIBUTION).toContain('distribution');
  });
});

describeWithSandbox('User Story 2 - override a provider id as llama-stack writes it', () => {
  let s: Scenario;
  const FMS = 'registry.test/acme/fms-provider:0.5.0';
  const ODH = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'llama-stack', 'odh-distribution-config.yaml'), 'utf8');
  beforeAll(() => {
    s = new Scenario('us2-ids');
    const options = { name: 'acme-fms', api: 'safety', providerType: 'remote::trustyai_fms' };
    const wheel = buildSyntheticWheel(providerPackage(options), s.dir, s.path('wheels'));
    // The OpenDataHub image keeps its config at /opt/app-root/config.yaml; its safety API has `trustyai_fms`.
    s.distribution({ configs: { '/opt/app-root/config.yaml': ODH } })
      .provider(FMS, { metadata: providerMetadata({ ...options, wheels: [wheel] }), wheels: [wheel] });
  });
  afterAll(() => s.dispose());

  test('trustyai_fms of the ODH config is replaced: directories named after the key, the id unchanged in the config', async () => {
    const key = providerKey('trustyai_fms');
    const pod = await s.run(renderStack({
      llamaStackVersion: '0.7',
      externalProviders: { safety: [{ providerId: 'trustyai_fms', image: FMS, config: { orchestrator_url: 'http://fms:8033' } }] },
    }));
    expect(pod.phase).toBe('Succeeded');
    expect(pod.initContainers.map((c) => c.name)).toEqual(['inspect-distribution', `install-provider-${key}`, 'extract-distribution-config', 'merge-config']);
    expect(JSON.parse(pod.volumeFile('external-providers', `metadata/${key}/crd-config.yaml`))).toMatchObject({ providerId: 'trustyai_fms', api: 'safety' });
    // installed-packages.txt names the provider by its key: an id such as trustyai_fms could forge the line.
    expect(pod.volumeFile('external-providers', 'installed-packages.txt')).toBe(`acme-fms==1.0.0 provider=${key} image=${FMS}\n`);

    const log = pod.volumeFile('merged-config', 'merge-log.txt');
    expect(log).toContain('llama-stack release: 0.7');
    expect(log).toContain("WARNING: External provider 'trustyai_fms' overrides base provider in API 'safety'\n  Base type: remote::trustyai_fms");
    const merged = parse(pod.volumeFile('merged-config', 'config.yaml'));
    expect(merged.providers.safety.filter((p: any) => p.provider_id === 'trustyai_fms')).toEqual([
      { provider_id: 'trustyai_fms', provider_type: 'remote::trustyai_fms', module: 'acme_fms', config: { orchestrator_url: 'http://fms:8033' } },
    ]);

    const server = pod.container('llama-stack');
    expect(server.stdout).toContain("Preflight: provider 'trustyai_fms' (remote::trustyai_fms, api safety) OK");
    expect(standInResult(server.stdout)!.external).toEqual([expect.objectContaining({ api: 'safety', provider_id: 'trustyai_fms', module_file: `${PACKAGES_DIR}/acme_fms/__init__.py` })]);
  });
});
