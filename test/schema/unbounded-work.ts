// The inputs of the red-team finding "Unbounded work" (issue 28): a CRD and objects on which `validate
// --crd` ran until killed, where the API server's work is bounded (RE2's linear-time regular
// expressions, CEL's cost limits). Shared by the validator's tests, the CLI's and the comparison with a
// real API server.

/** A backtracking regular expression: exponential in JavaScript on {@link ALMOST}, linear in RE2. */
export const NESTED_PLUS = '^(a+)+$';
/** Forty `a`s and a `!`: matches nothing, and takes a backtracking engine some 2^40 steps to say so. */
export const ALMOST = `${'a'.repeat(40)}!`;
/** A rule whose cost is the cube of its list's length: 400 items are 64 million iterations. */
export const TRIPLE_ALL = "self.all(x, self.all(y, self.all(z, x + y + z != 'q')))";

/** A CustomResourceDefinition of `example.com/v1 Bound` with `spec` as given. */
export function boundCrd(spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'bounds.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Bound', plural: 'bounds', singular: 'bound', listKind: 'BoundList' },
      scope: 'Namespaced',
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } },
      }],
    },
  };
}

/**
 * The fields of each case: a `pattern` (`word`), a CEL `matches()` (`letters`) and a costly CEL rule
 * over a list (`tags`, at most `maxItems`: the API server refuses a CRD whose rule's estimated cost,
 * from the list's largest size, is too high, so its comparison uses a list it accepts).
 */
export function unboundedFields(maxItems?: number): Record<string, unknown> {
  return {
    word: { type: 'string', maxLength: 64, pattern: NESTED_PLUS },
    letters: { 'type': 'string', 'maxLength': 64, 'x-kubernetes-validations': [{ rule: `self.matches('${NESTED_PLUS}')`, message: 'only as' }] },
    tags: {
      'type': 'array',
      ...(maxItems === undefined ? {} : { maxItems }),
      'items': { type: 'string', maxLength: 8 },
      'x-kubernetes-validations': [{ rule: TRIPLE_ALL }],
    },
  };
}

/** An object of the CRD with the given `spec`. */
export function bound(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Bound', metadata: { name: 'b', namespace: 'default' }, spec };
}

/** `count` distinct short strings. */
export function tags(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `t${i}`);
}
