#!/usr/bin/env node
// Synthesises every example that has a cdk8s.yaml with the real cdk8s CLI, into its dist/.
// Run after compiling: examples import the package by name, which resolves to lib/.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cdk8s = join(root, 'node_modules', '.bin', 'cdk8s');
const examples = readdirSync(join(root, 'examples'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'examples', d.name, 'cdk8s.yaml')))
  .map((d) => d.name)
  .sort();

for (const name of examples) {
  const dir = join(root, 'examples', name);
  process.stdout.write(`synth examples/${name}\n`);
  execFileSync(cdk8s, ['synth', '--no-check-upgrade'], { cwd: dir, stdio: 'inherit' });
}
