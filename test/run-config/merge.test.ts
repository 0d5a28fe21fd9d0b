import { parse } from 'yaml';
import { provider, readFixture, runConfigError } from './helpers';
import { hostileConfig } from './hostile-values';
import { CONFIG_LIMITS, parseUntrustedYaml } from '../../src/io/safe-yaml';
import { mergeRunConfig } from '../../src/run-config/merge';
import { firstDifference } from '../../src/run-config/read-back';

/** The merge for llama-stack 0.7, whose configs (safety, eval, …) these cases are written in. */
const merge07 = (...[base, providers, options]: Parameters<typeof mergeRunConfig>) => mergeRunConfig(base, providers, { serverVersion: '0.7', ...options });

const ollamaBase = `version: 2
providers:
  inference:
  - provider_id: "ollama"
    provider_type: "remote::ollama"
    config: {url: "http://ollama:11434"}
`;

describe('mergeRunConfig: the seed example', () => {
  const result = merge07(ollamaBase, [
    provider('custom-vllm', { providerType: 'remote::vllm', packageName: 'custom_vllm.provider', config: { url: 'http://vllm:8000' } }),
    provider('ollama', { providerType: 'remote::ollama-custom', packageName: 'custom_ollama.provider', config: { url: 'http://custom-ollama:11434' }, image: 'quay.io/acme/ollama:2' }),
  ]);

  test('external providers replace base entries with their id and are appended in spec order', () => {
    expect(result.configText).toBe(`version: 2
providers:
  inference:
  - provider_id: custom-vllm
    provider_type: remote::vllm
    module: custom_vllm.provider
    config:
      url: http://vllm:8000
  - provider_id: ollama
    provider_type: remote::ollama-custom
    module: custom_ollama.provider
    config:
      url: http://custom-ollama:11434
`);
  });

  test('the override is a warning with the provider id, the API, both types and the image used', () => {
    expect(result.warnings).toEqual([{
      kind: 'override',
      providerId: 'ollama',
      api: 'inference',
      image: 'quay.io/acme/ollama:2',
      message: `External provider 'ollama' overrides base provider in API 'inference'
  Base type: remote::ollama
  External type: remote::ollama-custom
  Using: the external provider from image quay.io/acme/ollama:2`,
    }]);
  });

  test('the changes say what happened to each provider', () => {
    expect(result.changes.map((c) => [c.providerId, c.replaced.map((r) => r.providerType), c.newSection]))
      .toEqual([['custom-vllm', [], false], ['ollama', ['remote::ollama'], false]]);
    expect(result.extraProvidersText).toContain('kind: ExternalProviders');
  });
});

describe('mergeRunConfig: edge cases of the seed', () => {
  const one = [provider('custom-vllm')];
  const entry = `- provider_id: custom-vllm
  provider_type: remote::custom-vllm
  module: acme_custom.vllm
`;
  const indented = (n: number) => entry.split('\n').map((l) => (l ? ' '.repeat(n) + l : l)).join('\n');

  test.each([
    ['an empty base config', '', `providers:\n  inference:\n${indented(2)}`],
    ['a base config of comments only', '# nothing yet\n', `# nothing yet\nproviders:\n  inference:\n${indented(2)}`],
    ['a base config without providers', 'version: 2\nserver:\n  port: 8321\n', `version: 2\nserver:\n  port: 8321\nproviders:\n  inference:\n${indented(2)}`],
    ['providers: {}', 'version: 2\nproviders: {}\nserver: {}\n', `version: 2\nproviders:\n  inference:\n${indented(2)}server: {}\n`],
    ['an empty providers key', 'providers:\nserver: {}\n', `providers:\n  inference:\n${indented(2)}server: {}\n`],
    ['an empty provider list', 'providers:\n  inference: []\n  safety: []\n', `providers:\n  inference:\n${indented(2)}  safety: []\n`],
    ['a null provider list with a comment', 'providers:\n  inference: # to do\n  safety: []\n', `providers:\n  inference: # to do\n${indented(2)}  safety: []\n`],
    ['a new API section', 'providers:\n  safety:\n  - provider_id: s\n    provider_type: inline::s\n', `providers:\n  safety:\n  - provider_id: s\n    provider_type: inline::s\n  inference:\n${indented(2)}`],
    ['a file without a final newline', 'providers:\n  inference:\n  - provider_id: a\n    provider_type: remote::a', `providers:\n  inference:\n  - provider_id: a\n    provider_type: remote::a\n${indented(2)}`],
    ['a flow-style document', '{version: 2}', `version: 2\nproviders:\n  inference:\n${indented(2)}`],
  ])('%s', (_name, base, expected) => {
    expect(merge07(base, one).configText).toBe(expected);
  });

  test('a flow-style provider list becomes a block list with the base entries kept', () => {
    const out = merge07('providers:\n  inference: [{provider_id: a, provider_type: remote::a}]\n', one).configText;
    expect(parse(out).providers.inference.map((p: { provider_id: string }) => p.provider_id)).toEqual(['a', 'custom-vllm']);
  });

  test('with no external providers the base config is returned byte for byte', () => {
    const base = 'version: 2 # keep\nproviders: {inference: []}\n';
    expect(merge07(base, []).configText).toBe(base);
  });

  test('an external provider without config has no config key; an empty config stays {}', () => {
    const out = parse(merge07('', [provider('a'), provider('b', { config: {} })]).configText);
    expect(out.providers.inference[0]).not.toHaveProperty('config');
    expect(out.providers.inference[1].config).toEqual({});
  });

  test('secret references pass through untouched', () => {
    const out = merge07('', [provider('a', { config: { api_key: '${env.ACME_API_KEY}', url: '${env.URL:=http://x}' } })]).configText;
    expect(out).toContain('api_key: ${env.ACME_API_KEY}\n');
    expect(out).toContain('url: ${env.URL:=http://x}\n');
  });
});

describe('mergeRunConfig: keeping the user\'s file', () => {
  const base = `# Top comment
version: 2   # trailing
apis:
- inference
providers:
  # about inference
  inference:
  # the ollama entry
  - provider_id: ollama   # local
    provider_type: remote::ollama
    config:
      url: http://ollama:11434
        # a deep comment of ollama
  # the vllm entry
  - provider_id: vllm
    provider_type: remote::vllm
  # end of inference
  safety: []
models: [{model_id: m, provider_id: vllm}]
server:
  port: 8321
`;

  test('only the replaced entry goes; comments above it, after it and elsewhere stay', () => {
    const out = merge07(base, [provider('ollama', { providerType: 'remote::ollama2' })]).configText;
    expect(out).toBe(`# Top comment
version: 2   # trailing
apis:
- inference
providers:
  # about inference
  inference:
  # the ollama entry
  # the vllm entry
  - provider_id: vllm
    provider_type: remote::vllm
  - provider_id: ollama
    provider_type: remote::ollama2
    module: acme_custom.vllm
  # end of inference
  safety: []
models: [{model_id: m, provider_id: vllm}]
server:
  port: 8321
`);
  });

  test('a provider for an API the base does not list is added to apis (block and flow lists)', () => {
    const added = merge07(base, [provider('g', { api: 'safety', providerType: 'inline::g' })]);
    expect(added.apisAdded).toEqual(['safety']);
    expect(added.configText).toContain('apis:\n- inference\n- safety\nproviders:');
    const flow = merge07('apis: [inference, ]\nproviders: {}\n', [provider('g', { api: 'eval', providerType: 'inline::g' })]);
    expect(flow.configText.split('\n')[0]).toBe('apis: [inference, eval, ]');
    const ownLine = merge07('apis: [inference,\n  safety\n]\nproviders: {}\n', [provider('g', { api: 'eval', providerType: 'inline::g' })]);
    expect(ownLine.configText).toMatch(/^apis: \[inference,\n  safety, eval\n\]\n/);
    const none = merge07('providers: {}\n', [provider('g', { api: 'eval', providerType: 'inline::g' })]);
    expect(none.apisAdded).toEqual([]);
  });

  test('follows the file\'s indentation: indented sequences and four-space levels', () => {
    const four = 'providers:\n    safety:\n        - provider_id: s\n          provider_type: inline::s\n';
    const out = merge07(four, [provider('a', { config: { list: [1, 2] } }), provider('t', { api: 'safety', providerType: 'inline::t' })]).configText;
    expect(out).toBe(`providers:
    safety:
        - provider_id: s
          provider_type: inline::s
        - provider_id: t
          provider_type: inline::t
          module: acme_custom.vllm
    inference:
        - provider_id: a
          provider_type: remote::custom-vllm
          module: acme_custom.vllm
          config:
              list:
                  - 1
                  - 2
`);
    expect(parse(out).providers.inference[0].config.list).toEqual([1, 2]);
  });

  test('keeps CRLF line endings', () => {
    const out = merge07('version: 2\r\nproviders:\r\n  inference: []\r\n', [provider('a')]).configText;
    expect(out).toBe('version: 2\r\nproviders:\r\n  inference:\r\n  - provider_id: a\r\n    provider_type: remote::custom-vllm\r\n    module: acme_custom.vllm\r\n');
  });

  test('is deterministic', () => {
    const list = [provider('ollama'), provider('x', { api: 'eval', providerType: 'inline::x' })];
    expect(merge07(base, list)).toEqual(merge07(base, list));
  });
});

describe('mergeRunConfig: provider ids', () => {
  test('an entry enabled by ${env.NAME:+id} is overridden too, and the warning says so', () => {
    const base = 'providers:\n  inference:\n  - provider_id: ${env.VLLM_URL:+vllm-inference}\n    provider_type: remote::vllm\n';
    const result = merge07(base, [provider('vllm-inference', { image: 'quay.io/acme/v:1' })]);
    expect(parse(result.configText).providers.inference).toHaveLength(1);
    expect(result.warnings[0].message).toBe(`External provider 'vllm-inference' overrides base provider in API 'inference'
  Base type: remote::vllm
  External type: remote::custom-vllm
  Base entry: provider_id \${env.VLLM_URL:+vllm-inference} (enabled only when VLLM_URL is set)
  Using: the external provider from image quay.io/acme/v:1`);
  });

  test('ids match within an API only', () => {
    const base = 'providers:\n  safety:\n  - provider_id: shared\n    provider_type: inline::s\n';
    const result = merge07(base, [provider('shared')]);
    expect(result.warnings).toEqual([]);
    expect(parse(result.configText).providers.safety).toHaveLength(1);
  });

  test('every base entry with the id is replaced, each with a warning', () => {
    const base = 'providers:\n  inference:\n  - provider_id: a\n    provider_type: remote::one\n  - provider_id: a\n    provider_type: remote::two\n';
    const result = merge07(base, [provider('a')]);
    expect(result.warnings.map((w) => w.message.split('\n')[1])).toEqual(['  Base type: remote::one', '  Base type: remote::two']);
    expect(parse(result.configText).providers.inference).toHaveLength(1);
  });

  test('metadata fields this version ignores are a warning', () => {
    const p = provider('a');
    const result = merge07('', [{ ...p, metadata: { ...p.metadata, unknownFields: ['spec.future'] } }]);
    expect(result.warnings[0]).toMatchObject({ kind: 'ignored-fields', message: "Provider 'a' (image: quay.io/acme/a:1.0): lls-provider-spec.yaml has fields this version ignores: spec.future" });
  });

  test('duplicate external ids and placement mismatches fail before the base is read', () => {
    expect(runConfigError(() => merge07(': not yaml [', [provider('a'), provider('a')])).issues[0].title).toBe("Duplicate external provider id 'a'");
  });
});

describe('mergeRunConfig: unusable base configs', () => {
  const fails = (base: string, list = [provider('a')]) => runConfigError(() => merge07(base, list, { baseConfigSource: '/opt/llama-stack/base-config/config.yaml' })).message;

  test('invalid YAML, with line and column', () => {
    const message = fails('version: 2\nproviders:\n  inference: [\n');
    expect(message).toContain('ERROR: Cannot read /opt/llama-stack/base-config/config.yaml');
    expect(message).toMatch(/YAML parse error at line \d+, column \d+/);
    expect(message).toContain('Resolution: Fix the base config');
  });

  test.each([
    ['a top level that is a list', '- a\n', 'The base config must be a mapping (version, apis, providers, ...); found a list.'],
    ['providers that is a list', 'providers: [a]\n', 'providers: found a list; expected a mapping from API names to provider lists.'],
    ['a provider list that is a mapping', 'providers:\n  inference: {a: 1}\n', 'providers.inference: found a mapping; expected a list of providers.'],
    ['an aliased providers section', 'x: &p {}\nproviders: *p\n', 'providers: is a YAML alias or carries an anchor'],
    ['an anchored provider list', 'providers:\n  inference: &l []\nother: *l\n', 'providers.inference: is a YAML alias or carries an anchor'],
    ['a replaced entry that defines an anchor used elsewhere', 'providers:\n  inference:\n  - provider_id: a\n    config: &c {x: 1}\nother: *c\n',
      "providers.inference[0] ('a') would be replaced by the external provider, but it defines the anchor &c"],
  ])('%s', (_name, base, expected) => {
    const message = fails(base);
    expect(message).toContain('File: /opt/llama-stack/base-config/config.yaml');
    expect(message).toContain(expected);
  });

  test('explicit keys in the part the merge edits', () => {
    expect(fails('providers:\n  ? inference\n  : []\n')).toContain(
      "The merge edits providers.inference in place, but providers.inference is written with an explicit key ('? key') or a key that does not start its line.");
  });

  test('a problem with a provider list names the provider that needed it', () => {
    expect(fails('providers:\n  inference: 3\n', [provider('a', { image: 'quay.io/x:1' })])).toContain("Provider 'a' (image: quay.io/x:1)");
  });
});

describe('mergeRunConfig: values llama-stack\'s YAML 1.1 reader would read otherwise', () => {
  const read = (text: string): unknown => parseUntrustedYaml(text, CONFIG_LIMITS, { source: 'test', resolution: '' }).value;

  test.each([
    ['a block base config', readFixture('starter-config-v0.7.1.yaml')],
    ['a flow-style providers section', 'version: 2\nproviders: {inference: [{provider_id: a, provider_type: "remote::a"}]}\n'],
    ['a flow-style document', '{version: 2, apis: [inference]}\n'],
    ['an empty document', '# nothing yet\n'],
  ])('every hostile config value reads back unchanged, merged into %s', (_, base) => {
    const config = hostileConfig();
    const result = merge07(base, [provider('hostile', { config }), provider('s', { api: 'safety', providerType: 'inline::s', config: { '<<': '=' } })]);
    const merged = read(result.configText) as any;
    expect(firstDifference(merged.providers.inference.at(-1).config, config)).toBeUndefined();
    expect(firstDifference(merged.providers.safety.at(-1).config, { '<<': '=' })).toBeUndefined();
    expect(firstDifference((read(result.extraProvidersText) as any).providers.inference[0].config, config)).toBeUndefined();
  });

  test('a value of the base the merge must rewrite but cannot write back is an error naming its path', () => {
    const base = 'providers: {inference: [{provider_id: a, provider_type: "remote::a", config: {since: 2024-01-01}}]}\n';
    const message = runConfigError(() => merge07(base, [provider('b')], { baseConfigSource: '/base/config.yaml' })).message;
    expect(message).toContain('The merge rewrites the part of the base config holding providers.inference[0].config.since (written in flow style or empty), '
      + 'but a date (2024-01-01T00:00:00.000Z) there cannot be written back so that llama-stack reads the same value.');
    expect(message).toContain('Resolution: Write that part of the base config in block style');
  });
});

describe('mergeRunConfig: how the pod serves (the server section)', () => {
  const base = 'version: 2\n# the server\nserver:\n  port: 8321 # ours\nproviders:\n  inference: []\n';
  const tls = { certFile: '/opt/llama-stack/tls/tls.crt', keyFile: '/opt/llama-stack/tls/tls.key' };

  test('plain HTTP is said explicitly: server.insecure: true, added in place and logged in the result', () => {
    const result = mergeRunConfig(base, [], { transport: 'insecure' });
    expect(result.configText).toBe('version: 2\n# the server\nserver:\n  port: 8321 # ours\n  insecure: true\nproviders:\n  inference: []\n');
    expect(result.serverSettings).toEqual({ insecure: true });
  });

  test('a config without a server section gets one; flow and empty ones are rewritten', () => {
    expect(parse(mergeRunConfig('version: 2\n', [], { transport: 'insecure' }).configText)).toEqual({ version: 2, server: { insecure: true } });
    expect(parse(mergeRunConfig('server: {port: 9000}\n', [], { transport: 'insecure' }).configText)).toEqual({ server: { port: 9000, insecure: true } });
    expect(parse(mergeRunConfig('server:\nversion: 2\n', [], { transport: 'insecure' }).configText)).toEqual({ server: { insecure: true }, version: 2 });
    expect(parse(mergeRunConfig('', [], { transport: 'insecure' }).configText)).toEqual({ server: { insecure: true } });
  });

  test('with providers, both the providers and the setting are merged', () => {
    const out = parse(mergeRunConfig(base, [provider('a')], { transport: 'insecure' }).configText);
    expect(out.server).toEqual({ port: 8321, insecure: true });
    expect(out.providers.inference.map((p: any) => p.provider_id)).toEqual(['a']);
  });

  test('a setting the config has already is kept as written, and nothing is added', () => {
    const same = 'server:\n  insecure: true   # said by the user\n';
    expect(mergeRunConfig(same, [], { transport: 'insecure' }).configText).toBe(same);
    const files = `server:\n  tls_certfile: ${tls.certFile}\n  tls_keyfile: ${tls.keyFile}\n`;
    expect(mergeRunConfig(files, [], { transport: tls }).configText).toBe(files);
  });

  test('TLS writes the mounted files, the client CA when given', () => {
    expect(parse(mergeRunConfig(base, [], { transport: { ...tls, caFile: '/opt/llama-stack/tls/ca.crt' } }).configText).server).toEqual({
      port: 8321, tls_certfile: tls.certFile, tls_keyfile: tls.keyFile, tls_cafile: '/opt/llama-stack/tls/ca.crt',
    });
  });

  test('a config that contradicts the transport is refused, naming the key and the fix', () => {
    const ownCert = runConfigError(() => mergeRunConfig('server:\n  tls_certfile: /etc/my.crt\n  tls_keyfile: /etc/my.key\n', [], {
      transport: 'insecure', baseConfigSource: 'config.yaml',
    })).message;
    expect(ownCert).toContain('ERROR: The base config contradicts how the pod serves');
    expect(ownCert).toContain('The base config serves TLS (server.tls_certfile, server.tls_keyfile), but the pod was rendered for plain HTTP');
    expect(ownCert).toContain('set healthCheck: https for a config that brings its own certificate');
    expect(runConfigError(() => mergeRunConfig('server:\n  insecure: false\n', [], { transport: 'insecure' })).message)
      .toContain("The base config's server.insecure is a boolean (false), but the pod serves plain HTTP inside the cluster");
    expect(runConfigError(() => mergeRunConfig('server:\n  tls_keyfile: /etc/other.key\n', [], { transport: tls })).message)
      .toContain(`The base config's server.tls_keyfile is '/etc/other.key', while the pod mounts the server's certificate for tls_keyfile at ${tls.keyFile}.`);
  });

  test('without a transport the server section is left alone', () => {
    const text = 'server:\n  tls_certfile: /etc/my.crt\n';
    expect(mergeRunConfig(text, []).configText).toBe(text);
  });
});

describe('mergeRunConfig: apis: [] on ogx 1.5, where it serves no API', () => {
  test('the new sections are listed, so that the server serves them (before 1.5 an empty list serves every API)', () => {
    const on15 = mergeRunConfig('apis: []\nproviders: {}\n', [provider('a')], { serverVersion: '1.5' });
    expect(parse(on15.configText).apis).toEqual(['inference']);
    expect(on15.apisAdded).toEqual(['inference']);
    const on14 = mergeRunConfig('apis: []\nproviders: {}\n', [provider('a')], { serverVersion: '1.4' });
    expect(parse(on14.configText).apis).toEqual([]);
    expect(on14.apisAdded).toEqual([]);
  });
});

test('the server section and a providers section written after an empty key at the end stay apart', () => {
  for (const base of ['version: 2\nproviders:\n', 'apis:\nproviders:\n', 'providers:\napis: []\n']) {
    const out = parse(merge07(base, [provider('a')], { transport: 'insecure' }).configText);
    expect(out.server).toEqual({ insecure: true });
    expect(out.providers.inference.map((p: any) => p.provider_id)).toEqual(['a']);
  }
});
