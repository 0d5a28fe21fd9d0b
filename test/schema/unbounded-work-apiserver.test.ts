/**
 * The red-team finding "Unbounded work" (issue 28) compared with a real API server (the newest tested
 * minor): validate's verdicts on a backtracking `pattern`, a backtracking CEL `matches()`, a CEL rule
 * over the per-call cost limit and a `pattern` Go refuses must be the server's. Also measured: the one
 * difference docs/validate.md states, the CRD-time estimate of a rule's cost, which validate does not make.
 */
import { ALMOST, bound, boundCrd, tags, TRIPLE_ALL, unboundedFields } from './unbounded-work';
import { CrdValidator } from '../../src/schema/crd-validator';
import { Cluster } from '../apiserver/cluster';
import { ApiServer, ApiResponse, describeWithApiServer, NEWEST_TESTED_MINOR } from '../apiserver/server';

/** A list the API server lets a cubic rule over (its estimate ≤ 10M) and whose actual cost is over the per-call limit, in its count and validate's. */
const MAX_ITEMS = 70;
const NAMESPACE = 'default';

describeWithApiServer(NEWEST_TESTED_MINOR, 'unbounded work: validate and the API server', () => {
  let server: ApiServer;
  let cluster: Cluster;
  beforeAll(async () => {
    server = await ApiServer.start(NEWEST_TESTED_MINOR);
    cluster = new Cluster(server);
  }, 180_000);
  afterAll(async () => server?.stop());

  /** Creates a CRD; once it is accepted, waits until its kind is served. */
  async function createCrd(crd: Record<string, unknown>): Promise<ApiResponse> {
    const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    for (let tries = 0; created.status === 201; tries++) {
      const discovery = await server.request('GET', '/apis/example.com/v1');
      if ((discovery.body?.resources ?? []).some((r: any) => r.kind === 'Bound')) break;
      if (tries > 300) throw new Error('example.com/v1 Bound is not served');
      await new Promise((r) => setTimeout(r, 100));
    }
    return created;
  }

  test('a `pattern` Go refuses: the server refuses the CRD, and validate refuses to load it, naming the same field the same way', async () => {
    const crd = boundCrd({ word: { type: 'string', pattern: '^(?!x)' } });
    const created = await createCrd(crd);
    const detail = 'pattern: Invalid value: "^(?!x)": must be a valid regular expression, but isn\'t: error parsing regexp: invalid or unsupported Perl syntax: `(?!`';
    expect({ status: created.status, message: created.body?.message }).toEqual({ status: 422, message: expect.stringContaining(`properties[word].${detail}`) });
    expect(() => new CrdValidator([crd])).toThrow(`properties[word].${detail}`);
  });

  test('a rule over an unbounded list: the server refuses the CRD for its estimated cost; validate evaluates it, within the per-call limit', async () => {
    const created = await createCrd(boundCrd(unboundedFields()));
    expect({ status: created.status, message: created.body?.message }).toEqual({ status: 422, message: expect.stringContaining('estimated rule cost exceeds budget') });
    expect(new CrdValidator([boundCrd(unboundedFields())]).validate(bound({ tags: tags(400) })).violations)
      .toEqual([{ path: 'spec.tags', message: expect.stringContaining('call cost exceeds limit') }]);
  });

  test('with a CRD it accepts, the server and validate give each object the same verdict on the same field', async () => {
    const crd = boundCrd(unboundedFields(MAX_ITEMS));
    expect((await createCrd(crd)).status).toBe(201);
    const validator = new CrdValidator([crd]);
    const costLimit = `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${TRIPLE_ALL}`;
    // Each object, and the field refused with validate's message and the server's (none: accepted).
    const cases: [Record<string, unknown>, string?, string?, string?][] = [
      [{ word: ALMOST }, 'spec.word', 'must match pattern "^(a+)+$"', "spec.word in body should match '^(a+)+$'"],
      [{ word: 'aaa' }],
      [{ letters: ALMOST }, 'spec.letters', 'only as', 'only as'],
      [{ letters: 'aaa' }],
      [{ tags: tags(MAX_ITEMS) }, 'spec.tags', costLimit, costLimit],
      [{ tags: tags(20) }],
    ];
    const objects = cases.map(([spec]) => bound(spec));
    const online = await cluster.dryRun(objects, NAMESPACE);
    // The server's message without its preamble and the value it shows (`Invalid value: "array"`).
    const serverSays = (error = '') => error.replace(/^422 .*? is invalid: /, '').replace(/: Invalid value: "[^"]*": /, ': ');
    expect(objects.map((o, i) => ({ online: online[i].accepted ? [] : [serverSays(online[i].error)], offline: validator.validate(o).violations.map((v) => `${v.path}: ${v.message}`) })))
      .toEqual(cases.map(([, field, ours, theirs]) => (field === undefined ? { online: [], offline: [] } : { online: [`${field}: ${theirs}`], offline: [`${field}: ${ours}`] })));
  }, 120_000);
});
