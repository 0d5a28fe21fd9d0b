/**
 * The gap between `validate`'s offline checks and a real API server, measured: every hand-made broken
 * object of broken-objects.ts is sent to the API server of each tested minor (server-side dry-run,
 * strict field validation), which must refuse it naming the field; `validate --target-version <minor>`
 * must report the same field, except for the objects marked `serverOnly`, which it must let through
 * (docs/validate.md lists them: when validate learns one, the list must change with it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BROKEN_OBJECTS, VALID_OBJECTS } from './broken-objects';
import { Cluster } from './cluster';
import { ApiServer, describeWithApiServer, TESTED_MINORS } from './server';
import { cli } from '../cli/run';

const NAMESPACE = 'kube-inference-broken';

describe.each(TESTED_MINORS)('Kubernetes %s', (minor) => describeWithApiServer(minor, 'broken objects: validate and the API server', () => {
  let server: ApiServer;
  let cluster: Cluster;
  beforeAll(async () => {
    server = await ApiServer.start(minor);
    cluster = new Cluster(server);
  }, 180_000);
  afterAll(async () => server?.stop());

  const minorNumber = Number(minor.split('.')[1]);
  const cases = BROKEN_OBJECTS.filter((c) => (c.since === undefined || minorNumber >= c.since) && (c.before === undefined || minorNumber < c.before));

  test('the server refuses each, naming the field; validate catches all but the documented gap', async () => {
    const wrong: string[] = [];
    let caught = 0;
    for (const c of cases) {
      const [online] = await cluster.dryRun([c.object], NAMESPACE, false);
      if (online.accepted || !online.error?.includes(c.serverSays ?? c.field)) wrong.push(`${c.what}: the server ${online.accepted ? 'accepted it' : `said: ${online.error}`}`);
      const offline = await cli(['validate', '--target-version', minor, '-'], { stdin: JSON.stringify(c.object) });
      const named = offline.stderr.split('\n').some((l) => l.startsWith('error: ') && (l.includes(`): ${c.field}: `) || l.includes(`): ${c.field}.`) || l.includes(`): ${c.field}[`)));
      if (named) caught++;
      if (c.serverOnly ? offline.code !== 0 : !named) wrong.push(`${c.what}: validate ${c.serverOnly ? 'refused it (take serverOnly off, and it off docs/validate.md)' : `did not name ${c.field}`}:\n${offline.stderr}`);
    }
    // eslint-disable-next-line no-console
    console.log(`Kubernetes ${minor}: the API server refused ${cases.length} broken objects; validate caught ${caught} offline, ${cases.length - caught} only the server`);
    expect(wrong).toEqual([]);
  }, 120_000);

  test('their valid counterparts: the server and validate accept each', async () => {
    const results = await cluster.dryRun(VALID_OBJECTS, NAMESPACE, false);
    expect(results.filter((r) => !r.accepted)).toEqual([]);
    const offline = await cli(['validate', '--target-version', minor, '-'], { stdin: VALID_OBJECTS.map((o) => JSON.stringify(o)).join('\n---\n') });
    expect(offline.stderr).toBe(`${VALID_OBJECTS.length} object(s): ${VALID_OBJECTS.length} valid, 0 invalid, 0 without a schema (Kubernetes ${minor})\n`);
  });
}));

test('docs/validate.md lists what only the server catches: the objects marked serverOnly, no others', () => {
  const docs = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'validate.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### What only the server catches'));
  const listed = section.split('\n\n').find((block) => block.startsWith('- '))!.split('\n').map((l) => l.replace(/^- /, ''));
  expect(listed).toEqual(BROKEN_OBJECTS.filter((c) => c.serverOnly).map((c) => c.what));
});
