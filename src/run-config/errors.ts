/**
 * One reason the runtime config cannot be assembled. Every issue names the provider and its image
 * when it concerns one, says what failed and why, and how to fix it: the reader of a failed init
 * container's log has nothing else to go on.
 */
export interface RunConfigIssue {
  /** Headline, e.g. `Provider API type mismatch`. */
  readonly title: string;
  /** The provider's `providerId`, when the issue concerns one provider. */
  readonly providerId?: string;
  /** The provider's image reference; shown as `unknown` when a provider is concerned but its image is not known. */
  readonly image?: string;
  /** The file or input the issue was found in, e.g. `metadata/custom-vllm/lls-provider-spec.yaml`. */
  readonly source?: string;
  /** What failed and why: one entry per line. */
  readonly details: readonly string[];
  /** What the user should do to fix it. */
  readonly resolution: string;
}

/**
 * Thrown when provider metadata, provider settings or the base config cannot be turned into a
 * runtime config. It carries every issue found, not only the first, and no stack trace: the
 * message is the whole story.
 */
export class RunConfigError extends Error {
  /** The individual issues, in the order they were found. */
  public readonly issues: readonly RunConfigIssue[];

  public constructor(issues: readonly RunConfigIssue[]) {
    super(issues.map(formatIssue).join('\n\n'));
    this.name = 'RunConfigError';
    this.issues = issues;
    Object.defineProperty(this, 'stack', { value: `${this.name}: ${this.message}`, enumerable: false });
  }
}

/** Formats one issue as the block printed to the log (headline, provider, context, resolution). */
export function formatIssue(issue: RunConfigIssue): string {
  const lines = [`ERROR: ${issue.title}`, ''];
  if (issue.providerId !== undefined) {
    lines.push(`Provider '${issue.providerId}' (image: ${issue.image ?? 'unknown'})`);
  } else if (issue.image !== undefined) {
    lines.push(`Image: ${issue.image}`);
  }
  if (issue.source !== undefined) {
    lines.push(`File: ${issue.source}`);
  }
  lines.push(...issue.details, '', `Resolution: ${issue.resolution}`);
  return lines.join('\n');
}

/** One issue on one line (for a problem of a construct's field): headline, provider and image, details, resolution. */
export function describeIssue(issue: RunConfigIssue): string {
  const who = issue.providerId !== undefined ? ` (provider '${issue.providerId}', image ${issue.image ?? 'unknown'})` : '';
  return `${issue.title}${who}: ${issue.details.join(' ')} Resolution: ${issue.resolution}`;
}

/** Collects issues while checking many inputs, then throws them together. */
export class IssueCollector {
  private readonly found: RunConfigIssue[] = [];

  /** Records an issue. */
  public add(issue: RunConfigIssue): void {
    this.found.push(issue);
  }

  /** Records every issue of a {@link RunConfigError}, or rethrows anything else. */
  public addFrom(error: unknown): void {
    if (!(error instanceof RunConfigError)) {
      throw error;
    }
    this.found.push(...error.issues);
  }

  /** Throws a {@link RunConfigError} when any issue was recorded. */
  public throwIfAny(): void {
    if (this.found.length > 0) {
      throw new RunConfigError(this.found);
    }
  }
}
