import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initScripts, initScriptsDigest } from '../../src/llama-stack/scripts';
import { mergeRunConfig } from '../../src/run-config/merge';
import { readExternalProviders } from '../../src/run-config/metadata-dir';
import { provider, readFixture, removeTempDirs, tempDir, writeMetadataDir } from '../run-config/helpers';
import { buildahSupport } from '../sandbox/buildah';
import { describeWhen } from '../sandbox/host';

/**
 * Builds the merge image from containers/merge with buildah (scripts/merge-image/build.sh, on a Node
 * base assembled locally since no registry is reachable) and runs its entrypoint as the merge init
 * container would: the seed's volumes at the seed's paths, inputs read-only, as the image's user.
 */
const REPO = path.join(__dirname, '..', '..');

interface ImageConfig {
  readonly User: string;
  readonly Entrypoint: string[];
  readonly Cmd: string[];
  readonly Labels: Record<string, string>;
}

function buildah(args: string[]) {
  return spawnSync('buildah', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

describeWhen('the merge image', buildahSupport(), 'buildah', () => {
  const tag = `localhost/kube-inference/merge:test-${process.pid}`;
  let config: ImageConfig;

  beforeAll(() => {
    const built = spawnSync('bash', [path.join(REPO, 'scripts', 'merge-image', 'build.sh'), '--tag', tag], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`image build failed:\n${built.stdout}\n${built.stderr}`);
    config = JSON.parse(buildah(['inspect', '--type', 'image', tag]).stdout).OCIv1.config;
    const size = buildah(['images', '--format', '{{.Size}}', tag]).stdout.trim();
    // eslint-disable-next-line no-console
    console.log(`merge image ${tag}: ${size}`);
  });

  afterAll(() => {
    buildah(['rmi', '--force', tag]);
    removeTempDirs();
  });

  /** Runs `command` in a container of the image with the given `host:pod[:ro]` volumes. */
  function runInImage(volumes: string[], command: string[]) {
    const container = buildah(['from', '--quiet', tag]).stdout.trim();
    try {
      return buildah(['run', '--isolation', 'chroot', ...volumes.flatMap((v) => ['--volume', v]), container, '--', ...command]);
    } finally {
      buildah(['rm', container]);
    }
  }

  /** Runs the image's entrypoint and default command with the pod's three volumes mounted. */
  function runImage(volumes: { externalProviders: string; baseConfig: string; config: string }) {
    return runInImage([
      `${volumes.externalProviders}:/opt/llama-stack/external-providers:ro`,
      `${volumes.baseConfig}:/opt/llama-stack/base-config:ro`,
      `${volumes.config}:/opt/llama-stack/config`,
    // The pod's fixtures are llama-stack 0.7 configs (safety, eval): the release is named as the construct names it.
    ], [...config.Entrypoint, ...config.Cmd, '--server-version', '0.7']);
  }

  /** The pod's volumes: an emptyDir is writable by any user, so the output directory is too. */
  function podVolumes() {
    const root = tempDir('merge-image-');
    const v = {
      externalProviders: path.join(root, 'external-providers'),
      baseConfig: path.join(root, 'base-config'),
      config: path.join(root, 'config'),
    };
    for (const dir of Object.values(v)) fs.mkdirSync(dir, { recursive: true, mode: 0o777 });
    fs.chmodSync(v.config, 0o777);
    fs.mkdirSync(path.join(v.externalProviders, 'metadata'));
    fs.writeFileSync(path.join(v.baseConfig, 'config.yaml'), readFixture('odh-distribution-config.yaml'));
    return v;
  }

  test('runs kube-inference merge-config as a non-root user by default', () => {
    expect(config.Entrypoint).toEqual(['/usr/local/lib/kube-inference/kube-inference']);
    expect(config.Cmd).toEqual(['merge-config']);
    expect(config.User).toBe('1000:1000');
    expect(config.Labels['org.opencontainers.image.version']).toBe(JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version);
  });

  test('merges a real metadata directory at the pod paths, exactly as the library does', () => {
    const v = podVolumes();
    const metadata = path.join(v.externalProviders, 'metadata');
    writeMetadataDir(metadata, [
      provider('custom-vllm', { config: { url: 'http://vllm:8000', api_token: '${env.VLLM_TOKEN}' } }),
      provider('trustyai_fms', { api: 'safety', providerType: 'remote::trustyai_fms', packageName: 'llama_stack_provider_trustyai_fms==0.5.0' }),
    ]);
    const result = runImage(v);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(fs.readdirSync(v.config).sort()).toEqual(['config.yaml', 'extra-providers.yaml', 'merge-log.txt']);

    const expected = mergeRunConfig(readFixture('odh-distribution-config.yaml'), readExternalProviders(metadata), {
      baseConfigSource: '/opt/llama-stack/base-config/config.yaml', serverVersion: '0.7',
    });
    expect(fs.readFileSync(path.join(v.config, 'config.yaml'), 'utf8')).toBe(expected.configText);
    expect(fs.readFileSync(path.join(v.config, 'extra-providers.yaml'), 'utf8')).toBe(expected.extraProvidersText);
    const log = fs.readFileSync(path.join(v.config, 'merge-log.txt'), 'utf8');
    expect(log).toContain("External provider 'trustyai_fms' overrides base provider in API 'safety'");
    expect(result.stdout).toBe(log);
    // Written by the image's user, not root.
    expect(fs.statSync(path.join(v.config, 'config.yaml')).uid).toBe(1000);
  });

  test('a provider placed under the wrong API: exit 1, the seed\'s message, nothing written', () => {
    const v = podVolumes();
    writeMetadataDir(path.join(v.externalProviders, 'metadata'), [provider('guard', { placedApi: 'safety', image: 'quay.io/acme/guard:1' })]);
    const result = runImage(v);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("ERROR: Provider API type mismatch\n\nProvider 'guard' (image: quay.io/acme/guard:1)\ndeclares api=inference");
    expect(fs.readdirSync(v.config)).toEqual([]);
  });

  test('writes the init scripts it carries into the scripts volume, as the pod\'s first init container runs it', () => {
    const scripts = tempDir('merge-image-scripts-');
    fs.chmodSync(scripts, 0o777);
    // As the pod names it: `kube-inference` found on the image's PATH.
    const result = runInImage([`${scripts}:/opt/llama-stack/scripts`], ['kube-inference', 'write-init-scripts', '--sha256', initScriptsDigest(), '--dir', '/opt/llama-stack/scripts']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(Object.fromEntries(fs.readdirSync(scripts).map((f) => [f, fs.readFileSync(path.join(scripts, f), 'utf8')]))).toEqual(initScripts());
    expect(fs.statSync(path.join(scripts, 'preflight.py')).uid).toBe(1000);
  });

  test('scripts of another version than the manifest\'s: exit 1 naming both digests and the fix, nothing written', () => {
    const scripts = tempDir('merge-image-scripts-');
    fs.chmodSync(scripts, 0o777);
    const other = 'ab'.repeat(32);
    const result = runInImage([`${scripts}:/opt/llama-stack/scripts`], [...config.Entrypoint, 'write-init-scripts', '--sha256', other]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`carries init scripts with SHA-256 ${initScriptsDigest()}, but the manifest was rendered for scripts with SHA-256 ${other}`);
    expect(result.stderr).toContain('Set the stack\'s mergeImage (the kube-inference.io/merge-image annotation for `render`) to the merge image built from the kube-inference-constructs version');
    expect(fs.readdirSync(scripts)).toEqual([]);
  });
});
