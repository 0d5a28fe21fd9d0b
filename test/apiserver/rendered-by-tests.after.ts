/**
 * Run by `npm test` after the main jest run: every object the library rendered in any test (recorded
 * by record-rendered.ts), each distinct one once, sent to the real API server of each tested
 * Kubernetes minor with server-side dry-run and strict field validation, into namespaces that enforce
 * Pod Security `restricted`, with the vendored CRDs installed. Any refusal fails, with the server's
 * message and the test that rendered the object; so does any warning or refusal that is not listed in
 * EXPECTED, where the test that renders the object asks for it on purpose.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, DryRunResult } from './cluster';
import { apiServerVersion, describeWithApiServer, TESTED_MINORS } from './server';
import { apiGroupOf } from '../../src/checks';
import { ManifestValidator } from '../../src/schema/manifest-validator';
import { inCi } from '../sandbox/host';

const DIR = path.resolve(process.env.KIC_RENDERED_DIR ?? '.tmp/rendered-by-tests');
const NAMESPACE = 'kube-inference-tests';

interface Rendered {
  readonly test: string;
  readonly object: any;
}

/** The recorded objects, each distinct one once (with the first test that rendered it). */
function recorded(): Rendered[] {
  const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.ndjson')).sort() : [];
  const seen = new Map<string, Rendered>();
  for (const file of files) {
    for (const line of fs.readFileSync(path.join(DIR, file), 'utf8').split('\n').filter(Boolean)) {
      const entry = JSON.parse(line) as Rendered;
      const key = JSON.stringify(entry.object);
      if (!seen.has(key)) seen.set(key, entry);
    }
  }
  return [...seen.values()];
}

/** What the server says of objects that tests render on purpose, by the test's name. */
const EXPECTED: ReadonlyArray<{ readonly test: RegExp; readonly says: RegExp }> = [
  // The render test checks that render warns of it too.
  { test: /a spread constraint with no labelSelector/, says: /a null labelSelector results in matching no pod/ },
  // Pods that are not `restricted`, asked for (podSecurity.restricted: false, a root image's user, a
  // hostPath volume) to test what Pod Security says: it warns on the Deployment (it would refuse its pods).
  {
    test: /relaxing the restricted profile|relaxed security|default user \(root\)|the server refuses what it should|refuses what restricted refuses/,
    says: /^would violate PodSecurity "restricted:latest"/,
  },
  // The deprecated Dynamo schema, rendered on purpose (an operator before 1.2, or asked for): the server says so.
  { test: /v1alpha1|operator release decides the schema/, says: /nvidia\.com\/v1alpha1 DynamoGraphDeployment is deprecated/ },
  // A third-party provider's own custom resource, defined by the test: no CRD for it exists.
  { test: /third-party-provider\.test\.ts/, says: /no matches for kind "AcmeModel" in version "serving\.acme\.dev\/v1"/ },
];
const expected = (test: string, said: string) => EXPECTED.some((e) => e.test.test(test) && e.says.test(said));

const allObjects = recorded();

test('the tests rendered objects to check (npm test records them)', () => {
  if (allObjects.length === 0 && !inCi()) {
    // eslint-disable-next-line no-console
    console.log(`SKIPPED: no rendered objects recorded in ${DIR}; \`npm test\` records them (KIC_RENDERED_DIR)`);
    return;
  }
  expect(allObjects.length).toBeGreaterThan(0);
});

describe.each(TESTED_MINORS)('Kubernetes %s', (minor) => describeWithApiServer(minor, 'every object the tests rendered, on a real API server', () => {
  let cluster: Cluster;
  /** What the server said of each object, in the order of `objects`: sent once, judged by both tests. */
  let results: DryRunResult[];
  /** The objects sent: those whose CRD this server installs (Cluster.refusedCrds; dry-run.test.ts holds that list). */
  let objects: Rendered[];
  beforeAll(async () => {
    cluster = await Cluster.start(minor);
    objects = allObjects.filter((r) => !cluster.refusedCrds.has(`${apiGroupOf(r.object.apiVersion)}/${r.object.kind}`));
    results = await cluster.dryRun(objects.map((r) => r.object), NAMESPACE);
  }, 780_000);
  afterAll(async () => cluster?.server.stop());

  test('each is accepted, without a warning not asked for', () => {
    const problems: string[] = [];
    results.forEach((r, i) => {
      const { test } = objects[i];
      if (!r.accepted && !expected(test, r.error ?? '')) problems.push(`${test}: ${r.object}: ${r.error}`);
      const unexpected = r.warnings.filter((w) => !expected(test, w));
      if (unexpected.length > 0) problems.push(`${test}: ${r.object}: warning: ${unexpected.join('; ')}`);
    });
    // eslint-disable-next-line no-console
    console.log(`kube-apiserver ${apiServerVersion(minor)} checked ${results.length} distinct objects rendered by the tests`);
    expect(problems).toEqual([]);
  });

  test('validate\'s offline checks of this minor accept each the server accepted', () => {
    const validator = ManifestValidator.withVendoredCrds([], minor);
    const refusedOffline = objects.filter((_, i) => results[i].accepted).flatMap(({ test, object }) => {
      const { valid, violations } = validator.validate(object);
      return valid ? [] : [`${test}: ${object.kind} ${object.metadata?.name}: ${violations.map((v) => `${v.path}: ${v.message}`).join('; ')}`];
    });
    expect(refusedOffline).toEqual([]);
  });
}));
