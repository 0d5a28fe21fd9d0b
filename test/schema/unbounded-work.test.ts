import { ALMOST, bound, boundCrd, tags, TRIPLE_ALL, unboundedFields } from './unbounded-work';
import { CrdValidator } from '../../src/schema/crd-validator';

// The red-team finding "Unbounded work" (issue 28): each of these ran until killed. The timeouts are
// only an outer bound for a regression; the expectations are the API server's verdicts.
const BOUND = 60_000;
const COST_LIMIT = `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${TRIPLE_ALL}`;

const validator = (fields: Record<string, unknown> = unboundedFields()) => new CrdValidator([boundCrd(fields)]);

describe('validate --crd bounds its work as the API server does', () => {
  test('a `pattern` is Go\'s RE2: linear time on input that makes a backtracking engine exponential', () => {
    expect(validator().validate(bound({ word: ALMOST })).violations).toEqual([{ path: 'spec.word', message: 'must match pattern "^(a+)+$"' }]);
    expect(validator().validate(bound({ word: 'aaa' })).valid).toBe(true);
  }, BOUND);

  test('a `pattern` Go refuses (lookahead, backreference) is reported as the API server refuses the CRD', () => {
    const field = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[word].pattern';
    expect(() => validator({ word: { type: 'string', pattern: '^(?!x)' } })).toThrow(
      `CRD bounds.example.com: ${field}: Invalid value: "^(?!x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?!\``);
    expect(() => validator({ word: { type: 'string', pattern: '^(a)\\1$' } })).toThrow('error parsing regexp: invalid escape sequence: `\\1`');
    // A `pattern` key in data is not a pattern.
    expect(() => validator({ word: { type: 'object', default: { pattern: '(?!x)' } } })).not.toThrow();
  });

  test('CEL `matches()` is RE2 too', () => {
    expect(validator().validate(bound({ letters: ALMOST })).violations).toEqual([{ path: 'spec.letters', message: 'only as' }]);
    expect(validator().validate(bound({ letters: 'aaa' })).valid).toBe(true);
  }, BOUND);

  test('a CEL rule over the per-call cost limit ends with the API server\'s message, and no further rule is evaluated', () => {
    const fields = { ...unboundedFields(), zzz: { 'type': 'string', 'x-kubernetes-validations': [{ rule: 'false', message: 'never reached' }] } };
    const result = validator(fields).validate(bound({ tags: tags(400), zzz: 'z' }));
    expect(result.violations).toEqual([{ path: 'spec.tags', message: COST_LIMIT }]);
    expect(validator().validate(bound({ tags: tags(20) })).valid).toBe(true);
  }, BOUND);

  test('the rules of one object share the API server\'s budget; once spent, no further rule is evaluated', () => {
    // Each list's rule costs about 6 × 45³ ≈ 550,000, under the per-call limit; 19 of them are over the
    // budget of 10,000,000.
    const fields = { lists: { type: 'array', items: { 'type': 'array', 'items': { type: 'string' }, 'x-kubernetes-validations': [{ rule: TRIPLE_ALL }] } } };
    const result = validator(fields).validate(bound({ lists: Array.from({ length: 30 }, () => tags(45)) }));
    expect(result.violations).toEqual([
      { path: 'spec.lists[18]', message: 'validation failed due to running out of cost budget, no further validation rules will be run' },
    ]);
  }, BOUND);
});
