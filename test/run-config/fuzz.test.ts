import { parse } from 'yaml';
import { hostileDocuments, mutations } from './fuzz-inputs';
import { metadataYaml, provider, readFixture, REFERENCE_CONFIGS, REFERENCE_RELEASES } from './helpers';
import { parseCrdConfig } from '../../src/run-config/crd-config';
import { RunConfigError } from '../../src/run-config/errors';
import { mergeRunConfig } from '../../src/run-config/merge';
import { parseProviderMetadata } from '../../src/run-config/provider-metadata';

/**
 * Runs `fn` on malformed input: it must either succeed or throw a RunConfigError whose message says
 * what is wrong and how to fix it. Any other exception is a crash.
 */
function outcome(fn: () => unknown): 'ok' | 'error' {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (!(e instanceof RunConfigError)) {
      throw new Error(`not a clear error: ${e instanceof Error ? e.stack : String(e)}`);
    }
    expect(e.message).toMatch(/^ERROR: .+\n[\s\S]*\nResolution: \S/);
    return 'error';
  }
}

const tally = (results: Array<'ok' | 'error'>) => ({ ok: results.filter((r) => r === 'ok').length, error: results.filter((r) => r === 'error').length });

describe('fuzzing the metadata parser', () => {
  test('1500 mutations of a valid file: each parses or fails clearly', () => {
    const cases = mutations(metadataYaml(), 1500, 1);
    const results = cases.map((text) => outcome(() => parseProviderMetadata(text, 'fuzz/lls-provider-spec.yaml', { providerId: 'p', image: 'i:1' })));
    const { ok, error } = tally(results);
    // Both outcomes occur: the generator is neither too gentle nor too destructive.
    expect(ok).toBeGreaterThan(50);
    expect(error).toBeGreaterThan(500);
  });

  test.each(Object.entries(hostileDocuments()))('%s: a clear error or a valid result, quickly', (_name, text) => {
    const started = Date.now();
    outcome(() => parseProviderMetadata(text, 'fuzz/lls-provider-spec.yaml'));
    expect(Date.now() - started).toBeLessThan(10000);
  });
});

describe('fuzzing the provider-settings parser', () => {
  const valid = JSON.stringify({ providerId: 'p', api: 'inference', crdSection: 'inference', image: 'i:1', order: 0, config: { a: [1, { b: 'c' }] } });

  test('500 mutations of a valid file: each parses or fails clearly', () => {
    const results = mutations(valid, 500, 2).map((text) => outcome(() => parseCrdConfig(text, 'fuzz/crd-config.yaml', 'p')));
    expect(tally(results).error).toBeGreaterThan(100);
  });

  test.each(Object.entries(hostileDocuments()))('%s', (_name, text) => {
    outcome(() => parseCrdConfig(text, 'fuzz/crd-config.yaml'));
  });
});

describe('fuzzing the merge with broken base configs', () => {
  const providers = [
    provider('ollama', { config: { url: 'http://x' } }),
    provider('fms', { api: 'safety', providerType: 'remote::trustyai_fms' }),
    provider('evaluator', { api: 'eval', providerType: 'inline::evaluator' }),
  ];

  test.each(REFERENCE_CONFIGS)('300 mutations of %s: each merges (and reads back as intended) or fails clearly', (file) => {
    const results = mutations(readFixture(file), 300, file.length).map((base) => outcome(() => {
      const result = mergeRunConfig(base, providers, { serverVersion: REFERENCE_RELEASES[file] });
      // The merge verified its own output; check again independently that the providers are in it.
      const merged = parse(result.configText, { version: '1.1' });
      expect(merged.providers.safety.at(-1).provider_id).toBe('fms');
    }));
    const { ok, error } = tally(results);
    expect(ok).toBeGreaterThan(30);
    expect(error).toBeGreaterThan(30);
  });

  test.each(Object.entries(hostileDocuments()))('%s', (_name, base) => {
    const started = Date.now();
    outcome(() => mergeRunConfig(base, providers, { serverVersion: '0.7' }));
    expect(Date.now() - started).toBeLessThan(10000);
  });
});
