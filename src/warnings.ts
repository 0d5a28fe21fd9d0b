import { IConstruct } from 'constructs';

/** Metadata type under which warnings are recorded on a construct node. */
const WARNING_METADATA = 'kube-inference:warning';

/** How many of each construct's warnings have been printed. */
const printed = new WeakMap<IConstruct, number>();

/**
 * Context key that turns off printing: set it to true on the app when the caller collects the
 * warnings itself with {@link warningsOf} (the `kube-inference` CLI does).
 */
export const COLLECT_WARNINGS_CONTEXT = 'kube-inference:collect-warnings';

/**
 * Records a non-blocking warning on a construct.
 *
 * Warnings are printed to stderr when the app synthesises (`cdk8s synth`), collected by the
 * `kube-inference` CLI (which prints them to stderr itself), and readable with {@link warningsOf}.
 */
export function addWarning(scope: IConstruct, message: string): void {
  if (!scope.node.metadata.some((m) => m.type === WARNING_METADATA)) {
    // The first warning registers a validation hook: cdk8s runs it during `app.synth()`,
    // which is when a user expects to see warnings. It never fails the synth.
    scope.node.addValidation({
      validate: () => {
        if (scope.node.tryGetContext(COLLECT_WARNINGS_CONTEXT) === true) {
          return [];
        }
        // cdk8s validates the whole app once per chart it synthesises and once more for the app,
        // so each warning is printed the first time only.
        const warnings = ownWarnings(scope);
        for (const warning of warnings.slice(printed.get(scope) ?? 0)) {
          process.stderr.write(`WARNING: ${scope.node.path}: ${warning}\n`);
        }
        printed.set(scope, warnings.length);
        return [];
      },
    });
  }
  scope.node.addMetadata(WARNING_METADATA, message);
}

/** Every warning recorded on `scope` and the constructs below it, in construct order. */
export function warningsOf(scope: IConstruct): string[] {
  return scope.node.findAll().flatMap((c) => ownWarnings(c));
}

function ownWarnings(scope: IConstruct): string[] {
  return scope.node.metadata.filter((m) => m.type === WARNING_METADATA).map((m) => String(m.data));
}
