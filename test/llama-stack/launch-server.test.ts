/**
 * launch-server.sh, run by /bin/sh with stand-in `llama`, `uvicorn` and `opentelemetry-instrument`
 * commands that print how they were called: which server command the script chooses, and that values
 * reach it as arguments, never as shell text. The real server behind it runs in
 * test/pod-startup/server-start.test.ts.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const SCRIPT = path.join(__dirname, '..', '..', 'src', 'llama-stack', 'scripts', 'launch-server.sh');

describe('launch-server.sh', () => {
  let bin: string;
  beforeAll(() => {
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-launch-'));
    for (const name of ['llama', 'uvicorn', 'opentelemetry-instrument']) {
      // Prints its name, its arguments one per line, and the variables the script sets for it.
      const body = name === 'opentelemetry-instrument'
        ? 'echo "opentelemetry-instrument disabled=$OTEL_PYTHON_DISABLED_INSTRUMENTATIONS"; exec "$@"'
        : `echo ${name} config=$LLAMA_STACK_CONFIG; for a in "$@"; do echo "[$a]"; done`;
      fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    }
  });
  afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

  const launch = (env: Record<string, string>, args: string[] = [], withOtel = true) => {
    const dir = withOtel ? bin : fs.mkdtempSync(path.join(os.tmpdir(), 'kic-launch-no-otel-'));
    if (!withOtel) {
      for (const name of ['llama', 'uvicorn']) fs.copyFileSync(path.join(bin, name), path.join(dir, name));
      fs.chmodSync(path.join(dir, 'llama'), 0o755);
    }
    return spawnSync('/bin/sh', ['-c', fs.readFileSync(SCRIPT, 'utf8'), 'launch-server', ...args], {
      encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin`, ...env },
    });
  };

  test('starts llama stack run with the config, passing the container\'s args on', () => {
    const r = launch({ LLAMA_STACK_CONFIG: '/etc/llama-stack/config.yaml' }, ['--port', '9000']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('llama config=/etc/llama-stack/config.yaml\n[stack]\n[run]\n[/etc/llama-stack/config.yaml]\n[--port]\n[9000]\n');
  });

  test('with LLS_WORKERS, starts uvicorn workers as the operator does, on LLAMA_STACK_PORT', () => {
    const r = launch({ LLAMA_STACK_CONFIG: '/c.yaml', LLS_WORKERS: '3', LLAMA_STACK_PORT: '8400' });
    expect(r.stdout).toBe('uvicorn config=/c.yaml\n[llama_stack.core.server.server:create_app]\n[--factory]\n[--host]\n[0.0.0.0]\n'
      + '[--port]\n[8400]\n[--workers]\n[3]\n');
  });

  test('without a config of ours, takes the image\'s RUN_CONFIG_PATH, else its DISTRO_NAME, as upstream\'s entrypoint', () => {
    const file = path.join(bin, 'run.yaml');
    fs.writeFileSync(file, 'version: 2\n');
    expect(launch({ RUN_CONFIG_PATH: file, DISTRO_NAME: 'starter' }).stdout).toContain(`llama config=${file}\n[stack]\n[run]\n[${file}]\n`);
    expect(launch({ RUN_CONFIG_PATH: '/missing.yaml', DISTRO_NAME: 'starter', LLS_WORKERS: '2' }).stdout).toContain('uvicorn config=starter\n');
    const none = launch({});
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('ERROR: no config to start the server with');
  });

  test('with an OTEL_* variable, runs the server through opentelemetry-instrument, without the duplicate database spans', () => {
    const r = launch({ LLAMA_STACK_CONFIG: '/c.yaml', OTEL_SERVICE_NAME: 'llama', OTEL_PYTHON_DISABLED_INSTRUMENTATIONS: 'redis' });
    expect(r.stdout).toBe('opentelemetry-instrument disabled=redis,asyncpg,sqlite3\nllama config=/c.yaml\n[stack]\n[run]\n[/c.yaml]\n');
    expect(launch({ LLAMA_STACK_CONFIG: '/c.yaml', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).stdout).toMatch(/^opentelemetry-instrument disabled=asyncpg,sqlite3\n/);
    expect(launch({ LLAMA_STACK_CONFIG: '/c.yaml', NOT_OTEL_X: '1' }).stdout).toMatch(/^llama /);
  });

  test('an image without opentelemetry-instrument starts plainly, with a warning', () => {
    const r = launch({ LLAMA_STACK_CONFIG: '/c.yaml', OTEL_SERVICE_NAME: 'llama' }, [], false);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^llama config=\/c\.yaml\n/);
    expect(r.stderr).toContain('this image has no opentelemetry-instrument');
  });

  test('hostile values stay arguments: nothing is evaluated', () => {
    const hostile = '/c.yaml"; touch /tmp/kic-pwned-$$; echo "$(id)';
    const r = launch({ LLAMA_STACK_CONFIG: hostile, LLS_WORKERS: '2; touch /tmp/kic-pwned' }, ['$(id)', '`id`']);
    expect(r.stdout).toContain('[2; touch /tmp/kic-pwned]\n[$(id)]\n[`id`]\n');
    expect(r.stdout).toContain(`uvicorn config=${hostile}\n`);
    expect(fs.readdirSync('/tmp').filter((f) => f.startsWith('kic-pwned'))).toEqual([]);
  });

  test('is POSIX sh', () => {
    expect(spawnSync('/bin/sh', ['-n', SCRIPT]).status).toBe(0);
  });
});
