/**
 * Seed 001 User Story 3 ("Diagnose Provider Failures"), end to end in the sandboxed pod: each failure
 * stops the pod at the container the seed names, with the message the seed specifies (provider id,
 * image, init container, cause, resolution), and nothing after it starts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DISTRIBUTION, deploymentOf, describeWithLlamaStack, LLAMA_STACK, renderStack, Scenario } from './helpers';
import { initScriptsDigest } from '../../src/llama-stack/scripts';
import { distributionImageOf, findRelease } from '../../src/run-config/releases';
import { PodRun } from '../sandbox/pod-runner';
import { buildSyntheticWheel, providerMetadata, providerPackage, sampleProviderWheels, SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

const ECHO = 'registry.test/acme/echo-provider:0.1.0';

/** Every container after `name` never started. */
function nothingAfter(pod: PodRun, name: string): void {
  const all = [...pod.initContainers, ...pod.containers];
  const i = all.findIndex((c) => c.name === name);
  expect(all[i].state).toBe('terminated');
  expect(all.slice(i + 1).map((c) => `${c.name}:${c.state}:${c.reason}`)).toEqual(all.slice(i + 1).map((c) => `${c.name}:waiting:PodInitializing`));
}

describeWithLlamaStack('Diagnose provider failures (real distribution image)', {}, () => {
  let s: Scenario;
  let echoWheels: string[];
  let echoMetadata: string;
  beforeAll(() => {
    s = new Scenario('us3');
    echoWheels = sampleProviderWheels(s.path('wheels', 'echo'));
    echoMetadata = fs.readFileSync(path.join(SAMPLE_PROVIDER_DIR, 'lls-provider-spec.yaml'), 'utf8');
    s.distribution()
      .provider(ECHO, { metadata: echoMetadata, wheels: echoWheels });
  });
  afterAll(() => s.dispose());

  test('3.1 provider image without lls-provider-spec.yaml', async () => {
    const image = 'registry.test/acme/no-metadata:1';
    s.provider(image, { wheels: echoWheels });
    const pod = await s.run(renderStack({ externalProviders: { inference: [{ providerId: 'no-meta', image }] } }));
    expect(pod.status).toBe('Init:Error');
    const c = pod.container('install-provider-no-meta');
    expect(c.exitCode).toBe(1);
    expect(c.message).toContain(`ERROR: Missing /lls-provider/lls-provider-spec.yaml in image ${image}`);
    expect(c.message).toContain('Provider: no-meta');
    expect(c.message).toContain('Init Container: install-provider-no-meta');
    expect(c.message).toMatch(/Resolution: .*lls-provider-spec\.yaml/);
    nothingAfter(pod, c.name);
  });

  test('3.5 invalid YAML in lls-provider-spec.yaml: the parse error with its line number', async () => {
    const image = 'registry.test/acme/bad-yaml:1';
    const metadata = echoMetadata.replace('  providerType: remote::acme-echo', '  providerType: [remote::acme-echo');
    const line = metadata.split('\n').findIndex((l) => l.includes('[remote::acme-echo')) + 2; // the parser notices on the next line
    s.provider(image, { metadata, wheels: echoWheels });
    const pod = await s.run(renderStack({ externalProviders: { inference: [{ providerId: 'bad-yaml', image }] } }));
    const c = pod.container('install-provider-bad-yaml');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain(`ERROR: Invalid YAML in /lls-provider/lls-provider-spec.yaml in image ${image}`);
    expect(c.message).toMatch(new RegExp(`YAML parse error at line ${line}, column \\d+`));
    expect(c.message).toContain('Provider: bad-yaml');
    nothingAfter(pod, c.name);
  });

  test('3.6 a wheel that fails to install: pip\'s output and a compatibility hint', async () => {
    const image = 'registry.test/acme/wrong-platform:1';
    const otherArch = process.arch === 'arm64' ? 'x86_64' : 'aarch64';
    const wheel = buildSyntheticWheel({ ...providerPackage({ name: 'acme-wrongplat' }), tag: `cp311-cp311-manylinux_2_17_${otherArch}` }, s.dir, s.path('wheels', 'wrongplat'));
    s.provider(image, { metadata: providerMetadata({ name: 'acme-wrongplat', wheels: [wheel] }), wheels: [wheel] });
    const pod = await s.run(renderStack({ externalProviders: { inference: [{ providerId: 'wrong-platform', image }] } }));
    const c = pod.container('install-provider-wrong-platform');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain("ERROR: Failed to install the wheels of provider 'wrong-platform'");
    expect(c.message).toContain(`Image: ${image}`);
    expect(c.message).toContain('Pip installation failed with:');
    expect(c.message).toContain(`${path.basename(wheel)} is not a supported wheel on this platform`);
    expect(c.message).toMatch(/Resolution: Check that the wheels .* compatible with the image's Python/);
    expect(fs.existsSync(path.join(pod.volumes['external-providers'], 'metadata', 'wrong-platform'))).toBe(false);
    nothingAfter(pod, c.name);
  });

  test('NFR-001: a dependency missing from the image is not downloaded; the install fails offline and says so', async () => {
    const image = 'registry.test/acme/missing-dep:1';
    const wheel = buildSyntheticWheel(providerPackage({ name: 'acme-needy', requires: ['acme-not-shipped>=1'] }), s.dir, s.path('wheels', 'needy'));
    s.provider(image, { metadata: providerMetadata({ name: 'acme-needy', wheels: [wheel] }), wheels: [wheel] });
    const pod = await s.run(renderStack({ externalProviders: { inference: [{ providerId: 'needy', image }] } }));
    const c = pod.container('install-provider-needy');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain("ERROR: Cannot install provider 'needy': a dependency wheel is missing from the image");
    expect(c.message).toContain('No matching distribution found for acme-not-shipped>=1');
    expect(c.message).toContain('Resolution: Add a wheel for every dependency');
    nothingAfter(pod, c.name);
  });

  test('3.2 dependency conflict between two providers: the failing provider, the packages, installed-packages.txt', async () => {
    const wheels = s.path('wheels', 'conflict');
    const shared1 = buildSyntheticWheel({ name: 'acme-shared', version: '1.0.0', files: { 'acme_shared/__init__.py': 'V = 1\n' } }, s.dir, wheels);
    const shared2 = buildSyntheticWheel({ name: 'acme-shared', version: '2.0.0', files: { 'acme_shared/__init__.py': 'V = 2\n' } }, s.dir, wheels);
    const a = buildSyntheticWheel(providerPackage({ name: 'acme-old', requires: ['acme-shared==1.0.0'] }), s.dir, wheels);
    const b = buildSyntheticWheel(providerPackage({ name: 'acme-new', api: 'safety', requires: ['acme-shared>=2.0'] }), s.dir, wheels);
    s.provider('registry.test/acme/old:1', { metadata: providerMetadata({ name: 'acme-old', wheels: [a, shared1] }), wheels: [a, shared1] })
      .provider('registry.test/acme/new:1', { metadata: providerMetadata({ name: 'acme-new', api: 'safety', wheels: [b, shared2] }), wheels: [b, shared2] });
    const pod = await s.run(renderStack({
      externalProviders: {
        inference: [{ providerId: 'old', image: 'registry.test/acme/old:1' }],
        safety: [{ providerId: 'new', image: 'registry.test/acme/new:1' }],
      },
    }));
    expect(pod.container('install-provider-old').reason).toBe('Completed');
    const c = pod.container('install-provider-new');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain("ERROR: Cannot install provider 'new' due to dependency conflict");
    expect(c.message).toContain('Provider: new\nImage: registry.test/acme/new:1\nInit Container: install-provider-new');
    expect(c.message).toContain("acme-new 1.0.0 requires acme-shared>=2.0, but acme-shared 1.0.0 is already installed by provider 'old' (image registry.test/acme/old:1)");
    expect(c.message).toContain('Previously installed packages can be found in: /opt/llama-stack/external-providers/installed-packages.txt');
    expect(c.message).toMatch(/Resolution: Update provider images to use compatible dependency versions, or reorder providers/);
    // Nothing of the failed provider reached the shared volume.
    expect(pod.volumeFile('external-providers', 'installed-packages.txt')).toBe(
      'acme-old==1.0.0 provider=old image=registry.test/acme/old:1\nacme-shared==1.0.0 provider=old image=registry.test/acme/old:1\n');
    expect(fs.readdirSync(path.join(pod.volumes['external-providers'], 'python-packages')).filter((e) => e.startsWith('acme_new'))).toEqual([]);
    nothingAfter(pod, c.name);
  });

  test('3.3 API placement mismatch: the merge step states declared vs placed API and the fix', async () => {
    const pod = await s.run(renderStack({ externalProviders: { safety: [{ providerId: 'misplaced', image: ECHO }] } }));
    expect(pod.container('install-provider-misplaced').reason).toBe('Completed');
    const c = pod.container('merge-config');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain('ERROR: Provider API type mismatch');
    expect(c.message).toContain(`Provider 'misplaced' (image: ${ECHO})`);
    expect(c.message).toContain('declares api=inference in lls-provider-spec.yaml\nbut is placed under externalProviders.safety');
    expect(c.message).toContain('Resolution: Move the provider to externalProviders.inference section');
    expect(fs.readdirSync(pod.volumes['merged-config'])).toEqual([]);
    nothingAfter(pod, c.name);
  });

  test('3.8 duplicate provider ids: rejected at synth, and in the pod for a hand-edited manifest', async () => {
    const second = 'registry.test/acme/echo-copy:1';
    s.provider(second, { metadata: echoMetadata, wheels: echoWheels });
    expect(() => renderStack({
      externalProviders: { inference: [{ providerId: 'dup', image: ECHO }], safety: [{ providerId: 'dup', image: second }] },
    })).toThrow(/duplicate provider id 'dup'/);

    // The construct never renders this; a manifest edited by hand can. The second installer refuses.
    const manifests = renderStack({ externalProviders: { inference: [{ providerId: 'dup', image: ECHO }, { providerId: 'dup-two', image: second }] } });
    const init = deploymentOf(manifests).spec.template.spec.initContainers.find((c: any) => c.name === 'install-provider-dup-two');
    for (const name of ['PROVIDER_ID', 'PROVIDER_KEY']) init.env.find((e: any) => e.name === name).value = 'dup';
    const pod = await s.run(manifests);
    expect(pod.container('install-provider-dup').reason).toBe('Completed');
    const c = pod.container('install-provider-dup-two');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain("ERROR: Duplicate providerId 'dup' in externalProviders");
    expect(c.message).toContain(`Images: ${ECHO} and ${second}`);
    expect(c.message).toContain('Resolution: Give each external provider a unique providerId.');
    nothingAfter(pod, c.name);
  });

  test('a merge image of another version than the manifest\'s: the pod stops at write-init-scripts, naming both digests', async () => {
    // As a manifest rendered by another library version than the merge image's: only the digest differs.
    const manifests = renderStack({ externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO }] } });
    const writer = deploymentOf(manifests).spec.template.spec.initContainers[0];
    const other = 'ab'.repeat(32);
    writer.args[writer.args.indexOf('--sha256') + 1] = other;
    const pod = await s.run(manifests);
    const c = pod.container('write-init-scripts');
    expect(c.exitCode).toBe(1);
    expect(c.message).toContain(`carries init scripts with SHA-256 ${initScriptsDigest()}, but the manifest was rendered for scripts with SHA-256 ${other}`);
    expect(fs.readdirSync(pod.volumes['init-scripts'])).toEqual([]);
    nothingAfter(pod, c.name);
  });

  test('3.7 distribution image without a config file, and no user config: every place tried is listed', async () => {
    const bare = 'registry.test/llama-stack/distribution-bare:0.7.3';
    s.distribution({ distroName: '' }, bare);
    const pod = await s.run(renderStack({ distribution: { image: bare }, externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO }] } }));
    expect(pod.container('install-provider-acme-echo').reason).toBe('Completed');
    const c = pod.container('extract-distribution-config');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain(`ERROR: No config.yaml or run.yaml found in distribution image ${bare}`);
    expect(c.message).toContain('  - /opt/app-root/config.yaml (search path: not found)');
    expect(c.message).toContain('  - /etc/llama-stack/run.yaml (search path: not found)');
    expect(c.message).toContain("Note: no distribution name (neither DISTRIBUTION_NAME nor the image's DISTRO_NAME is set)");
    expect(c.message).toMatch(/Resolution: Either provide a user config .*name the distribution the image runs \(distribution\.name\)/);
    nothingAfter(pod, c.name);
    expect(DISTRIBUTION).not.toBe(bare);
  });

  test('3.7 a named distribution the installed llama-stack does not ship: the package paths tried are listed', async () => {
    s.distribution({}, distributionImageOf(findRelease(LLAMA_STACK)!, 'remote-vllm'));
    const pod = await s.run(renderStack({ distribution: { name: 'remote-vllm' }, serverVersion: LLAMA_STACK, externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO }] } }));
    const c = pod.container('extract-distribution-config');
    expect(c.reason).toBe('Error');
    expect(c.message).toMatch(/ {2}- \/\S+\/site-packages\/llama_stack\/distributions\/remote-vllm\/config\.yaml \(distribution 'remote-vllm' in the installed package: not found\)/);
    expect(c.message).toMatch(/ {2}- \/\S+\/site-packages\/llama_stack\/distributions\/remote-vllm\/run\.yaml \(distribution 'remote-vllm' in the installed package: not found\)/);
    nothingAfter(pod, c.name);
  });

  test('the image\'s RUN_CONFIG_PATH comes first, as its entrypoint runs that file', async () => {
    const ref = 'registry.test/llama-stack/distribution-custom:0.7.3';
    const own = 'version: 2\ndistro_name: custom\napis: []\nproviders: {}\n';
    s.distribution({ runConfigPath: '/app/custom.yaml', configs: { '/app/custom.yaml': own } }, ref);
    const pod = await s.run(renderStack({ distribution: { image: ref }, externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO }] } }), { runMain: false });
    expect(pod.container('extract-distribution-config').stdout).toContain('Found distribution config at /app/custom.yaml (RUN_CONFIG_PATH of the image)');
    expect(pod.volumeFile('merged-config', 'config.yaml')).toContain('distro_name: custom');
  });
});
