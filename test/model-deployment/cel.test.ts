import { CelEvaluationError, CelExpression, CelSyntaxError, toCelValue } from '../../src/schema/cel';

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

  test('toCelValue drops undefined properties and keeps doubles', () => {
    expect(toCelValue({ a: 1, b: 1.5, c: undefined, d: [2] })).toEqual({ a: 1n, b: 1.5, d: [2n] });
  });
});
