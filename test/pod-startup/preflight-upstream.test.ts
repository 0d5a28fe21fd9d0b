/**
 * Preflight against the real llama-stack loader: for each case of upstream/make-cases.sh (a provider built
 * on llama-stack's own spec classes, right or wrong in one way), preflight passes exactly when the
 * server's own loading code (upstream/differential.py) loads the provider.
 *
 * Needs interpreters with a real llama-stack installed (for example 0.3.5 and 0.7.3; llama-stack 0.7.3
 * needs `mcp<2`, which it does not pin): KIC_LLAMA_STACK_PYTHONS=/path/to/python[:/path/to/python...].
 * Without it the test is skipped with a warning: the distribution image of the pod tests will provide one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const PYTHONS = (process.env.KIC_LLAMA_STACK_PYTHONS ?? '').split(':').filter((p) => p);
const UPSTREAM = path.join(__dirname, 'upstream');

if (PYTHONS.length === 0) {
  // eslint-disable-next-line no-console
  console.warn("SKIPPED 'preflight against the real llama-stack loader': set KIC_LLAMA_STACK_PYTHONS to interpreters with llama-stack installed.");
}

(PYTHONS.length > 0 ? describe : describe.skip)('preflight against the real llama-stack loader', () => {
  test.each(PYTHONS.length > 0 ? PYTHONS : ['none'])('%s: preflight passes exactly the providers the server loads', (python) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-preflight-upstream-'));
    try {
      execFileSync('/bin/sh', [path.join(UPSTREAM, 'make-cases.sh'), dir]);
      const verdicts = fs.readdirSync(dir).sort().map((c) => {
        const r = spawnSync(python, [path.join(UPSTREAM, 'differential.py'), path.join(dir, c)], { encoding: 'utf8' });
        const line = r.stdout.trim().split('\n').pop() ?? '';
        if (!line.startsWith('{')) throw new Error(`differential.py failed on ${c}: ${r.stderr}`);
        return JSON.parse(line) as { case: string; preflight: string; server: string };
      });
      expect(verdicts.map((v) => `${v.case}: ${v.preflight === 'pass'}`)).toEqual(verdicts.map((v) => `${v.case}: ${v.server === 'loads'}`));
      expect(verdicts.filter((v) => v.server === 'loads').map((v) => v.case)).toEqual(['good', 'list_pick', 'spec_other_type']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
