/**
 * A real Kubernetes API server for the tests: `kube-apiserver` and `etcd` built from the Go module
 * proxy by scripts/test-setup/kubernetes.mjs (k8s.io/kubernetes at each pinned release, etcd at the
 * release that Kubernetes release requires), started on loopback with random ports, a throw-away data
 * directory, self-generated certificates and service-account keys, and stopped after the run.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { warningTexts } from '../../src/cli/cluster-dry-run';
import { goBuild } from '../sandbox/go-builds';
import { describeWhen, freePort, SandboxSupport } from '../sandbox/host';

const SETUP = 'node scripts/test-setup/kubernetes.mjs';

/**
 * The Kubernetes minors tested against a real API server, oldest first: one Go module each in
 * test/kubernetes/<minor>/ (the newest release the library supports and the oldest).
 */
export const TESTED_MINORS: readonly string[] = fs.readdirSync(path.join(__dirname, '..', 'kubernetes'))
  .filter((d) => fs.existsSync(path.join(__dirname, '..', 'kubernetes', d, 'go.mod')))
  .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));

/** The newest minor tested: the one a test that needs one server runs against. */
export const NEWEST_TESTED_MINOR = TESTED_MINORS[TESTED_MINORS.length - 1];

/** The namespace of the context `kubeconfig()` writes. */
export const KUBECONFIG_NAMESPACE = 'kube-inference-cli';

/** The built kube-apiserver and etcd of a minor (scripts/test-setup/kubernetes.mjs), or why there are none. */
const build = (minor: string) => goBuild(`kube-apiserver-${minor}`, ['kube-apiserver', 'etcd'], SETUP);

/** For `describeWhen`: whether the API server of a minor can run here. */
export function apiServerSupport(minor: string): SandboxSupport {
  const b = build(minor);
  return 'reason' in b ? { ok: false, reason: `kube-apiserver: ${b.reason}` } : { ok: true };
}

/** The Kubernetes release of the built API server of a minor, e.g. `v1.37.2`. */
export function apiServerVersion(minor: string): string {
  const b = build(minor);
  return 'reason' in b ? 'unknown' : String(b.info.kubernetesVersion);
}

/**
 * `describe` for tests against the API server of `minor`, named with its release: runs them when it
 * is built; otherwise fails in CI (`CI=true`) and skips with the reason locally.
 */
export function describeWithApiServer(minor: string, title: string, fn: () => void): void {
  describeWhen(`${title} (kube-apiserver ${apiServerVersion(minor)})`, apiServerSupport(minor), `kube-apiserver ${minor} and etcd (built by the test set-up)`, fn);
}

/** A response of the API server. */
export interface ApiResponse {
  readonly status: number;
  readonly body: any;
  /** The `Warning` headers' texts (PodSecurity, deprecated APIs, unknown fields under `Warn`). */
  readonly warnings: string[];
}

/** A running API server and its etcd. */
export class ApiServer {
  /** Starts etcd and the API server of a minor; resolves once `/readyz` answers ok. */
  public static async start(minor: string): Promise<ApiServer> {
    const b = build(minor);
    if ('reason' in b) throw new Error(`kube-apiserver ${minor} cannot run: ${b.reason}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-apiserver-'));
    const [client, peer, secure] = [await freePort(), await freePort(), await freePort()];
    // Each process writes its own log file; the parent's copies of the descriptors are closed once spawned.
    const opened: number[] = [];
    const logs = (name: string) => {
      const fd = fs.openSync(path.join(dir, `${name}.log`), 'a');
      opened.push(fd);
      return fd;
    };
    const etcd = spawn(b.binaries.etcd, [
      '--name', 'test', '--data-dir', path.join(dir, 'etcd'),
      '--listen-client-urls', `http://127.0.0.1:${client}`, '--advertise-client-urls', `http://127.0.0.1:${client}`,
      '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
      '--initial-cluster', `test=http://127.0.0.1:${peer}`, '--log-level', 'warn',
    ], { stdio: ['ignore', logs('etcd'), logs('etcd')] });

    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    fs.writeFileSync(path.join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    fs.writeFileSync(path.join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const token = randomBytes(24).toString('hex');
    fs.writeFileSync(path.join(dir, 'tokens.csv'), `${token},kube-inference-tests,kube-inference-tests,"system:masters"\n`, { mode: 0o600 });
    const certs = path.join(dir, 'certs');
    const apiserver = spawn(b.binaries['kube-apiserver'], [
      '--etcd-servers', `http://127.0.0.1:${client}`,
      '--bind-address', '127.0.0.1', '--advertise-address', '127.0.0.1', '--secure-port', String(secure), '--cert-dir', certs,
      '--service-account-issuer', 'https://kubernetes.default.svc.cluster.local',
      '--service-account-key-file', path.join(dir, 'sa.pub'), '--service-account-signing-key-file', path.join(dir, 'sa.key'),
      '--service-cluster-ip-range', '10.96.0.0/24',
      '--token-auth-file', path.join(dir, 'tokens.csv'), '--authorization-mode', 'RBAC',
      // As clusters set up by kubeadm and the cloud providers: privileged pods are Pod Security's to refuse.
      '--allow-privileged=true',
      // No node runs here: the kubernetes Service would point at the loopback address, which it refuses.
      '--endpoint-reconciler-type', 'none',
    ], { stdio: ['ignore', logs('kube-apiserver'), logs('kube-apiserver')] });
    opened.forEach((fd) => fs.closeSync(fd));

    const deadline = Date.now() + 120_000;
    for (;;) {
      for (const [name, p] of [['etcd', etcd], ['kube-apiserver', apiserver]] as const) {
        if (p.exitCode !== null) {
          throw new Error(`${name} exited ${p.exitCode}:\n${tail(path.join(dir, `${name}.log`))}`);
        }
      }
      const cert = path.join(certs, 'apiserver.crt');
      if (fs.existsSync(cert)) {
        const server = new ApiServer(dir, [apiserver, etcd], secure, fs.readFileSync(cert), token);
        try {
          const r = await server.request('GET', '/readyz');
          if (r.status === 200) return server;
        } catch {
          // not listening yet
        }
      }
      if (Date.now() > deadline) {
        apiserver.kill('SIGKILL');
        etcd.kill('SIGKILL');
        throw new Error(`kube-apiserver was not ready within 120 s:\n${tail(path.join(dir, 'kube-apiserver.log'))}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  private readonly agent: https.Agent;
  private readonly token: string;

  private constructor(
    private readonly dir: string,
    private readonly processes: ChildProcess[],
    private readonly port: number,
    private readonly ca: Buffer,
    token: string,
  ) {
    this.agent = new https.Agent({ ca, keepAlive: true });
    this.token = token;
  }

  /** One request with the test user's token (a member of `system:masters`). */
  public request(method: string, urlPath: string, body?: unknown): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = https.request({
        host: '127.0.0.1',
        port: this.port,
        method,
        path: urlPath,
        agent: this.agent,
        headers: {
          Authorization: `Bearer ${this.token}`,
          Accept: 'application/json',
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}),
        },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const warnings = warningTexts(res.headers.warning);
          let parsed: any = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // plain text (/readyz)
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, warnings });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * Writes a kubeconfig for this server (its CA, the test user's token) with the context `test`, as a
   * user's kubeconfig names a cluster; returns its path.
   */
  public kubeconfig(): string {
    const file = path.join(this.dir, 'kubeconfig.yaml');
    fs.writeFileSync(file, JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster: { 'server': `https://127.0.0.1:${this.port}`, 'certificate-authority-data': this.ca.toString('base64') } }],
      users: [{ name: 'tester', user: { token: this.token } }],
      contexts: [{ name: 'test', context: { cluster: 'local', user: 'tester', namespace: KUBECONFIG_NAMESPACE } }],
      ['current-context']: 'test',
    }), { mode: 0o600 });
    return file;
  }

  /** Stops the API server and etcd and removes their data. */
  public async stop(): Promise<void> {
    this.agent.destroy();
    await Promise.all(this.processes.map((p) => new Promise<void>((resolve) => {
      if (p.exitCode !== null) return resolve();
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
      setTimeout(() => p.kill('SIGKILL'), 5000).unref();
    })));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}
