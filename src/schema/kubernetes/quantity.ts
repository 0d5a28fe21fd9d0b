// Kubernetes quantities (k8s.io/apimachinery/pkg/api/resource/quantity.go), read for comparison.
import { QUANTITY } from '../../checks';

const SUFFIXES: Record<string, number> = {
  'n': 1e-9,
  'u': 1e-6,
  'm': 1e-3,
  '': 1,
  'k': 1e3,
  'M': 1e6,
  'G': 1e9,
  'T': 1e12,
  'P': 1e15,
  'E': 1e18,
  'Ki': 2 ** 10,
  'Mi': 2 ** 20,
  'Gi': 2 ** 30,
  'Ti': 2 ** 40,
  'Pi': 2 ** 50,
  'Ei': 2 ** 60,
};

/** The value of a quantity (`500m` → 0.5, `1Gi` → 1073741824), or undefined when it is not one. */
export function quantityValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !QUANTITY.test(value)) return undefined;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$/.exec(value)!;
  const [, number, suffix] = m;
  if (/^[eE]/.test(suffix)) return Number(`${number}${suffix}`);
  return Number(number) * SUFFIXES[suffix];
}

/** The API server's message for a string that is not a quantity. */
export const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
