/**
 * Runs the unit tests of the install step's rules (src/llama-stack/scripts/provider_packages.py, in
 * test/llama-stack/scripts/test_provider_packages.py) with the host's Python, which has pip and so the
 * `packaging` the module uses, as a provider image does.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

test('provider_packages.py: served, conflicting, colliding and forged packages (Python unittest)', () => {
  const r = spawnSync('python3', [path.join(__dirname, 'scripts', 'test_provider_packages.py'), '-v'], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  const output = `${r.stdout}${r.stderr}`;
  expect({ status: r.status, output }).toEqual({ status: 0, output: expect.stringMatching(/\nOK\n?$/) });
  expect(output).toMatch(/Ran \d+ tests/);
});
