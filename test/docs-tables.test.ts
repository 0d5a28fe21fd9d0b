// The prop tables of the docs list exactly the props the code has: a prop added without its row, or a
// row left for a prop that is gone, fails here.
import { readFileSync } from 'fs';
import { join } from 'path';
import * as ts from 'typescript';
import { LLAMA_STACK_DOCUMENT_FIELDS } from '../src/cli/llama-stack-document-fields';
import { OGX_SERVER_EXTENSION_FIELDS, ogxServerSchema } from '../src/schema/ogx-server-crd';

const ROOT = join(__dirname, '..');

/** The member names of every interface declared in a source file, by interface name. */
function interfaces(file: string): Record<string, string[]> {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Record<string, string[]> = {};
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) found[node.name.text] = node.members.map((m) => m.name!.getText(source));
  });
  return found;
}

/** The backticked names in the first column of the Markdown table whose header line is `header`. */
function firstColumnNames(file: string, header: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`${header}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const rows = text.slice(start).split('\n').slice(2);
  const names: string[] = [];
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    for (const m of row.split('|')[1].matchAll(/`([A-Za-z.]+)`/g)) names.push(m[1]);
  }
  return names;
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

test('README: the LlamaStackWithProviders table has a row for every prop, and no other', () => {
  const props = interfaces('src/llama-stack/props.ts').LlamaStackWithProvidersProps;
  expect(sorted(firstColumnNames('README.md', '| prop | default | what it does |'))).toEqual(sorted(props));
});

test('docs/model-deployment.md: the spec table has a row for every field of the spec and of its parts', () => {
  const types = interfaces('src/model-deployment/types.ts');
  const parts: Record<string, string> = {
    model: 'ModelSpec',
    provider: 'SelectedProviderSpec', // ProviderSpec is SelectedProviderSpec or a named provider's: the same two fields
    engine: 'EngineSpec',
    serving: 'ServingSpec',
    scaling: 'ScalingSpec',
    resources: 'ResourcesSpec',
    secrets: 'SecretsSpec',
    podTemplate: 'PodTemplateSpec',
  };
  const expected = types.ModelDeploymentSpec.flatMap((field) => (parts[field] ? types[parts[field]].map((sub) => `${field}.${sub}`) : [field]));
  expect(sorted(firstColumnNames('docs/model-deployment.md', '| Field | Type | Default | Notes |'))).toEqual(sorted(expected));
});

test('docs/llama-stack-operator.md: the field table lists every field of a LlamaStackDistribution document, and no other', () => {
  type Fields = typeof LLAMA_STACK_DOCUMENT_FIELDS;
  const paths = (fields: Fields, at: string): string[] => Object.entries(fields).flatMap(([name, field]) => {
    const path = at ? `${at}.${name}` : name;
    return [path, ...(field.fields ? paths(field.fields, path) : []), ...(field.items ? paths(field.items, `${path}[]`) : [])];
  });
  const text = readFileSync(join(ROOT, 'docs', 'llama-stack-operator.md'), 'utf8');
  const rows = text.slice(text.indexOf('| Field | What `render` does |\n')).split('\n').slice(2);
  const listed: string[] = [];
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    for (const m of row.split('|')[1].matchAll(/`([A-Za-z.[\]]+)`/g)) listed.push(m[1]);
  }
  expect(sorted(listed)).toEqual(sorted(paths(LLAMA_STACK_DOCUMENT_FIELDS, '')));
});

describe('docs/ogx-operator.md: the field tables list every field of the OGXServer CRD, and no other', () => {
  // Kubernetes' own types, embedded whole in the CRD and passed to the pod as they are: one row each.
  const KUBERNETES_TYPES = new Set([
    'spec.workload.overrides.env', 'spec.workload.overrides.volumes', 'spec.workload.overrides.volumeMounts', 'spec.workload.topologySpreadConstraints',
    'spec.workload.resources.claims', 'spec.workload.resourceClaims', 'spec.network.policy.ingress', 'spec.network.policy.egress',
  ]);
  // Shapes the CRD repeats under spec.providers, documented once each as `spec.providers….<shape>`.
  const SHARED = /^spec\.providers\..*?\.(custom|network|vectorStoresConfig)(?=$|[.[])/;
  const schema = ogxServerSchema();

  /** Every field path of the CRD (lists as `[]`), but below the Kubernetes types and the Secret/ConfigMap key references of the providers and stores. */
  function crdPaths(): string[] {
    const out: string[] = [];
    const walk = (node: any, path: string): void => {
      out.push(path);
      if (['apiVersion', 'kind', 'metadata', 'status'].includes(path) || KUBERNETES_TYPES.has(path)) return;
      const fields = node.type === 'array' ? node.items?.properties : node.properties;
      if (!fields) return;
      // `{name, key}`: a reference to a Secret's (or ConfigMap's) key, documented by the field holding it.
      const keys = Object.keys(fields).sort().join(',');
      if (keys === 'key,name' && /^spec\.(providers|storage)\./.test(path)) return;
      for (const [name, sub] of Object.entries(fields)) walk(sub, `${path}${node.type === 'array' ? '[]' : ''}${path ? '.' : ''}${name}`);
    };
    for (const [name, sub] of Object.entries(schema.properties)) walk(sub, name);
    return out;
  }

  test('the shapes collapsed into one row each are the same shape everywhere in the CRD', () => {
    const byShape = new Map<string, Map<string, Set<string>>>();
    for (const path of crdPaths()) {
      const m = SHARED.exec(path);
      if (!m) continue;
      const at = m[0];
      const shape = byShape.get(m[1]) ?? new Map<string, Set<string>>();
      byShape.set(m[1], shape);
      const below = shape.get(at) ?? new Set<string>();
      shape.set(at, below);
      below.add(path.slice(at.length));
    }
    expect([...byShape.keys()].sort()).toEqual(['custom', 'network', 'vectorStoresConfig']);
    for (const [, places] of byShape) {
      const [first, ...rest] = [...places.values()].map((s) => [...s].sort());
      for (const other of rest) expect(other).toEqual(first);
    }
  });

  test('a row for every field (the repeated provider shapes once), this library\'s spec.externalProviders, and no other', () => {
    const expected = [...crdPaths().map((p) => p.replace(SHARED, (_, shape) => `spec.providers….${shape}`)), ...OGX_SERVER_EXTENSION_FIELDS];
    const text = readFileSync(join(ROOT, 'docs', 'ogx-operator.md'), 'utf8');
    const header = '| Field | What `render` does |\n';
    const listed: string[] = [];
    let at = text.indexOf(header);
    expect(at).toBeGreaterThanOrEqual(0);
    while (at >= 0) {
      for (const row of text.slice(at + header.length).split('\n').slice(1)) {
        if (!row.startsWith('|')) break;
        for (const m of row.split('|')[1].matchAll(/`([A-Za-z0-9.[\]…]+)`/g)) listed.push(m[1]);
      }
      at = text.indexOf(header, at + header.length);
    }
    expect(sorted(listed)).toEqual(sorted(expected));
    expect(listed.length).toBe(new Set(listed).size); // each field in one row
  });
});
