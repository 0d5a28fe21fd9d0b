#!/usr/bin/env node
// Writes crds-json/<file>.json from each vendored crds/<file>.yaml: the same documents, as JSON, which
// `validate` reads for the vendored CRDs. The YAML reader takes about 270 ms over the 1.6 MB Dynamo
// CRD, JSON.parse 5 ms; crds/ stays the upstream copies users apply.
//
//   node scripts/crds-json.mjs          regenerate crds-json/
//   node scripts/crds-json.mjs --check  exit 1 when crds-json/ is not what this script would write
//
// Read as src/schema/crd-validator.ts reads a CRD file (parseCrdYaml): every non-empty document of the
// stream, YAML 1.2, at most 100 alias expansions.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const crdDir = join(root, 'crds');
const jsonDir = join(root, 'crds-json');
const check = process.argv.includes('--check');

function documents(file) {
  return parseAllDocuments(readFileSync(join(crdDir, file), 'utf8')).map((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`crds/${file}: document ${index + 1} is not valid YAML: ${doc.errors[0].message}`);
    return doc.toJS({ maxAliasCount: 100 });
  }).filter((doc) => doc !== null && doc !== undefined);
}

const expected = new Map(readdirSync(crdDir).filter((f) => f.endsWith('.yaml')).sort()
  .map((f) => [f.replace(/\.yaml$/, '.json'), `${JSON.stringify(documents(f))}\n`]));

if (check) {
  const problems = [];
  const present = existsSync(jsonDir) ? readdirSync(jsonDir) : [];
  for (const [file, text] of expected) {
    if (!present.includes(file)) problems.push(`crds-json/${file} is missing`);
    else if (readFileSync(join(jsonDir, file), 'utf8') !== text) problems.push(`crds-json/${file} is stale`);
  }
  for (const file of present) {
    if (!expected.has(file)) problems.push(`crds-json/${file} has no CRD in crds/ (remove it)`);
  }
  if (problems.length > 0) {
    process.stderr.write(`crds-json --check failed:\n  ${problems.join('\n  ')}\nRun \`node scripts/crds-json.mjs\` to regenerate.\n`);
    process.exit(1);
  }
  process.stdout.write(`crds-json: crds-json/ is current (${expected.size} files)\n`);
} else {
  mkdirSync(jsonDir, { recursive: true });
  for (const file of readdirSync(jsonDir)) {
    if (!expected.has(file)) rmSync(join(jsonDir, file));
  }
  for (const [file, text] of expected) writeFileSync(join(jsonDir, file), text);
  process.stdout.write(`crds-json: wrote ${expected.size} files to crds-json/\n`);
}
