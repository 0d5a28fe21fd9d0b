/**
 * The sample provider's Containerfile (examples/sample-provider), built for real with buildah and run
 * in the sandboxed pod. No registry is reachable here, so the image is built on an empty base
 * (`--build-arg PYTHON_IMAGE=scratch`) and laid over the host's root, which provides /bin/sh and python3
 * as a python base image would; everything under /lls-provider comes from the built image.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { freePort, LLAMA_STACK, renderStack, Scenario } from './helpers';
import { buildSampleProviderImage } from './sample-provider-image';
import { buildahSupport, imageConfig, removeImage } from '../sandbox/buildah';
import { describeWhen, firstUnsupported, sandboxSupport } from '../sandbox/host';
import { ContainerImage } from '../sandbox/pod-runner';
import { llamaStackEnv, testEnvsSupport } from '../sandbox/test-envs';

const all = firstUnsupported(sandboxSupport, buildahSupport, () => testEnvsSupport(llamaStackEnv(LLAMA_STACK)));

describeWhen('the sample provider image, built from its Containerfile', all, 'bubblewrap, buildah and the llama-stack test environments', () => {
  const tag = `localhost/kic-test/acme-echo-provider:${process.pid}`;
  let s: Scenario;
  let image: ContainerImage;
  beforeAll(() => {
    s = new Scenario('provider-image');
    image = buildSampleProviderImage(s, tag);
  });
  afterAll(() => {
    removeImage(tag);
    s?.dispose();
  });

  test('has the provider image layout, runs as non-root, and runs its service part by default', () => {
    expect(imageConfig(tag).User).toBe('1001');
    expect(image.cmd).toEqual(['python3', '-m', 'acme_echo_provider.service']);
    // The service part imports the pure-Python wheels where they are.
    expect(image.env?.PYTHONPATH?.split(':')).toEqual([
      '/lls-provider/packages/acme_echo_provider-0.1.0-py3-none-any.whl',
      '/lls-provider/packages/acme_text_utils-1.0.0-py3-none-any.whl',
    ]);
    const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]));
    expect(files(image.dir).sort()).toEqual([
      'lls-provider/lls-provider-spec.yaml',
      'lls-provider/packages/acme_echo_provider-0.1.0-py3-none-any.whl',
      'lls-provider/packages/acme_text_utils-1.0.0-py3-none-any.whl',
    ]);
    // The metadata names the wheels the image really contains.
    const spec = parse(fs.readFileSync(path.join(image.dir, 'lls-provider', 'lls-provider-spec.yaml'), 'utf8')).spec;
    expect([spec.wheelPath, ...spec.dependencyWheels].map((w: string) => fs.existsSync(path.join(image.dir, w)))).toEqual([true, true]);
  });

  test('is installed by the init container and served by the real server', async () => {
    s.images[tag] = image;
    s.distribution();
    const pod = await s.run(renderStack({ port: await freePort(), externalProviders: { inference: [{ providerId: 'acme-echo', image: tag }] } }), { serve: {} });
    expect(pod.phase).toBe('Running');
    const providers = (await pod.server!.request('GET', '/v1/providers')).body.data;
    expect(providers.filter((p: any) => p.provider_id === 'acme-echo').map((p: any) => p.provider_type)).toEqual(['remote::acme-echo']);
    await pod.stop();
  });
});
