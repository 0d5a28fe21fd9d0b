/**
 * launch-server.sh, run by /bin/sh with stand-in `llama`, `ogx`, `uvicorn` and `opentelemetry-instrument`
 * commands that print how they were called: which server command the script chooses, and that values
 * reach it as arguments, never as shell text. The real servers behind it run in
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
    for (const name of ['llama', 'ogx', 'uvicorn', 'opentelemetry-instrument']) {
      // Prints its name, its arguments one per line, and the variables the script sets for it.
      const config = name === 'ogx' ? '$OGX_CONFIG' : name === 'uvicorn' ? '$LLAMA_STACK_CONFIG$OGX_CONFIG' : '$LLAMA_STACK_CONFIG';
      const body = name === 'opentelemetry-instrument'
        ? 'echo "opentelemetry-instrument disabled=$OTEL_PYTHON_DISABLED_INSTRUMENTATIONS"; exec "$@"'
        : `echo ${name} config=${config}; for a in "$@"; do echo "[$a]"; done`;
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
      // The construct sets the release's command (here llama-stack's) wherever the script runs.
      encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin`, SERVER_COMMAND: 'llama stack run', ...env },
    });
  };

  test('starts llama stack run with the config, passing the container\'s args on', () => {
    const r = launch({ LLAMA_STACK_CONFIG: '/etc/llama-stack/config.yaml' }, ['--port', '9000']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('llama config=/etc/llama-stack/config.yaml\n[stack]\n[run]\n[/etc/llama-stack/config.yaml]\n[--port]\n[9000]\n');
  });

  test('with LLS_WORKERS, starts uvicorn workers as the operator does, on LLAMA_STACK_PORT', () => {
    const factory = { SERVER_APP_FACTORY: 'llama_stack.core.server.server:create_app' };
    const r = launch({ LLAMA_STACK_CONFIG: '/c.yaml', LLS_WORKERS: '3', LLAMA_STACK_PORT: '8400', ...factory });
    expect(r.stdout).toBe('uvicorn config=/c.yaml\n[llama_stack.core.server.server:create_app]\n[--factory]\n[--host]\n[0.0.0.0]\n'
      + '[--port]\n[8400]\n[--workers]\n[3]\n');
  });

  test('without the release\'s command, or the factory for workers, it stops and says what is missing (no llama-stack guess)', () => {
    const noCommand = launch({ LLAMA_STACK_CONFIG: '/c.yaml', SERVER_COMMAND: '' });
    expect(noCommand).toMatchObject({ status: 1, stdout: '' });
    expect(noCommand.stderr).toContain('ERROR: SERVER_COMMAND is not set');
    const noFactory = launch({ OGX_CONFIG: '/c.yaml', LLS_WORKERS: '2' });
    expect(noFactory).toMatchObject({ status: 1, stdout: '' });
    expect(noFactory.stderr).toContain('ERROR: LLS_WORKERS is set, but SERVER_APP_FACTORY is not');
  });

  test('without a config of ours, takes the image\'s RUN_CONFIG_PATH, else its DISTRO_NAME, as upstream\'s entrypoint', () => {
    const file = path.join(bin, 'run.yaml');
    fs.writeFileSync(file, 'version: 2\n');
    // The file is the run command's argument, as the entrypoint gives it (the command sets the variable itself).
    expect(launch({ RUN_CONFIG_PATH: file, DISTRO_NAME: 'starter' }).stdout).toContain(`llama config=\n[stack]\n[run]\n[${file}]\n`);
    expect(launch({ RUN_CONFIG_PATH: '/missing.yaml', DISTRO_NAME: 'starter', LLS_WORKERS: '2', SERVER_APP_FACTORY: 'llama_stack.core.server.server:create_app' }).stdout)
      .toContain('uvicorn config=starter\n');
    const none = launch({});
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('ERROR: no config to start the server with');
  });

  test('ogx: the release\'s command (`ogx run`), and --insecure before the container\'s args when the pod serves plain HTTP', () => {
    const r = launch({ OGX_CONFIG: '/etc/ogx.yaml', SERVER_COMMAND: 'ogx run', SERVER_INSECURE: 'true' }, ['--port', '9000']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('ogx config=/etc/ogx.yaml\n[run]\n[/etc/ogx.yaml]\n[--insecure]\n[--port]\n[9000]\n');
    expect(launch({ OGX_CONFIG: '/c.yaml', SERVER_COMMAND: 'ogx stack run' }).stdout).toBe('ogx config=/c.yaml\n[stack]\n[run]\n[/c.yaml]\n');
  });

  test('ogx before 1.2 with workers: uvicorn with ogx\'s factory, which reads OGX_CONFIG, on OGX_PORT', () => {
    const factory = 'ogx.core.server.server:create_app';
    const r = launch({ OGX_CONFIG: '/c.yaml', LLS_WORKERS: '2', OGX_PORT: '8500', SERVER_APP_FACTORY: factory, SERVER_COMMAND: 'ogx run' });
    expect(r.stdout).toBe(`uvicorn config=/c.yaml\n[${factory}]\n[--factory]\n[--host]\n[0.0.0.0]\n[--port]\n[8500]\n[--workers]\n[2]\n`);
    // Without a config of ours: the image's distribution, exported in the variable ogx's factory reads.
    expect(launch({ DISTRO_NAME: 'starter', LLS_WORKERS: '2', SERVER_APP_FACTORY: factory }).stdout).toMatch(/^uvicorn config=starter\n/);
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
    const r = launch({ LLAMA_STACK_CONFIG: hostile, LLS_WORKERS: '2; touch /tmp/kic-pwned', SERVER_APP_FACTORY: 'llama_stack.core.server.server:create_app' }, ['$(id)', '`id`']);
    expect(r.stdout).toContain('[2; touch /tmp/kic-pwned]\n[$(id)]\n[`id`]\n');
    expect(r.stdout).toContain(`uvicorn config=${hostile}\n`);
    expect(fs.readdirSync('/tmp').filter((f) => f.startsWith('kic-pwned'))).toEqual([]);
  });

  test('is POSIX sh', () => {
    expect(spawnSync('/bin/sh', ['-n', SCRIPT]).status).toBe(0);
  });
});
