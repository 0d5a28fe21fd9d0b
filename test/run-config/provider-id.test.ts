import { DNS1123_LABEL } from '../../src/name-patterns';
import { MAX_PROVIDER_KEY_LENGTH, providerIdProblem, providerKey } from '../../src/run-config/provider-id';

describe('providerIdProblem', () => {
  test.each(['custom-vllm', 'trustyai_fms', 'TrustyAI FMS', 'a/b', 'x'.repeat(300), 'ünïcode', '..', '-x-'])('accepts %j, as llama-stack does', (id) => {
    expect(providerIdProblem(id)).toBeUndefined();
  });

  test.each([
    ['', 'an empty id marks a disabled provider in llama-stack, which would skip it'],
    ['__disabled__', "'__disabled__' marks a disabled provider in llama-stack, which would skip it"],
    ['${env.FMS_URL:+fms}', "'${env.FMS_URL:+fms}' holds a ${env.…} reference, which llama-stack replaces with an environment value"],
    ['a${env.X}', "'a${env.X}' holds a ${env.…} reference"],
    ['two\nlines', "'two\\nlines' holds a control character (such as a line break); a provider id is one line of text"],
  ])('refuses %j', (id, problem) => {
    expect(providerIdProblem(id)).toContain(problem);
  });

  test('a dollar sign alone is no env reference', () => {
    expect(providerIdProblem('cost$(echo)')).toBeUndefined();
    expect(providerIdProblem('${env.lower}')).toBeUndefined(); // llama-stack only substitutes [A-Z0-9_] names
  });
});

describe('providerKey', () => {
  test('is the id itself when the id is a short DNS-1123 label', () => {
    expect(providerKey('custom-vllm')).toBe('custom-vllm');
    expect(providerKey('a'.repeat(MAX_PROVIDER_KEY_LENGTH))).toBe('a'.repeat(MAX_PROVIDER_KEY_LENGTH));
  });

  test('otherwise a readable label with a stable hash of the id', () => {
    expect(providerKey('trustyai_fms')).toMatch(/^trustyai-fms-[0-9a-f]{8}$/);
    expect(providerKey('trustyai_fms')).toBe(providerKey('trustyai_fms'));
    expect(providerKey('Custom VLLM')).toMatch(/^custom-vllm-[0-9a-f]{8}$/);
    expect(providerKey('___')).toMatch(/^[0-9a-f]{8}$/);
    expect(providerKey('a'.repeat(MAX_PROVIDER_KEY_LENGTH + 1))).toMatch(new RegExp(`^a{${MAX_PROVIDER_KEY_LENGTH - 9}}-[0-9a-f]{8}$`));
  });

  test('ids that differ only in case or punctuation get different keys', () => {
    const ids = ['trustyai_fms', 'trustyai-fms', 'TrustyAI-FMS', 'trustyai.fms', 'trustyai fms'];
    expect(new Set(ids.map(providerKey)).size).toBe(ids.length);
  });

  test.each(['trustyai_fms', 'a/b', '..', '-x-', 'ünïcode', 'x'.repeat(300), 'A_'.repeat(40), '9'])('the key of %j is a DNS-1123 label short enough for the container name', (id) => {
    const key = providerKey(id);
    expect(key).toMatch(DNS1123_LABEL);
    expect(`install-provider-${key}`.length).toBeLessThanOrEqual(63);
  });
});
