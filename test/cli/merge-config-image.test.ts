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
/** The code cache the image's build writes (containers/merge/warm-up/), read-only at run time. */
const COMPILE_CACHE = '/usr/local/lib/kube-inference/compile-cache';

interface ImageConfig {
  readonly User: string;
  readonly Env: string[];
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

  interface RunOptions {
    /** Environment variables added to the image's. */
    readonly env?: Record<string, string>;
    /** Binds the image's own code cache directory read-only over itself, as a read-only root file system has it. */
    readonly readOnlyCache?: boolean;
  }

  const imageEnv = () => config.Env;

  /** Runs `command` in a container of the image with the given `host:pod[:ro]` volumes. */
  function runInImage(volumes: string[], command: string[], options: RunOptions = {}) {
    const container = buildah(['from', '--quiet', tag]).stdout.trim();
    try {
      const mounts = [...volumes];
      if (options.readOnlyCache) mounts.push(`${path.join(buildah(['mount', container]).stdout.trim(), COMPILE_CACHE)}:${COMPILE_CACHE}:ro`);
      const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
      return buildah(['run', '--isolation', 'chroot', ...env, ...mounts.flatMap((v) => ['--volume', v]), container, '--', ...command]);
    } finally {
      if (options.readOnlyCache) buildah(['umount', container]);
      buildah(['rm', container]);
    }
  }

  /** Runs the image's entrypoint and default command with the pod's three volumes mounted. */
  function runImage(volumes: { externalProviders: string; baseConfig: string; config: string }, options: RunOptions = {}) {
    return runInImage([
      `${volumes.externalProviders}:/opt/llama-stack/external-providers:ro`,
      `${volumes.baseConfig}:/opt/llama-stack/base-config:ro`,
      `${volumes.config}:/opt/llama-stack/config`,
    // The pod's fixtures are llama-stack 0.7 configs (safety, eval): the release is named as the construct names it.
    ], [...config.Entrypoint, ...config.Cmd, '--server-version', '0.7'], options);
  }

  /** The files (name → content) of `dir`. */
  const filesOf = (dir: string) => Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f))]));

  /** What `fn` sees of the image's root file system, through a working container that is removed afterwards. */
  function inImageRoot<T>(fn: (root: string) => T): T {
    const container = buildah(['from', '--quiet', tag]).stdout.trim();
    try {
      return fn(buildah(['mount', container]).stdout.trim());
    } finally {
      buildah(['umount', container]);
      buildah(['rm', container]);
    }
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

  test('ships the code cache of both its commands, written at build by root, readable by all, and nothing of the warm-up', () => {
    inImageRoot((root) => {
      const cache = path.join(root, COMPILE_CACHE);
      const files = fs.readdirSync(cache).sort();
      expect(files).toEqual([expect.stringMatching(/^[0-9a-f]{32}-merge-config\.v8cache$/), expect.stringMatching(/^[0-9a-f]{32}-write-init-scripts\.v8cache$/)]);
      // The cache of the bundle the image carries: the same key (node version, architecture, bundle).
      expect(files[0].slice(0, 32)).toBe(files[1].slice(0, 32));
      for (const f of files) expect(fs.statSync(path.join(cache, f)).size).toBeGreaterThan(100_000);
      // eslint-disable-next-line no-bitwise -- permission bits
      const modes = [cache, ...files.map((f) => path.join(cache, f))].map((p) => [fs.statSync(p).uid, fs.statSync(p).mode & 0o777]);
      expect(modes).toEqual([[0, 0o755], [0, 0o644], [0, 0o644]]);
      // The launcher and the bundle beside the scripts; the warm-up's input and output are gone.
      const app = fs.readdirSync(path.join(root, '/usr/local/lib/kube-inference')).sort();
      expect(app).toEqual(['compile-cache', 'kube-inference', 'kube-inference.bundle.cjs', ...Object.keys(initScripts())].sort());
      expect(fs.readdirSync(path.join(root, 'tmp'))).toEqual([]);
    });
    expect(config.Entrypoint).toEqual(['/usr/local/lib/kube-inference/kube-inference']);
    expect(imageEnv()).toContain(`KUBE_INFERENCE_COMPILE_CACHE=${COMPILE_CACHE}`);
  });

  test('as uid 1000, with the cache directory read-only, merge-config uses the cache (accepted, not written) and writes what it writes without one', () => {
    const provider1 = provider('custom-vllm', { config: { url: 'http://vllm:8000' } });
    const runs = ['off', 'cached'].map((mode) => {
      const v = podVolumes();
      writeMetadataDir(path.join(v.externalProviders, 'metadata'), [provider1]);
      const result = runImage(v, mode === 'off'
        ? { env: { KUBE_INFERENCE_COMPILE_CACHE: 'off' } }
        : { env: { NODE_DEBUG: 'kube-inference' }, readOnlyCache: true });
      return { result, files: filesOf(v.config) };
    });
    const [off, cached] = runs;
    expect(off.result).toMatchObject({ status: 0, stderr: '' });
    expect(cached.result.status).toBe(0);
    // NODE_DEBUG=kube-inference: what the launcher did with the cache; nothing else on standard error.
    expect(cached.result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^KUBE-INFERENCE \\d+: code cache ${COMPILE_CACHE}/[0-9a-f]{32}-merge-config\\.v8cache: accepted$`)),
    ]);
    expect(cached.result.stdout).toBe(off.result.stdout);
    expect(Object.keys(cached.files)).toEqual(['config.yaml', 'extra-providers.yaml', 'merge-log.txt']);
    expect(cached.files).toEqual(off.files);
  });

  test('as uid 1000, write-init-scripts uses its own cache too, and a cache V8 rejects is not rewritten in the read-only directory, silently', () => {
    const run = (env: Record<string, string>) => {
      const scripts = tempDir('merge-image-scripts-');
      fs.chmodSync(scripts, 0o777);
      const result = runInImage([`${scripts}:/opt/llama-stack/scripts`], ['kube-inference', 'write-init-scripts', '--sha256', initScriptsDigest(), '--dir', '/opt/llama-stack/scripts'], { env, readOnlyCache: true });
      return { result, files: filesOf(scripts) };
    };
    const off = run({ KUBE_INFERENCE_COMPILE_CACHE: 'off' });
    const cached = run({ NODE_DEBUG: 'kube-inference' });
    expect(off.result).toMatchObject({ status: 0, stderr: '' });
    expect(cached.result.status).toBe(0);
    expect(cached.result.stderr).toMatch(new RegExp(`^KUBE-INFERENCE \\d+: code cache ${COMPILE_CACHE}/[0-9a-f]{32}-write-init-scripts\\.v8cache: accepted\n$`));
    expect([cached.result.stdout, cached.files]).toEqual([off.result.stdout, off.files]);
    // Other V8 flags than the build's (a pod's NODE_OPTIONS): V8 rejects the cache; the write the launcher then tries fails on the
    // read-only directory without a word (debug output aside), and the run is the same.
    const otherFlags = run({ NODE_DEBUG: 'kube-inference', NODE_OPTIONS: '--max-old-space-size=256' });
    expect(otherFlags.result.stderr).toMatch(/write-init-scripts\.v8cache: rejected\n.*write-init-scripts\.v8cache: not written: /s);
    expect([otherFlags.result.status, otherFlags.result.stdout, otherFlags.files]).toEqual([0, off.result.stdout, off.files]);
    const silent = run({ NODE_OPTIONS: '--max-old-space-size=256' });
    expect([silent.result.status, silent.result.stderr, silent.result.stdout]).toEqual([0, '', off.result.stdout]);
  });

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
