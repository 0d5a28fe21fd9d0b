import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { cli } from './cli/run';
import { expectUpstreamAdmits } from './upstream/admission';

// Every example is synthesised with the real cdk8s CLI, as a user would, against the compiled
// package (the test task compiles first). The output must equal the manifests committed in the
// example's dist/: stale manifests fail CI (`npx projen synth-examples` refreshes them).
const ROOT = join(__dirname, '..');
const CDK8S = join(ROOT, 'node_modules', '.bin', 'cdk8s');
const EXAMPLES = readdirSync(join(ROOT, 'examples')).filter((d) => existsSync(join(ROOT, 'examples', d, 'cdk8s.yaml'))).sort();

const synth = (example: string): Record<string, string> => {
  const out = mkdtempSync(join(tmpdir(), `synth-${example}-`));
  execFileSync(CDK8S, ['synth', '--no-check-upgrade', '--output', out], { cwd: join(ROOT, 'examples', example), stdio: 'pipe' });
  return Object.fromEntries(readdirSync(out).sort().map((f) => [f, readFileSync(join(out, f), 'utf8')]));
};

describe.each(EXAMPLES)('examples/%s', (example) => {
  let first: Record<string, string>;
  beforeAll(() => {
    first = synth(example);
  });

  test('synthesises with the cdk8s CLI into the committed dist/ manifests', () => {
    const dist = join(ROOT, 'examples', example, 'dist');
    const committed = existsSync(dist)
      ? Object.fromEntries(readdirSync(dist).sort().map((f) => [f, readFileSync(join(dist, f), 'utf8')]))
      : {};
    expect(Object.keys(first).length).toBeGreaterThan(0);
    // On failure: run `npx projen synth-examples` and commit examples/*/dist/.
    expect(first).toEqual(committed);
  });

  test('every rendered object validates against the Kubernetes and CRD schemas (kube-inference validate)', async () => {
    const r = await cli(['validate', '--strict', join(ROOT, 'examples', example, 'dist')]);
    expect(r.stderr).toMatch(/^\d+ object\(s\): \d+ valid, 0 invalid, 0 without a schema \(Kubernetes 1\.37\)\n$/);
    expect(r.code).toBe(0);
  });

  test("upstream's own admission validation accepts every rendered object (where it is available here)", () => {
    const objects = Object.values(first).flatMap((text) => parseAllDocuments(text).map((d) => d.toJS())).filter((o) => o !== null);
    expectUpstreamAdmits(objects);
  });

  test('synthesises identical bytes twice', () => {
    expect(synth(example)).toEqual(first);
  });
});

describe('examples/gitops', () => {
  const docs = (file: string) => parseAllDocuments(readFileSync(join(ROOT, 'examples', 'gitops', file), 'utf8')).map((d) => d.toJS());
  const repository = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository: { url: string } }).repository.url;
  /** The committed manifests of a directory of this repository: every file the sync would apply. */
  const manifestsIn = (dir: string) => readdirSync(join(ROOT, dir)).filter((f) => f.endsWith('.yaml'));

  test('the Argo CD Application syncs a directory of committed manifests of this repository', () => {
    const [app] = docs('argocd-application.yaml');
    expect(app).toMatchObject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', spec: { source: { repoURL: repository, targetRevision: 'main' } } });
    expect(manifestsIn(app.spec.source.path).length).toBeGreaterThan(0);
    // Everything there goes to the destination namespace the Application creates.
    const namespaces = manifestsIn(app.spec.source.path).flatMap((f) => parseAllDocuments(readFileSync(join(ROOT, app.spec.source.path, f), 'utf8')).map((d) => d.toJS().metadata.namespace));
    expect([...new Set(namespaces)]).toEqual([app.spec.destination.namespace]);
  });

  test('the Flux GitRepository and Kustomization sync a directory of committed manifests of this repository', () => {
    const [source, kustomization] = docs('flux-kustomization.yaml');
    expect(source).toMatchObject({ apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', spec: { url: repository, ref: { branch: 'main' } } });
    expect(kustomization).toMatchObject({
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      spec: { sourceRef: { kind: 'GitRepository', name: source.metadata.name }, prune: true },
    });
    expect(manifestsIn(kustomization.spec.path).length).toBeGreaterThan(0);
  });
});
