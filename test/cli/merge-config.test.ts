import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { UsageError } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import { mergeConfigCommand } from '../../src/cli/merge-config-command';
import { CONFIG_LIMITS, parseUntrustedYaml } from '../../src/io/safe-yaml';
import { WholeFloat } from '../../src/io/scalars';
import { providerKey } from '../../src/run-config/provider-id';
import { firstDifference } from '../../src/run-config/read-back';
import { recordingIo } from '../run-config/cli-io';
import { metadataYaml, provider, readFixture, removeTempDirs, tempDir, writeMetadataDir } from '../run-config/helpers';
import { hostileConfig } from '../run-config/hostile-values';
import { pythonDifference, pythonLoad, pyyamlSupport } from '../run-config/pyyaml';
import { describeWhen } from '../sandbox/host';

afterAll(removeTempDirs);

/** A pod's shared volumes in a temporary directory: metadata, base config and output. */
function podVolumes(baseConfig = readFixture('starter-config-v0.7.1.yaml'), configFileName = 'config.yaml') {
  const root = tempDir();
  const dirs = {
    root,
    metadata: path.join(root, 'external-providers', 'metadata'),
    baseDir: path.join(root, 'base-config'),
    output: path.join(root, 'config'),
  };
  fs.mkdirSync(dirs.metadata, { recursive: true });
  fs.mkdirSync(dirs.baseDir, { recursive: true });
  fs.writeFileSync(path.join(dirs.baseDir, configFileName), baseConfig);
  // The reference configs are llama-stack 0.7's (safety, eval, …): the release is named as the construct names it.
  const args = ['--metadata-dir', dirs.metadata, '--base-config', path.join(dirs.baseDir, configFileName), '--output-dir', dirs.output, '--server-version', '0.7'];
  return { ...dirs, args };
}

const outputs = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

async function run(args: string[], cwd = '/') {
  const io = recordingIo(cwd);
  const code = await mergeConfigCommand.run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('kube-inference merge-config', () => {
  test('merges the providers of the metadata directory in spec order and writes the three outputs', async () => {
    const pod = podVolumes(readFixture('odh-distribution-config.yaml'));
    // Written in reverse, and named so that directory order differs from spec order.
    writeMetadataDir(pod.metadata, [
      provider('zz-first', { config: { url: 'http://vllm:8000' } }),
      provider('openai', { providerType: 'remote::openai_custom', image: 'quay.io/acme/openai:2' }),
      provider('aa-last', { api: 'eval', providerType: 'inline::evaluator' }),
    ]);
    const result = await run(pod.args);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(outputs(pod.output)).toEqual(['config.yaml', 'extra-providers.yaml', 'merge-log.txt']);

    const config = fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8');
    expect(config.indexOf('provider_id: zz-first')).toBeLessThan(config.indexOf('provider_id: openai\n    provider_type: remote::openai_custom'));
    expect(config).toContain('  eval:\n  - provider_id: aa-last\n');
    const extra = fs.readFileSync(path.join(pod.output, 'extra-providers.yaml'), 'utf8');
    expect(extra).toContain('kind: ExternalProviders');

    const log = fs.readFileSync(path.join(pod.output, 'merge-log.txt'), 'utf8');
    expect(result.out).toBe(log);
    expect(log).toBe(`kube-inference merge-config
Server release: llama-stack 0.7
Base config: ${pod.baseDir}/config.yaml
External providers: 3 (from ${pod.metadata})
  inference: added zz-first (remote::custom-vllm, module acme_custom.vllm, image quay.io/acme/zz-first:1.0)
  inference: replaced base provider \${env.OPENAI_API_KEY:+openai} (remote::openai) with openai (remote::openai_custom, module acme_custom.vllm, image quay.io/acme/openai:2)
  eval: added aa-last (inline::evaluator, module acme_custom.vllm, image quay.io/acme/aa-last:1.0); new section providers.eval
apis: appended eval so that the server serves the new sections
Warnings: 1

WARNING: External provider 'openai' overrides base provider in API 'inference'
  Base type: remote::openai
  External type: remote::openai_custom
  Base entry: provider_id \${env.OPENAI_API_KEY:+openai} (enabled only when OPENAI_API_KEY is set)
  Using: the external provider from image quay.io/acme/openai:2

Outputs:
  ${pod.output}/config.yaml
  ${pod.output}/extra-providers.yaml
  ${pod.output}/merge-log.txt
`);
  });

  test('the same inputs give the same bytes', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('a', { config: { b: 1, a: [2] } }), provider('s', { api: 'safety', providerType: 'inline::s' })]);
    const second = path.join(pod.root, 'second');
    await run(pod.args);
    await run([...pod.args.slice(0, 4), '--output-dir', second, '--server-version', '0.7']);
    for (const file of ['config.yaml', 'extra-providers.yaml']) {
      expect(fs.readFileSync(path.join(second, file))).toEqual(fs.readFileSync(path.join(pod.output, file)));
    }
  });

  test('--config-file-name names the merged file and, by default, the base config it reads', async () => {
    const pod = podVolumes(readFixture('starter-run-v0.3.0.yaml'), 'run.yaml');
    writeMetadataDir(pod.metadata, [provider('a')]);
    const result = await run(['--metadata-dir', pod.metadata, '--output-dir', pod.output, '--config-file-name', 'run.yaml', '--base-config', path.join(pod.baseDir, 'run.yaml'), '--server-version', '0.3']);
    expect(result.code).toBe(0);
    expect(outputs(pod.output)).toEqual(['extra-providers.yaml', 'merge-log.txt', 'run.yaml']);
    const defaulted = await run(['--metadata-dir', pod.metadata, '--output-dir', pod.output, '--config-file-name', 'run.yaml']);
    expect(defaulted.code).toBe(1);
    expect(defaulted.err).toContain('File: /opt/llama-stack/base-config/run.yaml');
  });

  test('the defaults are the pod paths', async () => {
    const result = await run([]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('File: /opt/llama-stack/external-providers/metadata');
    expect(mergeConfigCommand.usage).toContain('--output-dir DIR         default /opt/llama-stack/config');
  });

  test('relative paths are resolved against the working directory', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('a')]);
    const result = await run(['--metadata-dir', 'external-providers/metadata', '--base-config', 'base-config/config.yaml', '--output-dir', 'out', '--server-version', '0.7'], pod.root);
    expect(result.code).toBe(0);
    expect(outputs(path.join(pod.root, 'out'))).toHaveLength(3);
  });

  test('skips Kubernetes bookkeeping entries and plain files in the metadata directory', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('a')]);
    fs.mkdirSync(path.join(pod.metadata, '..2024_01_01'));
    fs.writeFileSync(path.join(pod.metadata, 'README'), 'not a provider');
    expect((await run(pod.args)).code).toBe(0);
  });

  test('with no external providers the base config is written unchanged', async () => {
    const pod = podVolumes();
    expect((await run(pod.args)).code).toBe(0);
    expect(fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8')).toBe(readFixture('starter-config-v0.7.1.yaml'));
  });

  test('overrides the ODH distribution\'s trustyai_fms with an external provider of that id, with a warning', async () => {
    const pod = podVolumes(readFixture('odh-distribution-config.yaml'));
    writeMetadataDir(pod.metadata, [provider('trustyai_fms', {
      api: 'safety',
      providerType: 'remote::trustyai_fms',
      packageName: 'llama_stack_provider_trustyai_fms==0.5.0',
      image: 'quay.io/trustyai/fms-provider:0.5.0',
      config: { orchestrator_url: 'http://fms:8033' },
    })]);
    expect(fs.readdirSync(pod.metadata)).toEqual([providerKey('trustyai_fms')]);
    const result = await run([...pod.args.slice(0, -2), '--server-version', '0.7.3']);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const merged = parse(fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8'));
    expect(merged.providers.safety).toEqual([
      parse(readFixture('odh-distribution-config.yaml')).providers.safety[1],
      { provider_id: 'trustyai_fms', provider_type: 'remote::trustyai_fms', module: 'llama_stack_provider_trustyai_fms', config: { orchestrator_url: 'http://fms:8033' } },
    ]);
    expect(result.out).toContain('  safety: replaced base provider trustyai_fms (remote::trustyai_fms) with trustyai_fms (remote::trustyai_fms, module llama_stack_provider_trustyai_fms, image quay.io/trustyai/fms-provider:0.5.0)');
    expect(result.out).toContain("WARNING: External provider 'trustyai_fms' overrides base provider in API 'safety'");
  });

  test('reads crd-config.yaml as the spec describes it: providerId, api and config in a directory named after the id', async () => {
    const pod = podVolumes(readFixture('odh-distribution-config.yaml'));
    for (const [id, api] of [['trustyai_fms', 'safety'], ['b-second', 'inference'], ['a-first', 'inference']]) {
      fs.mkdirSync(path.join(pod.metadata, id));
      fs.writeFileSync(path.join(pod.metadata, id, 'lls-provider-spec.yaml'), metadataYaml({ api, providerType: `remote::${id.replace('-', '_')}` }));
      fs.writeFileSync(path.join(pod.metadata, id, 'crd-config.yaml'), JSON.stringify({ providerId: id, api, config: { url: `http://${id}` } }));
    }
    const result = await run(pod.args);
    expect(result.err).toBe('');
    const merged = parse(fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8'));
    // Without an order, directory-name order; the image is unknown to the messages.
    expect(merged.providers.inference.slice(-2).map((p: { provider_id: string }) => p.provider_id)).toEqual(['a-first', 'b-second']);
    expect(merged.providers.safety.at(-1)).toEqual({ provider_id: 'trustyai_fms', provider_type: 'remote::trustyai_fms', module: 'acme_custom.vllm', config: { url: 'http://trustyai_fms' } });
    expect(result.out).toContain('  inference: added a-first (remote::a_first, module acme_custom.vllm, image unknown)');
    expect(result.out).toContain('  Using: the external provider from image unknown');
  });

  test('writes a service part\'s address into its adapter\'s config, at the key and path the image\'s metadata names', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [
      provider('by-metadata', { address: { mode: 'sidecar', base: 'http://localhost:18000' }, serviceAddress: '{configKey: base_url, path: /v1}', config: { a: 1 } }),
      provider('by-props', { address: { mode: 'service', base: 'http://stack-by-props:8080', configKey: 'endpoint' }, serviceAddress: '{configKey: base_url}' }),
      provider('by-default', { address: { mode: 'sidecar', base: 'http://localhost:18001' } }),
    ]);
    const result = await run(pod.args);
    expect(result.err).toBe('');
    const configs = (file: string) => Object.fromEntries(parse(fs.readFileSync(path.join(pod.output, file), 'utf8')).providers.inference
      .filter((p: any) => p.provider_id.startsWith('by-')).map((p: any) => [p.provider_id, p.config]));
    const expected = {
      'by-metadata': { a: 1, base_url: 'http://localhost:18000/v1' },
      'by-props': { endpoint: 'http://stack-by-props:8080' },
      'by-default': { url: 'http://localhost:18001' },
    };
    expect(configs('config.yaml')).toEqual(expected);
    expect(configs('extra-providers.yaml')).toEqual(expected);
    // The log says where each address went and who chose the key.
    expect(result.out).toContain('  inference: added by-metadata (remote::custom-vllm, module acme_custom.vllm, image quay.io/acme/by-metadata:1.0)\n'
      + '    its sidecar\'s address http://localhost:18000/v1 at config.base_url (spec.serviceAddress.configKey of the provider\'s metadata)\n');
    expect(result.out).toContain('    its service\'s address http://stack-by-props:8080 at config.endpoint (service.configKey)\n');
    expect(result.out).toContain('    its sidecar\'s address http://localhost:18001 at config.url (the default key url)\n');
  });

  test('--server-version picks the release: its APIs and its config file name; the newest ogx line by default', async () => {
    const base = 'version: 2\nimage_name: old\napis: [agents]\nproviders:\n  agents: []\n';
    const pod = podVolumes(base, 'run.yaml');
    writeMetadataDir(pod.metadata, [provider('my-agent', { api: 'agents', providerType: 'inline::my_agent' })]);
    const old = await run(['--metadata-dir', pod.metadata, '--output-dir', pod.output, '--base-config', path.join(pod.baseDir, 'run.yaml'), '--server-version', '0.3']);
    expect(old.err).toBe('');
    expect(outputs(pod.output)).toEqual(['extra-providers.yaml', 'merge-log.txt', 'run.yaml']);
    expect(old.out).toContain('Server release: llama-stack 0.3\n');

    const on07 = await run(['--metadata-dir', pod.metadata, '--output-dir', path.join(pod.root, 'current'), '--base-config', path.join(pod.baseDir, 'run.yaml'), '--server-version', '0.7']);
    expect(on07.code).toBe(1);
    expect(on07.err).toContain('ERROR: Provider image serves an API llama-stack 0.7 does not have');
    expect(on07.err).toContain('Resolution: agents was renamed responses in llama-stack 0.7: move the provider to externalProviders.responses');
    const byDefault = await run(['--metadata-dir', pod.metadata, '--output-dir', path.join(pod.root, 'current'), '--base-config', path.join(pod.baseDir, 'run.yaml')]);
    expect(byDefault.err).toContain('ERROR: Provider image serves an API ogx 1.5 does not have');
  });

  test('--declarative-config generates the OGX operator\'s config over the base, then merges the providers on it', async () => {
    const dir = path.join(__dirname, '..', 'fixtures', 'ogx-configgen', 'happy-basic');
    const pod = podVolumes(fs.readFileSync(path.join(dir, 'base.yaml'), 'utf8'));
    writeMetadataDir(pod.metadata, [provider('acme')]);
    const spec = parse(fs.readFileSync(path.join(dir, 'cr.yaml'), 'utf8')).spec;
    const result = await run([...pod.args.slice(0, -2), '--server-version', '1.5', '--insecure', '--declarative-config', JSON.stringify(spec)]);
    expect(result.err).toBe('');
    const merged = parse(fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8'));
    const want = parse(fs.readFileSync(path.join(dir, 'want-config.yaml'), 'utf8'));
    expect(merged.providers.inference.map((p: any) => p.provider_id)).toEqual(['remote-vllm', 'acme']);
    expect(merged.registered_resources).toEqual(want.registered_resources);
    expect(merged.server).toEqual({ port: 8321, insecure: true });
    expect(result.out).toContain("with the OGXServer's declarative config generated over it (1 providers, 1 models)");
    // A spec the generator refuses: exit 1, nothing written.
    const refused = await run([...pod.args.slice(0, -2), '--output-dir', path.join(pod.root, 'none'), '--declarative-config', '{"providers": {"inference": {"remote": {"vllm": 1}}}}']);
    expect(refused.code).toBe(1);
    expect(outputs(path.join(pod.root, 'none'))).toEqual([]);
    // A provider type the operator writes and no ogx release loads: refused in the pod too, before the server crash-loops.
    const unloadable = await run([...pod.args.slice(0, -2), '--output-dir', path.join(pod.root, 'none'), '--declarative-config', '{"providers": {"batches": {"inline": {"reference": {}}}}}']);
    expect(unloadable.code).toBe(1);
    expect(unloadable.err).toContain("provider 'inline-reference' gets provider_type inline::batch-reference, which no ogx release registers");
    expect(outputs(path.join(pod.root, 'none'))).toEqual([]);
    await expect(mergeConfigCommand.run([...pod.args.slice(0, -2), '--declarative-config', '[1]'], recordingIo('/'))).rejects.toThrow('--declarative-config must be a JSON object');
    await expect(mergeConfigCommand.run([...pod.args, '--declarative-config', '{}'], recordingIo('/'))).rejects.toThrow('for ogx releases');
  });

  test('--llama-stack-version, the old name of --server-version, still works, with a warning', async () => {
    const pod = podVolumes('version: 2\nproviders: {}\n', 'run.yaml');
    writeMetadataDir(pod.metadata, [provider('a')]);
    const old = await run(['--metadata-dir', pod.metadata, '--output-dir', pod.output, '--base-config', path.join(pod.baseDir, 'run.yaml'), '--llama-stack-version', '0.3']);
    expect(old.code).toBe(0);
    expect(old.err).toBe('warning: --llama-stack-version is deprecated: llama-stack was renamed OGX; use --server-version\n');
    expect(old.out).toContain('Server release: llama-stack 0.3\n');
  });

  test('--insecure and --tls-* write how the pod serves into the server section; --no-providers reads no metadata', async () => {
    const pod = podVolumes('version: 2\nserver:\n  port: 8321\n');
    const insecure = await run(['--no-providers', '--base-config', path.join(pod.baseDir, 'config.yaml'), '--output-dir', pod.output, '--insecure']);
    expect(insecure.code).toBe(0);
    expect(fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8')).toBe('version: 2\nserver:\n  port: 8321\n  insecure: true\n');
    expect(insecure.out).toContain('Server release: ogx 1.5\n');
    expect(insecure.out).toContain('server: set insecure: true (the pod serves plain HTTP inside the cluster; ogx 1.2 and later refuse to start without TLS unless told so)\n');
    const tls = await run(['--no-providers', '--base-config', path.join(pod.baseDir, 'config.yaml'), '--output-dir', pod.output,
      '--tls-certfile', '/opt/llama-stack/tls/tls.crt', '--tls-keyfile', '/opt/llama-stack/tls/tls.key']);
    expect(tls.code).toBe(0);
    expect(fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8'))
      .toBe('version: 2\nserver:\n  port: 8321\n  tls_certfile: /opt/llama-stack/tls/tls.crt\n  tls_keyfile: /opt/llama-stack/tls/tls.key\n');
    const conflict = await run(['--no-providers', '--base-config', path.join(pod.baseDir, 'config.yaml'), '--output-dir', path.join(pod.root, 'x'), '--tls-certfile', '/a', '--tls-keyfile', '/b']);
    expect(conflict.code).toBe(0);
    fs.writeFileSync(path.join(pod.baseDir, 'config.yaml'), 'server:\n  tls_certfile: /mine.crt\n');
    const refused = await run(['--no-providers', '--base-config', path.join(pod.baseDir, 'config.yaml'), '--output-dir', path.join(pod.root, 'y'), '--insecure']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('ERROR: The base config contradicts how the pod serves');
    expect(outputs(path.join(pod.root, 'y'))).toEqual([]);
  });

  test('replaces earlier outputs, and leaves no temporary files', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('a')]);
    fs.mkdirSync(pod.output);
    fs.writeFileSync(path.join(pod.output, 'config.yaml'), 'stale');
    expect((await run(pod.args)).code).toBe(0);
    expect(fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8')).toContain('provider_id: a');
    expect(outputs(pod.output)).toEqual(['config.yaml', 'extra-providers.yaml', 'merge-log.txt']);
  });
});

describe('kube-inference merge-config: failures exit 1, say who, what and how to fix, and write nothing', () => {
  async function failure(setup: (pod: ReturnType<typeof podVolumes>) => void, base?: string) {
    const pod = podVolumes(base);
    setup(pod);
    const result = await run(pod.args);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(outputs(pod.output)).toEqual([]);
    expect(result.err).toMatch(/^ERROR: /);
    expect(result.err).toContain('\nResolution: ');
    return result.err;
  }

  test('a provider directory without lls-provider-spec.yaml', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [provider('custom-vllm', { image: 'quay.io/acme/vllm:1' })]);
      fs.rmSync(path.join(pod.metadata, 'custom-vllm', 'lls-provider-spec.yaml'));
    });
    expect(err).toContain("ERROR: Cannot read lls-provider-spec.yaml of provider 'custom-vllm'");
    expect(err).toContain("Provider 'custom-vllm' (image: quay.io/acme/vllm:1)");
    expect(err).toMatch(/lls-provider-spec.yaml does not exist\./);
    expect(err).toContain('Resolution: The image must contain /lls-provider/lls-provider-spec.yaml');
  });

  test('a provider directory without crd-config.yaml', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [provider('custom-vllm')]);
      fs.rmSync(path.join(pod.metadata, 'custom-vllm', 'crd-config.yaml'));
    });
    expect(err).toContain("ERROR: Cannot read crd-config.yaml of provider 'custom-vllm'");
    expect(err).toContain("Provider 'custom-vllm' (image: unknown)");
  });

  test('a provider\'s metadata file that is a FIFO or a device: named, never waited on', async () => {
    for (const [file, make] of [['crd-config.yaml', (f: string) => expect(spawnSync('mkfifo', [f]).status).toBe(0)], ['lls-provider-spec.yaml', (f: string) => fs.symlinkSync('/dev/zero', f)]] as const) {
      const err = await failure((pod) => {
        writeMetadataDir(pod.metadata, [provider('p', { image: 'quay.io/acme/p:1' })]);
        fs.rmSync(path.join(pod.metadata, 'p', file));
        make(path.join(pod.metadata, 'p', file));
      });
      expect(err).toContain(`ERROR: Cannot read ${file} of provider 'p'`);
      expect(err).toMatch(new RegExp(`${file} is a (FIFO \\(named pipe\\)|device), not a regular file\\.\n`));
    }
  });

  test('invalid YAML in a provider\'s metadata, with line and column', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [{ ...provider('p', { image: 'quay.io/acme/p:1' }), metadataText: 'apiVersion: [\n' }]);
    });
    expect(err).toMatch(/YAML parse error at line \d+, column \d+/);
    expect(err).toContain("Provider 'p' (image: quay.io/acme/p:1)");
  });

  test('metadata declaring another API than the section the provider is placed under', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [provider('guard', { api: 'inference', placedApi: 'safety', image: 'quay.io/acme/guard:1' })]);
    });
    expect(err).toBe(`ERROR: Provider API type mismatch

Provider 'guard' (image: quay.io/acme/guard:1)
declares api=inference in lls-provider-spec.yaml
but is placed under externalProviders.safety

Resolution: Move the provider to externalProviders.inference section in the LlamaStackWithProviders spec.
`);
  });

  test('a provider config that sets the key its metadata names for the service\'s address', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [provider('vectors', {
        image: 'quay.io/acme/vectors:1', address: { mode: 'sidecar', base: 'http://localhost:18000' }, serviceAddress: '{configKey: endpoint}', config: { endpoint: 'x' },
      })]);
    });
    expect(err).toBe(`ERROR: Provider config sets the key its service's address goes to

Provider 'vectors' (image: quay.io/acme/vectors:1)
config.endpoint is set, and the sidecar's address (http://localhost:18000) goes to that key (spec.serviceAddress.configKey of the provider's metadata).

Resolution: In the provider's entry of the LlamaStackWithProviders spec, remove config.endpoint, or name another key with sidecar.configKey.
`);
  });

  test('every broken provider is reported in one run', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [
        { ...provider('one'), metadataText: metadataYaml({ providerType: 'bad' }) },
        { ...provider('two'), metadataText: 'kind: [' },
      ]);
    });
    expect(err).toContain("Provider 'one'");
    expect(err).toContain("Provider 'two'");
  });

  test('two providers claiming one position', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [provider('a'), provider('b')]);
      const file = path.join(pod.metadata, 'b', 'crd-config.yaml');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"order":1', '"order":0'));
    });
    expect(err).toContain('ERROR: Two external providers claim position 0');
  });

  test('a missing base config', async () => {
    const err = await failure((pod) => {
      writeMetadataDir(pod.metadata, [provider('a')]);
      fs.rmSync(path.join(pod.baseDir, 'config.yaml'));
    });
    expect(err).toContain('ERROR: Cannot read the base config');
    expect(err).toContain('config.yaml does not exist.');
    expect(err).toContain('--config-file-name run.yaml');
  });

  test('an invalid base config', async () => {
    const err = await failure((pod) => writeMetadataDir(pod.metadata, [provider('a')]), 'providers:\n  inference: [\n');
    expect(err).toMatch(/ERROR: Cannot read .*config.yaml\n\nFile: .*\nYAML parse error at line 3, column 1/);
  });

  test('an output directory that cannot be written', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('a')]);
    fs.writeFileSync(pod.output, 'a file where the directory should be');
    const result = await run(pod.args);
    expect(result.code).toBe(1);
    expect(result.err).toContain('ERROR: Cannot write the merged config');
    expect(result.err).toContain('Resolution: Mount the config volume read-write');
  });
});

describe('kube-inference merge-config: usage', () => {
  test.each([
    [['--bogus'], "unknown option '--bogus'"],
    [['extra'], "unexpected argument 'extra'"],
    [['--config-file-name', '../run.yaml'], "--config-file-name must be a plain file name such as config.yaml or run.yaml, other than extra-providers.yaml and merge-log.txt; found '../run.yaml'"],
    [['--config-file-name', 'merge-log.txt'], '--config-file-name must be a plain file name'],
    [['--output-dir', ''], '--output-dir needs a non-empty value'],
    [['--server-version', '0.9'], "--server-version must name an ogx or llama-stack release: 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5 (or a full version such as 1.5.0); found '0.9'"],
    [['--llama-stack-version', '0.9'], '--llama-stack-version must name an ogx or llama-stack release'],
    [['--llama-stack-version', '0.7', '--server-version', '1.5'], "--llama-stack-version is the old name of --server-version; give one of them, not '0.7' and '1.5'"],
    [['--insecure', '--tls-certfile', '/a'], '--insecure (plain HTTP) and --tls-* (TLS) contradict each other'],
    [['--tls-certfile', '/a'], '--tls-certfile and --tls-keyfile go together'],
    [['--tls-cafile', '/a'], '--tls-cafile needs --tls-certfile and --tls-keyfile'],
    [['--tls-certfile', 'a.crt', '--tls-keyfile', '/b'], "--tls-certfile must be an absolute path in the server container; found 'a.crt'"],
    [['--no-providers', '--metadata-dir', '/m'], '--no-providers and --metadata-dir contradict each other'],
  ])('%j is a usage error', async (args, message) => {
    await expect(mergeConfigCommand.run(args, recordingIo('/'))).rejects.toThrow(UsageError);
    await expect(mergeConfigCommand.run(args, recordingIo('/'))).rejects.toThrow(message);
  });

  test('is registered in the CLI: help, and exit 2 on bad usage', async () => {
    const io = recordingIo('/');
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.out()).toContain('merge-config');
    const help = recordingIo('/');
    expect(await runCli(['merge-config', '--help'], help)).toBe(0);
    expect(help.out()).toContain('Usage: kube-inference merge-config');
    const bad = recordingIo('/');
    expect(await runCli(['merge-config', '--nope'], bad)).toBe(2);
  });
});

describe('kube-inference merge-config: values llama-stack\'s YAML 1.1 reader would read otherwise', () => {
  const config = hostileConfig({ json: true });
  const read = (file: string): any => parseUntrustedYaml(fs.readFileSync(file, 'utf8'), CONFIG_LIMITS, { source: file, resolution: '' }).value;

  async function mergeHostile() {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('hostile', { config }), provider('guard', { api: 'safety', providerType: 'inline::g', config: { '<<': 'yes', 'n': 1e-7 } })]);
    const result = await run(pod.args);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    return { config: path.join(pod.output, 'config.yaml'), extra: path.join(pod.output, 'extra-providers.yaml') };
  }

  test('provider configs of hostile values, passed in crd-config.yaml, read back unchanged from both outputs', async () => {
    const files = await mergeHostile();
    expect(firstDifference(read(files.config).providers.inference.at(-1).config, config)).toBeUndefined();
    expect(firstDifference(read(files.config).providers.safety.at(-1).config, { '<<': 'yes', 'n': 1e-7 })).toBeUndefined();
    expect(firstDifference(read(files.extra).providers.inference[0].config, config)).toBeUndefined();
  });

  describeWhen('read by real PyYAML', pyyamlSupport(), 'python3 with PyYAML', () => {
    test('config.yaml and extra-providers.yaml', async () => {
      const files = await mergeHostile();
      const [merged, extra] = pythonLoad([fs.readFileSync(files.config, 'utf8'), fs.readFileSync(files.extra, 'utf8')]).map((r) => r.value as any);
      const list = (doc: any, api: string) => doc.$map.find(([k]: [string]) => k === 'providers')[1].$map.find(([k]: [string]) => k === api)[1];
      const entry = { provider_id: 'hostile', provider_type: 'remote::custom-vllm', module: 'acme_custom.vllm', config };
      expect(pythonDifference(list(merged, 'inference').at(-1), entry)).toBeUndefined();
      expect(pythonDifference(list(merged, 'safety').at(-1).$map[3][1], { '<<': 'yes', 'n': 1e-7 })).toBeUndefined();
      expect(pythonDifference(list(extra, 'inference')[0], entry)).toBeUndefined();
    });
  });

  describe('numbers keep their kind and every digit: a float of whole value stays a float, an integer beyond 2^53 an integer', () => {
    const NUMBERS = '{"f": 1.0, "e": 3.0e+0, "fl": 2.5e+15, "big": 9007199254740993, "huge": 12345678901234567890, "z": -0, "nz": -0.0, "x": 1.5}';
    const merge = async () => {
      const pod = podVolumes();
      writeMetadataDir(pod.metadata, [provider('p', { image: 'quay.io/acme/p:1' })]);
      fs.writeFileSync(path.join(pod.metadata, 'p', 'crd-config.yaml'),
        `{"providerId": "p", "api": "inference", "crdSection": "inference", "image": "quay.io/acme/p:1", "order": 0, "config": ${NUMBERS}}\n`);
      const result = await run(pod.args);
      expect(result).toMatchObject({ code: 0, err: '' });
      return [fs.readFileSync(path.join(pod.output, 'config.yaml'), 'utf8'), fs.readFileSync(path.join(pod.output, 'extra-providers.yaml'), 'utf8')];
    };

    test('as written into both outputs', async () => {
      for (const text of await merge()) {
        expect(text).toContain('config:\n      f: 1.0\n      e: 3.0\n      fl: 2500000000000000.0\n      big: 9007199254740993\n      huge: 12345678901234567890\n'
          + '      z: 0\n      nz: -0.0\n      x: 1.5\n');
      }
    });

    describeWhen('read by real PyYAML', pyyamlSupport(), 'python3 with PyYAML', () => {
      test('floats and integers as Python reads the crd-config.yaml', async () => {
        const intended = {
          f: new WholeFloat(1),
          e: new WholeFloat(3),
          fl: new WholeFloat(2.5e15),
          big: BigInt('9007199254740993'),
          huge: BigInt('12345678901234567890'),
          z: 0,
          nz: -0,
          x: 1.5,
        };
        expect(pythonDifference(pythonLoad([NUMBERS], 'json')[0].value, intended)).toBeUndefined();
        for (const doc of pythonLoad(await merge()).map((r) => r.value as any)) {
          const inference = doc.$map.find(([k]: [string]) => k === 'providers')[1].$map.find(([k]: [string]) => k === 'inference')[1];
          expect(pythonDifference(inference.at(-1).$map.find(([k]: [string]) => k === 'config')[1], intended)).toBeUndefined();
        }
      });
    });
  });

  test('a provider setting that cannot be written (a date in a hand-written crd-config.yaml) names the provider and the key', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('p', { image: 'quay.io/acme/p:1' })]);
    fs.writeFileSync(path.join(pod.metadata, 'p', 'crd-config.yaml'),
      'providerId: p\napi: inference\ncrdSection: inference\nimage: quay.io/acme/p:1\norder: 0\nconfig:\n  since: 2024-01-01\n');
    const result = await run(pod.args);
    expect(result.code).toBe(1);
    expect(outputs(pod.output)).toEqual([]);
    expect(result.err).toContain("ERROR: Provider settings that cannot be written into the config\n\nProvider 'p' (image: quay.io/acme/p:1)");
    expect(result.err).toContain('config.since: a date (2024-01-01T00:00:00.000Z) cannot be written so that llama-stack reads the same value.');
  });

  test('a crd-config.yaml with a raw LINE SEPARATOR (JSON.stringify leaves it raw) is refused, naming the character', async () => {
    const pod = podVolumes();
    writeMetadataDir(pod.metadata, [provider('p')]);
    fs.writeFileSync(path.join(pod.metadata, 'p', 'crd-config.yaml'),
      JSON.stringify({ providerId: 'p', api: 'inference', crdSection: 'inference', image: 'quay.io/acme/p:1', order: 0, config: { s: 'a\u2028b' } }));
    const result = await run(pod.args);
    expect(result.code).toBe(1);
    expect(result.err).toContain('Character U+2028 at line 1, column');
    expect(result.err).toContain("is a line break for llama-stack's YAML reader (PyYAML)");
  });
});
