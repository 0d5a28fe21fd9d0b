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
import { apiGroupOf } from '../../src/checks';

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
  /** Starts the API server of a Kubernetes minor, with the vendored CRDs installed. */
  public static async start(minor: string): Promise<Cluster> {
    const cluster = new Cluster(await ApiServer.start(minor));
    try {
      await cluster.installVendoredCrds();
    } catch (e) {
      await cluster.server.stop();
      throw e;
    }
    return cluster;
  }

  /**
   * Vendored CRDs this server refuses to install, by `group/kind`, with its message: Dynamo's (operator
   * main after 1.5) has CEL rules with `optionalOldSelf`, which Kubernetes 1.29 cannot compile. Objects
   * of these kinds are not sent (see {@link dryRun}); dry-run.test.ts holds the list to exactly that.
   */
  public readonly refusedCrds = new Map<string, string>();

  /** The resources of each apiVersion by kind, discovered once (concurrent callers wait for the same read). */
  private readonly discovered = new Map<string, Promise<Map<string, Resource>>>();
  private readonly namespaces = new Set<string>();

  public constructor(public readonly server: ApiServer) {}

  /** Installs every CRD of crds/ and waits until each is established. */
  public async installVendoredCrds(): Promise<void> {
    const files = fs.readdirSync(CRDS_DIR).filter((f) => f.endsWith('.yaml')).sort();
    for (const file of files) {
      for (const doc of parseAllDocuments(fs.readFileSync(path.join(CRDS_DIR, file), 'utf8'))) {
        const crd = doc.toJS({ maxAliasCount: -1 });
        // The operator's conversion webhook (Dynamo's: v1alpha1 ↔ v1beta1) does not run here. Without it
        // the server still checks each version against its own schema and CEL rules, but an object of a
        // version other than the storage version is stored unconverted, and reads back pruned: tests
        // store objects of the storage version (Dynamo's v1beta1) and only dry-run the others.
        if (crd.spec?.conversion?.strategy === 'Webhook') crd.spec.conversion = { strategy: 'None' };
        const r = await this.server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
        if (r.status === 422 && /x-kubernetes-validations.*compilation failed/s.test(r.body?.message ?? '')) {
          this.refusedCrds.set(`${crd.spec.group}/${crd.spec.names.kind}`, r.body.message);
          continue;
        }
        if (r.status !== 201 && r.status !== 409) throw new Error(`installing ${file}: ${r.status} ${r.body?.message ?? JSON.stringify(r.body)}`);
        await this.until(async () => {
          const got = await this.server.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
          return (got.body?.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True');
        }, `CRD ${crd.metadata.name} established`);
      }
    }
    this.discovered.clear(); // the CRDs' groups are served now
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
      // 422: not a valid namespace name; the object naming it is then refused in the server's words.
      if (r.status !== 201 && r.status !== 409 && r.status !== 422) throw new Error(`creating namespace ${name}: ${r.status} ${r.body?.message}`);
      // Its `default` ServiceAccount, as kube-controller-manager (which does not run here) creates it:
      // the ServiceAccount admission plugin refuses pods without it.
      if (r.status === 201) {
        const sa = await this.server.request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
        if (sa.status !== 201) throw new Error(`creating the default ServiceAccount of ${name}: ${sa.status} ${sa.body?.message}`);
      }
    }
  }

  /**
   * Sends each object with `dryRun=All` and `fieldValidation=Strict`, in `defaultNamespace` when it
   * names none. The namespaces the objects name are created first, as a user would, unless
   * `createNamed` is false. Nothing else is stored. Objects whose CRD this server refused to install
   * ({@link refusedCrds}) are not sent, and not in the results.
   */
  public async dryRun(objects: readonly any[], defaultNamespace: string, createNamed = true): Promise<DryRunResult[]> {
    const named = createNamed ? objects.map((o) => o.metadata?.namespace).filter((n): n is string => typeof n === 'string') : [];
    await this.createNamespaces([defaultNamespace, ...named]);
    const results: DryRunResult[] = [];
    for (const o of objects.filter((x) => !this.refusedCrds.has(`${apiGroupOf(x.apiVersion)}/${x.kind}`))) {
      const resource = await this.resourceOf(o.apiVersion, o.kind);
      if (!resource) {
        // What kubectl says when discovery knows no such kind: nothing is sent.
        results.push({ object: `${o.kind} ${o.metadata?.name}`, accepted: false, error: `no matches for kind "${o.kind}" in version "${o.apiVersion}"`, warnings: [] });
        continue;
      }
      const namespace = o.metadata?.namespace ?? defaultNamespace;
      const object = `${o.kind} ${resource.namespaced ? `${namespace}/` : ''}${o.metadata?.name}`;
      const url = `${pathOf(o.apiVersion, resource, namespace)}?dryRun=All&fieldValidation=Strict&fieldManager=kube-inference-tests`;
      const r = await this.server.request('POST', url, resource.namespaced ? { ...o, metadata: { ...o.metadata, namespace } } : o);
      results.push(r.status === 201 || r.status === 200
        ? { object, accepted: true, warnings: r.warnings }
        : { object, accepted: false, error: `${r.status} ${r.body?.message ?? JSON.stringify(r.body)}`, warnings: r.warnings });
    }
    return results;
  }

  /** The path of the collection an object is created in (`/api/v1/namespaces/ns/configmaps`). */
  public async collectionOf(o: any, defaultNamespace: string): Promise<string> {
    const resource = await this.resourceOf(o.apiVersion, o.kind);
    if (!resource) throw new Error(`the server serves no ${o.apiVersion} ${o.kind}`);
    return pathOf(o.apiVersion, resource, o.metadata?.namespace ?? defaultNamespace);
  }

  /** The resource (plural, scope) of a kind, from the server's discovery; undefined when it serves none. */
  private async resourceOf(apiVersion: string, kind: string): Promise<Resource | undefined> {
    let discovery = this.discovered.get(apiVersion);
    if (!discovery) {
      discovery = this.discover(apiVersion);
      this.discovered.set(apiVersion, discovery);
    }
    return (await discovery).get(kind);
  }

  /** The resources an apiVersion serves, by kind (none when the server does not serve it). */
  private async discover(apiVersion: string): Promise<Map<string, Resource>> {
    const r = await this.server.request('GET', apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
    if (r.status !== 200 && r.status !== 404) throw new Error(`discovery of ${apiVersion}: ${r.status} ${r.body?.message}`);
    const resources = (r.status === 200 ? r.body.resources as any[] : []).filter((res) => !res.name.includes('/'));
    return new Map(resources.map((res) => [res.kind, { plural: res.name, namespaced: res.namespaced }]));
  }

  private async until(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function pathOf(apiVersion: string, resource: Resource, namespace: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}${resource.namespaced ? `/namespaces/${namespace}` : ''}/${resource.plural}`;
}
