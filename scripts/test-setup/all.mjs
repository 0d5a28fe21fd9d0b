#!/usr/bin/env node
// Sets up every cached test environment before jest (`npm test` runs it as test:setup), in two lanes
// at once: the Python environments (llama-stack-envs.mjs: mostly downloads and unpacking) beside the
// Go builds (upstream-admission.mjs, kubernetes.mjs, pulumi-cli.mjs, one after another: each keeps
// both cores busy). Cold, the lanes overlap instead of adding up; warm, each step only reads its
// `ready` marker. Each script's own output goes through unchanged (whole lines); the run fails when a
// step fails, after both lanes ended.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const LANES = [
  ['llama-stack-envs.mjs'],
  ['upstream-admission.mjs', 'kubernetes.mjs', 'pulumi-cli.mjs'],
];

/** Runs the scripts of a lane one after another; resolves to the first failure, or undefined. */
async function lane(scripts) {
  for (const script of scripts) {
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, [path.join(here, script)], { stdio: 'inherit' });
      child.on('error', (e) => resolve(`cannot start: ${e.message}`));
      child.on('exit', (status, signal) => resolve(signal ?? status));
    });
    if (code !== 0) return `${script} ended with ${code}`;
  }
  return undefined;
}

const started = Date.now();
const failures = (await Promise.all(LANES.map(lane))).filter((f) => f !== undefined);
process.stdout.write(`test set-up: ${failures.length === 0 ? 'done' : 'failed'} in ${Math.round((Date.now() - started) / 1000)} s\n`);
if (failures.length > 0) {
  process.stderr.write(`test set-up failed: ${failures.join('; ')}\n`);
  process.exit(1);
}
