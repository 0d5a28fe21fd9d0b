/**
 * Preflight against the real server's loader: for each case of upstream/make-cases.sh (a provider built
 * on the server's own spec classes, right or wrong in one way), preflight passes exactly when the
 * server's own loading code (upstream/differential.py, one process per server release) loads the
 * provider. Runs with the interpreters of the test set-up's server environments (ogx 1.5.0 and 1.1.3,
 * llama-stack 0.7.3 and 0.3.5); fails in CI when they are missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LLAMA_STACK, LLAMA_STACK_RUN_YAML_ERA, OGX, OGX_BEFORE_TLS } from './helpers';
import { describeWhen } from '../sandbox/host';
import { llamaStackEnv, testEnvsSupport } from '../sandbox/test-envs';

const ENVS = [OGX, OGX_BEFORE_TLS, LLAMA_STACK, LLAMA_STACK_RUN_YAML_ERA].map((v) => llamaStackEnv(v));
const UPSTREAM = path.join(__dirname, 'upstream');

describeWhen('preflight against the real server\'s loader', testEnvsSupport(...ENVS), 'the server test environments', () => {
  test.each(ENVS.map((e) => e.value?.version ?? 'missing'))('%s: preflight passes exactly the providers the server loads', (version) => {
    const env = ENVS.find((e) => e.value?.version === version)!.value!;
    const python = env.python;
    const serverPackage = env.package === 'ogx' ? 'ogx' : 'llama_stack';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-preflight-upstream-'));
    try {
      execFileSync('/bin/sh', [path.join(UPSTREAM, 'make-cases.sh'), dir]);
      const cases = fs.readdirSync(dir).sort();
      const r = spawnSync(python, [path.join(UPSTREAM, 'differential.py'), ...cases.map((c) => path.join(dir, c))], {
        encoding: 'utf8', env: { ...process.env, SERVER_PACKAGE: serverPackage },
      });
      const verdicts = r.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { case: string; preflight: string; server: string });
      if (r.status !== 0 || verdicts.length !== cases.length) throw new Error(`differential.py exited ${r.status} after ${verdicts.length} of ${cases.length} cases: ${r.stderr}`);
      expect(verdicts.map((v) => `${v.case}: ${v.preflight === 'pass'}`)).toEqual(verdicts.map((v) => `${v.case}: ${v.server === 'loads'}`));
      expect(verdicts.filter((v) => v.server === 'loads').map((v) => v.case)).toEqual(['good', 'list_pick', 'spec_other_type']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
