/**
 * Images for the single-node cluster, built with buildah on this machine as their projects build them,
 * under the names the manifests use (no registry is reachable; `KubeCluster.loadImage` puts them in the
 * node's containerd):
 * - a Debian bookworm base (`debootstrap --variant=minbase` from Debian's mirror, as the official `debian`
 *   images are made) with the libraries `python:3.12-slim` adds, cached in the test cache;
 * - a Python base on it: the test set-up's Python 3.12 (the interpreter the test environments' venvs were
 *   made with) at its own path, with `python3`, `python` and `pip` in /usr/local/bin, as `python:3.12-slim`;
 * - the server's distribution image: the real server's virtual environment from the test set-up at its
 *   own path, laid out as upstream's containers/Containerfile lays out `ogxai/distribution-<name>`
 *   (test/sandbox/images.ts distributionImage). The environment's torch layer is left out (4.5 GB with its
 *   CUDA libraries): only the starter distribution's inline sentence-transformers provider imports it, so
 *   the stories here give the server a config without it;
 * - the sample provider's image, from its own Containerfile on that Python base; real providers' images
 *   from PyPI, their wheels and metadata on it (`realProviderImage`);
 * - the merge image, by this repository's scripts/merge-image/build.sh;
 * - a CPU Ray image, laid out as upstream's `rayproject/ray:<version>-py312-cpu` (`rayImage`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { KubeCluster } from './cluster';
import { run } from './node-host';
import { defaultMergeImage } from '../../src/run-config/merge-image';
import { findRelease } from '../../src/run-config/releases';
import { RealProvider, realProviderMetadata, realProviderWheels } from '../pod-startup/helpers';
import { prepareSampleProviderContext } from '../pod-startup/sample-provider-image';
import { buildImage } from '../sandbox/buildah';
import { SandboxSupport } from '../sandbox/host';
import { distributionImage, ImagePython, providerImage, REPO_ROOT, venvBasePython } from '../sandbox/images';
import { LlamaStackEnv, testEnvsCacheDir, ToolEnv } from '../sandbox/test-envs';
import { SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
const SUITE = 'bookworm';
/** Debian's default PATH, which the `debian` images set. */
const DEBIAN_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/**
 * What `python:3.12-slim` adds to Debian for its Python: certificates, netbase, tzdata and the
 * libraries its interpreter and extension modules link (docker-library/python's Dockerfile keeps those
 * it finds with ldd); here the ones the test set-up's Python links, checked by `pythonImage`.
 */
const PYTHON_RUNTIME_PACKAGES = [
  'ca-certificates', 'netbase', 'tzdata', 'libssl3', 'libsqlite3-0', 'libffi8', 'libbz2-1.0', 'liblzma5', 'libreadline8', 'libncursesw6',
  'libtinfo6', 'libuuid1', 'zlib1g', 'libexpat1', 'libgssapi-krb5-2', 'libnsl2', 'libtirpc3', 'libcrypt1', 'libbsd0', 'libmd0',
];

/** For `describeWhen`: whether the images can be built here (buildah is checked by `clusterSupport`). */
export function clusterImagesSupport(): SandboxSupport {
  return spawnSync('debootstrap', ['--version'], { stdio: 'ignore' }).error
    ? { ok: false, reason: 'debootstrap is not installed (the Debian base of the images): apt-get install debootstrap' } : { ok: true };
}

/** The label that records the hash of what an image was built from. */
const INPUTS_LABEL = 'io.kube-inference-tests.inputs';

/**
 * Builds `image` with `build`, then removes the image that had the name before, now nameless: the images
 * would otherwise pile up in buildah's storage, run after run.
 */
function replaced(image: string, build: () => void): string {
  const before = imageId(image);
  build();
  const after = imageId(image);
  // Left alone when still in use (a working container of another build).
  if (before !== '' && before !== after) spawnSync('buildah', ['rmi', before], { stdio: 'ignore' });
  return image;
}

/**
 * Builds `image` with `build` (`replaced`) unless buildah has it built from the same `inputs`, whose hash
 * `build` records in the image with the label it is given: these images take up to a minute and a half
 * each to build, from inputs that seldom change (a test environment, wheels, a Containerfile). This
 * file's own text is one of the inputs, so a change of how an image is built builds it again.
 */
function rebuilt(image: string, inputs: ReadonlyArray<string | Buffer>, build: (label: string) => void): string {
  const digest = createHash('sha256');
  for (const input of [fs.readFileSync(__filename), ...inputs]) digest.update(`${input.length}:`).update(input);
  const inputsHash = digest.digest('hex');
  const inspected = spawnSync('buildah', ['inspect', '--type', 'image', image], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (inspected.status === 0 && JSON.parse(inspected.stdout).OCIv1?.config?.Labels?.[INPUTS_LABEL] === inputsHash) return image;
  return replaced(image, () => build(`${INPUTS_LABEL}=${inputsHash}`));
}

/** What `rebuilt` hashes of a file tree: each entry's path, mode and content (a link's target). */
function treeInputs(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort().map((entry) => {
    const file = path.join(dir, entry);
    const stat = fs.lstatSync(file);
    const content = stat.isSymbolicLink() ? `-> ${fs.readlinkSync(file)}`
      : stat.isFile() ? createHash('sha256').update(fs.readFileSync(file)).digest('hex') : '';
    return `${entry} ${stat.mode.toString(8)} ${content}`;
  });
}

/** What `rebuilt` knows of a test environment: its directory (named after its lock) and when it was installed. */
function envInputs(env: { readonly dir: string; readonly lock: string }): string[] {
  return [env.dir, String(fs.statSync(env.lock).mtimeMs)];
}

/** The id of the image buildah has under the name `image`, empty when it has none. */
function imageId(image: string): string {
  return spawnSync('buildah', ['images', '--quiet', '--no-trunc', image], { encoding: 'utf8' }).stdout.trim();
}

/** Whether buildah has `image` already. */
function built(image: string): boolean {
  return spawnSync('buildah', ['inspect', '--type', 'image', image], { stdio: 'ignore' }).status === 0;
}

/**
 * Commits an image `from` a base after `build(container, root)` ran with the working container's root
 * file system mounted at `root` (files copied there as root keep their owners and modes), with `label`;
 * the container is removed whatever happens.
 */
function commitImage(image: string, from: string, build: (container: string, root: string) => void, label?: string): string {
  const container = run('buildah', ['from', '--quiet', '--pull=never', from]).trim();
  try {
    build(container, run('buildah', ['mount', container]).trim());
    spawnSync('buildah', ['umount', container], { stdio: 'ignore' });
    if (label) run('buildah', ['config', '--label', label, container]);
    run('buildah', ['commit', '--quiet', container, image]);
  } finally {
    spawnSync('buildah', ['rm', container], { stdio: 'ignore' });
  }
  return image;
}

/** Copies `source` (a file or directory) to `target` under `root`, keeping owners, modes and links. */
function copyInto(root: string, source: string, target: string): void {
  const dest = path.join(root, target);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  run('cp', ['-a', '--no-target-directory', source, dest]);
}

/** Makes every directory from `dir` up to the root enterable by every user (the pods run as non-root users). */
function openPath(root: string, dir: string): void {
  for (let d = dir; d !== '/'; d = path.dirname(d)) run('chmod', ['o+rx', path.join(root, d)]);
}

/**
 * The Debian base image with Python's runtime libraries and the `extra` packages, from a root file system
 * debootstrap made once (cached under the test cache).
 */
export function debianImage(extra: readonly string[] = []): string {
  const packages = [...PYTHON_RUNTIME_PACKAGES, ...extra];
  const image = `localhost/kube-inference-tests/debian:${SUITE}-python-runtime-${hash(packages.join(','))}`;
  if (built(image)) return image;
  const rootfs = path.join(testEnvsCacheDir(), 'cluster-images', `debian-${SUITE}-python-runtime-${hash(packages.join(','))}`);
  if (!fs.existsSync(path.join(rootfs, 'ready'))) {
    const staging = `${rootfs}.staging-${process.pid}`;
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(rootfs), { recursive: true });
    run('debootstrap', ['--variant=minbase', `--include=${packages.join(',')}`, SUITE, staging, DEBIAN_MIRROR]);
    // apt's downloaded packages are not part of an image.
    fs.rmSync(path.join(staging, 'var', 'cache', 'apt', 'archives'), { recursive: true, force: true });
    fs.writeFileSync(path.join(staging, 'ready'), '');
    fs.rmSync(rootfs, { recursive: true, force: true });
    fs.renameSync(staging, rootfs);
  }
  return commitImage(image, 'scratch', (c, root) => {
    for (const entry of fs.readdirSync(rootfs).filter((e) => e !== 'ready')) copyInto(root, path.join(rootfs, entry), `/${entry}`);
    run('buildah', ['config', '--env', `PATH=${DEBIAN_PATH}`, '--cmd', '["bash"]', c]);
  });
}

/**
 * The Python base image: `python` (an installation prefix) on the Debian base (with its `extra` packages),
 * as `python:<version>-slim`.
 */
export function pythonImage(python: ImagePython, extra: readonly string[] = []): string {
  const version = spawnSync(path.join(python.binDir, 'python3'), ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8' }).stdout.trim();
  const image = `localhost/kube-inference-tests/python:${version}-slim-${hash([python.prefix, ...extra].join(','))}`;
  if (built(image)) return image;
  return commitImage(image, debianImage(extra), (c, root) => {
    copyInto(root, python.prefix, python.prefix);
    openPath(root, python.prefix);
    for (const [name, target] of [['python3', 'python3'], ['python', 'python3'], ['pip', 'pip3'], ['pip3', 'pip3']]) {
      fs.symlinkSync(path.join(python.binDir, target), path.join(root, 'usr', 'local', 'bin', name));
    }
    // Every library the interpreter and its standard extension modules link is in the image (Tk aside,
    // which no server imports), or the image is refused here rather than a module failing in a pod.
    const missing = run('chroot', [root, '/bin/sh', '-c', 'for f in "$1"/bin/python3.* "$1"/lib/python3.*/lib-dynload/*.so; do '
      + 'case "$f" in *_tkinter*) continue ;; esac; ldd "$f" | sed -n "s|^\\s*\\(\\S*\\) => not found|$f: \\1|p"; done', 'sh', python.prefix]).trim();
    if (missing) throw new Error(`the Python base image lacks libraries (add their packages to PYTHON_RUNTIME_PACKAGES):\n${missing}`);
    run('buildah', ['config', '--env', 'LANG=C.UTF-8', '--cmd', '["python3"]', c]);
  });
}

/**
 * The distribution image of a server environment, named `image`: the environment's directory (its venv
 * and what the server reads besides, e.g. the tiktoken cache) at its own path on the Python base of its
 * venv, and upstream's layout, environment, entrypoint and working directory.
 */
export function distributionServerImage(image: string, install: LlamaStackEnv): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-cluster-distribution-'));
  try {
    const layout = distributionImage(work, install);
    const base = pythonImage(venvBasePython(install.venv));
    const config = ['--workingdir', layout.workingDir ?? '/', '--entrypoint', JSON.stringify(layout.entrypoint), '--cmd', '[]'];
    for (const [k, v] of Object.entries(layout.env ?? {})) config.push('--env', `${k}=${v}`);
    return rebuilt(image, [imageId(base), ...envInputs(install), ...treeInputs(work), ...config], (label) => commitImage(image, base, (c, root) => {
      for (const entry of fs.readdirSync(work)) copyInto(root, path.join(work, entry), `/${entry}`);
      copyInto(root, install.dir, install.dir);
      openPath(root, install.dir);
      run('buildah', ['config', ...config, c]);
    }, label));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The sample provider's image, named `image`, built from its Containerfile on the Python base `python`. */
export function sampleProviderImage(image: string, python: ImagePython): string {
  const base = pythonImage(python);
  return rebuilt(image, [imageId(base), ...treeInputs(SAMPLE_PROVIDER_DIR)], (label) => {
    const context = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-cluster-sample-provider-'));
    try {
      prepareSampleProviderContext(context);
      buildImage(context, path.join(context, 'Containerfile'), image, { PYTHON_IMAGE: base }, [label]);
    } finally {
      fs.rmSync(context, { recursive: true, force: true });
    }
  });
}

/**
 * The image of a real provider from PyPI, named `image`: its wheels (the closure of the test set-up's
 * lock, as the image's build would download them) and its metadata under /lls-provider/, as the sandbox
 * lays a provider image out (test/sandbox/images.ts `providerImage`), on the Python base.
 */
export function realProviderImage(image: string, provider: RealProvider, python: ImagePython): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-cluster-real-provider-'));
  try {
    const wheels = realProviderWheels(provider.name);
    providerImage(work, { metadata: realProviderMetadata(provider), wheels: wheels.wheels.map((w) => path.join(wheels.wheelDir, w)) });
    const base = pythonImage(python);
    return rebuilt(image, [imageId(base), ...treeInputs(work)], (label) => commitImage(image, base, (_, root) => copyInto(root, path.join(work, 'lls-provider'), '/lls-provider'), label));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The merge image, built from this repository by its own script, named `image` (on every run: its input is the library). */
export function mergeImageNamed(image: string): string {
  return replaced(image, () => run(path.join(REPO_ROOT, 'scripts', 'merge-image', 'build.sh'), ['--tag', image]));
}

/** The CPU Ray image of Ray's release `version` as upstream names it (Python 3.12, no CUDA). */
export function rayCpuImageName(version: string): string {
  return `rayproject/ray:${version}-py312-cpu`;
}

/**
 * A CPU Ray image of the test set-up's `ray-serve` environment (`ray[serve]` from PyPI, no vLLM), named
 * `image`, laid out as upstream lays out `rayproject/ray` (ray-project/ray docker/base-deps/Dockerfile):
 * the user `ray` (uid 1000, gid 100) with its home as working directory, and `wget`, which KubeRay's exec
 * probes run (ray-operator/controllers/ray/utils/constant.go BaseWgetHealthCommand). Ray's environment
 * is first on the image's PATH, as upstream's conda is; KubeRay starts Ray in a login shell (`bash -lc`),
 * whose PATH upstream's Ubuntu keeps and Debian's /etc/profile resets, so /etc/profile.d puts it first
 * again there.
 */
export function rayImage(image: string, ray: ToolEnv): string {
  const base = pythonImage(venvBasePython(ray.venv), ['wget']);
  return rebuilt(image, [imageId(base), ...envInputs(ray)], (label) => commitImage(image, base, (c, root) => {
    copyInto(root, ray.dir, ray.dir);
    openPath(root, ray.dir);
    const pathWithRay = `${path.join(ray.venv, 'bin')}:${DEBIAN_PATH}`;
    fs.writeFileSync(path.join(root, 'etc', 'profile.d', 'ray.sh'), `export PATH="${path.join(ray.venv, 'bin')}:$PATH"\n`);
    run('chroot', [root, 'useradd', '-ms', '/bin/bash', '-d', '/home/ray', 'ray', '--uid', '1000', '--gid', '100']);
    run('buildah', ['config', '--user', '1000', '--env', 'HOME=/home/ray', '--workingdir', '/home/ray', '--env', 'LC_ALL=C.UTF-8', '--env', `PATH=${pathWithRay}`, '--cmd', '["bash"]', c]);
  }, label));
}

/** The sample provider's image as the providers' docs name it (examples/sample-provider). */
export const SAMPLE_PROVIDER_IMAGE = 'quay.io/acme/acme-echo-provider:0.1.0';

/**
 * The distribution image of a server release built here, named as upstream names its starter image
 * (`ogxai/distribution-starter`, `llamastack/distribution-starter`): its tag names the release.
 */
export function distributionImageOf(version: string): string {
  const project = findRelease(version)?.project === 'llama-stack' ? 'llamastack' : 'ogx';
  return `localhost/kube-inference-tests/${project}-distribution-starter:${version}`;
}

/**
 * Builds the images servers with the sample provider run in and loads them into the cluster's node: the
 * distribution image of each server's environment (named by `distributionImageOf`), the sample
 * provider's image (on the first one's Python) and the merge image under the library's default name.
 */
export function loadServerImages(cluster: KubeCluster, servers: ReadonlyArray<{ install: LlamaStackEnv; version: string }>): void {
  for (const image of [
    ...servers.map((s) => distributionServerImage(distributionImageOf(s.version), s.install)),
    sampleProviderImage(SAMPLE_PROVIDER_IMAGE, venvBasePython(servers[0].install.venv)),
    mergeImageNamed(defaultMergeImage()),
  ]) cluster.loadImage(image);
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}
