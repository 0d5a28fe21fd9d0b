/**
 * One invalid setting: the field it concerns (a path in the props, such as
 * `externalProviders.inference[0].providerId`) and a message that says what was
 * found, what was expected and how to fix it.
 */
export interface Problem {
  /** Path of the offending field in the props (or input document). */
  readonly field: string;
  /** What was found, what was expected, and how to fix it. */
  readonly message: string;
}

/**
 * Thrown at synth time when props are invalid. It lists every problem found, not just the first,
 * and carries no stack trace: the message is the whole story.
 */
export class ValidationError extends Error {
  /** The individual problems, for programmatic use (the CLI re-labels their fields). */
  public readonly problems: readonly Problem[];
  /** What was being validated, e.g. `LlamaStackWithProviders 'stack'`. */
  public readonly subject: string;

  public constructor(subject: string, problems: readonly Problem[]) {
    super(formatProblems(subject, problems));
    this.name = 'ValidationError';
    this.subject = subject;
    this.problems = problems;
    // A validation error is about the user's input, not about our code: a stack trace
    // would only hide the message, so the stack is the message itself.
    Object.defineProperty(this, 'stack', { value: `${this.name}: ${this.message}`, enumerable: false });
  }
}

/** Formats problems as one message, one problem per line. */
export function formatProblems(subject: string, problems: readonly Problem[]): string {
  const lines = problems.map((p) => `  - ${p.field}: ${p.message}`);
  const count = problems.length === 1 ? '1 invalid setting' : `${problems.length} invalid settings`;
  return `${subject} has ${count}:\n${lines.join('\n')}`;
}

/** Collects problems while validating, then throws them together. */
export class ProblemCollector {
  private readonly found: Problem[] = [];

  /** Records a problem with a field. */
  public add(field: string, message: string): void {
    this.found.push({ field, message });
  }

  /** The problems recorded so far. */
  public get problems(): readonly Problem[] {
    return this.found;
  }

  /** Throws a {@link ValidationError} when any problem was recorded. */
  public throwIfAny(subject: string): void {
    if (this.found.length > 0) {
      throw new ValidationError(subject, this.found);
    }
  }
}
