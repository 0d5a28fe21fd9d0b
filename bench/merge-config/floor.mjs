// The floor of the merge-config benchmark: a bare node process that only reads the same inputs,
// parses them with the same YAML library and writes YAML back. Whatever merge-config costs above
// this is the cost of its own work (validation, the merge, the read-back check).
//
// Usage (bundled by bench.mjs): node floor.cjs METADATA_DIR BASE_CONFIG OUTPUT_DIR
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDocument, stringify } from 'yaml';

const [metadataDir, baseConfig, outputDir] = process.argv.slice(2);
const providers = fs.readdirSync(metadataDir).sort().map((id) => ({
  spec: parseDocument(fs.readFileSync(path.join(metadataDir, id, 'lls-provider-spec.yaml'), 'utf8')).toJS(),
  settings: parseDocument(fs.readFileSync(path.join(metadataDir, id, 'crd-config.yaml'), 'utf8')).toJS(),
}));
const base = parseDocument(fs.readFileSync(baseConfig, 'utf8'));
fs.mkdirSync(outputDir, { recursive: true });
fs.writeFileSync(path.join(outputDir, 'config.yaml'), base.toString());
fs.writeFileSync(path.join(outputDir, 'extra-providers.yaml'), stringify({ providers }));
