/**
 * What the tests do with the real API server: install the vendored CRDs, create namespaces that
 * enforce the Pod Security `restricted` profile, and send rendered objects with server-side dry-run
 * and strict field validation (`kubectl apply --dry-run=server`, whose field validation is `Strict`
 * since Kubernetes 1.27), reporting the server's errors and warnings per object.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ApiServer } from './server';

const CRDS_DIR = path.join(__dirname, '..', '..', 'crds');

/** How the server took one object. */
export interface DryRunResult {
  /** `Kind namespace/name`. */
  readonly object: string;
  readonly accepted: boolean;
  /** The server's message when it refused the object. */
  readonly error?: string;
  /** The server's warnings (PodSecurity, deprecated APIs). */
  readonly warnings: string[];
}

interface Resource {
  readonly plural: string;
  readonly namespaced: boolean;
}

/** A test's view of the server: discovery, CRDs, namespaces and dry-run creates. */
export class Cluster {
  private resources = new Map<string, Resource>();
  private readonly namespaces = new Set<string>();

  public constructor(public readonly server: ApiServer) {}

  /** Installs every CRD of crds/ and waits until each is established. */
  public async installVendoredCrds(): Promise<void> {
    const files = fs.readdirSync(CRDS_DIR).filter((f) => f.endsWith('.yaml')).sort();
    for (const file of files) {
      for (const doc of parseAllDocuments(fs.readFileSync(path.join(CRDS_DIR, file), 'utf8'))) {
        const crd = doc.toJS({ maxAliasCount: -1 });
        const r = await this.server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
        if (r.status !== 201 && r.status !== 409) throw new Error(`installing ${file}: ${r.status} ${r.body?.message ?? JSON.stringify(r.body)}`);
        await this.until(async () => {
          const got = await this.server.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
          return (got.body?.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True');
        }, `CRD ${crd.metadata.name} established`);
      }
    }
    this.resources.clear();
  }

  /** Creates the namespaces (really, not dry-run), labelled to enforce Pod Security `restricted`. */
  public async createNamespaces(names: Iterable<string>): Promise<void> {
    for (const name of names) {
      if (this.namespaces.has(name)) continue;
      this.namespaces.add(name);
      const r = await this.server.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } },
      });
      if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${name}: ${r.status} ${r.body?.message}`);
    }
  }

  /**
   * Sends each object with `dryRun=All` and `fieldValidation=Strict`, in `defaultNamespace` when it
   * names none (the namespaces are created first, as a user would). Nothing else is stored.
   */
  public async dryRun(objects: readonly any[], defaultNamespace: string): Promise<DryRunResult[]> {
    await this.createNamespaces([defaultNamespace, ...objects.map((o) => o.metadata?.namespace).filter((n): n is string => typeof n === 'string')]);
    const results: DryRunResult[] = [];
    for (const o of objects) {
      const resource = await this.resourceOf(o.apiVersion, o.kind);
      const namespace = o.metadata?.namespace ?? defaultNamespace;
      const object = `${o.kind} ${resource.namespaced ? `${namespace}/` : ''}${o.metadata?.name}`;
      const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
      const url = `${base}${resource.namespaced ? `/namespaces/${namespace}` : ''}/${resource.plural}?dryRun=All&fieldValidation=Strict&fieldManager=kube-inference-tests`;
      const r = await this.server.request('POST', url, resource.namespaced ? { ...o, metadata: { ...o.metadata, namespace } } : o);
      results.push(r.status === 201 || r.status === 200
        ? { object, accepted: true, warnings: r.warnings }
        : { object, accepted: false, error: `${r.status} ${r.body?.message ?? JSON.stringify(r.body)}`, warnings: r.warnings });
    }
    return results;
  }

  /** The resource (plural, scope) of a kind, from the server's discovery. */
  private async resourceOf(apiVersion: string, kind: string): Promise<Resource> {
    const key = `${apiVersion}/${kind}`;
    if (!this.resources.has(key)) {
      const r = await this.server.request('GET', apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
      if (r.status !== 200) throw new Error(`the server serves no ${apiVersion} (${r.status}): is its CRD installed?`);
      for (const res of r.body.resources as any[]) {
        if (!res.name.includes('/')) this.resources.set(`${apiVersion}/${res.kind}`, { plural: res.name, namespaced: res.namespaced });
      }
    }
    const found = this.resources.get(key);
    if (!found) throw new Error(`the server serves no kind ${kind} in ${apiVersion}`);
    return found;
  }

  private async until(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
