/**
 * What `kube-inference render` writes, read by the real kubectl (whose reader is sigs.k8s.io/yaml:
 * goyaml.v2's resolution, then JSON) and sent to the real API server with a server-side dry run: every
 * hostile string of a passed-through ConfigMap arrives as given, as a value and as a key. The same
 * ConfigMap as cdk8s's writer puts it (what `cdk8s synth` writes) does not: kubectl reads `0O17` as 15.
 */
import { spawnSync } from 'child_process';
import { Yaml } from 'cdk8s';
import { ApiServer, apiServerSupport } from './server';
import { asInput, CONFIG_KEY_STRINGS, hostileConfigMap } from '../cli/hostile-manifests';
import { cli } from '../cli/run';
import { CLUSTER_MINOR } from '../cluster/node-host';
import { HOSTILE_STRINGS, PLAIN_HOSTILE_STRINGS } from '../run-config/hostile-values';
import { goBuild } from '../sandbox/go-builds';
import { describeWhen, firstUnsupported } from '../sandbox/host';

const kubectlBuild = () => goBuild(`kube-cluster-${CLUSTER_MINOR}`, ['kubectl'], 'node scripts/test-setup/kubernetes.mjs');

/** What goyaml.v2 reads as infinities and NaN, which JSON (and so kubectl) cannot carry. */
const NON_FINITE = /^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/;

/** Strings Go carries: a lone surrogate has no UTF-8 form (kubectl would read U+FFFD). */
const VALUES = HOSTILE_STRINGS.filter((s) => !/[\ud800-\udfff]/u.test(s));

describeWhen(`kubectl ${CLUSTER_MINOR} reads what render writes`, firstUnsupported(
  () => apiServerSupport(CLUSTER_MINOR),
  () => {
    const b = kubectlBuild();
    return 'reason' in b ? { ok: false, reason: `kubectl: ${b.reason}` } : { ok: true };
  },
), `kube-apiserver and kubectl ${CLUSTER_MINOR} (built by the test set-up)`, () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await ApiServer.start(CLUSTER_MINOR);
  });
  afterAll(async () => server?.stop());

  /** `kubectl create -o json -f -` of a manifest text, with a dry run of its kind (`server`: the object as the API server took it). */
  const kubectl = (dryRun: 'client' | 'server', text: string) => {
    const b = kubectlBuild();
    if ('reason' in b) throw new Error(b.reason);
    return spawnSync(b.binaries.kubectl, ['--kubeconfig', server.kubeconfig(), 'create', `--dry-run=${dryRun}`, '--validate=false', '-o', 'json', '-f', '-'],
      { input: text, encoding: 'utf8', timeout: 300_000 });
  };

  test('every hostile string of a passed-through ConfigMap, as a value and as a key, reaches the API server as given', async () => {
    const configMap = hostileConfigMap('hostile', VALUES, CONFIG_KEY_STRINGS);
    const rendered = await cli(['render', '-'], { stdin: asInput([configMap]) });
    expect(rendered).toMatchObject({ code: 0, stderr: '' });
    const r = kubectl('server', rendered.stdout);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).data).toEqual(configMap.data);
  });

  /** kubectl's reading of a manifest text: a client-side dry run prints the object it read, unsent. */
  const kubectlReads = (text: string) => {
    const r = kubectl('client', text);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout);
  };

  test('values written plain in the input read the same to kubectl before and after render passes them through', async () => {
    // Each reader resolves these its own way: render reads its input as kubectl does.
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: default\ndata:\n'
      + PLAIN_HOSTILE_STRINGS.map((s, i) => (NON_FINITE.test(s) ? '' : `  v${i}: ${s}\n`)).join('');
    const rendered = await cli(['render', '-'], { stdin: text });
    expect(rendered).toMatchObject({ code: 0, stderr: '' });
    const before = kubectlReads(text);
    expect(kubectlReads(rendered.stdout)).toEqual(before);
    // What kubectl took for numbers, booleans and nulls among them.
    expect(Object.entries(before.data).filter(([, v]) => typeof v !== 'string').map(([k]) => PLAIN_HOSTILE_STRINGS[Number(k.slice(1))]))
      .toEqual(expect.arrayContaining(['0O17', '0_x1F', '1__0', '1e-7', 'y', '~']));
  });

  test('a plain .inf or .nan, which kubectl cannot send, is refused by render too, naming the field', async () => {
    for (const s of PLAIN_HOSTILE_STRINGS.filter((p) => NON_FINITE.test(p))) {
      const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: default\ndata:\n  a: ${s}\n`;
      expect(kubectl('client', text).stderr)
        .toMatch(/json: unsupported value: (\+Inf|-Inf|NaN)/);
      expect(await cli(['render', '-'], { stdin: text })).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: <stdin> document 1 (ConfigMap "plain"): data.a: a plain .inf or .nan is a number JSON cannot carry, '
          + 'so kubectl cannot send the object (quote it if a string is meant).\n',
      });
    }
  });

  test('cdk8s\'s writer leaves strings plain that kubectl reads as numbers', () => {
    const r = kubectl('server', Yaml.stringify(hostileConfigMap('plain', ['0O17'], [])));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('ConfigMap.data');
  });
});
