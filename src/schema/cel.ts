// CEL (Common Expression Language) for the two places that need it at synth time: provider
// selection rules (`InferenceProviderConfig.spec.selectionRules[].condition`) and the
// `x-kubernetes-validations` rules of CRD schemas.
import type * as CelJs from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };

let celJs: typeof CelJs | undefined;

/**
 * Loads the CEL library on first use: `@marcbachmann/cel-js`, bundled into CommonJS at
 * vendor/cel-js.cjs by scripts/vendor-cel.mjs. The package itself is an ES module only, which
 * Jest's CommonJS runtime (the default test set-up of a cdk8s app) cannot require(); the bundle loads
 * wherever this library does.
 */
function loadCel(): typeof CelJs {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  celJs ??= require('./vendor/cel-js.cjs') as typeof CelJs;
  return celJs;
}

/** A CEL expression that does not parse. */
export class CelSyntaxError extends Error {
  /** The expression as written. */
  public readonly expression: string;

  public constructor(expression: string, detail: string) {
    super(`invalid CEL expression ${JSON.stringify(expression)}: ${detail}`);
    this.name = 'CelSyntaxError';
    this.expression = expression;
  }
}

/** A CEL expression that parsed but could not be evaluated against the given variables. */
export class CelEvaluationError extends Error {
  /** The expression as written. */
  public readonly expression: string;

  public constructor(expression: string, detail: string) {
    super(`CEL expression ${JSON.stringify(expression)} failed: ${detail}`);
    this.name = 'CelEvaluationError';
    this.expression = expression;
  }
}

/** A parsed CEL expression, evaluated any number of times. */
export class CelExpression {
  /**
   * Parses `source`.
   * @throws CelSyntaxError when it is not valid CEL
   */
  public static parse(source: string): CelExpression {
    const cel = loadCel();
    try {
      return new CelExpression(source, cel.parse(source));
    } catch (e) {
      throw new CelSyntaxError(source, firstLine(e));
    }
  }

  /** The expression as written. */
  public readonly source: string;
  private readonly program: (context?: Record<string, unknown>) => unknown;

  private constructor(source: string, program: (context?: Record<string, unknown>) => unknown) {
    this.source = source;
    this.program = program;
  }

  /**
   * Evaluates the expression. Variables are converted with {@link toCelValue} first, so integers
   * are CEL `int`s, as they are when Kubernetes evaluates CEL against JSON.
   * @throws CelEvaluationError when evaluation fails (for example a missing map key)
   */
  public evaluate(variables: Record<string, unknown>): unknown {
    const context: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(variables)) {
      context[name] = toCelValue(value);
    }
    try {
      return fromCelValue(this.program(context));
    } catch (e) {
      throw new CelEvaluationError(this.source, firstLine(e));
    }
  }

  /**
   * Evaluates an expression that must yield a boolean.
   * @throws CelEvaluationError when evaluation fails or the result is not a boolean
   */
  public evaluateBoolean(variables: Record<string, unknown>): boolean {
    const result = this.evaluate(variables);
    if (typeof result !== 'boolean') {
      throw new CelEvaluationError(this.source, `expected a bool result, got ${describe(result)}`);
    }
    return result;
  }
}

/**
 * Converts JSON-like data to CEL values: integral numbers become `int` (bigint), other numbers stay
 * `double`, and `undefined` properties are dropped (so `has()` sees them as absent).
 */
export function toCelValue(value: unknown): unknown {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) {
    return value.map(toCelValue);
  }
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) result[key] = toCelValue(item);
    }
    return result;
  }
  return value;
}

function fromCelValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return Number(value);
  }
  return value;
}

function firstLine(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.split('\n')[0];
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a map' : `${typeof value} ${JSON.stringify(value)}`;
}
