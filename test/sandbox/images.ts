/**
 * Image trees for the sandboxed pods: provider images, a stand-in distribution image, and the merge
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

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
const STAND_IN_LLAMA = path.join(__dirname, 'images', 'llama');

/** PATH of a "python base image": the host Python first, then the usual system directories. */
export function pythonPath(...first: string[]): string {
  return [...first, hostPython().binDir, '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':');
}

/** Environment of a python base image (as `python:3.x-slim` sets it). */
export function pythonImageEnv(...pathFirst: string[]): Record<string, string> {
  return { PATH: pythonPath(...pathFirst), LANG: 'C.UTF-8' };
}

/** What goes into a provider image. */
export interface ProviderImageContent {
  /** Text of `/lls-provider/lls-provider-spec.yaml`; omit to build an image without it. */
  readonly metadata?: string;
  /** Wheel files copied into `/lls-provider/packages/`. */
  readonly wheels?: readonly string[];
  /** Leave out the `/lls-provider/packages/` directory altogether. */
  readonly noPackagesDir?: boolean;
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
  return { dir, env: pythonImageEnv() };
}

/** What goes into the stand-in distribution image. */
export interface DistributionImageContent {
  /** Built-in config files: absolute path in the image → text (e.g. `/opt/app-root/config.yaml`). */
  readonly configs?: Readonly<Record<string, string>>;
}

/**
 * Lays out a stand-in Llama Stack distribution image in `dir`: the host Python plays the image's
 * Python, `/opt/app-root/bin/llama` is the stand-in for the llama CLI (test/sandbox/images/llama:
 * loads the config and really imports and instantiates every external provider), plus the
 * distribution's built-in config files.
 */
export function distributionImage(dir: string, content: DistributionImageContent = {}): ContainerImage {
  const bin = path.join(dir, 'opt', 'app-root', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.copyFileSync(STAND_IN_LLAMA, path.join(bin, 'llama'));
  fs.chmodSync(path.join(bin, 'llama'), 0o755);
  for (const [file, text] of Object.entries(content.configs ?? {})) {
    const target = path.join(dir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
  return { dir, env: pythonImageEnv('/opt/app-root/bin'), workingDir: '/opt/app-root' };
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

/** The host-CLI stand-in for the merge image: a bundle of src/cli/main.ts and a `kube-inference` wrapper on PATH. */
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
  const dir = path.join(os.tmpdir(), `kic-merge-cli-${createHash('sha256').update(bundle).digest('hex').slice(0, 16)}`);
  const app = path.join(dir, 'opt', 'kube-inference');
  if (!fs.existsSync(path.join(app, 'bin', 'kube-inference'))) {
    fs.mkdirSync(path.join(app, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(app, 'cli.js'), bundle);
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
      hash.update(fs.readFileSync(path.join(work, 'kube-inference.cjs')));
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
