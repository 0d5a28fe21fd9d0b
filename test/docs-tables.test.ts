// The prop tables of the docs list exactly the props the code has: a prop added without its row, or a
// row left for a prop that is gone, fails here.
import { readFileSync } from 'fs';
import { join } from 'path';
import * as ts from 'typescript';
import { LLAMA_STACK_DOCUMENT_FIELDS } from '../src/cli/llama-stack-document-fields';

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
  const props = interfaces('src/llama-stack/llama-stack-with-providers.ts').LlamaStackWithProvidersProps;
  expect(sorted(firstColumnNames('README.md', '| prop | default | what it does |'))).toEqual(sorted(props));
});

test('docs/model-deployment.md: the spec table has a row for every field of the spec and of its parts', () => {
  const types = interfaces('src/model-deployment/types.ts');
  const parts: Record<string, string> = {
    model: 'ModelSpec',
    provider: 'ProviderSpec',
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
