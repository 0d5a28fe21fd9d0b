// Shared by the benchmarks written in TypeScript: the statistics their tables report.

/** The nearest-rank quantile `q` of `xs`: always one of the samples, so a run can be found by its value. */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/** The median of `xs` as a sample (the lower of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}
