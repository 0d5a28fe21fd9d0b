/**
 * The tests' jest environment (environment.cjs) ends the sandboxed processes a test file left running,
 * after the file's own clean-up: otherwise a test that timed out while its pod was starting keeps
 * jest from ever exiting (the process's pipes stay open), and CI ends at its time limit instead.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describeWithSandbox } from './host';
import { leftRunningRegistry, registerRunning } from './left-running';

const ROOT = path.join(__dirname, '..', '..');

describeWithSandbox('the tests\' jest environment', () => {
  test('ends a pod a test lost track of, names it, and jest exits', () => {
    const { KIC_RENDERED_DIR: _recorded, ...env } = process.env;
    const run = spawnSync(process.execPath, [
      require.resolve('jest/bin/jest'), '--ci', '--rootDir', ROOT,
      '--testPathIgnorePatterns', '/node_modules/', '--testMatch', '<rootDir>/test/fixtures/left-running/*.test.ts',
    ], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(run.error).toBeUndefined(); // not killed by the timeout: jest exited
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/loses-a-pod\.test\.ts: ended 1 sandboxed process\(es\) its tests left running:\n {2}- forgotten \(pid \d+\)\n/);
  });
});

describe('registerRunning', () => {
  const registry = leftRunningRegistry()!;

  test('records a process until it is forgotten, telling two of the same name apart', () => {
    const forgetA = registerRunning('server (pid 1)', () => undefined);
    const forgetB = registerRunning('server (pid 1)', () => undefined);
    expect([...registry.running.keys()]).toEqual(['server (pid 1)', 'server (pid 1) #2']);
    forgetA();
    forgetB();
    expect(registry.running.size).toBe(0);
  });

  test('once the file has ended, a process that starts is ended at once and named', () => {
    const kill = jest.fn();
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    registry.closed = true;
    let written: unknown[][];
    try {
      registerRunning('install (pid 7)', kill);
    } finally {
      registry.closed = false;
      written = write.mock.calls;
      write.mockRestore();
    }
    expect(kill).toHaveBeenCalledTimes(1);
    expect(registry.running.size).toBe(0);
    expect(written).toEqual([[expect.stringMatching(/environment\.test\.ts: ended install \(pid 7\), started after its tests had ended\n$/)]]);
  });
});
