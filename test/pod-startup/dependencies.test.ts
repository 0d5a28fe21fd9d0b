/**
 * Provider dependencies against the server's own packages and against each other, in the sandboxed pod
 * with the real distribution image of each line (llama-stack 0.7, ogx 1.5 and 1.1): the server has
 * PyYAML, so a provider shipping a synthetic PyYAML 5.0 wheel meets the server's real copy of PyYAML 6.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWithLlamaStack, EACH_SERVER, env, freePort, PACKAGES_DIR, renderStack, Scenario, starterImage } from './helpers';
import { LlamaStackWithProvidersProps } from '../../src';
import { PodRun } from '../sandbox/pod-runner';
import { buildSyntheticWheel, providerMetadata, providerPackage, SyntheticPackage } from '../sandbox/wheels';

const OLD_PYYAML: SyntheticPackage = { name: 'PyYAML', version: '5.0', files: { 'yaml/__init__.py': '__version__ = "5.0"\n' } };

/** Every container after `name` never started. */
function nothingAfter(pod: PodRun, name: string): void {
  const all = [...pod.initContainers, ...pod.containers];
  const i = all.findIndex((c) => c.name === name);
  expect(all.slice(i + 1).map((c) => c.state)).toEqual(all.slice(i + 1).map(() => 'waiting'));
}

describe.each(EACH_SERVER)('on %s', (version) => describeWithLlamaStack('provider dependencies and the server\'s own packages', { versions: [version] }, () => {
  const DISTRIBUTION = starterImage(version);
  const render = (props: Partial<LlamaStackWithProvidersProps>) => renderStack({ distribution: { image: DISTRIBUTION }, ...props });
  /** The PyYAML version of the distribution image's Python (set before the tests run). */
  let SERVER_PYYAML: string;
  let s: Scenario;
  beforeAll(() => {
    s = new Scenario(`deps-${version}`);
    s.distribution({}, DISTRIBUTION, version);
    SERVER_PYYAML = execFileSync(env(version).python, ['-c', 'import importlib.metadata as m; print(m.version("PyYAML"))'], { encoding: 'utf8' }).trim();
  });
  afterAll(() => s.dispose());

  /**
   * A provider image with the provider package and the given dependency wheels; `files` adds files to the
   * provider's wheel as they are (archive path → text), in namespace directories too.
   */
  interface ProviderOptions {
    readonly requires?: string[];
    readonly deps?: SyntheticPackage[];
    readonly initBody?: string;
    readonly files?: Record<string, string>;
  }
  const provider = (id: string, options: ProviderOptions = {}) => {
    const image = `registry.test/acme/${id}:1`;
    const name = `acme-${id}`;
    const wheels = s.path('wheels', id);
    const extraFiles = Object.fromEntries(Object.entries(options.files ?? {}).map(([archivePath, text], i) => {
      const file = path.join(s.path('files', id), String(i));
      fs.writeFileSync(file, text);
      return [archivePath, file];
    }));
    const main = buildSyntheticWheel(providerPackage({ name, requires: options.requires, initBody: options.initBody, extraFiles }), s.dir, wheels);
    const all = [main, ...(options.deps ?? []).map((d) => buildSyntheticWheel(d, s.dir, wheels))];
    s.provider(image, { metadata: providerMetadata({ name, wheels: all }), wheels: all });
    return { providerId: id, image };
  };

  test('inspect-distribution records the server\'s own packages, without the provider packages on PYTHONPATH', async () => {
    const p = provider('recorded');
    const pod = await s.run(render({ externalProviders: { inference: [p] } }), { runMain: false });
    expect(pod.initContainers.map((c) => c.name).slice(0, 2)).toEqual(['write-init-scripts', 'inspect-distribution']);
    expect(pod.container('inspect-distribution').reason).toBe('Completed');
    const first = JSON.parse(pod.volumeFile('external-providers', 'server-packages.json'));
    expect(first).toMatchObject({
      image: DISTRIBUTION,
      implementation: 'cpython',
      packages: { pyyaml: { name: 'PyYAML', version: SERVER_PYYAML } },
      modules: { yaml: 'pyyaml', json: null },
    });
    expect(first.markers.python_full_version).toBe(first.python);
    // Run again over the same volume (a pod restart): the installed provider is on PYTHONPATH now, and
    // still not taken for part of the server.
    expect(fs.existsSync(path.join(pod.volumes['external-providers'], 'python-packages', 'acme_recorded'))).toBe(true);
    const again = await pod.exec('inspect-distribution', ['/bin/sh', '/opt/llama-stack/scripts/inspect-distribution.sh']);
    expect(again.reason).toBe('Completed');
    const second = JSON.parse(pod.volumeFile('external-providers', 'server-packages.json'));
    expect(second.packages['acme-recorded']).toBeUndefined();
    expect(second.modules.acme_recorded).toBeUndefined();
    expect(second).toEqual(first);
  });

  test('a dependency the server has at an accepted version is served by the server\'s copy and not installed', async () => {
    // The provider fails to import unless it gets the server's PyYAML.
    const p = provider('yaml-user', {
      requires: ['PyYAML>=5'],
      deps: [OLD_PYYAML],
      initBody: `import yaml\nassert yaml.__version__ == ${JSON.stringify(SERVER_PYYAML)}, "provider got PyYAML " + yaml.__version__ + " from " + yaml.__file__\n`,
    });
    const pod = await s.run(render({ port: await freePort(), externalProviders: { inference: [p] } }), { serve: {} });
    const install = pod.container('install-provider-yaml-user');
    expect(install.reason).toBe('Completed');
    expect(install.stdout).toContain(`Using the server's PyYAML ${SERVER_PYYAML} (provider wheel 5.0 not installed)`);
    expect(install.stdout).toContain("Installed 1 package(s) for provider 'yaml-user': acme-yaml-user==1.0.0");
    expect(fs.readdirSync(path.join(pod.volumes['external-providers'], 'python-packages')).sort()).toEqual(['acme_yaml_user', 'acme_yaml_user-1.0.0.dist-info']);
    expect(pod.volumeFile('external-providers', 'installed-packages.txt')).toBe([
      `acme-yaml-user==1.0.0 provider=yaml-user image=${p.image}`,
      `PyYAML==${SERVER_PYYAML} provider=yaml-user image=${p.image} served-by=server`,
      '',
    ].join('\n'));
    // Preflight imported the provider with the server's interpreter and PYTHONPATH: its assertion held;
    // so did the real server's import, and it runs the provider.
    expect(pod.phase).toBe('Running');
    expect(pod.server!.logs()).toContain(`Preflight: provider 'yaml-user' (remote::acme-yaml-user, api inference) OK: acme_yaml_user from ${PACKAGES_DIR}/acme_yaml_user/__init__.py`);
    const listed = (await pod.server!.request('GET', '/v1/providers')).body.data.filter((x: any) => x.provider_id === 'yaml-user');
    expect(listed.map((x: any) => x.provider_type)).toEqual(['remote::acme-yaml-user']);
    await pod.stop();
  });

  test('a dependency the server has at a version the provider rejects fails the pod before the server starts', async () => {
    const p = provider('old-yaml', { requires: ['PyYAML<6'], deps: [OLD_PYYAML] });
    const pod = await s.run(render({ externalProviders: { inference: [p] } }));
    const c = pod.container('install-provider-old-yaml');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain("ERROR: Cannot install provider 'old-yaml' due to dependency conflict");
    expect(c.message).toContain(`Provider: old-yaml\nImage: ${p.image}\nInit Container: install-provider-old-yaml`);
    expect(c.message).toContain(`acme-old-yaml 1.0.0 requires PyYAML<6 (the provider image ships PyYAML 5.0), but the server (distribution image ${DISTRIBUTION}, Python `);
    expect(c.message).toContain(`) has PyYAML ${SERVER_PYYAML}`);
    expect(c.message).toContain("The server's packages can be found in: /opt/llama-stack/external-providers/server-packages.json");
    expect(c.message).toMatch(/Resolution: A provider runs with the server's own copy of every package the distribution image already has/);
    expect(fs.readdirSync(path.join(pod.volumes['external-providers'], 'python-packages'))).toEqual([]);
    nothingAfter(pod, c.name);
  });

  test('two providers shipping the same import package: the second fails, naming the first and the fix', async () => {
    const left = provider('left', { files: { 'common/__init__.py': 'SIDE = "left"\n' } });
    const right = provider('right', { files: { 'common/__init__.py': 'SIDE = "right"\n' } });
    const pod = await s.run(render({ externalProviders: { inference: [left, right] } }));
    expect(pod.container('install-provider-left').reason).toBe('Completed');
    const c = pod.container('install-provider-right');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain("ERROR: Cannot install provider 'right': its packages collide with packages already on the server's path");
    expect(c.message).toContain(`acme-right 1.0.0 installs the import package 'common', which acme-left 1.0.0 of provider 'left' (image ${left.image}) installed already`);
    expect(c.message).toMatch(/Resolution: Each import package and file may come from one distribution only/);
    expect(fs.readFileSync(path.join(pod.volumes['external-providers'], 'python-packages', 'common', '__init__.py'), 'utf8')).toBe('SIDE = "left"\n');
    nothingAfter(pod, c.name);
  });

  test('a namespace package (no __init__.py) shared by two providers merges when no file collides', async () => {
    const left = provider('ns-left', { files: { 'acme_ns/left.py': 'X = 1\n' } });
    const right = provider('ns-right', { files: { 'acme_ns/right.py': 'X = 2\n' } });
    const pod = await s.run(render({ externalProviders: { inference: [left, right] } }), { runMain: false });
    expect(pod.container('install-provider-ns-right').reason).toBe('Completed');
    const ns = path.join(pod.volumes['external-providers'], 'python-packages', 'acme_ns');
    expect(fs.readdirSync(ns).sort()).toEqual(['__pycache__', 'left.py', 'right.py']);
    expect(fs.readdirSync(path.join(ns, '__pycache__')).map((f) => f.split('.')[0]).sort()).toEqual(['left', 'right']);
  });

  test('a package that would replace a module of the server or its standard library is refused', async () => {
    const p = provider('shadow', { files: { 'yaml/__init__.py': '', 'json/__init__.py': '' } });
    const pod = await s.run(render({ externalProviders: { inference: [p] } }));
    const c = pod.container('install-provider-shadow');
    expect(c.reason).toBe('Error');
    expect(c.message).toContain(`acme-shadow 1.0.0 installs the import package 'yaml', which the server already imports from PyYAML ${SERVER_PYYAML}`);
    expect(c.message).toContain("acme-shadow 1.0.0 installs the import package 'json', which the server already imports from its Python standard library");
    nothingAfter(pod, c.name);
  });

  test('without the distribution\'s record (a manifest edited by hand) the installer warns and installs everything', async () => {
    const p = provider('unchecked', { requires: ['PyYAML<6'], deps: [OLD_PYYAML] });
    const manifests = render({ externalProviders: { inference: [p] } });
    const spec = manifests.find((m) => m.kind === 'Deployment').spec.template.spec;
    spec.initContainers = spec.initContainers.filter((c: any) => c.name !== 'inspect-distribution');
    const pod = await s.run(manifests, { runMain: false });
    const c = pod.container('install-provider-unchecked');
    expect(c.reason).toBe('Completed');
    expect(c.stdout).toContain('WARNING: /opt/llama-stack/external-providers/server-packages.json does not exist (the inspect-distribution init container did not run)');
    expect(c.stdout).toContain("Installed 2 package(s) for provider 'unchecked': acme-unchecked==1.0.0, PyYAML==5.0");
  });
}));
