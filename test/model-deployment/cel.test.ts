import { CelCostBudget, CelCostLimitError, CelEvaluationError, CelExpression, CelSyntaxError, toCelValue } from '../../src/schema/cel';

describe('CEL expressions (selection rules, CRD validation rules)', () => {
  test('evaluates over JSON data with integers as CEL ints', () => {
    const spec = { resources: { gpu: { count: 2 } }, model: { id: 'acme/chat' } };
    expect(CelExpression.parse('spec.resources.gpu.count * 2 == 4').evaluateBoolean({ spec })).toBe(true);
    expect(CelExpression.parse("spec.model.id.startsWith('acme/') && has(spec.resources.gpu)").evaluateBoolean({ spec })).toBe(true);
    expect(CelExpression.parse('!has(spec.resources.cpu)').evaluateBoolean({ spec })).toBe(true);
    expect(CelExpression.parse('spec.resources.gpu.count + 1').evaluate({ spec })).toBe(3);
  });

  test('syntax errors and evaluation errors are distinct', () => {
    expect(() => CelExpression.parse('spec.a ==')).toThrow(CelSyntaxError);
    expect(() => CelExpression.parse('spec.missing.key == 1').evaluate({ spec: {} })).toThrow(CelEvaluationError);
    expect(() => CelExpression.parse('1 + 1').evaluateBoolean({})).toThrow('expected a bool result, got number 2');
  });

  test('matches() is RE2 (Go\'s regexp, as the API server runs it): linear time, and Go\'s syntax', () => {
    const matches = (text: string, pattern: string) => CelExpression.parse(`self.matches(${JSON.stringify(pattern)})`).evaluateBoolean({ self: text });
    expect(matches('acme/chat', '^acme/')).toBe(true);
    expect(matches(`${'a'.repeat(40)}!`, '^(a+)+$')).toBe(false); // exponential in a backtracking engine
    expect(() => matches('a', '(?=a)')).toThrow('failed: error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  }, 60_000);

  test('an evaluation over the API server\'s per-call cost limit is stopped, even where an error would be ignored', () => {
    const cubic = "self.all(x, self.all(y, self.all(z, x + y + z != 'q')))";
    const self = Array.from({ length: 400 }, (_, i) => `t${i}`);
    expect(() => CelExpression.parse(cubic).evaluate({ self })).toThrow(CelCostLimitError);
    // cel-js treats an error beside `true` in `||` as false; cel-go cancels the whole evaluation.
    expect(() => CelExpression.parse(`true || ${cubic}`).evaluate({ self })).not.toThrow();
    expect(() => CelExpression.parse(`${cubic} || true`).evaluate({ self })).toThrow('failed: operation cancelled: actual cost limit exceeded');
  }, 60_000);

  test('a budget is charged the cost of each evaluation', () => {
    const budget = new CelCostBudget(10);
    expect(CelExpression.parse("self.size() > 1 && self.matches('^a+$')").evaluateBoolean({ self: 'aaaa' }, budget)).toBe(true);
    // size() and self: 2; `>`: 1; matches() and self: 2, plus ⌈0.1 × 5⌉ × ⌈0.25 × 4⌉ = 1.
    expect(budget.remaining).toBe(4);
    CelExpression.parse("self.size() > 1 && self.matches('^a+$')").evaluateBoolean({ self: 'aaaa' }, budget);
    expect(budget.exhausted).toBe(true);
  });

  test('toCelValue drops undefined properties and keeps doubles', () => {
    expect(toCelValue({ a: 1, b: 1.5, c: undefined, d: [2] })).toEqual({ a: 1n, b: 1.5, d: [2n] });
  });
});
