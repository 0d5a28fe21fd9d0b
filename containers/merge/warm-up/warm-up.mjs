// Writes the merge image's code cache at image build (containers/merge/Containerfile runs it, as root,
// from a bind mount of the build context, so that nothing of it stays in the image): runs each command
// of the image once, as its containers run it (the entrypoint, the image's node, no flags), over the
// small input beside this file, with KUBE_INFERENCE_COMPILE_CACHE naming the image's cache directory.
// The launcher (src/cli/launcher.ts) writes each command's cache at the end of its run; this then makes
// the directory readable by every user and writable by root alone, which is what the launcher trusts.
// Fails the build when a command fails or leaves no cache.
//
// Usage: node warm-up.mjs [CLI_DIR]   (default /usr/local/lib/kube-inference)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

// The directory of the CLI: the image's, or another (bench/merge-config/bench.mjs warms a copy up the same way).
const APP = process.argv[2] ?? '/usr/local/lib/kube-inference';
// The launcher: `kube-inference` in the image, kube-inference.cjs as scripts/merge-image/bundle.sh writes it.
const CLI = ['kube-inference', 'kube-inference.cjs'].map((f) => path.join(APP, f)).find((f) => fs.existsSync(f));
const here = path.dirname(fileURLToPath(import.meta.url));
const cache = process.env.KUBE_INFERENCE_COMPILE_CACHE;
if (!cache || cache === 'off' || !path.isAbsolute(cache)) throw new Error(`warm-up: KUBE_INFERENCE_COMPILE_CACHE must name the image's cache directory, not '${cache ?? ''}'`);

// The digest write-init-scripts checks, computed as src/llama-stack/scripts/index.ts does (file, NUL, text, NUL,
// in name order) over the scripts beside the CLI: a digest that differs makes the command fail, and so the build.
const scripts = fs.readdirSync(APP).filter((f) => /\.(sh|py)$/.test(f)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const digest = scripts.reduce((h, f) => h.update(`${f}\0${fs.readFileSync(path.join(APP, f), 'utf8')}\0`), createHash('sha256')).digest('hex');

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-inference-warm-up-'));
try {
  for (const args of [
    ['merge-config', '--metadata-dir', path.join(here, 'metadata'), '--base-config', path.join(here, 'base-config.yaml'),
      '--output-dir', path.join(out, 'config'), '--server-version', '0.7'],
    ['write-init-scripts', '--sha256', digest, '--dir', path.join(out, 'scripts')],
  ]) {
    const r = spawnSync(CLI, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`warm-up: kube-inference ${args[0]} failed (exit ${r.status}): ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
  }
} finally {
  fs.rmSync(out, { recursive: true, force: true });
}

// Node 20 (the launcher's own cache): one file per command; Node 22.1+ (Node's compile cache): its own layout.
const files = fs.readdirSync(cache, { recursive: true });
const perCommand = ['merge-config', 'write-init-scripts'].filter((c) => !files.some((f) => String(f).endsWith(`-${c}.v8cache`)));
if (files.length === 0 || (typeof (await import('node:module')).default.enableCompileCache !== 'function' && perCommand.length > 0)) {
  throw new Error(`warm-up: no code cache written in ${cache} (for ${perCommand.join(', ') || 'any command'})`);
}
(function readOnly(p) {
  const dir = fs.statSync(p).isDirectory();
  fs.chmodSync(p, dir ? 0o755 : 0o644);
  if (dir) for (const f of fs.readdirSync(p)) readOnly(path.join(p, f));
})(cache);
