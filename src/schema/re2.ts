// Regular expressions as the Kubernetes API server runs them: Go's regexp package, RE2 syntax and
// semantics, for CRD `pattern`s and CEL `matches()`. JavaScript's RegExp is the wrong engine for both:
// it backtracks (`^(a+)+$` against a long run of `a`s and a `!` takes exponential time, where RE2 is
// linear), and it accepts syntax Go refuses (lookaround, backreferences), so a CRD the API server
// rejects would be evaluated with other semantics.
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import type { RE2JS } from 're2js';

/** A pattern Go's regexp package refuses; the message is Go's (`error parsing regexp: ...`). */
export class Re2SyntaxError extends Error {
  /** The pattern as written. */
  public readonly pattern: string;

  public constructor(pattern: string, detail: string) {
    super(detail);
    this.name = 'Re2SyntaxError';
    this.pattern = pattern;
  }
}

let re2js: typeof import('re2js') | undefined;
const compiled = new Map<string, RE2JS | Re2SyntaxError>();
/** Patterns kept compiled: a CRD has tens; `matches()` can make one per list item of its data. */
const MAX_COMPILED = 1000;

/**
 * Compiles `pattern` with RE2 (re2js, a port of Go's regexp through RE2/J), once per pattern: rules
 * are evaluated once per list item or map entry.
 * @throws Re2SyntaxError when Go would refuse the pattern
 */
export function compileRe2(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    regex = tryCompile(pattern);
    compiled.set(pattern, regex);
  }
  if (regex instanceof Re2SyntaxError) throw regex;
  return regex;
}

function tryCompile(pattern: string): RE2JS | Re2SyntaxError {
  // Loaded on first use, as ajv is: only `validate` and CEL rules need it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  re2js ??= require('re2js') as typeof import('re2js');
  try {
    return re2js.RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof re2js.RE2JSException) return new Re2SyntaxError(pattern, e.message);
    throw e;
  }
}

/**
 * The regular-expression engine of ajv (its `code.regExp` option) for `pattern` and `patternProperties`:
 * RE2, unanchored like JSON Schema's `pattern` and Go's `MatchString`. The flags ajv passes (`u`) are
 * JavaScript's; RE2 always matches code points.
 */
export const re2RegExpEngine: RegExpEngine = Object.assign(
  // An RE2JS has test() and names its pattern in toString(), by which ajv keys its compiled patterns.
  (pattern: string): RegExpLike => compileRe2(pattern),
  // What standalone code generation would import; this library never generates standalone code.
  { code: 're2js' },
);
