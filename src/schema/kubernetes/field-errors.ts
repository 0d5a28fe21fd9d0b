import type { SchemaViolation } from '../schema-violation';

/** The longest value a message quotes whole. */
const SHOWN_MAX = 120;

/** How a value reads in the API server's messages: strings and objects as JSON, numbers and booleans bare; long ones cut. */
function shown(value: unknown): string {
  const text = typeof value === 'string' || (typeof value === 'object' && value !== null) ? JSON.stringify(value) : String(value);
  return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX)}…` : text;
}

/**
 * The API server's field errors (k8s.io/apimachinery/pkg/util/validation/field/errors.go), in its
 * words: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
 */
export class FieldErrors {
  public readonly violations: SchemaViolation[] = [];

  public required(path: string, detail = ''): void {
    this.add(path, `Required value${detail ? `: ${detail}` : ''}`);
  }

  public invalid(path: string, value: unknown, detail: string): void {
    this.add(path, `Invalid value: ${shown(value)}: ${detail}`);
  }

  public notSupported(path: string, value: unknown, supported: readonly string[]): void {
    this.add(path, `Unsupported value: ${shown(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`);
  }

  public duplicate(path: string, value: unknown): void {
    this.add(path, `Duplicate value: ${shown(value)}`);
  }

  public notFound(path: string, value: unknown): void {
    this.add(path, `Not found: ${shown(value)}`);
  }

  public forbidden(path: string, detail: string): void {
    this.add(path, `Forbidden: ${detail}`);
  }

  /** A field the kind does not have: strict field validation (kubectl's default) refuses it. */
  public unknownField(path: string, suggestion?: string): void {
    this.add(path, `unknown field ${JSON.stringify(path)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
  }

  public tooLong(path: string, max: number): void {
    this.add(path, `Too long: may not be more than ${max} bytes`);
  }

  /** Each problem a name check found with `value`, as Invalid value errors. */
  public invalidEach(path: string, value: unknown, problems: readonly string[]): void {
    for (const p of problems) this.invalid(path, value, p);
  }

  private add(path: string, message: string): void {
    this.violations.push({ path, message });
  }
}

/** A name that must be unique among its siblings (`seen`) and follow `rule`: a duplicate is said as one. */
export function uniqueName(name: string, at: string, seen: Set<string>, rule: (name: string) => string[], errors: FieldErrors): void {
  if (seen.has(name)) errors.duplicate(at, name);
  else errors.invalidEach(at, name, rule(name));
  seen.add(name);
}
