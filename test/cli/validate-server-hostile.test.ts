/**
 * `kube-inference validate --server` (the bundled CLI, as a user runs it) against a hostile cluster: a
 * local HTTP server that answers with terminal escape sequences, trickles its answer or never ends it,
 * and kubeconfigs that are not files or name contexts with escape sequences. Every case ends in one line
 * on stderr, exit 1, within the bounds the command names, and nothing from outside reaches the terminal raw.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { runBuiltCliAsync } from './built-cli';

const CONFIG_MAP = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { a: 'b' } });
/** Clears the screen, writes the clipboard (OSC 52), rings, returns the cursor; and a bidirectional override. */
const HOSTILE_TEXT = '\u001b[2J\u001b]52;c;ZXZpbA==\u0007\rreordered: \u202egnp.exe';

/**
 * `validate --server <args> -` on `input`, the user's kubeconfig out of reach unless `env` names one; not
 * blocking this process (the hostile server answers from it).
 */
async function validate(args: string[], env: NodeJS.ProcessEnv = {}, input = CONFIG_MAP): Promise<{ code: number | null; stderr: string }> {
  const { code, stderr } = await runBuiltCliAsync(['validate', '--server', ...args, '-'], { input, env: { KUBECONFIG: '', ...env } });
  return { code, stderr };
}

describe('validate --server against a hostile cluster', () => {
  let dir: string;
  let server: Server;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  let kubeconfig: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kic-hostile-cluster-'));
    server = createServer((req, res) => answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kubeconfig = join(dir, 'kubeconfig.json');
    writeFileSync(kubeconfig, JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'hostile', cluster: { 'server': `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: `ctx${HOSTILE_TEXT}`, context: { cluster: 'hostile', user: 'u' } }],
      ['current-context']: `ctx${HOSTILE_TEXT}`,
    }));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Discovery of v1 serves ConfigMaps; everything else goes to `other`. */
  const serving = (other: (req: IncomingMessage, res: ServerResponse) => void) => (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/api/v1') {
      res.end(JSON.stringify({ resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }, { name: 'namespaces', kind: 'Namespace', namespaced: false }] }));
    } else {
      other(req, res);
    }
  };

  test('a refusal with escape sequences in its message is shown, not obeyed', async () => {
    answer = serving((_, res) => {
      res.statusCode = 422;
      res.end(JSON.stringify({ kind: 'Status', message: `ConfigMap "a" is invalid: ${HOSTILE_TEXT}` }));
    });
    const r = await validate(['--kubeconfig', kubeconfig]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: <stdin> document 1 (ConfigMap "a"): ConfigMap "a" is invalid: '
      + '\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u000dreordered: \\u202egnp.exe\n');
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  test('context names with escape sequences are shown, not obeyed', async () => {
    const r = await validate(['--kubeconfig', kubeconfig, '--context', 'prod']);
    expect(r).toEqual({ code: 1, stderr: 'error: the kubeconfig has no context "prod" (it has: ctx\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u000dreordered: \\u202egnp.exe)\n' });
  });

  test('an answer larger than 16 MiB is cut off', async () => {
    answer = (_, res) => {
      res.write(`{"resources": ["${'x'.repeat(17 * 1024 * 1024)}`);
      res.end('"]}');
    };
    const r = await validate(['--kubeconfig', kubeconfig]);
    expect(r).toEqual({ code: 1, stderr: expect.stringMatching(/^error: cannot reach http:\/\/127\.0\.0\.1:\d+: its answer to GET \/api\/v1 exceeds 16 MiB\n$/) });
  });

  test('an answer trickled one byte at a time is cut off after 30 s', async () => {
    const timers: NodeJS.Timeout[] = [];
    answer = (_, res) => {
      res.writeHead(200);
      timers.push(setInterval(() => res.write(' '), 1000));
    };
    try {
      const r = await validate(['--kubeconfig', kubeconfig]);
      expect(r).toEqual({ code: 1, stderr: expect.stringMatching(/^error: cannot reach http:\/\/127\.0\.0\.1:\d+: no complete answer within 30 s\n$/) });
    } finally {
      timers.forEach(clearInterval);
    }
  });

  test('an object named . or .. is refused unsent: it would turn the request into another', async () => {
    const requests: string[] = [];
    answer = serving((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('{}');
    });
    for (const name of ['.', '..']) {
      const r = await validate(['--kubeconfig', kubeconfig], {}, CONFIG_MAP.replace('"name":"a"', `"name":"${name}"`));
      expect(r.stderr).toContain(`metadata.name: Invalid value: "${name}": may not be '${name}'`);
      expect(r.code).toBe(1);
    }
    const namespaced = await validate(['--kubeconfig', kubeconfig], {}, CONFIG_MAP.replace('"namespace":"default"', '"namespace":".."'));
    expect(namespaced.stderr).toContain('metadata.namespace: Invalid value: "..": may not be \'..\'');
    expect(requests).toEqual([]);
    // A cluster-scoped object's namespace is in no path: the API server clears it, and judges the object.
    const namespace = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', namespace: '..' } });
    expect(await validate(['--kubeconfig', kubeconfig], {}, namespace)).toMatchObject({ code: 0 });
    expect(requests).toEqual([expect.stringMatching(/^PATCH \/api\/v1\/namespaces\/x\?/)]);
  });

  describe('an exec credential plugin', () => {
    /** A kubeconfig whose user runs `script` with node as its exec credential plugin. */
    const withPlugin = (script: string, apiVersion = 'client.authentication.k8s.io/v1'): string => {
      const plugin = join(dir, 'plugin.js');
      writeFileSync(plugin, script);
      const config = JSON.parse(readFileSync(kubeconfig, 'utf8'));
      const file = join(dir, 'exec-kubeconfig.json');
      writeFileSync(file, JSON.stringify({ ...config, users: [{ name: 'u', user: { exec: { apiVersion, command: process.execPath, args: [plugin] } } }] }));
      return file;
    };
    const CREDENTIAL = 'console.log(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "t" } }));';

    test('gives the token of its ExecCredential', async () => {
      const tokens: Array<string | undefined> = [];
      answer = serving((req, res) => {
        tokens.push(req.headers.authorization);
        res.end('{}');
      });
      expect(await validate(['--kubeconfig', withPlugin(CREDENTIAL)])).toMatchObject({ code: 0 });
      expect(tokens).toEqual(['Bearer t']);
    });

    test('that never ends is killed after 30 s', async () => {
      const r = await validate(['--kubeconfig', withPlugin('setInterval(() => {}, 1000);')]);
      expect(r).toEqual({ code: 1, stderr: expect.stringMatching(/^error: cannot authenticate to http:\/\/127\.0\.0\.1:\d+: the exec credential plugin ".*" did not finish within 30 s\n$/) });
    });

    test('that writes without end is killed past 4 MiB', async () => {
      const r = await validate(['--kubeconfig', withPlugin('const b = "x".repeat(65536); (function w() { process.stdout.write(b, w); })();')]);
      expect(r).toEqual({ code: 1, stderr: expect.stringMatching(/: the exec credential plugin ".*" wrote more than 4 MiB\n$/) });
    });

    test('that fails: its words, escaped; another apiVersion or no credential: named', async () => {
      const failed = await validate(['--kubeconfig', withPlugin(`process.stderr.write(${JSON.stringify(HOSTILE_TEXT)}); process.exit(3);`)]);
      expect(failed.stderr).toContain('failed (exit 3): \\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u000dreordered: \\u202egnp.exe\n');
      expect(failed.code).toBe(1);
      const other = await validate(['--kubeconfig', withPlugin(CREDENTIAL, 'client.authentication.k8s.io/v1beta1')]);
      expect(other.stderr).toMatch(/is configured to use API version client\.authentication\.k8s\.io\/v1beta1, but wrote version client\.authentication\.k8s\.io\/v1\n$/);
      const none = await validate(['--kubeconfig', withPlugin(CREDENTIAL.replace('token: "t"', ''))]);
      expect(none.stderr).toMatch(/gave neither a token nor a client certificate and key\n$/);
    });
  });

  test('a kubeconfig that is a FIFO or a device: named, and never read', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(await validate(['--kubeconfig', fifo])).toEqual({
      code: 1, stderr: `error: the kubeconfig ${fifo} is a FIFO (named pipe), not a regular file: give the path of a kubeconfig file\n`,
    });
    expect(await validate([], { KUBECONFIG: '/dev/zero' })).toEqual({
      code: 1, stderr: 'error: the kubeconfig /dev/zero is a device, not a regular file: give the path of a kubeconfig file\n',
    });
  });
});
