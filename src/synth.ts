import { ApiObject, App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { OBJECTS_CHECKED_BY_CALLER_CONTEXT } from './unique-objects';
import { COLLECT_WARNINGS_CONTEXT, warningsOf } from './warnings';

/** Manifests synthesised in memory, with the warnings raised while building them. */
export interface SynthesizedObjects {
  /** The Kubernetes objects, in the order cdk8s emits them. */
  readonly manifests: any[];
  /** Warnings recorded by the constructs (not printed). */
  readonly warnings: string[];
}

/**
 * Builds constructs in a throw-away cdk8s chart and returns the objects they render. This is the
 * one rendering path: the CLI and the Pulumi components call it, so they produce exactly what
 * `cdk8s synth` produces for the same props. `neighbours` are objects defined beside them in the same
 * app, as in a cdk8s program, and not returned: the constructs see them (a ConfigMap the pods read is
 * hashed into their template).
 */
export function synthesizeObjects(
  namespace: string | undefined,
  build: (scope: Construct) => void,
  neighbours: readonly Record<string, any>[] = [],
): SynthesizedObjects {
  const app = new App({ outdir: '/nonexistent' }); // never written to disk
  app.node.setContext(COLLECT_WARNINGS_CONTEXT, true);
  // Objects rendered twice are the caller's to report, naming its inputs (render's claimObjects).
  app.node.setContext(OBJECTS_CHECKED_BY_CALLER_CONTEXT, true);
  const beside = new Chart(app, 'neighbours');
  neighbours.forEach((o, i) => new ApiObject(beside, `object-${i}`, o as any));
  const chart = new Chart(app, 'objects', { namespace });
  build(chart);
  return { manifests: chart.toJson(), warnings: warningsOf(chart) };
}
