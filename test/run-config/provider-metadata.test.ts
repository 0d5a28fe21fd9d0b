import { metadataYaml, runConfigError } from './helpers';
import { LLAMA_STACK_APIS } from '../../src/run-config/apis';
import { parseProviderMetadata } from '../../src/run-config/provider-metadata';

const SOURCE = 'metadata/custom-vllm/lls-provider-spec.yaml';
const parse = (text: string) => parseProviderMetadata(text, SOURCE, { providerId: 'custom-vllm', image: 'quay.io/acme/vllm:1' });
const problemsOf = (text: string): string => runConfigError(() => parse(text)).message;

describe('parseProviderMetadata', () => {
  test('reads a valid file', () => {
    const m = parse(metadataYaml());
    expect(m).toEqual({
      apiVersion: 'llamastack.io/v1alpha1',
      kind: 'ProviderPackage',
      metadata: { name: 'custom-vllm', version: '1.2.0', vendor: 'acme', description: 'A custom vLLM provider' },
      spec: {
        packageName: 'acme_custom.vllm',
        providerType: 'remote::custom-vllm',
        api: 'inference',
        wheelPath: '/lls-provider/packages/acme_custom-1.2.0-py3-none-any.whl',
      },
      module: 'acme_custom.vllm',
      unknownFields: [],
    });
  });

  test('accepts provider types with underscores, as real providers use (remote::trustyai_fms)', () => {
    expect(parse(metadataYaml({ providerType: 'remote::trustyai_fms' })).spec.providerType).toBe('remote::trustyai_fms');
    expect(parse(metadataYaml({ providerType: 'inline::sentence-transformers' })).spec.providerType).toBe('inline::sentence-transformers');
  });

  test('splits a ==version pin off packageName but keeps it', () => {
    const m = parse(metadataYaml({ packageName: 'llama_stack_provider_trustyai_fms==0.4.0' }));
    expect(m.module).toBe('llama_stack_provider_trustyai_fms');
    expect(m.modulePin).toBe('0.4.0');
    expect(m.spec.packageName).toBe('llama_stack_provider_trustyai_fms==0.4.0');
  });

  test.each(LLAMA_STACK_APIS)('accepts api %s', (api) => {
    expect(parse(metadataYaml({ api })).spec.api).toBe(api);
  });

  test('reads optional fields and reports unknown ones without failing', () => {
    const text = `${metadataYaml()}  dependencyWheels: [/lls-provider/packages/dep-1.0-py3-none-any.whl]\n  extra: 1\nstatus: {}\n`
      .replace('  vendor: acme\n', '  vendor: acme\n  maintainer: ops@acme.example\n');
    const m = parse(text);
    expect(m.spec.dependencyWheels).toEqual(['/lls-provider/packages/dep-1.0-py3-none-any.whl']);
    expect(m.metadata.maintainer).toBe('ops@acme.example');
    expect(m.unknownFields).toEqual(['status', 'spec.extra']);
  });

  test('reads where the adapter takes its service\'s address (spec.serviceAddress), unknown keys in it aside', () => {
    expect(parse(metadataYaml({ serviceAddress: '{configKey: base_url, path: /v1}' })).spec.serviceAddress).toEqual({ configKey: 'base_url', path: '/v1' });
    expect(parse(metadataYaml({ serviceAddress: '{path: /api/v2}' })).spec.serviceAddress).toEqual({ path: '/api/v2' });
    expect(parse(metadataYaml({ serviceAddress: '{configKey: url, scheme: https}' })).unknownFields).toEqual(['spec.serviceAddress.scheme']);
    expect(parse(metadataYaml()).spec.serviceAddress).toBeUndefined();
  });

  test.each([
    ['a list', '[url]', 'spec.serviceAddress: found a list; expected a mapping with configKey and/or path.'],
    ['a key that is no identifier', '{configKey: "a.b"}', "spec.serviceAddress.configKey: found 'a.b'; expected a key of the provider's config: a Python identifier"],
    ['a key that is a number', '{configKey: 1}', 'spec.serviceAddress.configKey: found a number (1); expected a key'],
    ['a path without its slash', '{path: v1}', "spec.serviceAddress.path: found 'v1'; expected a URL path from '/'"],
    ['a path with a query', '{path: "/v1?a=1"}', "spec.serviceAddress.path: found '/v1?a=1'; expected a URL path"],
    ['a path with an env reference', '{path: "/${env.X}"}', "spec.serviceAddress.path: found '/${env.X}'"],
  ])('refuses a serviceAddress with %s', (_, value, expected) => {
    expect(problemsOf(metadataYaml({ serviceAddress: value }))).toContain(expected);
  });

  test('every error names the provider, the image, the file and the fix', () => {
    const message = problemsOf(metadataYaml({ api: 'models' }));
    expect(message).toContain('ERROR: Invalid provider metadata in lls-provider-spec.yaml');
    expect(message).toContain("Provider 'custom-vllm' (image: quay.io/acme/vllm:1)");
    expect(message).toContain(`File: ${SOURCE}`);
    expect(message).toMatch(/Resolution: Fix \/lls-provider\/lls-provider-spec.yaml in the provider image/);
  });

  test.each([
    ['wrong apiVersion', (t: string) => t.replace('llamastack.io/v1alpha1', 'llamastack.io/v1'),
      "apiVersion: found 'llamastack.io/v1'; expected 'llamastack.io/v1alpha1'."],
    ['wrong kind', (t: string) => t.replace('ProviderPackage', 'Provider'),
      "kind: found 'Provider'; expected 'ProviderPackage'."],
    ['missing name', (t: string) => t.replace('  name: custom-vllm\n', ''),
      'metadata.name: missing; expected a package identifier'],
    ['unquoted version read as a number', (t: string) => t.replace('"1.2.0"', '1.0'),
      'metadata.version: found a number (1.0); expected a version string such as "1.2.0". YAML read the unquoted value as a number (1.0); quote it.'],
    ['missing vendor', (t: string) => t.replace('  vendor: acme\n', ''),
      'metadata.vendor: missing'],
    ['metadata not a mapping', (t: string) => t.replace(/metadata:\n(  .*\n)+spec:/, 'metadata: []\nspec:'),
      'metadata: found a list; expected a mapping.'],
    ['packageName with hyphens', (t: string) => t.replace('acme_custom.vllm', 'acme-custom'),
      "spec.packageName: found 'acme-custom'; expected a Python module path such as my_org.custom_vllm, optionally pinned as my_org.custom_vllm==1.2.0. Python module names use \"_\" where package names use \"-\"."],
    ['packageName with a range instead of a pin', (t: string) => t.replace('acme_custom.vllm', "'acme_custom>=1.0'"),
      "spec.packageName: found 'acme_custom>=1.0'"],
    ['providerType without prefix', (t: string) => t.replace('remote::custom-vllm', 'custom-vllm'),
      "spec.providerType: found 'custom-vllm'; expected remote::<name> or inline::<name>"],
    ['providerType with capitals', (t: string) => t.replace('remote::custom-vllm', 'remote::Custom'),
      "spec.providerType: found 'remote::Custom'"],
    // A routing table: llama-stack fills it in itself, no release takes providers for it.
    ['unknown api', (t: string) => t.replace('api: inference', 'api: models'),
      "spec.api: found 'models', which is not an API any known llama-stack release accepts providers for; expected one of inference, safety, agents, "
        + 'responses, vector_io, datasetio, scoring, eval, tool_runtime, post_training, files, file_processors, batches, telemetry, messages, interactions, skills, container_runtime.'],
    ['missing api', (t: string) => t.replace('  api: inference\n', ''),
      'spec.api: missing; expected one of inference, safety'],
    ['wheelPath not a wheel', (t: string) => t.replace(/wheelPath: .*/, 'wheelPath: /lls-provider/packages/x.tar.gz'),
      "spec.wheelPath: found '/lls-provider/packages/x.tar.gz'; expected the path of the provider's wheel file (ending in .whl)."],
    ['dependencyWheels not a list', (t: string) => `${t}  dependencyWheels: a.whl\n`,
      "spec.dependencyWheels: found 'a.whl'; expected a list of wheel paths."],
    ['dependencyWheels with a bad entry', (t: string) => `${t}  dependencyWheels: [a.whl, 3]\n`,
      'spec.dependencyWheels[1]: found a number (3); expected the path of a wheel file (ending in .whl).'],
  ])('rejects %s', (_name, edit, expected) => {
    expect(problemsOf(edit(metadataYaml()))).toContain(expected);
  });

  test('lists every problem of a file at once', () => {
    const message = problemsOf('apiVersion: x\nkind: y\nmetadata: {}\nspec: {}\n');
    for (const field of ['apiVersion', 'kind', 'metadata.name', 'metadata.version', 'metadata.vendor',
      'spec.packageName', 'spec.providerType', 'spec.api', 'spec.wheelPath']) {
      expect(message).toContain(`  - ${field}: `);
    }
  });

  test('rejects a document that is not a mapping', () => {
    expect(problemsOf('- a\n- b\n')).toContain('The document must be a mapping with apiVersion, kind, metadata and spec; found a list.');
    expect(problemsOf('')).toContain('found nothing');
  });

  test('reports YAML syntax errors with line and column', () => {
    const message = problemsOf('apiVersion: llamastack.io/v1alpha1\nkind: ProviderPackage\nspec:\n  api: [inference\n');
    expect(message).toContain('ERROR: Cannot read metadata/custom-vllm/lls-provider-spec.yaml');
    expect(message).toMatch(/YAML parse error at line \d+, column \d+: /);
    expect(message).toContain("Provider 'custom-vllm' (image: quay.io/acme/vllm:1)");
  });

  test('rejects more than one document', () => {
    expect(problemsOf(`${metadataYaml()}---\n${metadataYaml()}`)).toContain('The file holds 2 YAML documents');
  });

  test('rejects duplicate keys, with their position', () => {
    expect(problemsOf(`${metadataYaml()}kind: ProviderPackage\n`)).toContain("Duplicate key 'kind' in a mapping (at line 13, column 1).");
  });
});
