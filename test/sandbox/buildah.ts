/**
 * Real container images for the sandboxed pods: built with buildah (`--isolation chroot`, which works
 * without a container runtime), then their root file system copied out so that bubblewrap can run it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ContainerImage } from './pod-runner';

/** Whether buildah works here, and why not when it does not. */
export function buildahSupport(): { ok: boolean; reason?: string } {
  const r = spawnSync('buildah', ['images', '--quiet'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error) return { ok: false, reason: `buildah is not installed (${r.error.message}); apt-get install buildah` };
  if (r.status !== 0) return { ok: false, reason: `buildah does not work here: ${r.stderr.trim()}` };
  return { ok: true };
}

function buildah(args: string[], timeoutMs = 300_000): string {
  const r = spawnSync('buildah', args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) {
    throw new Error(`buildah ${args.join(' ')} failed (exit ${r.status}): ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
  }
  return r.stdout;
}

/** Builds `containerfile` in `context` and tags it `tag`, with `labels` (`key=value`). */
export function buildImage(
  context: string, containerfile: string, tag: string, buildArgs: Record<string, string> = {}, labels: readonly string[] = [],
): void {
  const args = ['build', '--isolation', 'chroot', '--quiet', '-f', containerfile, '-t', tag];
  for (const [k, v] of Object.entries(buildArgs)) args.push('--build-arg', `${k}=${v}`);
  for (const label of labels) args.push('--label', label);
  buildah([...args, context]);
}

/** The OCI config of an image (Env, Entrypoint, Cmd, WorkingDir, User). */
export function imageConfig(image: string): { Env?: string[]; Entrypoint?: string[]; Cmd?: string[]; WorkingDir?: string; User?: string } {
  return JSON.parse(buildah(['inspect', '--type', 'image', image])).OCIv1?.config ?? {};
}

/**
 * Copies the root file system of `image` to `dest` (through a working container that is removed
 * afterwards) and returns it as a sandbox image with the image's own config.
 *
 * @param mode `rootfs` for a complete image (it sees nothing of the host), `overlay` for an image built
 *   on an empty base whose tree is laid over the host's root (the host provides the interpreter)
 */
export function extractImage(image: string, dest: string, mode: 'rootfs' | 'overlay'): ContainerImage {
  const container = buildah(['from', '--quiet', '--pull=never', image]).trim();
  try {
    const mount = buildah(['mount', container]).trim();
    fs.mkdirSync(dest, { recursive: true });
    const cp = spawnSync('cp', ['-a', `${mount}/.`, dest], { encoding: 'utf8' });
    if (cp.status !== 0) throw new Error(`copying the root file system of ${image} failed: ${cp.stderr}`);
  } finally {
    spawnSync('buildah', ['umount', container]);
    spawnSync('buildah', ['rm', container]);
  }
  const config = imageConfig(image);
  const env = Object.fromEntries((config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  return {
    dir: dest,
    mode,
    env,
    entrypoint: config.Entrypoint ?? undefined,
    cmd: config.Cmd ?? undefined,
    workingDir: config.WorkingDir || undefined,
  };
}

/** Removes an image (ignoring errors: it may be in use by a parallel run or already gone). */
export function removeImage(image: string): void {
  spawnSync('buildah', ['rmi', '--force', image], { encoding: 'utf8' });
}

/** Whether `dir` looks like a root file system (has /bin/sh or /usr/bin). */
export function looksLikeRootfs(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'bin', 'sh')) || fs.existsSync(path.join(dir, 'usr', 'bin'));
}
