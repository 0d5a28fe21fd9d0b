// Every TypeScript example of the README and docs/ type-checks against the library as it is: a
// complete program as written; a fragment inside a prelude that gives it what the text around it
// has (an app, a chart, the library's exports); a props fragment (`externalProviders: {…}`) as props of
// LlamaStackWithProviders; `/* … */` (an elision of the text) as "anything". The README's quick starts
// also run as written, in fresh projects (test/consumer).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..');
const DIR = join(ROOT, '.tmp', 'docs-typescript');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

/** What the text around a fragment gives it: an app, a chart, the inputs an example names. */
const CONTEXT = ['app: import(\'cdk8s\').App', 'chart: import(\'cdk8s\').Chart', 'specYamlText: string', 'baseConfigText: string'];

const PRELUDE = `import { ApiObject, App, Chart } from 'cdk8s';
import * as k8s from '@pulumi/kubernetes';
import {
  ConfigValue, InferenceProvider, LlamaStackWithProviders, LlamaStackWithProvidersProps, ModelDeployment, ModelDeploymentStatus, ProviderRegistry,
  RenderContext, ResolvedModelDeployment, ResourceType, UpstreamResource, synthForSnapshot,
} from 'kube-inference-constructs';
void [ApiObject, k8s, ConfigValue, LlamaStackWithProviders, ModelDeployment, ProviderRegistry, synthForSnapshot];
export type Unused = InferenceProvider | LlamaStackWithProvidersProps | ModelDeploymentStatus | RenderContext | ResolvedModelDeployment
  | ResourceType | UpstreamResource;
`;

/** `declare const` for each name of the context the block uses and does not define itself. */
function contextOf(code: string): string {
  return CONTEXT.filter((c) => {
    const name = c.split(':')[0];
    return new RegExp(`\\b${name}\\b`).test(code) && !new RegExp(`(const|let)\\s+${name}\\b|import[^;]*\\b${name}\\b`).test(code);
  }).map((c) => `declare const ${c};\n`).join('');
}

/**
 * A block as a module: an elided function body stands for one that returns anything, an elision
 * elsewhere for any further properties; a block with imports is a program of its own (with the
 * context it names), any other gets the prelude; a props fragment is props of LlamaStackWithProviders.
 */
function moduleOf(block: string): string {
  const code = block.replace(/\{ \/\* … \*\/ \}/g, '{ return undefined as any; }').replace(/\/\* … \*\//g, '...({} as any),');
  if (code.trimStart().startsWith('import ')) return `${code}\n${contextOf(code)}export {};\n`;
  const body = /^\w+: [{[]/.test(code.trimStart()) ? `export const props: Partial<LlamaStackWithProvidersProps> = {\n${code}\n};\n` : code;
  return `${PRELUDE}${contextOf(code)}\n${body}\n`;
}

const BLOCKS = DOCS.flatMap((file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/```ts\n([^]*?)```/g)].map((m) => ({ where: `${file}:${text.slice(0, m.index).split('\n').length}`, code: m[1] }));
});

let diagnostics: Map<string, string[]>;

beforeAll(() => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const files = BLOCKS.map((b, i) => {
    const file = join(DIR, `example-${i}.ts`);
    writeFileSync(file, moduleOf(b.code));
    return file;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    types: ['jest', 'node'],
    baseUrl: ROOT,
    paths: { 'kube-inference-constructs': ['src/index.ts'], 'kube-inference-constructs/pulumi': ['src/pulumi/index.ts'] },
  });
  diagnostics = new Map(files.map((f) => [f, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (d.file && diagnostics.has(d.file.fileName)) {
      const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
      diagnostics.get(d.file.fileName)!.push(`line ${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
}, 120_000);
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

test('the docs have TypeScript examples', () => {
  expect(BLOCKS.length).toBeGreaterThanOrEqual(10);
});

test.each(BLOCKS.map((b, i) => [b.where, i] as const))('%s type-checks', (_, i) => {
  expect(diagnostics.get(join(DIR, `example-${i}.ts`))).toEqual([]);
});
