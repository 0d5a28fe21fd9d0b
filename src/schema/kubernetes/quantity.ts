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
  const m = typeof value === 'string' ? QUANTITY.exec(value) : null;
  if (!m) return undefined;
  // QUANTITY's groups: 1 the sign, 2 the number, 6 the suffix, 8 a decimal exponent (`e3`, `E-2`). `E`
  // alone is exa, not an exponent.
  const number = `${m[1] ?? ''}${m[2]}`;
  return m[8] !== undefined ? Number(`${number}${m[8]}`) : Number(number) * SUFFIXES[m[6] ?? ''];
}

/** The API server's message for a string that is not a quantity. */
export const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
