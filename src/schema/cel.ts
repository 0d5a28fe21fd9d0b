// CEL (Common Expression Language) for the two places that need it at synth time: provider
// selection rules (`InferenceProviderConfig.spec.selectionRules[].condition`) and the
// `x-kubernetes-validations` rules of CRD schemas.
import type * as CelJs from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import { compileRe2 } from './re2';

/**
 * The API server's limit on the cost of one evaluation of one expression (`PerCallLimit` in
 * k8s.io/apiserver pkg/apis/cel/config.go, "roughly 0.1 second"); cel-go cancels an evaluation that
 * exceeds it with "operation cancelled: actual cost limit exceeded".
 */
export const CEL_PER_CALL_COST_LIMIT = 1_000_000;

/**
 * The API server's budget for all the `x-kubernetes-validations` rules of one custom resource
 * (`RuntimeCELCostBudget` in k8s.io/apiserver pkg/apis/cel/config.go).
 */
export const CEL_OBJECT_COST_BUDGET = 10_000_000;

/** The patched Environment of scripts/vendor-cel.mjs. */
type CelEnvironment = CelJs.Environment & { setEvaluationHook(hook: (node: CelJs.ASTNode) => void): CelEnvironment };

let environment: CelEnvironment | undefined;
/** The meter of the evaluation under way: evaluation is synchronous, one at a time. */
let activeMeter: CostMeter | undefined;

/**
 * The CEL environment, made on first use from `@marcbachmann/cel-js`, bundled into CommonJS at
 * vendor/cel-js.cjs by scripts/vendor-cel.mjs. The package itself is an ES module only, which
 * Jest's CommonJS runtime (the default test set-up of a cdk8s app) cannot require(); the bundle loads
 * wherever this library does. Its `matches()` is RE2's, and each evaluated node is charged to the
 * active meter (the two changes the script makes to the library).
 */
function celEnvironment(): CelEnvironment {
  if (!environment) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const celJs = require('./vendor/cel-js.cjs') as typeof CelJs;
    environment = (new celJs.Environment({ unlistedVariablesAreDyn: true }) as CelEnvironment)
      .registerFunction('string.matches(string): bool', matches) as CelEnvironment;
    environment.setEvaluationHook((node) => activeMeter?.charge(NO_DIRECT_COST.has(node.op) ? 0 : 1));
  }
  return environment;
}

/**
 * The nodes cel-go gives no cost of their own (interpreter/runtimecost.go): literals, and the logical
 * operators and conditional, whose cost is their operands'.
 */
const NO_DIRECT_COST: ReadonlySet<string> = new Set(['value', '&&', '||', '?:']);

/**
 * `string.matches(regex)` with Go's RE2 semantics, charged as cel-go charges it
 * (interpreter/runtimecost.go: the string's traversal cost times the regex's length cost).
 */
function matches(text: string, pattern: string): boolean {
  activeMeter?.charge(costFactor(1 + text.length, 0.1) * costFactor(pattern.length, 0.25));
  return compileRe2(pattern).test(text);
}

/** cel-go's SafeMultiplyByFactor: a size times a cost factor, rounded up. */
function costFactor(size: number, factor: number): number {
  return Math.ceil(size * factor);
}

/**
 * Counts the cost of one evaluation and stops it at the per-call limit. The cost approximates cel-go's
 * actual cost (interpreter/runtimecost.go) from below, so that validate reports a cost limit only where
 * the API server would: each evaluated identifier, field selection, index, operator and function call
 * costs 1, literals and `&&`, `||`, `?:` nothing, and `matches()` what cel-go charges. Not counted:
 * what cel-go adds for sizes (a tenth of the strings' length for `+`, `==`, `<`, `startsWith`,
 * `contains`..., a list's length for `in`), for creating lists (10) and maps (30), and a macro's
 * bookkeeping (about 3 per iteration): cel-go's count is the higher.
 */
class CostMeter {
  public cost = 0;
  public constructor(private readonly limit: number) {}

  public get exceeded(): boolean {
    return this.cost > this.limit;
  }

  /**
   * Adds `units`; over the limit, throws, and throws again at every later node, as cel-js catches some
   * errors (`a || b` is true when one side is, whatever the other's error) where cel-go cancels.
   */
  public charge(units: number): void {
    this.cost += units;
    if (this.exceeded) throw new Error('operation cancelled: actual cost limit exceeded');
  }
}

/** The cost charged by several evaluations: the API server's budget of one object's rules. */
export class CelCostBudget {
  /** What is left; below zero once an evaluation spent more than there was. */
  public remaining: number;

  public constructor(total: number = CEL_OBJECT_COST_BUDGET) {
    this.remaining = total;
  }

  /** Whether the evaluations charged spent more than the budget. */
  public get exhausted(): boolean {
    return this.remaining < 0;
  }
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

/**
 * An evaluation that exceeded the per-call cost limit ({@link CEL_PER_CALL_COST_LIMIT}); it was stopped,
 * as the API server stops it.
 */
export class CelCostLimitError extends CelEvaluationError {
  public constructor(expression: string) {
    super(expression, 'operation cancelled: actual cost limit exceeded');
    this.name = 'CelCostLimitError';
  }
}

/** A parsed CEL expression, evaluated any number of times. */
export class CelExpression {
  /**
   * Parses `source`.
   * @throws CelSyntaxError when it is not valid CEL
   */
  public static parse(source: string): CelExpression {
    const cel = celEnvironment();
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
   * are CEL `int`s, as they are when Kubernetes evaluates CEL against JSON. Its cost is bounded as the
   * API server bounds it ({@link CEL_PER_CALL_COST_LIMIT}), and charged to `budget` when one is given.
   * @throws CelCostLimitError when the evaluation exceeds the per-call cost limit
   * @throws CelEvaluationError when evaluation fails (for example a missing map key)
   */
  public evaluate(variables: Record<string, unknown>, budget?: CelCostBudget): unknown {
    const context: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(variables)) {
      context[name] = toCelValue(value);
    }
    const meter = new CostMeter(CEL_PER_CALL_COST_LIMIT);
    activeMeter = meter;
    let value: unknown;
    try {
      value = this.program(context);
    } catch (e) {
      if (!meter.exceeded) throw new CelEvaluationError(this.source, firstLine(e));
    } finally {
      activeMeter = undefined;
      if (budget) budget.remaining -= meter.cost;
    }
    if (meter.exceeded) throw new CelCostLimitError(this.source);
    return fromCelValue(value);
  }

  /**
   * Evaluates an expression that must yield a boolean.
   * @throws CelCostLimitError when the evaluation exceeds the per-call cost limit
   * @throws CelEvaluationError when evaluation fails or the result is not a boolean
   */
  public evaluateBoolean(variables: Record<string, unknown>, budget?: CelCostBudget): boolean {
    const result = this.evaluate(variables, budget);
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
