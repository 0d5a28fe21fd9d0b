#!/usr/bin/env node
// Sets up every cached test environment before jest (`npm test` runs it as test:setup) with two workers,
// one per core of a CI machine. One installs the Python environments (llama-stack-envs.mjs: downloads,
// unpacking and byte-compiling, about 10 minutes cold), the other starts on the Go builds; once the
// Python environments are in, that worker takes the next Go build from the same queue. Cold, the Go
// builds are the long part (about 45 minutes one after another on 2 cores): two at once fill the time
// one of them spends on what uses a single core (module downloads, `go list`, the link of a large
// binary). Go's build and module caches are safe for concurrent `go` commands (they lock what they
// write). The queue holds the longest first; the Pulumi provider is a step of its own, so that the other
// worker need not wait for it idle. Warm, each step only reads its `ready` marker. Each
// script's own output goes through unchanged (whole lines); the run fails when a step fails, after
// every worker ended.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Scripts with their arguments. The Pulumi provider alone takes about as long as the other Pulumi programs and the admission checker. */
const GO_BUILDS = [['kubernetes.mjs'], ['pulumi-cli.mjs', 'kubernetes-provider'], ['pulumi-cli.mjs', 'cli', 'language-host'], ['upstream-admission.mjs']];
const WORKERS = [[['llama-stack-envs.mjs']], []];

/** Runs one script with its arguments; resolves to its failure, or undefined. */
function runScript([script, ...args]) {
  const name = [script, ...args].join(' ');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(here, script), ...args], { stdio: 'inherit' });
    child.on('error', (e) => resolve(`${name} cannot start: ${e.message}`));
    child.on('exit', (status, signal) => resolve(status === 0 ? undefined : `${name} ended with ${signal ?? status}`));
  });
}

/** Runs a worker's own scripts, then Go builds from the shared queue until it is empty; resolves to its failures. */
async function worker(own) {
  const failures = [];
  for (let script = own.shift() ?? GO_BUILDS.shift(); script !== undefined; script = own.shift() ?? GO_BUILDS.shift()) {
    const failure = await runScript(script);
    if (failure !== undefined) failures.push(failure);
  }
  return failures;
}

const started = Date.now();
const failures = (await Promise.all(WORKERS.map(worker))).flat();
process.stdout.write(`test set-up: ${failures.length === 0 ? 'done' : 'failed'} in ${Math.round((Date.now() - started) / 1000)} s\n`);
if (failures.length > 0) {
  process.stderr.write(`test set-up failed: ${failures.join('; ')}\n`);
  process.exit(1);
}
