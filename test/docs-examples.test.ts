// Every YAML example of the docs written in one of the kinds `render` reads renders as written: the
// reader copying it gets manifests, not an error (docs/model-deployment.md's gemma-cpu example did not).
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { cli } from './cli/run';

const ROOT = join(__dirname, '..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
const OUR_KINDS = /^kind: (LlamaStackDistribution|OGXServer|ModelDeployment)\s*$/m;

/** The YAML blocks of a Markdown file that hold one of our kinds, with the line each starts on. */
function examples(file: string): Array<[string, number, string]> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/```ya?ml\n([^]*?)```/g)]
    .filter((m) => OUR_KINDS.test(m[1]))
    .map((m) => [file, text.slice(0, m.index).split('\n').length, m[1]]);
}

const ALL = DOCS.flatMap(examples);

test('the docs have examples of each kind render reads', () => {
  expect(ALL.map(([, , yaml]) => OUR_KINDS.exec(yaml)![1]).sort()).toEqual(expect.arrayContaining(['LlamaStackDistribution', 'ModelDeployment', 'OGXServer']));
});

test.each(ALL)('%s line %d renders as written', async (_, __, yaml) => {
  const r = await cli(['render', '-'], { stdin: yaml });
  expect({ code: r.code, stderr: r.stderr.split('\n').filter((l) => l.startsWith('error')) }).toEqual({ code: 0, stderr: [] });
  expect(r.stdout).toMatch(/^kind: /m);
});
