#!/usr/bin/env node
// Regenerates src/imports/ from the vendored CRDs in crds/ with `cdk8s import`, or (with --check)
// fails when src/imports/ or the vendored CRDs are not what this script would produce.
//
//   node scripts/import-crds.mjs          regenerate src/imports/*.generated.ts
//   node scripts/import-crds.mjs --check  exit 1 when src/imports is stale or a CRD file changed
//
// Why the `.generated.ts` suffix: the project's ESLint configuration ignores `*.generated.ts`,
// so `eslint --fix` never rewrites generated code (which would make --check fail forever).
// Nothing in the generated files is edited by hand: they are byte-for-byte cdk8s output.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const crdDir = join(root, 'crds');
const importsDir = join(root, 'src', 'imports');
const cdk8s = join(root, 'node_modules', '.bin', 'cdk8s');

/**
 * The CRDs we render, the module each becomes, and the sha256 of the vendored file (the copy
 * recorded in crds/SOURCES.md).
 */
const IMPORTS = [
  { crd: 'kaito.sh_workspaces.yaml', module: 'kaito-workspace', sha256: '20e24ffe9ef60eba6d31ef7cd4e7402769824a2ad78e26f61c21e5aba186ec64' },
  { crd: 'kaito.sh_inferencesets.yaml', module: 'kaito-inference-set', sha256: '1350990fa4130fe643110b04948e0da2bcf7a598c6f6895622b4c03875708e3d' },
  { crd: 'nvidia.com_dynamographdeployments.yaml', module: 'dynamo-graph-deployment', sha256: '055d7331cfbf1cca6864ee9005239de7e869dd79d69418126a52634d009c55d8' },
  { crd: 'ray.io_rayservices.yaml', module: 'ray-service', sha256: '0a8fc325e6e22b9231c1f282b309555e2ecf94227ca20a03df3d1d9a403907ab' },
  { crd: 'route.openshift.io_routes.yaml', module: 'openshift-route', sha256: 'd35625a8448d4cdc0768a3860dc9b92af946026a699024faf9e1d4918e42c647' },
];

const check = process.argv.includes('--check');

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Runs `cdk8s import` for one CRD into a fresh directory and returns the generated source. */
function generate(entry) {
  const work = mkdtempSync(join(tmpdir(), 'import-crds-'));
  try {
    // Run inside the temporary directory so `cdk8s import` finds no cdk8s.yaml to update,
    // and never ask the network whether a newer CLI exists: the output must depend on the
    // CRD file and the locked cdk8s-cli version only.
    execFileSync(cdk8s, ['import', join(crdDir, entry.crd), '--language', 'typescript',
      '--output', 'out', '--no-save', '--no-check-upgrade'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    const produced = readdirSync(join(work, 'out'));
    // cdk8s names the file after the API group (kaito.sh.ts); the module name is ours.
    if (produced.length !== 1) {
      throw new Error(`cdk8s import of ${entry.crd} produced ${JSON.stringify(produced)}, expected one file`);
    }
    return readFileSync(join(work, 'out', produced[0]), 'utf8');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const problems = [];
for (const entry of IMPORTS) {
  const path = join(crdDir, entry.crd);
  if (!existsSync(path)) {
    problems.push(`crds/${entry.crd} is missing`);
  } else if (sha256(path) !== entry.sha256) {
    problems.push(`crds/${entry.crd} differs from the vendored copy (sha256 ${sha256(path)}); `
      + 'update crds/SOURCES.md and the hash in scripts/import-crds.mjs together when you replace a CRD');
  }
}
if (problems.length > 0) {
  process.stderr.write(`import-crds: ${problems.join('\n  ')}\n`);
  process.exit(1);
}

const expected = new Map(IMPORTS.map((e) => [`${e.module}.generated.ts`, generate(e)]));

if (check) {
  const present = existsSync(importsDir) ? readdirSync(importsDir).filter((f) => f.endsWith('.ts')) : [];
  for (const [file, source] of expected) {
    const target = join(importsDir, file);
    if (!existsSync(target)) {
      problems.push(`src/imports/${file} is missing`);
    } else if (readFileSync(target, 'utf8') !== source) {
      problems.push(`src/imports/${file} is stale`);
    }
  }
  for (const file of present) {
    if (!expected.has(file)) problems.push(`src/imports/${file} is not produced from crds/ (remove it)`);
  }
  if (problems.length > 0) {
    process.stderr.write(`import-crds --check failed:\n  ${problems.join('\n  ')}\n`
      + 'Run `node scripts/import-crds.mjs` to regenerate.\n');
    process.exit(1);
  }
  process.stdout.write(`import-crds: src/imports is current (${expected.size} modules)\n`);
} else {
  mkdirSync(importsDir, { recursive: true });
  for (const file of readdirSync(importsDir)) {
    if (file.endsWith('.ts') && !expected.has(file)) rmSync(join(importsDir, file));
  }
  for (const [file, source] of expected) writeFileSync(join(importsDir, file), source);
  process.stdout.write(`import-crds: wrote ${[...expected.keys()].map((f) => `src/imports/${f}`).join(', ')}\n`);
}
