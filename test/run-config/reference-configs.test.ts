import { parse, parseDocument, isMap, isSeq, Node } from 'yaml';
import { provider, readFixture, REFERENCE_CONFIGS, REFERENCE_RELEASES } from './helpers';
import { mergeRunConfig } from '../../src/run-config/merge';
import { findRelease } from '../../src/run-config/releases';

/** Lines removed from `a` and lines added in `b`, by a longest-common-subsequence line diff. */
function lineDiff(a: string[], b: string[]): { removed: string[]; added: string[] } {
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const removed: string[] = [];
  const added: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++; j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      added.push(b[j++]);
    } else {
      removed.push(a[i++]);
    }
  }
  return { removed, added };
}

const effectiveId = (id: string): string => /^\$\{env\.\w+:\+(.+)\}$/.exec(id)?.[1] ?? id;

describe.each(REFERENCE_CONFIGS)('reference config %s', (file) => {
  const base = readFixture(file);
  const baseValue = parse(base);
  const baseDoc = parseDocument(base);
  const firstInference = (baseDoc.getIn(['providers', 'inference'], true) as { items: Node[] }).items[0];
  const overriddenId = effectiveId(baseValue.providers.inference[0].provider_id);
  // An API of its release the base has no section for, when there is one (the starters have them all).
  const release = findRelease(REFERENCE_RELEASES[file])!;
  const newApi = release.providerApis.find((api) => !(api in baseValue.providers));
  const providers = [
    provider(overriddenId, { providerType: 'remote::acme_override', config: { url: '${env.ACME_URL}' } }),
    provider('acme-safety', { api: 'safety', providerType: 'inline::acme_safety' }),
    ...(newApi ? [provider('acme-new', { api: newApi, providerType: 'inline::acme_new' })] : []),
  ];
  const result = mergeRunConfig(base, providers, { baseConfigSource: file, serverVersion: release.version });
  const merged = parse(result.configText);
  const diff = lineDiff(base.split('\n'), result.configText.split('\n'));

  test('the only lines removed are those of the replaced entry', () => {
    const start = base.lastIndexOf('\n', firstInference.range![0]) + 1;
    const entryLines = base.slice(start, firstInference.range![1]).replace(/\n$/, '').split('\n');
    expect(diff.removed).toEqual(entryLines);
  });

  test('the only lines added are the new entries, the new section and the apis entry', () => {
    const expected = [
      '  - provider_id: ' + overriddenId, '    provider_type: remote::acme_override', '    module: acme_custom.vllm',
      '    config:', '      url: ${env.ACME_URL}',
      '  - provider_id: acme-safety', '    provider_type: inline::acme_safety', '    module: acme_custom.vllm',
      ...(newApi ? [`  ${newApi}:`, '  - provider_id: acme-new', '    provider_type: inline::acme_new', '    module: acme_custom.vllm'] : []),
      ...(newApi && Array.isArray(baseValue.apis) && !baseValue.apis.includes(newApi) ? [`- ${newApi}`] : []),
    ];
    expect([...diff.added].sort()).toEqual([...expected].sort());
  });

  test('every other key keeps its value and its place', () => {
    expect(Object.keys(merged)).toEqual(Object.keys(baseValue));
    for (const key of Object.keys(baseValue).filter((k) => k !== 'providers' && k !== 'apis')) {
      expect(merged[key]).toEqual(baseValue[key]);
    }
    for (const api of Object.keys(baseValue.providers)) {
      const kept = baseValue.providers[api].filter((p: { provider_id: string }) => !(api === 'inference' && effectiveId(p.provider_id) === overriddenId));
      expect(merged.providers[api].slice(0, kept.length)).toEqual(kept);
    }
    expect(Object.keys(merged.providers)).toEqual([...Object.keys(baseValue.providers), ...(newApi ? [newApi] : [])]);
  });

  test('every comment of the base survives, in order', () => {
    const comments = (text: string) => text.split('\n').filter((l) => l.includes('#') && /^\s*#/.test(l));
    expect(comments(result.configText)).toEqual(comments(base));
  });

  test('the external providers are where they belong', () => {
    expect(merged.providers.inference.at(-1)).toEqual({
      provider_id: overriddenId, provider_type: 'remote::acme_override', module: 'acme_custom.vllm', config: { url: '${env.ACME_URL}' },
    });
    expect(merged.providers.safety.at(-1).provider_id).toBe('acme-safety');
    if (newApi) {
      expect(merged.providers[newApi]).toEqual([{ provider_id: 'acme-new', provider_type: 'inline::acme_new', module: 'acme_custom.vllm' }]);
      if (Array.isArray(baseValue.apis)) expect(merged.apis).toEqual([...baseValue.apis, newApi]);
    } else {
      expect(merged.apis).toEqual(baseValue.apis);
    }
    expect(result.warnings.filter((w) => w.kind === 'override').map((w) => w.providerId)).toEqual([overriddenId]);
  });

  test('the merged document is still a block mapping with block provider lists', () => {
    const doc = parseDocument(result.configText);
    expect(isMap(doc.contents)).toBe(true);
    for (const api of Object.keys(merged.providers)) {
      expect(isSeq(doc.getIn(['providers', api], true))).toBe(true);
    }
  });
});

test('the reference configs cover both the run.yaml era and the config.yaml era', () => {
  const values = REFERENCE_CONFIGS.map((f) => parse(readFixture(f)));
  expect(values.some((v) => 'image_name' in v)).toBe(true);
  expect(values.some((v) => 'distro_name' in v)).toBe(true);
  expect(REFERENCE_CONFIGS).toHaveLength(4);
});
