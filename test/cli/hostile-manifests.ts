import { escapeBeyondJson } from '../../src/io/scalars';
import { HOSTILE_STRINGS } from '../run-config/hostile-values';

/** The hostile strings that are ConfigMap data keys (the API server's `[-._a-zA-Z0-9]+`, at most 253, not `.`/`..`). */
export const CONFIG_KEY_STRINGS = HOSTILE_STRINGS.filter((s) => /^[-._a-zA-Z0-9]{1,253}$/.test(s) && !s.startsWith('..') && s !== '.');

/** A ConfigMap passed through `render`: every string of `values` a data value (`v0`, `v1`, …), every string of `keys` a data key. */
export function hostileConfigMap(name: string, values: readonly string[], keys: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: Object.fromEntries([...values.map((v, i) => [`v${i}`, v]), ...keys.map((k) => [k, 'key'])]),
  };
}

/**
 * Objects as input text for `render`: JSON, which YAML readers read too, with the characters JSON leaves
 * raw and the input reader refuses raw (NEL, LINE and PARAGRAPH SEPARATOR, C1 controls) escaped.
 */
export function asInput(objects: readonly unknown[]): string {
  return objects.map((o) => escapeBeyondJson(JSON.stringify(o))).join('\n---\n');
}
