import { provider, readFixture } from './helpers';
import { hostileConfig, HOSTILE_STRINGS, PLAIN_HOSTILE_STRINGS } from './hostile-values';
import { PythonResult, pythonDifference, pythonLoad, pyyamlSupport, pyyamlValue } from './pyyaml';
import { CONFIG_LIMITS, parseUntrustedYaml } from '../../src/io/safe-yaml';
import { mergeRunConfig } from '../../src/run-config/merge';
import { renderJson, renderYaml } from '../../src/run-config/render';
import { describeWhen } from '../sandbox/host';

/** The merge for llama-stack 0.7, whose configs (safety, eval, …) these cases are written in. */
const merge07 = (...[base, providers, options]: Parameters<typeof mergeRunConfig>) => mergeRunConfig(base, providers, { serverVersion: '0.7', ...options });

/**
 * What we write, read by the REAL PyYAML (`yaml.safe_load` of the host's python3, the reader of
 * llama-stack): every hostile value must come back with the same type and value.
 */
describeWhen('files read by real PyYAML', pyyamlSupport(), 'python3 with PyYAML', () => {
  const config = hostileConfig();

  test('the YAML writer: every hostile value, as value, key and nested, in both layouts', () => {
    for (const layout of [undefined, { indent: 4, indentSeq: true }]) {
      const text = renderYaml(config, layout);
      expect(pythonDifference(pyyamlValue(text), config)).toBeUndefined();
    }
  });

  test('each hostile string alone, as a value and as a key', () => {
    const texts = HOSTILE_STRINGS.flatMap((s) => [renderYaml({ v: s }), renderYaml({ [s]: 1 }), renderYaml([s])]);
    const read = pythonLoad(texts);
    HOSTILE_STRINGS.forEach((s, i) => {
      expect({ s, d: pythonDifference(read[3 * i].value, { v: s }) }).toEqual({ s, d: undefined });
      expect({ s, d: pythonDifference(read[3 * i + 1].value, { [s]: 1 }) }).toEqual({ s, d: undefined });
      expect({ s, d: pythonDifference(read[3 * i + 2].value, [s]) }).toEqual({ s, d: undefined });
    });
  });

  test('the JSON writer (crd-config.yaml): PyYAML and Python\'s json module read the same values', () => {
    const json = hostileConfig({ json: true });
    const text = renderJson(json);
    expect(pythonDifference(pyyamlValue(text), json)).toBeUndefined();
    const [viaJson] = pythonLoad([text], 'json');
    expect(pythonDifference(viaJson.value, json)).toBeUndefined();
  });

  test('JSON.stringify is not enough: PyYAML reads 1e-7 and 1e+21 as strings, folds NEL, drops spaces after U+2028', () => {
    const values = [1e-7, 1e21, 'a\u0085b', 'x\u2028 y'];
    const read = pythonLoad(values.map((v) => JSON.stringify({ v })));
    values.forEach((v, i) => expect(pythonDifference(read[i].value, { v })).toContain('Python read'));
    const safe = pythonLoad(values.map((v) => renderJson({ v })));
    values.forEach((v, i) => expect(pythonDifference(safe[i].value, { v })).toBeUndefined());
  });

  describe.each(['starter-config-v0.7.1.yaml', 'odh-distribution-config.yaml'])('the merge into %s', (fixture) => {
    let merged: any;
    let extra: any;
    let original: any;
    beforeAll(() => {
      const base = readFixture(fixture);
      const result = merge07(base, [
        provider('hostile', { config }),
        provider('guard', { api: 'safety', providerType: 'inline::guard', config: { '<<': 'yes', 'x\ty': [1e-7, '\u2029'] } }),
      ]);
      [merged, extra, original] = pythonLoad([result.configText, result.extraProvidersText, base]).map((r) => r.value);
    });

    test('the merged config: the external entries read back as given', () => {
      const inference = merged.$map.find(([k]: [string]) => k === 'providers')[1].$map.find(([k]: [string]) => k === 'inference')[1];
      expect(pythonDifference(inference[inference.length - 1], {
        provider_id: 'hostile', provider_type: 'remote::custom-vllm', module: 'acme_custom.vllm', config,
      })).toBeUndefined();
    });

    test('the merged config: everything else reads as the base config did', () => {
      const others = (doc: any) => JSON.stringify(doc.$map.filter(([k]: [string]) => k !== 'providers' && k !== 'apis'));
      expect(others(merged)).toBe(others(original));
    });

    test('extra-providers.yaml', () => {
      expect(pythonDifference(extra, {
        apiVersion: 'llamastack.io/v1alpha1',
        kind: 'ExternalProviders',
        providers: {
          inference: [{ provider_id: 'hostile', provider_type: 'remote::custom-vllm', module: 'acme_custom.vllm', config }],
          safety: [{ provider_id: 'guard', provider_type: 'inline::guard', module: 'acme_custom.vllm', config: { '<<': 'yes', 'x\ty': [1e-7, '\u2029'] } }],
        },
      })).toBeUndefined();
    });
  });

  test('a flow-style base config, rewritten by the merge, reads back as the base plus the provider', () => {
    const base = '{version: 2, providers: {inference: [{provider_id: a, provider_type: "remote::a", config: {k: "\\t", on: yes, n: 1.0e-7, m: y, e: 1e-7}}]}}\n';
    const result = merge07(base, [provider('hostile', { config })]);
    expect(pythonDifference(pyyamlValue(result.configText), {
      version: 2,
      providers: {
        inference: [
          { provider_id: 'a', provider_type: 'remote::a', config: { k: '\t', true: true, n: 1e-7, m: 'y', e: '1e-7' } },
          { provider_id: 'hostile', provider_type: 'remote::custom-vllm', module: 'acme_custom.vllm', config },
        ],
      },
    })).toBeUndefined();
  });
});

/**
 * Our reader must read plain scalars as PyYAML does, or the merge would compute the wrong intended
 * config (and the read-back check would compare against the wrong values).
 */
describeWhen('the reader agrees with real PyYAML', pyyamlSupport(), 'python3 with PyYAML', () => {
  let pythonRead: PythonResult[];
  beforeAll(() => {
    pythonRead = pythonLoad(PLAIN_HOSTILE_STRINGS.map((s) => `v: ${s}\n`));
  });

  test.each(PLAIN_HOSTILE_STRINGS.map((s, i) => [s.length > 40 ? `${s.slice(0, 37)}...` : s, i] as const))('plain %j', (_, i) => {
    const text = `v: ${PLAIN_HOSTILE_STRINGS[i]}\n`;
    const python = pythonRead[i];
    let ours: unknown;
    try {
      ours = (parseUntrustedYaml(text, CONFIG_LIMITS, { source: 'test', resolution: '' }).value as { v: unknown }).v;
    } catch (e) {
      // Only where PyYAML fails too (a plain `=`).
      expect(python.error).toBeDefined();
      return;
    }
    expect(python.error).toBeUndefined();
    const read = (python.value as { $map: Array<[string, unknown]> }).$map[0][1];
    if (ours instanceof Date) {
      const iso = (read as { $timestamp?: string }).$timestamp;
      expect(iso).toBeDefined();
      expect(Date.parse(/[zZ]|[-+]\d\d:\d\d$/.test(iso!) ? iso! : `${iso}Z`)).toBe(ours.getTime());
    } else {
      // Numbers agree in kind too: PyYAML's float 1.0 is a WholeFloat here.
      expect(pythonDifference(read, ours)).toBeUndefined();
    }
  });

  test('tags PyYAML\'s safe_load cannot construct are refused by our reader too, never dropped', () => {
    const texts = ['x: !!python/object:os.system {}\n', 'x: !!python/name:os.system\n', 'x: !custom 5\n'];
    for (const [i, read] of pythonLoad(texts).entries()) {
      expect(read.error).toMatch(/^ConstructorError/);
      expect(() => parseUntrustedYaml(texts[i], CONFIG_LIMITS, { source: 'test', resolution: '' })).toThrow('is not a YAML type that can be read here');
    }
  });

  test('the strings that tell the readers apart are among them', () => {
    expect(PLAIN_HOSTILE_STRINGS).toEqual(expect.arrayContaining(['y', 'n', '1e-7', '1e5', '.', '09', '-0', '0:30', '=', '2024-1-1']));
  });
});
