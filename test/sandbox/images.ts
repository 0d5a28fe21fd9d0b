/**
 * Image trees for the sandboxed pods: provider images, a Llama Stack / OGX distribution image holding
 * the real server from PyPI, and the merge
 * image (the real one built with buildah when possible, otherwise the CLI bundled from source on the
 * host's node).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildahSupport, extractImage, removeImage } from './buildah';
import { hostPython } from './host';
import { ContainerImage } from './pod-runner';
import { LlamaStackEnv } from './test-envs';
import { initScripts, initScriptsDigest } from '../../src/llama-stack/scripts';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/**
 * How upstream lays out the distribution image of each server project: llama-stack's
 * containers/Containerfile (`llamastack/distribution-<name>`, ≤ 0.7) and ogx-ai/ogx's
 * containers/Containerfile (`ogxai/distribution-<name>`, ≥ 0.8): the entrypoint script it writes
 * (here `images/<file>`, installed at `/usr/local/bin/<file>`), the state directory it creates at the
 * root (`/.llama`, `/.ogx`) and the ENV beyond DISTRO_NAME and RUN_CONFIG_PATH.
 */
const UPSTREAM_LAYOUT: Record<LlamaStackEnv['package'], { entrypoint: string; stateDir: string; env: Record<string, string> }> = {
  'llama-stack': { entrypoint: 'llama-stack-entrypoint.sh', stateDir: '.llama', env: {} },
  'ogx': { entrypoint: 'ogx-entrypoint.sh', stateDir: '.ogx', env: { PACKAGE_NAME: 'ogx', CLI_NAME: 'ogx' } },
};

/** PATH of a "python base image": its Python first (the host's by default), then the usual system directories. */
export function pythonPath(pythonBinDir = hostPython().binDir): string {
  return [pythonBinDir, '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':');
}

/** Environment of a python base image (as `python:3.x-slim` sets it). */
export function pythonImageEnv(pythonBinDir?: string): Record<string, string> {
  return { PATH: pythonPath(pythonBinDir), LANG: 'C.UTF-8' };
}

/** What goes into a provider image. */
export interface ProviderImageContent {
  /** Text of `/lls-provider/lls-provider-spec.yaml`; omit to build an image without it. */
  readonly metadata?: string;
  /** Wheel files copied into `/lls-provider/packages/`. */
  readonly wheels?: readonly string[];
  /** Leave out the `/lls-provider/packages/` directory altogether. */
  readonly noPackagesDir?: boolean;
  /** The image's Python. @default - the host's python3 */
  readonly python?: ImagePython;
}

/** Lays out a provider image (seed 001 "Paths in Provider Image") in `dir`. */
export function providerImage(dir: string, content: ProviderImageContent): ContainerImage {
  const root = path.join(dir, 'lls-provider');
  fs.mkdirSync(root, { recursive: true });
  if (content.metadata !== undefined) {
    fs.writeFileSync(path.join(root, 'lls-provider-spec.yaml'), content.metadata);
  }
  if (!content.noPackagesDir) {
    fs.mkdirSync(path.join(root, 'packages'), { recursive: true });
    for (const w of content.wheels ?? []) {
      fs.copyFileSync(w, path.join(root, 'packages', path.basename(w)));
    }
  }
  const py = content.python;
  return { dir, env: pythonImageEnv(py?.binDir), binds: py ? [{ source: py.prefix, target: py.prefix }] : undefined };
}

/** A Python installation an image runs (its interpreter's prefix must be visible in the sandbox). */
export interface ImagePython {
  /** Installation prefix (`sys.base_prefix`), bound read-only at the same path. */
  readonly prefix: string;
  /** Directory of `python3` and `pip`, first on the image's PATH. */
  readonly binDir: string;
}

/** What goes into a distribution image besides llama-stack itself. */
export interface DistributionImageContent {
  /** The distribution the image is built for (`DISTRO_NAME`; its config ships in the package). @default 'starter' */
  readonly distroName?: string;
  /** The image's `RUN_CONFIG_PATH` (upstream images leave it empty). */
  readonly runConfigPath?: string;
  /** Extra files: absolute path in the image → text (e.g. `/opt/app-root/config.yaml` of the OpenDataHub image). */
  readonly configs?: Readonly<Record<string, string>>;
}

/** The base interpreter of a virtual environment, from its `pyvenv.cfg`. */
export function venvBasePython(venv: string): ImagePython {
  const cfg = fs.readFileSync(path.join(venv, 'pyvenv.cfg'), 'utf8');
  const home = /^home\s*=\s*(.+)$/m.exec(cfg)?.[1].trim();
  if (!home) throw new Error(`${venv}/pyvenv.cfg names no base interpreter (home = ...)`);
  return { binDir: home, prefix: path.dirname(home) };
}

/**
 * Lays out a distribution image in `dir` the way upstream lays out its images, by the environment's
 * project (`install.package`): llama-stack's containers/Containerfile (`llamastack/distribution-<name>`)
 * or ogx-ai/ogx's (`ogxai/distribution-<name>`). The server installed from PyPI in the image's Python
 * (here the set-up's virtual environment, its directory bound read-only at its own path, first on PATH — so
 * `python3`, `pip` and `llama` / `ogx` are the image's), working directory `/app`, `DISTRO_NAME` and an
 * empty `RUN_CONFIG_PATH` in the environment (OGX also `PACKAGE_NAME` and `CLI_NAME`), `/.llama` or
 * `/.ogx` and `/.cache`, the upstream entrypoint (`images/llama-stack-entrypoint.sh`,
 * `images/ogx-entrypoint.sh`), running as root unless the pod says otherwise. The config of the
 * distribution lives only inside the installed package, as upstream. The environment's shared layers
 * (torch and its CUDA libraries, which its site-packages names in a `.pth` file) are bound read-only at
 * their own paths too, so the image's Python has them where the host's has.
 */
export function distributionImage(dir: string, install: LlamaStackEnv, content: DistributionImageContent = {}): ContainerImage {
  const layout = UPSTREAM_LAYOUT[install.package ?? 'llama-stack'];
  if (!layout) throw new Error(`distributionImage: no upstream image layout for the server package "${install.package}"`);
  for (const d of ['app', layout.stateDir, '.cache', path.join('usr', 'local', 'bin')]) {
    fs.mkdirSync(path.join(dir, d), { recursive: true });
  }
  const entrypoint = path.join(dir, 'usr', 'local', 'bin', layout.entrypoint);
  fs.copyFileSync(path.join(__dirname, 'images', layout.entrypoint), entrypoint);
  fs.chmodSync(entrypoint, 0o755);
  for (const [file, text] of Object.entries(content.configs ?? {})) {
    const target = path.join(dir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
  const base = venvBasePython(install.venv);
  return {
    dir,
    env: {
      PATH: [path.join(install.venv, 'bin'), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':'),
      LANG: 'C.UTF-8',
      PYTHONDONTWRITEBYTECODE: '1',
      PIP_DISABLE_PIP_VERSION_CHECK: '1',
      DISTRO_NAME: content.distroName ?? 'starter',
      ...layout.env,
      RUN_CONFIG_PATH: content.runConfigPath ?? '',
      // What the upstream image bakes in besides the package (TIKTOKEN_CACHE_DIR: the pre-cached encoding).
      ...install.env,
    },
    entrypoint: [`/usr/local/bin/${layout.entrypoint}`],
    workingDir: '/app',
    binds: [
      { source: base.prefix, target: base.prefix },
      { source: install.dir, target: install.dir },
      ...(install.layers ?? []).map((l) => ({ source: l.dir, target: l.dir })),
    ],
  };
}

/** The merge image the pods run, and how it was obtained. */
export interface MergeImage {
  readonly image: ContainerImage;
  /** `buildah`: the real image built from containers/merge/; `host-cli`: the CLI bundled from source on the host's node. */
  readonly kind: 'buildah' | 'host-cli';
  /** Why the real image was not used, when it was not. */
  readonly fallbackReason?: string;
}

let cachedMerge: MergeImage | undefined;

/**
 * The merge container's image. Uses the image built from `containers/merge/` (rootfs extracted with
 * buildah) when `scripts/merge-image/` can build it here; otherwise, loudly, the `kube-inference`
 * CLI bundled from `src/cli/main.ts` with esbuild and run by the host's node. Set
 * `KIC_MERGE_IMAGE=host-cli` to force the fallback, `KIC_MERGE_IMAGE=buildah` to require the image.
 */
export function mergeImage(): MergeImage {
  if (cachedMerge) return cachedMerge;
  const wanted = process.env.KIC_MERGE_IMAGE;
  let reason: string | undefined;
  if (wanted !== 'host-cli') {
    const built = buildahMergeImage();
    if (typeof built !== 'string') {
      cachedMerge = { image: built, kind: 'buildah' };
      return cachedMerge;
    }
    reason = built;
    if (wanted === 'buildah') {
      throw new Error(`KIC_MERGE_IMAGE=buildah, but the merge image cannot be used: ${reason}`);
    }
  } else {
    reason = 'KIC_MERGE_IMAGE=host-cli';
  }
  // eslint-disable-next-line no-console
  console.warn(`WARNING: the merge container runs the kube-inference CLI bundled from source on the host's node, NOT the merge image: ${reason}`);
  cachedMerge = { image: hostCliMergeImage(), kind: 'host-cli', fallbackReason: reason };
  return cachedMerge;
}

/** The host-CLI stand-in for the merge image: a bundle of src/cli/main.ts, the init scripts beside it and a `kube-inference` wrapper on PATH. */
export function hostCliMergeImage(): ContainerImage {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const bundle = esbuild.buildSync({
    entryPoints: [path.join(REPO_ROOT, 'src', 'cli', 'main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'error',
  }).outputFiles[0].contents;
  // Cached by content, so test files share one tree and nothing piles up in the temporary directory.
  const key = createHash('sha256').update(bundle).update(initScriptsDigest()).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `kic-merge-cli-${key}`);
  const app = path.join(dir, 'opt', 'kube-inference');
  if (!fs.existsSync(path.join(app, 'bin', 'kube-inference'))) {
    fs.mkdirSync(path.join(app, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(app, 'cli.js'), bundle);
    // The init scripts beside the bundle, where it reads them, as in the image.
    for (const [file, text] of Object.entries(initScripts())) fs.writeFileSync(path.join(app, file), text);
    fs.writeFileSync(path.join(app, 'bin', 'kube-inference.tmp'), '#!/bin/sh\nexec node /opt/kube-inference/cli.js "$@"\n', { mode: 0o755 });
    fs.renameSync(path.join(app, 'bin', 'kube-inference.tmp'), path.join(app, 'bin', 'kube-inference'));
  }
  return { dir, env: { PATH: '/opt/kube-inference/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' } };
}

/**
 * The real merge image's root file system, or the reason it cannot be had. Builds the image with the
 * merge issue's own script (`scripts/merge-image/build.sh`: bundle the CLI, assemble a Node base
 * locally, `buildah build` containers/merge/Containerfile), copies its root file system out with
 * `buildah from` + `buildah mount`, and removes the image again. The copy is cached in the temporary
 * directory under a key made of the CLI bundle, the Containerfile, the build scripts and the node
 * version, so test files (and runs) share one build while nothing they depend on changed.
 */
function buildahMergeImage(): ContainerImage | string {
  const scriptDir = path.join(REPO_ROOT, 'scripts', 'merge-image');
  const containerfile = path.join(REPO_ROOT, 'containers', 'merge', 'Containerfile');
  if (!fs.existsSync(path.join(scriptDir, 'build.sh')) || !fs.existsSync(containerfile)) {
    return 'scripts/merge-image/build.sh or containers/merge/Containerfile does not exist';
  }
  const rootfs = process.env.KIC_MERGE_IMAGE_ROOTFS;
  if (rootfs) {
    return { ...rootfsImage(rootfs), mode: 'rootfs' };
  }
  const support = buildahSupport();
  if (!support.ok) {
    return support.reason!;
  }
  try {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-merge-bundle-'));
    let key: string;
    try {
      run(path.join(scriptDir, 'bundle.sh'), [work]);
      const hash = createHash('sha256');
      // The launcher, the bundle, the init scripts beside them and the warm-up's files: the build context.
      const files = (fs.readdirSync(work, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(work, f)).isFile()).sort();
      for (const f of files) hash.update(`${f}\0`).update(fs.readFileSync(path.join(work, f)));
      hash.update(fs.readFileSync(containerfile));
      for (const f of fs.readdirSync(scriptDir).sort()) hash.update(fs.readFileSync(path.join(scriptDir, f)));
      hash.update(process.version);
      key = hash.digest('hex').slice(0, 16);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
    const cache = path.join(os.tmpdir(), `kic-merge-image-${key}`);
    if (!fs.existsSync(path.join(cache, 'image.json'))) {
      const tag = `localhost/kube-inference/merge:kic-test-${key}-${process.pid}`;
      const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-merge-image-staging-'));
      try {
        run(path.join(scriptDir, 'build.sh'), ['--tag', tag]);
        const image = extractImage(tag, path.join(staging, 'rootfs'), 'rootfs');
        fs.writeFileSync(path.join(staging, 'image.json'), JSON.stringify({ ...image, dir: undefined }));
        try {
          fs.renameSync(staging, cache);
        } catch {
          // Another test process finished the same build first: use its copy.
        }
        removeStaleCaches(cache);
      } finally {
        removeImage(tag);
        fs.rmSync(staging, { recursive: true, force: true });
      }
    }
    const saved = JSON.parse(fs.readFileSync(path.join(cache, 'image.json'), 'utf8')) as ContainerImage;
    return { ...saved, dir: path.join(cache, 'rootfs'), mode: 'rootfs' };
  } catch (e) {
    return `building the merge image failed: ${(e as Error).message}`;
  }
}

/** Removes merge image copies of earlier sources (older than ten minutes, so a parallel run keeps its own). */
function removeStaleCaches(keep: string): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const dir = path.join(os.tmpdir(), name);
    if (/^kic-merge-image-[0-9a-f]{16}$/.test(name) && dir !== keep) {
      try {
        if (Date.now() - fs.statSync(dir).mtimeMs > 600_000) fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        // gone already
      }
    }
  }
}

function rootfsImage(rootfs: string): ContainerImage {
  return { dir: rootfs, mode: 'rootfs', env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' } };
}

/** Runs a command and returns its standard output; throws with its output on failure. */
export function run(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  try {
    return execFileSync(command, [...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  } catch (e: any) {
    throw new Error(`${command} ${args.join(' ')} failed: ${e.stderr ?? ''}${e.stdout ?? ''}${e.message}`);
  }
}
