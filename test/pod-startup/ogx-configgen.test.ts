/**
 * The OGX operator's own config-generator cases (cmd/configgen/testdata of ogx-ai/ogx-k8s-operator
 * v0.14.0, in test/fixtures/ogx-configgen) served by the real ogx server: each case's OGXServer spec
 * and base config go through the construct (`declarativeConfig` over `userConfig`), which generates
 * the config at synth time as the operator would (test/run-config/ogx-configgen.test.ts compares it
 * with the operator's want-config.yaml key for key); the rendered pod then runs in the sandbox, on a
 * pod network of its own (the cases' own ports), with the Secrets the spec references, and the real
 * `ogx run` must serve `GET /v1/health` with it — or fail exactly as upstream's data makes it fail:
 *
 * - three cases get a provider type from the operator that no ogx release registers: the construct
 *   refuses them at synth (the real server refuses the operator's config: "Provider
 *   `inline::batch-reference` is not available for API `Api.batches`");
 * - four cases' base configs (the test data's, minimal) lack an API their provider depends on, and the
 *   server says which;
 * - the six rh-* cases' base is a distribution config of PostgreSQL stores: the server accepts the
 *   config and then cannot reach PostgreSQL, which this machine does not run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { deploymentOf, describeWithLlamaStack, OGX, ogxDistribution, POD_TIMEOUT_MS, renderStack, Scenario } from './helpers';
import { describeWhen } from '../sandbox/host';
import { PodNetwork, podNetworkSupport } from '../sandbox/pod-network';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'ogx-configgen');
const CASES = fs.readdirSync(FIXTURES)
  .filter((name) => fs.statSync(path.join(FIXTURES, name)).isDirectory() && !fs.existsSync(path.join(FIXTURES, name, 'want-err')))
  .sort();
const read = (name: string, file: string): string => fs.readFileSync(path.join(FIXTURES, name, file), 'utf8');

/** The Secrets a pod's containers read through `secretKeyRef`, each key with a placeholder value of the shape the config needs. */
function referencedSecrets(deployment: any): Record<string, Record<string, string>> {
  const secrets: Record<string, Record<string, string>> = {};
  for (const c of deployment.spec.template.spec.containers) {
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      // ogx checks a PostgreSQL connection string's scheme when it reads the config.
      if (ref) (secrets[ref.name] ??= {})[ref.key] = ref.key.includes('conn') ? 'postgresql://ogx:ogx@127.0.0.1:5432/ogx' : `test-${ref.key}`;
    }
  }
  return secrets;
}

/** Cases whose typed provider the operator writes with a type no ogx release registers: refused at synth. */
const REFUSED: Readonly<Record<string, string>> = {
  'p1-batches-config': 'inline::batch-reference',
  'p1-filesearch-config': 'inline::rag-runtime',
  'p1-responses-config': 'inline::responses',
};
/** How the real server ends when the case's base config cannot serve it, in the server's own words. */
const SERVER_REFUSES: Readonly<Record<string, string>> = {
  'p1-fileprocessors-config': "Failed to resolve 'file_processors' provider 'remote-docling-serve' of type 'remote::docling-serve': required dependency 'files' is not available.",
  'p1-milvus-config': "Failed to resolve 'vector_io' provider 'remote-milvus' of type 'remote::milvus': required dependency 'inference' is not available.",
  'p1-pgvector-config': "Failed to resolve 'vector_io' provider 'remote-pgvector' of type 'remote::pgvector': required dependency 'inference' is not available.",
  'p1-qdrant-config': "Failed to resolve 'vector_io' provider 'remote-qdrant' of type 'remote::qdrant': required dependency 'inference' is not available.",
  // The stores of the rh-* base (and rh-override-storage's sql_default) are PostgreSQL on localhost:5432.
  ...Object.fromEntries(CASES.filter((name) => name.startsWith('rh-')).map((name) => [name, "Connect call failed ('127.0.0.1', 5432)"])),
};

/** A log's text with the server's line wrapping undone (its structured log folds long lines). */
const unwrapped = (logs: string): string => logs.replace(/\s*\n\s*/g, ' ');

describeWhen('the OGX operator\'s config-generator cases', podNetworkSupport(), 'a pod network (root, iproute2, iptables)', () => {
  describeWithLlamaStack(`served by the real ogx ${OGX}`, { versions: [OGX] }, () => {
    const image = ogxDistribution(OGX);
    let s: Scenario;
    let network: PodNetwork;
    beforeAll(() => {
      s = new Scenario('configgen');
      s.distribution({}, image, OGX);
      network = PodNetwork.create();
    });
    afterAll(() => {
      s?.dispose();
      network?.dispose();
    });

    const renderCase = (name: string) => {
      const spec = parse(read(name, 'cr.yaml')).spec;
      return renderStack({
        distribution: { image },
        port: spec.network?.port ?? 8321,
        userConfig: { config: read(name, 'base.yaml') },
        declarativeConfig: spec,
      });
    };
    /** What became of a case's pod: how it ended, the server's log, and its health answer when it runs. */
    interface Outcome { readonly phase: string; readonly logs: string; readonly health?: unknown; readonly describe: string }
    const serve = async (name: string): Promise<Outcome> => {
      const manifests = renderCase(name);
      const pod = await s.run(manifests, { serve: {}, network, secrets: referencedSecrets(deploymentOf(manifests)) });
      try {
        const health = pod.phase === 'Running' ? (await pod.server!.request('GET', '/v1/health')).body : undefined;
        return { phase: pod.phase, logs: pod.container('ogx').logs, health, describe: pod.describe() };
      } finally {
        await pod.stop();
      }
    };
    // The pods run two at a time (the machine's two cores; each pod has its own network namespace, so the
    // cases' ports do not meet), started before the tests, each of which waits for its own.
    const outcomes = new Map<string, Promise<Outcome>>();
    beforeAll(() => {
      const lanes = [Promise.resolve(), Promise.resolve()];
      CASES.filter((name) => !(name in REFUSED)).forEach((name, i) => {
        const outcome = lanes[i % lanes.length].then(() => serve(name));
        lanes[i % lanes.length] = outcome.then(() => undefined, () => undefined);
        outcome.catch(() => undefined); // its test reports it
        outcomes.set(name, outcome);
      });
    });

    test.each(CASES)('%s: the config generated at synth time from its OGXServer and base config', async (name) => {
      if (name in REFUSED) {
        expect(() => renderCase(name)).toThrow(`gets provider_type ${REFUSED[name]}, which no ogx release registers`);
        return;
      }
      const outcome = await outcomes.get(name)!;
      if (name in SERVER_REFUSES) {
        expect(outcome.phase).toBe('Failed');
        expect(unwrapped(outcome.logs)).toContain(SERVER_REFUSES[name]);
      } else {
        if (outcome.phase !== 'Running') throw new Error(`the server did not come up:\n${outcome.describe}`);
        expect(outcome.health).toEqual({ status: 'OK' });
      }
    }, 2 * POD_TIMEOUT_MS); // its own pod, and the one ahead of it in its lane, each bounded by the pod's time-out
  });
});
