/**
 * Preflight in the sandboxed pod: the server container runs start-server.sh, which runs preflight.py
 * with the distribution's Python and the server's PYTHONPATH before the real server (`llama stack run`,
 * `ogx run`), on each line.
 * Provider wheels are real, installed by the real init containers; what preflight passes, the real
 * server loads and lists.
 */
import * as fs from 'node:fs';
import { describeWithLlamaStack, EACH_SERVER, freePort, OGX, renderStack, Scenario, serverContainer, starterImage } from './helpers';
import { elfHeader, FOREIGN_ELF_MACHINE } from './native';
import { LlamaStackWithProvidersProps } from '../../src';
import { findRelease } from '../../src/run-config/releases';
import { LAUNCH_SERVER } from '../llama-stack/helpers';
import { buildSyntheticWheel, providerMetadata, providerPackage } from '../sandbox/wheels';

describe.each(EACH_SERVER)('on %s', (version) => describeWithLlamaStack('preflight in the pod, before the real server', { versions: [version] }, () => {
  const distribution = starterImage(version);
  const render = (props: Partial<LlamaStackWithProvidersProps>) => renderStack({ distribution: { image: distribution }, ...props });
  const container = serverContainer(version);
  /** How the server is started, which its container logs once it starts. */
  const started = findRelease(version)!.runCommand.join(' ');
  let s: Scenario;
  const image = (name: string) => `registry.test/acme/${name}:1`;
  /** Builds a provider package into a wheel and lays out its image; returns the image reference. */
  const provider = (name: string, pkg: Parameters<typeof providerPackage>[0], meta: Partial<Parameters<typeof providerMetadata>[0]> = {}) => {
    const wheel = buildSyntheticWheel(providerPackage(pkg), s.dir, s.path('wheels', name));
    s.provider(image(name), { metadata: providerMetadata({ name: pkg.name, api: pkg.api, wheels: [wheel], ...meta }), wheels: [wheel] });
    return image(name);
  };

  beforeAll(() => {
    s = new Scenario(`preflight-${version}`);
    s.distribution({}, distribution, version);
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
    const pod = await s.run(render({ port: await freePort(), externalProviders: { inference: [{ providerId: 'native', image: ref }] } }), { serve: {} });
    expect(pod.initContainers.every((c) => c.reason === 'Completed')).toBe(true); // pip does not look inside a py3-none-any wheel
    const server = pod.container(container);
    expect(server.reason).toBe('Error');
    expect(server.message).toContain(`Provider: native\nImage: ${ref}\nModule: acme_native\nCheck: architecture`);
    expect(server.message).toMatch(/acme_native\/_speedups\.cpython-311-x86_64-linux-gnu\.so is built for (AArch64|x86-64)/);
    expect(server.logs).not.toContain('IMPORTED acme_native');
    expect(server.logs).not.toContain(started); // the server never started
  });

  test('an import failure stops the server container with the provider, the image and the fix', async () => {
    const ref = provider('broken-import', { name: 'acme-broken', api: 'tool_runtime', initBody: 'import acme_not_shipped' });
    const pod = await s.run(render({ port: await freePort(), externalProviders: { toolRuntime: [{ providerId: 'broken-import', image: ref }] } }), { serve: {} });
    const server = pod.container(container);
    expect(pod.status).toBe('Error');
    expect(server.exitCode).toBe(1);
    expect(server.message).toContain("ERROR: Preflight check failed for external provider 'broken-import'");
    expect(server.message).toContain(`Image: ${ref}`);
    expect(server.message).toContain("it needs module 'acme_not_shipped', which is not installed");
    expect(server.message).toContain("Preflight failed: 1 of 1 external provider(s) cannot be loaded ('broken-import'); the server was not started.");
    expect(server.logs).not.toContain(started);
  });

  test('an optional dependency and a metadata mismatch do not block: warning, then the server loads the runtime spec', async () => {
    const ref = provider('drifted', {
      name: 'acme-drifted',
      providerType: 'remote::vllm-v2',
      initBody: 'try:\n    import acme_optional_accel\nexcept ImportError:\n    acme_optional_accel = None',
    }, { providerType: 'remote::custom-vllm' });
    const pod = await s.run(render({ port: await freePort(), externalProviders: { inference: [{ providerId: 'custom-vllm', image: ref }] } }), { serve: {} });
    expect(pod.phase).toBe('Running');
    const logs = pod.server!.logs();
    expect(logs).toContain('WARNING: Provider metadata mismatch (non-blocking)\n\nProvider: custom-vllm');
    expect(logs).toContain('  Metadata (lls-provider-spec.yaml): remote::custom-vllm\n  Runtime (get_provider_spec()): remote::vllm-v2\n'
      + "  Using: remote::custom-vllm (the config entry's value: the server registers the provider under it)");
    expect(logs).toContain('Preflight passed: 1 external provider(s) ready (1 warning(s)).');
    // The real server registered it under the config entry's type, as preflight said.
    const listed = (await pod.server!.request('GET', '/v1/providers')).body.data.filter((p: any) => p.provider_id === 'custom-vllm');
    expect(listed).toEqual([expect.objectContaining({ api: 'inference', provider_type: 'remote::custom-vllm' })]);
    await pod.stop();
  });

  test('with preflight switched off, the same broken provider crashes the server itself, with a less helpful error', async () => {
    const ref = image('broken-import');
    const pod = await s.run(render({
      preflight: false,
      port: await freePort(),
      externalProviders: { toolRuntime: [{ providerId: 'broken-import', image: ref }] },
    }), { serve: {} });
    const server = pod.container(container);
    expect(server.argv).toEqual(LAUNCH_SERVER);
    expect(pod.phase).toBe('Failed');
    // ogx 1.5 loads providers in the application's start-up, whose failure `ogx run` swallows
    // (ogx/cli/stack/run.py: `except (KeyboardInterrupt, SystemExit)` around uvicorn.run): the
    // container exits 0 before it was ever ready (in a cluster: Completed, restarted, CrashLoopBackOff).
    expect({ reason: server.reason, exitCode: server.exitCode }).toEqual(version === OGX ? { reason: 'Unready', exitCode: 0 } : { reason: 'Error', exitCode: 1 });
    expect(server.logs).not.toContain('Preflight');
    // The real server's own words: a traceback ending in the import error, without provider or image.
    expect(server.logs).toContain("ModuleNotFoundError: No module named 'acme_not_shipped'");
    expect(server.logs).not.toContain('registry.test/acme/broken-import:1');
  });
}));
