#!/usr/bin/env node
// Vendors the Kubernetes OpenAPI schemas that `kube-inference validate` checks core objects against, one
// file per Kubernetes minor: kubernetes-openapi/<minor>.json, read from api/openapi-spec/v3/ of the
// k8s.io/kubernetes module at the release named below, downloaded (and checksum-verified against the Go
// checksum database) by `go mod download`. The schemas are kept as the API server publishes them, less
// what validation does not read: descriptions, defaults and patch strategies, and a field whose type is a
// single reference (`allOf: [{$ref}]`) refers to it directly. (The published schemas have no `enum`s:
// the API server's validation code holds the allowed values, see src/schema/kubernetes/.)
//
//   node scripts/import-kubernetes-openapi.mjs          rewrite kubernetes-openapi/
//   node scripts/import-kubernetes-openapi.mjs --check  exit 1 when it is stale
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The newest patch release of each supported minor that the Go module proxy serves. */
const RELEASES = ['v1.29.6', 'v1.30.14', 'v1.31.14', 'v1.32.13', 'v1.33.13', 'v1.34.4', 'v1.35.4', 'v1.36.3', 'v1.37.2'];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET = path.join(ROOT, 'kubernetes-openapi');
const check = process.argv.includes('--check');
const CI = process.env.CI === 'true';

const REF_PREFIX = '#/components/schemas/';
/** Schema keywords that validation does not read. */
const DROPPED = new Set(['description', 'default', 'example', 'x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key', 'x-kubernetes-map-type', 'x-kubernetes-unions', 'discriminator', 'x-kubernetes-group-version-kind']);

function compact(schema) {
  if (Array.isArray(schema)) return schema.map(compact);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  const single = Array.isArray(schema.allOf) && schema.allOf.length === 1 && typeof schema.allOf[0].$ref === 'string' ? schema.allOf[0].$ref : undefined;
  for (const key of Object.keys(schema).sort()) {
    if (DROPPED.has(key) || (key === 'allOf' && single)) continue;
    const value = schema[key];
    if (key === '$ref') out.$ref = value.replace(REF_PREFIX, '');
    else if (key === 'properties') out.properties = Object.fromEntries(Object.keys(value).sort().map((p) => [p, compact(value[p])]));
    else out[key] = compact(value);
  }
  if (single) out.$ref = single.replace(REF_PREFIX, '');
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}

function moduleOf(release) {
  const env = { ...process.env, GOFLAGS: '-mod=mod' };
  const info = JSON.parse(execFileSync('go', ['mod', 'download', '-json', `k8s.io/kubernetes@${release}`], { cwd: ROOT, encoding: 'utf8', env, maxBuffer: 16 * 1024 * 1024 }));
  if (info.Error) throw new Error(info.Error);
  return info;
}

function render(release) {
  const { Dir, Sum } = moduleOf(release);
  const specDir = path.join(Dir, 'api', 'openapi-spec', 'v3');
  const raw = {};
  for (const file of fs.readdirSync(specDir).filter((f) => f.endsWith('.json')).sort()) {
    const spec = JSON.parse(fs.readFileSync(path.join(specDir, file), 'utf8'));
    for (const [name, schema] of Object.entries(spec.components?.schemas ?? {})) raw[name] ??= schema;
  }
  // apiVersion/kind → schema, for the kinds users write (not the meta types every group serves).
  const kinds = {};
  for (const [name, schema] of Object.entries(raw)) {
    if (name.startsWith('io.k8s.apimachinery.')) continue;
    for (const { group, version, kind } of schema['x-kubernetes-group-version-kind'] ?? []) {
      kinds[`${group ? `${group}/` : ''}${version}/${kind}`] = name;
    }
  }
  const lines = [
    '{',
    `"release": ${JSON.stringify(release)},`,
    `"source": ${JSON.stringify(`k8s.io/kubernetes ${release} (${Sum}), api/openapi-spec/v3/*.json, by scripts/import-kubernetes-openapi.mjs: do not edit`)},`,
    `"kinds": {\n${Object.keys(kinds).sort().map((k) => `${JSON.stringify(k)}: ${JSON.stringify(kinds[k])}`).join(',\n')}\n},`,
    `"schemas": {\n${Object.keys(raw).sort().map((n) => `${JSON.stringify(n)}: ${JSON.stringify(compact(raw[n]))}`).join(',\n')}\n}`,
    '}',
    '',
  ];
  return lines.join('\n');
}

const minorOf = (release) => release.replace(/^v/, '').split('.').slice(0, 2).join('.');
let stale = [];
let written = 0;
try {
  const expected = new Map(RELEASES.map((r) => [`${minorOf(r)}.json`, render(r)]));
  const present = fs.existsSync(TARGET) ? fs.readdirSync(TARGET).filter((f) => f.endsWith('.json')) : [];
  stale = [...new Set([...expected.keys(), ...present])].sort().filter((f) => expected.get(f) !== (fs.existsSync(path.join(TARGET, f)) ? fs.readFileSync(path.join(TARGET, f), 'utf8') : undefined));
  if (!check) {
    fs.mkdirSync(TARGET, { recursive: true });
    for (const f of stale) {
      const text = expected.get(f);
      if (text === undefined) fs.rmSync(path.join(TARGET, f));
      else fs.writeFileSync(path.join(TARGET, f), text);
      written++;
    }
  }
} catch (e) {
  const reason = `cannot read the Kubernetes OpenAPI schemas from the Go module proxy: ${e.message.split('\n')[0]}`;
  if (check && !CI) {
    process.stdout.write(`SKIPPED import-kubernetes-openapi --check: ${reason} (in CI, CI=true, this is an error)\n`);
    process.exit(0);
  }
  process.stderr.write(`import-kubernetes-openapi: ${reason}\n`);
  process.exit(1);
}
if (check && stale.length > 0) {
  process.stderr.write(`import-kubernetes-openapi: stale in kubernetes-openapi/: ${stale.join(', ')}; run \`npx projen import-kubernetes-openapi\` and commit it\n`);
  process.exit(1);
}
process.stdout.write(`import-kubernetes-openapi: ${check ? 'current' : `wrote ${written} file(s)`} (Kubernetes ${RELEASES.map(minorOf).join(', ')})\n`);
