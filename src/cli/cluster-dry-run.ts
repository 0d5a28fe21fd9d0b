// `validate --server`: objects sent to the user's cluster with server-side dry-run and strict field
// validation, as `kubectl apply --server-side --dry-run=server` sends them. The kubeconfig, its contexts
// and every way of authenticating (certificates, tokens, exec plugins, OIDC) are @kubernetes/client-node's;
// the requests are plain HTTPS, so that the query (`dryRun=All&fieldValidation=Strict`) and the
// server's `Warning` headers are this module's to set and read.
import { existsSync, readFileSync, statSync } from 'fs';
import type * as http from 'http';
import type * as https from 'https';
import { homedir } from 'os';
import { delimiter, join } from 'path';
import type * as ClientNode from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import { apiGroupOf, isRecord } from '../checks';
import { runExecPlugin } from './exec-credential';
import { fileKind } from '../io';

/** Where to find the cluster. */
export interface ClusterTarget {
  /** A kubeconfig file; else $KUBECONFIG, ~/.kube/config or the in-cluster service account. */
  readonly kubeconfig?: string;
  /** A context of the kubeconfig; else its current context. */
  readonly context?: string;
}

/** What the cluster said of one object. */
export interface DryRunVerdict {
  readonly accepted: boolean;
  /** The server's refusal, in its words (when not accepted). */
  readonly message?: string;
  /** The server's `Warning` headers (PodSecurity, deprecated APIs). */
  readonly warnings: readonly string[];
}

/** The cluster cannot be reached or the kubeconfig not read: no object was judged. */
export class ClusterUnreachableError extends Error {}

interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** An answer of the API server. */
interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly warnings: string[];
}

/** `<group>/<version>` or `<version>` (the core group), as the API server names them. */
const API_VERSION = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;

/** The API server's path of an apiVersion: `/api/v1` for the core group, `/apis/<group>/<version>` for the others. */
function apiPath(apiVersion: string): string {
  return `${apiGroupOf(apiVersion) === '' ? '/api' : '/apis'}/${apiVersion}`;
}

/** The field manager the dry-run applies as (nothing is written). */
const FIELD_MANAGER = 'kube-inference-validate';
/** The longest a request may take, answer included: a server that trickles its answer is cut off too. */
const TIMEOUT_MS = 30_000;
/** The largest answer read: far above a dry-run's echo of an object (the API server takes requests of 3 MiB) or a group's discovery. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** The largest kubeconfig read: far above any real one. */
const MAX_KUBECONFIG_BYTES = 4 * 1024 * 1024;
/** The most an exec credential plugin may write: far above any ExecCredential (a token or a certificate). */
const MAX_EXEC_OUTPUT_BYTES = 4 * 1024 * 1024;

/** A connection to one cluster for dry-runs. */
export class ClusterDryRun {
  /** Reads the kubeconfig and picks the context. */
  public static connect(target: ClusterTarget): ClusterDryRun {
    const config = new (clientNode().KubeConfig)();
    // Read by @kubernetes/client-node at once and whole: a FIFO would block it and a device never end.
    for (const file of target.kubeconfig !== undefined ? [target.kubeconfig] : defaultKubeconfigFiles()) checkKubeconfigFile(file);
    try {
      if (target.kubeconfig !== undefined) config.loadFromFile(target.kubeconfig);
      else config.loadFromDefault();
    } catch (e) {
      throw new ClusterUnreachableError(`cannot read the kubeconfig ${target.kubeconfig ?? '(default)'}: ${(e as Error).message}`);
    }
    if (target.context !== undefined) {
      const contexts = config.getContexts().map((c) => c.name);
      if (!contexts.includes(target.context)) {
        throw new ClusterUnreachableError(`the kubeconfig has no context "${target.context}" (it has: ${contexts.join(', ') || 'none'})`);
      }
      config.setCurrentContext(target.context);
    }
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new ClusterUnreachableError(`the kubeconfig's context "${config.getCurrentContext()}" names no cluster`);
    const namespace = config.getContextObject(config.getCurrentContext())?.namespace ?? 'default';
    return new ClusterDryRun(config, cluster.server.replace(/\/+$/, ''), namespace);
  }

  private readonly discovery = new Map<string, Promise<ApiResource[] | undefined>>();
  private authenticated?: Promise<https.RequestOptions>;

  private constructor(private readonly config: ClientNode.KubeConfig, public readonly server: string, private readonly namespace: string) {}

  /** Sends one object with server-side dry-run; what the server says of it. */
  public async dryRun(object: Record<string, unknown>): Promise<DryRunVerdict> {
    const { apiVersion, kind } = object;
    const metadata = isRecord(object.metadata) ? object.metadata : {};
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') return { accepted: false, message: 'not a Kubernetes object: apiVersion and kind must be strings', warnings: [] };
    // The apiVersion becomes part of the request's path: nothing but a group and a version may reach it.
    if (!API_VERSION.test(apiVersion)) return { accepted: false, message: `apiVersion ${JSON.stringify(apiVersion)} is not <group>/<version> or <version>`, warnings: [] };
    const resource = (await this.resources(apiVersion))?.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!resource) return { accepted: false, message: `the cluster serves no ${apiVersion} ${kind} (for a custom resource: is its CRD installed?)`, warnings: [] };
    const base = apiPath(apiVersion);
    const namespace = typeof metadata.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : this.namespace;
    // A name or namespace `.` or `..` would be resolved as a path step, sending the request elsewhere:
    // the API server takes no such name (it may not be a path segment), so it is refused here, unsent. The
    // namespace of a cluster-scoped object is in no path (the API server clears it: rest.BeforeCreate).
    const inPath = resource.namespaced ? [['metadata.name', metadata.name], ['metadata.namespace', namespace]] : [['metadata.name', metadata.name]];
    for (const [field, value] of inPath) {
      if (value === '.' || value === '..') return { accepted: false, message: `${field}: Invalid value: "${value}": may not be '${value}'`, warnings: [] };
    }
    const collection = `${base}${resource.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${resource.name}`;
    const query = `dryRun=All&fieldValidation=Strict&fieldManager=${FIELD_MANAGER}`;
    const body = JSON.stringify(resource.namespaced ? { ...object, metadata: { ...metadata, namespace } } : object);
    // Applied (server-side apply) when named, so an object that exists already is judged as its update;
    // created when only generateName is given.
    const response = typeof metadata.name === 'string' && metadata.name !== ''
      ? await this.request('PATCH', `${collection}/${encodeURIComponent(metadata.name)}?${query}&force=true`, body, 'application/apply-patch+yaml')
      : await this.request('POST', `${collection}?${query}`, body, 'application/json');
    if (response.status >= 200 && response.status < 300) return { accepted: true, warnings: response.warnings };
    const status = parseJson(response.body);
    const message = isRecord(status) && typeof status.message === 'string' ? status.message : `HTTP ${response.status}: ${response.body.slice(0, 500)}`;
    return { accepted: false, message, warnings: response.warnings };
  }

  /** The resources the cluster serves for an apiVersion (discovery, once per apiVersion). */
  private resources(apiVersion: string): Promise<ApiResource[] | undefined> {
    let found = this.discovery.get(apiVersion);
    if (!found) {
      found = this.request('GET', apiPath(apiVersion)).then((r) => {
        if (r.status === 404) return undefined;
        const list = parseJson(r.body);
        if (r.status !== 200 || !isRecord(list) || !Array.isArray(list.resources)) {
          throw new ClusterUnreachableError(`${this.server} answered the discovery of ${apiVersion} with HTTP ${r.status}${isRecord(list) && typeof list.message === 'string' ? `: ${list.message}` : ''}`);
        }
        return list.resources as ApiResource[];
      });
      this.discovery.set(apiVersion, found);
    }
    return found;
  }

  /**
   * What the kubeconfig's user adds to a request (client certificate, CA, token), asked once per run: an
   * exec credential plugin runs once, as client-go runs it once per process, bounded (exec-credential.ts),
   * and is told what client-go tells it in KUBERNETES_EXEC_INFO (an ExecCredential: not interactive, and
   * the cluster when the kubeconfig sets provideClusterInfo).
   */
  private authentication(): Promise<https.RequestOptions> {
    this.authenticated ??= (async () => {
      const options: https.RequestOptions = { headers: {} };
      try {
        const user = this.config.getCurrentUser();
        const exec = user?.exec;
        if (!user || !isRecord(exec)) {
          await this.config.applyToHTTPSOptions(options);
          return options;
        }
        const credential = await runExecPlugin(exec, this.execInfo(exec), { timeoutMs: TIMEOUT_MS, maxBytes: MAX_EXEC_OUTPUT_BYTES });
        // The cluster's CA and TLS settings, and the user's other fields, from the same kubeconfig without the plugin.
        const withoutExec = new (clientNode().KubeConfig)();
        withoutExec.loadFromOptions({
          clusters: this.config.clusters,
          contexts: this.config.contexts,
          currentContext: this.config.currentContext,
          users: this.config.users.map((u) => (u === user ? { ...u, exec: undefined } : u)),
        });
        await withoutExec.applyToHTTPSOptions(options);
        if (credential.clientCertificateData !== undefined) options.cert = credential.clientCertificateData;
        if (credential.clientKeyData !== undefined) options.key = credential.clientKeyData;
        if (credential.token !== undefined) options.headers = { ...options.headers, Authorization: `Bearer ${credential.token}` };
      } catch (e) {
        throw new ClusterUnreachableError(`cannot authenticate to ${this.server}: ${(e as Error).message}`);
      }
      return options;
    })();
    return this.authenticated;
  }

  /** The ExecCredential client-go gives an exec plugin (k8s.io/client-go/plugin/pkg/client/auth/exec: ExecCredential's spec). */
  private execInfo(exec: Record<string, unknown>): Record<string, unknown> {
    const cluster = this.config.getCurrentCluster();
    const info = exec.provideClusterInfo === true && cluster ? {
      server: cluster.server,
      ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
      ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(cluster.caData || cluster.caFile ? { 'certificate-authority-data': cluster.caData ?? readFileSync(cluster.caFile!).toString('base64') } : {}),
    } : undefined;
    return { apiVersion: exec.apiVersion, kind: 'ExecCredential', spec: { interactive: false, ...(info ? { cluster: info } : {}) } };
  }

  private async request(method: string, path: string, body?: string, contentType?: string): Promise<HttpAnswer> {
    const url = new URL(`${this.server}${path}`);
    const auth = await this.authentication();
    const options: https.RequestOptions = {
      ...auth,
      method,
      hostname: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      headers: { ...auth.headers, Accept: 'application/json', ...(contentType ? { 'Content-Type': contentType } : {}) },
    };
    return new Promise((resolve, reject) => {
      // Loaded here, not with the CLI: every other command would pay for them at start-up.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const client = (url.protocol === 'http:' ? require('http') : require('https')) as typeof http | typeof https;
      const req = client.request(options, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (bytes > MAX_ANSWER_BYTES) req.destroy(new Error(`its answer to ${method} ${url.pathname} exceeds ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`));
          else chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), warnings: warningTexts(res.headers.warning) });
        });
        res.on('error', (e) => reject(new ClusterUnreachableError(`${this.server}: ${e.message}`)));
      });
      const deadline = setTimeout(() => req.destroy(new Error(`no complete answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
      req.on('error', (e) => {
        clearTimeout(deadline);
        reject(new ClusterUnreachableError(`cannot reach ${this.server}: ${e.message}`));
      });
      req.end(body);
    });
  }
}

/** The files @kubernetes/client-node's loadFromDefault reads: those $KUBECONFIG lists, else ~/.kube/config if there is one. */
function defaultKubeconfigFiles(): string[] {
  const listed = (process.env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (listed.length > 0) return listed;
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

/** A kubeconfig must be a regular file of a sane size: one that is not fails the run naming it, before anything reads it. */
function checkKubeconfigFile(file: string): void {
  let stat;
  try {
    stat = statSync(file);
  } catch (e) {
    // A file that does not exist is the loader's to report.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new ClusterUnreachableError(`cannot read the kubeconfig ${file}: ${(e as Error).message}`);
  }
  if (!stat.isFile()) throw new ClusterUnreachableError(`the kubeconfig ${file} is ${fileKind(stat)}, not a regular file: give the path of a kubeconfig file`);
  if (stat.size > MAX_KUBECONFIG_BYTES) {
    throw new ClusterUnreachableError(`the kubeconfig ${file} is ${stat.size} bytes; the most read is ${MAX_KUBECONFIG_BYTES / 1024 / 1024} MiB: is it a kubeconfig?`);
  }
}

/**
 * @kubernetes/client-node, an ES module loaded only for --server (Node ≥ 20.19 requires it
 * synchronously). It is an optional peer dependency, which the project installs when it asks the
 * cluster; the merge image's CLI is built without it.
 */
function clientNode(): typeof ClientNode {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@kubernetes/client-node') as typeof ClientNode;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    throw new ClusterUnreachableError('validate --server needs the package @kubernetes/client-node (kubeconfig and cluster authentication), '
      + 'an optional peer dependency this installation lacks: install it beside kube-inference-constructs '
      + `(npm install @kubernetes/client-node@${CLIENT_NODE_RANGE}), or validate offline without --server.`);
  }
}

/** The release line of @kubernetes/client-node the command is built and tested with (2.x needs Node 22). */
const CLIENT_NODE_RANGE = '^1.4.0';

/** The texts of `Warning: 299 - "text"` headers (RFC 7234), as kubectl prints them. */
export function warningTexts(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return values.flatMap((v) => [...v.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1')));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
