/**
 * Preflight (seed 001 Phase 4, FR-026/FR-027, "Option B") in the sandboxed pod: the server container
 * runs start-server.sh, which runs preflight.py with the distribution's Python and the server's
 * PYTHONPATH before `llama stack run`. Provider wheels are real, installed by the real init containers.
 */
import * as fs from 'node:fs';
import { referenceConfig, renderStack, Scenario, standInResult } from './helpers';
import { elfHeader, FOREIGN_ELF_MACHINE } from './native';
import { describeWithSandbox } from '../sandbox/host';
import { buildSyntheticWheel, providerMetadata, providerPackage } from '../sandbox/wheels';

describeWithSandbox('preflight in the pod', () => {
  let s: Scenario;
  const image = (name: string) => `registry.test/acme/${name}:1`;
  /** Builds a provider package into a wheel and lays out its image; returns the image reference. */
  const provider = (name: string, pkg: Parameters<typeof providerPackage>[0], meta: Partial<Parameters<typeof providerMetadata>[0]> = {}) => {
    const wheel = buildSyntheticWheel(providerPackage(pkg), s.dir, s.path('wheels', name));
    s.provider(image(name), { metadata: providerMetadata({ name: pkg.name, api: pkg.api, wheels: [wheel], ...meta }), wheels: [wheel] });
    return image(name);
  };

  beforeAll(() => {
    s = new Scenario('preflight');
    s.distribution({ configs: { '/opt/app-root/config.yaml': referenceConfig('starter-config-v0.7.1.yaml') } });
  });
  afterAll(() => s.dispose());

  test('a native extension for another architecture: the server container fails before any import, naming provider and image', async () => {
    const so = `${s.dir}/foreign.so`;
    fs.writeFileSync(so, elfHeader(FOREIGN_ELF_MACHINE));
    const ref = provider('native', {
      name: 'acme-native',
      initBody: 'print("IMPORTED acme_native")',
      extraFiles: { 'acme_native/_speedups.cpython-311-x86_64-linux-gnu.so': so },
    });
    const pod = await s.run(renderStack({ externalProviders: { inference: [{ providerId: 'native', image: ref }] } }));
    expect(pod.initContainers.every((c) => c.reason === 'Completed')).toBe(true); // pip does not look inside a py3-none-any wheel
    const server = pod.container('llama-stack');
    expect(server.reason).toBe('Error');
    expect(server.message).toContain(`Provider: native\nImage: ${ref}\nModule: acme_native\nCheck: architecture`);
    expect(server.message).toMatch(/acme_native\/_speedups\.cpython-311-x86_64-linux-gnu\.so is built for (AArch64|x86-64)/);
    expect(server.logs).not.toContain('IMPORTED acme_native');
    expect(server.logs).not.toContain('llama stack run'); // the server never started
  });

  test('an import failure stops the server container with the provider, the image and the fix', async () => {
    const ref = provider('broken-import', { name: 'acme-broken', api: 'safety', initBody: 'import acme_not_shipped' });
    const pod = await s.run(renderStack({ externalProviders: { safety: [{ providerId: 'broken-import', image: ref }] } }));
    const server = pod.container('llama-stack');
    expect(pod.status).toBe('Error');
    expect(server.exitCode).toBe(1);
    expect(server.message).toContain("ERROR: Preflight check failed for external provider 'broken-import'");
    expect(server.message).toContain(`Image: ${ref}`);
    expect(server.message).toContain("it needs module 'acme_not_shipped', which is not installed");
    expect(server.message).toContain("Preflight failed: 1 of 1 external provider(s) cannot be loaded ('broken-import'); the server was not started.");
    expect(server.logs).not.toContain('llama stack run');
  });

  test('an optional dependency and a metadata mismatch do not block: warning, then the server loads the runtime spec', async () => {
    const ref = provider('drifted', {
      name: 'acme-drifted',
      providerType: 'remote::vllm-v2',
      initBody: 'try:\n    import acme_optional_accel\nexcept ImportError:\n    acme_optional_accel = None',
    }, { providerType: 'remote::custom-vllm' });
    const pod = await s.run(renderStack({ externalProviders: { inference: [{ providerId: 'custom-vllm', image: ref }] } }));
    expect(pod.phase).toBe('Succeeded');
    const server = pod.container('llama-stack');
    expect(server.stdout).toContain('WARNING: Provider metadata mismatch (non-blocking)\n\nProvider: custom-vllm');
    expect(server.stdout).toContain('  Metadata (lls-provider-spec.yaml): remote::custom-vllm\n  Runtime (get_provider_spec()): remote::vllm-v2\n  Using: remote::vllm-v2 (runtime value)');
    expect(server.stdout).toContain('Preflight passed: 1 external provider(s) ready (1 warning(s)).');
    const loaded = standInResult(server.stdout)!.external[0];
    expect(loaded).toMatchObject({ provider_id: 'custom-vllm', provider_type: 'remote::custom-vllm', runtime_provider_type: 'remote::vllm-v2' });
  });

  test('with preflight switched off, the same broken provider crashes the server itself, with a less helpful error', async () => {
    const ref = image('broken-import');
    const pod = await s.run(renderStack({
      preflight: false,
      externalProviders: { safety: [{ providerId: 'broken-import', image: ref }] },
    }));
    const server = pod.container('llama-stack');
    expect(server.argv).toEqual(['llama', 'stack', 'run', '/opt/llama-stack/config/config.yaml']);
    expect(server.reason).toBe('Error');
    expect(server.logs).not.toContain('Preflight');
    expect(server.stderr).toContain("failed to load external provider broken-import (acme_broken): ModuleNotFoundError: No module named 'acme_not_shipped'");
  });
});
