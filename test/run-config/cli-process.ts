import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.join(__dirname, '..', '..');

/**
 * Bundles the CLI exactly as the merge image does (scripts/merge-image/bundle.sh) into `dir`, and
 * returns the bundle's path.
 */
export function bundleCli(dir: string): string {
  const result = spawnSync('bash', [path.join(REPO, 'scripts', 'merge-image', 'bundle.sh'), dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`bundling failed: ${result.stderr}`);
  return path.join(dir, 'kube-inference.cjs');
}

/** How a run of the bundled CLI ended. */
export interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Peak resident memory of the process, in KiB. */
  readonly maxRssKb: number;
  /** Wall time, in milliseconds. */
  readonly wallMs: number;
}

/**
 * Runs a script under node in a child process with a capped heap, recording its peak memory (a
 * preload writes `process.resourceUsage().maxRSS` at exit).
 */
export function runNode(script: string, args: readonly string[], options: { maxOldSpaceMb?: number; workDir: string }): ProcessResult {
  const preload = path.join(options.workDir, 'peak-rss.cjs');
  const rssFile = path.join(options.workDir, `peak-rss-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  fs.writeFileSync(preload, "process.on('exit', () => require('fs').writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));\n");
  const nodeArgs = [...(options.maxOldSpaceMb ? [`--max-old-space-size=${options.maxOldSpaceMb}`] : []), '--require', preload, script, ...args];
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, nodeArgs, { encoding: 'utf8', env: { ...process.env, PEAK_RSS_FILE: rssFile }, maxBuffer: 64 * 1024 * 1024 });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const maxRssKb = fs.existsSync(rssFile) ? Number(fs.readFileSync(rssFile, 'utf8')) : NaN;
  fs.rmSync(rssFile, { force: true });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr, maxRssKb, wallMs };
}
