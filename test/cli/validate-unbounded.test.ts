// The red-team finding "Unbounded work" (issue 28) through the CLI users run (the bundle; `npx projen
// compile` builds it): `validate --crd` ran until killed on these; the API server's work is bounded.
import { writeFileSync } from 'fs';
import { join } from 'path';
import { stringify } from 'yaml';
import { runBuiltCli } from './built-cli';
import { ALMOST, bound, boundCrd, tags, TRIPLE_ALL, unboundedFields } from '../schema/unbounded-work';
import { tempDir } from '../temp-dir';

test('validate --crd: a backtracking pattern, a backtracking matches() and a costly rule end with the API server\'s verdicts', () => {
  const dir = tempDir('validate-unbounded-');
  const crd = join(dir, 'crd.yaml');
  const objects = join(dir, 'objects.yaml');
  writeFileSync(crd, stringify(boundCrd(unboundedFields())));
  writeFileSync(objects, [{ word: ALMOST }, { letters: ALMOST }, { tags: tags(400) }].map((spec) => stringify(bound(spec))).join('---\n'));
  // The timeout is an outer bound for a regression, not the expectation.
  const r = runBuiltCli(['validate', '--crd', crd, objects], { timeout: 60_000 });
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 1,
    stderr: [
      `error: ${objects} document 1 (Bound "b"): spec.word: must match pattern "^(a+)+$"`,
      `error: ${objects} document 2 (Bound "b"): spec.letters: only as`,
      `error: ${objects} document 3 (Bound "b"): spec.tags: 'operation cancelled: actual cost limit exceeded': `
        + `no further validation rules will be run due to call cost exceeds limit for rule: ${TRIPLE_ALL}`,
      '3 object(s): 0 valid, 3 invalid, 0 without a schema (Kubernetes 1.37)',
      '',
    ].join('\n'),
  });
}, 90_000);
