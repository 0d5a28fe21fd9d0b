/**
 * The Llama Stack / OGX test environments (scripts/test-setup/llama-stack-envs.mjs) hold working servers:
 * each release's CLI (`llama`, `ogx`) imports, torch comes from the shared layer, and the real server of
 * llama-stack 0.3.5 and 0.7.3 (`llama stack run`) and of ogx 1.1.3 and 1.5.0 (`ogx run`) loads the sample
 * provider (examples/sample-provider) from PYTHONPATH as an external provider and serves its model. Plain
 * child processes on a loopback port, no sandbox: this checks the environments and the provider, the pod
 * tests check the pod.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { describeWhen } from './host';
import { llamaStackEnv, LlamaStackEnv, providerWheels, ServerPackage, testEnvsSupport } from './test-envs';
import { sampleProviderWheels } from './wheels';

/** Each release: its project, the name its distributions give their config file, the torch layer it shares. */
const RELEASES: Record<string, { package: ServerPackage; configFileName: string; layer: string }> = {
  '0.7.3': { package: 'llama-stack', configFileName: 'config.yaml', layer: 'torch-2.13.0-cu13' },
  '0.3.5': { package: 'llama-stack', configFileName: 'run.yaml', layer: 'torch-2.9.1-cu12' },
  '1.5.0': { package: 'ogx', configFileName: 'config.yaml', layer: 'torch-2.13.0-cu13' },
  '1.1.3': { package: 'ogx', configFileName: 'config.yaml', layer: 'torch-2.13.0-cu13' },
};
const PROVIDERS = ['llama-stack-provider-trustyai-fms', 'llama-stack-provider-lmeval'];

const envs = Object.keys(RELEASES).map((v) => llamaStackEnv(v));
const wheels = PROVIDERS.map((name) => providerWheels(name));

describeWhen('Llama Stack test environments', testEnvsSupport(...envs, ...wheels), 'llama-stack test environment', () => {
  let work: string;
  let sampleWheels: string[];

  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-test-envs-'));
    sampleWheels = sampleProviderWheels(path.join(work, 'wheels'));
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  describe.each(Object.keys(RELEASES))('server %s', (version) => {
    const env = () => llamaStackEnv(version).value!;
    const release = RELEASES[version];

    test('its CLI imports the release the index names, whose starter config has the release\'s file name', () => {
      expect(env().package).toBe(release.package);
      if (release.package === 'ogx') {
        // ogx leaves ogx-api unpinned: the lock pins both at the release.
        const out = execFileSync(env().python, ['-c', 'import importlib.metadata as m, ogx.cli.ogx; print(m.version("ogx"), m.version("ogx-api"))'], { encoding: 'utf8' });
        expect(out.trim()).toBe(`${version} ${version}`);
        expect(env().cli).toBe(path.join(env().venv, 'bin', 'ogx'));
        const help = execFileSync(env().cli, ['run', '--help'], { encoding: 'utf8' });
        expect(help).toContain('OGX_PORT');
        // ogx >= 1.2 refuses plain HTTP unless told --insecure.
        if (needsInsecure(version)) expect(help).toContain('--insecure');
        else expect(help).not.toContain('--insecure');
        expect(env().starterConfig).toBe(path.join(env().sitePackages, 'ogx', 'distributions', 'starter', release.configFileName));
      } else {
        const out = execFileSync(env().python, ['-c', 'import importlib.metadata as m, llama_stack.cli.llama; print(m.version("llama-stack"))'], { encoding: 'utf8' });
        expect(out.trim()).toBe(version);
        expect(env().cli).toBe(path.join(env().venv, 'bin', 'llama'));
        expect(execFileSync(env().cli, ['stack', 'run', '--help'], { encoding: 'utf8' })).toContain('LLAMA_STACK_PORT');
        expect(env().starterConfig).toBe(path.join(env().sitePackages, 'llama_stack', 'distributions', 'starter', release.configFileName));
      }
      expect(env().configFileName).toBe(release.configFileName);
    });

    test('torch and its CUDA libraries come from the shared layer, and the environment is still a closure', () => {
      expect(env().layers.map((l) => l.name)).toEqual([release.layer]);
      const layer = env().layers[0];
      expect(layer.dir.startsWith(env().dir)).toBe(false);
      expect(fs.readFileSync(path.join(env().sitePackages, 'kic-layers.pth'), 'utf8').trim()).toBe(layer.sitePackages);
      // The venv holds none of the layer's packages itself.
      expect(fs.readdirSync(env().sitePackages).filter((f) => /^(torch|triton|nvidia)[-_.]|^(torch|triton|nvidia)$/.test(f))).toEqual([]);
      const out = execFileSync(env().python, ['-c', 'import importlib.metadata as m, torch, nvidia; print(torch.__file__); print(m.version("torch")); print(list(nvidia.__path__)[0])'], { encoding: 'utf8' });
      const [torchFile, torchVersion, nvidiaDir] = out.trim().split('\n');
      expect(torchFile).toBe(path.join(layer.sitePackages, 'torch', '__init__.py'));
      expect(layer.pins).toContain(`torch==${torchVersion}`);
      expect(nvidiaDir).toBe(path.join(layer.sitePackages, 'nvidia'));
      expect(execFileSync(env().python, ['-m', 'pip', 'check', '--disable-pip-version-check'], { encoding: 'utf8' })).toContain('No broken requirements found');
    }, 120_000);

    test('the real server loads the sample provider from PYTHONPATH and echoes a chat completion', async () => {
      const dir = fs.mkdtempSync(path.join(work, `echo-${version}-`));
      const target = path.join(dir, 'packages');
      execFileSync(env().python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-index', '--no-deps', '--target', target, ...sampleWheels]);
      const config = withProvider(env().starterConfig, dir, 'inference', {
        provider_id: 'acme-echo', provider_type: 'remote::acme-echo', module: 'acme_echo_provider', config: { prefix: '> ' },
      });
      const server = await startServer(env(), config, dir, target);
      try {
        expect(await server.get('/v1/health')).toEqual({ status: 'OK' });
        expect(await server.get('/v1/version')).toEqual({ version });
        if (release.package === 'ogx') {
          // ogx >= 1.2 `ogx run` serves a resolved copy of the config from TMPDIR (secrets in clear, mode 0600).
          const copies = fs.readdirSync(path.join(dir, 'tmp')).filter((f) => /^ogx-run-.+\.yaml$/.test(f));
          expect(copies).toHaveLength(needsInsecure(version) ? 1 : 0);
        }
        const providers = await server.get('/v1/providers');
        expect(providers.data.filter((p: any) => p.provider_id === 'acme-echo')).toEqual([{
          api: 'inference',
          provider_id: 'acme-echo',
          provider_type: 'remote::acme-echo',
          config: { prefix: '> ' },
          health: { status: 'Not Implemented', message: 'Provider does not implement health check' },
        }]);
        // 0.7.3 and ogx answer /v1/models in OpenAI's shape (id), 0.3.5 in Llama Stack's (identifier).
        const models = (await server.get('/v1/models')).data.map((m: any) => m.id ?? m.identifier);
        expect(models).toContain('acme-echo/echo');

        const chat = await server.post('/v1/chat/completions', { model: 'acme-echo/echo', messages: [{ role: 'user', content: 'hello   there  world' }] });
        expect(chat.status).toBe(200);
        expect(JSON.parse(chat.text)).toMatchObject({
          object: 'chat.completion',
          model: 'acme-echo/echo',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '> hello there world' } }],
          usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        });
        const streamed = await server.post('/v1/chat/completions', { model: 'acme-echo/echo', stream: true, messages: [{ role: 'user', content: 'hi' }] });
        // 0.7.3 and ogx answer 400; 0.3.5 has already begun an event stream (200) and sends the error as its one event.
        expect(streamed.status).toBe(version === '0.3.5' ? 200 : 400);
        expect(streamed.text).toContain('acme-echo does not stream');
      } finally {
        await server.stop();
      }
    }, 300_000);
  });

  test.each(PROVIDERS)('the wheels of %s are its lock\'s closure', (name) => {
    const w = providerWheels(name).value!;
    const pins = fs.readFileSync(w.lock, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    expect(w.wheels).toHaveLength(pins.length);
    const own = `${name.replace(/-/g, '_')}-${w.version}-`;
    expect(w.wheels.filter((f) => f.startsWith(own))).toHaveLength(1);
    expect(fs.readdirSync(w.wheelDir).sort()).toEqual(w.wheels);
  });
});

/** Writes a copy of a distribution config into `dir` with a provider entry appended, listening on loopback only. */
function withProvider(configFile: string, dir: string, api: string, entry: Record<string, unknown>): string {
  const config = parse(fs.readFileSync(configFile, 'utf8'));
  config.providers[api] = [...(config.providers[api] ?? []), entry];
  config.server = { ...config.server, host: '127.0.0.1' };
  const out = path.join(dir, path.basename(configFile));
  fs.writeFileSync(out, stringify(config));
  return out;
}

interface Server {
  get(route: string): Promise<any>;
  post(route: string, body: unknown): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

/**
 * Starts the server with HOME (and ogx's OGX_CONFIG_DIR and TMPDIR, where `ogx run` >= 1.2 writes the
 * resolved config) in `dir`: `llama stack run <config>` (port: LLAMA_STACK_PORT), or `ogx run <config>`
 * (port: OGX_PORT; `--insecure` where the release refuses plain HTTP otherwise). Waits for
 * GET /v1/health; fails with the server's log.
 */
async function startServer(env: LlamaStackEnv, config: string, dir: string, pythonPath: string): Promise<Server> {
  const port = await freePort();
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const ogx = env.package === 'ogx';
  const tmp = path.join(dir, 'tmp');
  if (ogx) fs.mkdirSync(tmp);
  const args = ogx ? ['run', config, ...(needsInsecure(env.version) ? ['--insecure'] : [])] : ['stack', 'run', config];
  const child = spawn(env.cli, args, {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ...(ogx ? { OGX_PORT: String(port), OGX_CONFIG_DIR: path.join(home, '.ogx'), TMPDIR: tmp } : { LLAMA_STACK_PORT: String(port) }),
      PYTHONPATH: pythonPath,
      ...env.env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => { log += d; });
  child.stderr!.on('data', (d) => { log += d; });
  const base = `http://127.0.0.1:${port}`;
  const stop = () => stopProcess(child);
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null || failedStartUp(log) || Date.now() > deadline) {
      await stop();
      throw new Error(`${env.package} ${env.version} did not start (exit ${child.exitCode}):\n${log.split('\n').slice(-40).join('\n')}`);
    }
    const health: any = await fetch(`${base}/v1/health`).then((r) => r.json(), () => undefined);
    if (health?.status === 'OK') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    get: async (route) => (await fetch(base + route)).json(),
    post: async (route, body) => {
      const r = await fetch(base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: r.status, text: await r.text() };
    },
    stop,
  };
}

/**
 * Whether the log shows a failed start-up: 0.3.5 keeps running after one, so its traceback is the sign;
 * ogx logs `Application startup failed. Exiting.` (and `ogx run` then exits 0).
 * Not the tracebacks Python prints for exceptions it ignores (0.3.5 sometimes logs aiosqlite's
 * `Connection.__del__` failing during a start-up that succeeds).
 */
function failedStartUp(log: string): boolean {
  const lines = log.split('\n');
  return lines.some((line, i) => (line.startsWith('Traceback') && !lines[i - 1]?.startsWith('Exception ignored in'))
    || line.includes('Application startup failed'));
}

/** ogx >= 1.2 exits with "TLS required" unless `--insecure` (or server.insecure) allows plain HTTP. */
function needsInsecure(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major > 1 || (major === 1 && minor >= 2);
}

/** Ends the server's process group (the server and anything it started), by signal, then by force. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGTERM');
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
