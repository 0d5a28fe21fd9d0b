import { join } from 'path';
import { Testing } from 'cdk8s';
import { Construct } from 'constructs';
import { isKubernetesApiVersion } from '../../src/checks';
import { ValidationError } from '../../src/errors';
import { ModelDeployment, ModelDeploymentProps } from '../../src/model-deployment';
import { CrdValidator } from '../../src/schema/crd-validator';
import { COLLECT_WARNINGS_CONTEXT, warningsOf } from '../../src/warnings';
import { expectUpstreamAdmits } from '../upstream/admission';

export const CRD_DIR = join(__dirname, '..', '..', 'crds');

let validator: CrdValidator | undefined;
/** The vendored CRDs, loaded once per test file (compiling the RayService schema takes a moment). */
export function vendoredCrds(): CrdValidator {
  validator ??= CrdValidator.fromFiles(['kaito.sh_workspaces.yaml', 'kaito.sh_inferencesets.yaml',
    'nvidia.com_dynamographdeployments.yaml', 'ray.io_rayservices.yaml'].map((f) => join(CRD_DIR, f)));
  return validator;
}

/** The result of rendering one ModelDeployment into a fresh chart. */
export interface Rendered {
  /** Every object, as `Testing.synth` returns them. */
  readonly objects: any[];
  /** The upstream custom resource. */
  readonly resource: any;
  /** Warnings recorded while rendering. */
  readonly warnings: string[];
  /** The construct. */
  readonly construct: ModelDeployment;
}

/** Renders `props` and checks every custom resource against its vendored CRD and upstream's own admission. */
export function render(props: ModelDeploymentProps, name = 'md'): Rendered {
  const chart = quietChart();
  const construct = new ModelDeployment(chart, 'md', { ...props, metadata: { name, ...props.metadata } });
  const objects = Testing.synth(chart);
  expectSchemaValid(objects);
  const resource = objects.find((o) => o.kind !== 'ConfigMap');
  return { objects, resource, warnings: warningsOf(chart), construct };
}

/** A test chart whose warnings are collected (read them with warningsOf), not printed. */
export function quietChart() {
  const chart = Testing.chart();
  chart.node.setContext(COLLECT_WARNINGS_CONTEXT, true);
  return chart;
}

/**
 * Every custom resource among `objects` validates against the vendored CRD schema, and upstream's own
 * admission validation accepts it where it can run here (test/upstream/admission.ts; one batch per call).
 */
export function expectSchemaValid(objects: any[]): void {
  // Custom resources' groups are domain names; Kubernetes' own (v1, apps/v1) are checked by test/examples.test.ts.
  const customResources = objects.filter((o) => !isKubernetesApiVersion(o.apiVersion));
  for (const o of customResources) {
    const result = vendoredCrds().validate(o);
    expect({ object: `${o.kind}/${o.metadata?.name}`, violations: result.violations, notes: result.notes })
      .toEqual({ object: `${o.kind}/${o.metadata?.name}`, violations: [], notes: [] });
  }
  expectUpstreamAdmits(customResources);
}

/** The problems of the ValidationError `fn` throws (fails when it throws nothing or something else). */
export function problemsOf(fn: () => unknown): { field: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return [...e.problems];
    throw e;
  }
  throw new Error('expected a ValidationError, but nothing was thrown');
}

/** Problems from constructing a ModelDeployment with these props. */
export function problemsFor(props: ModelDeploymentProps, scope?: Construct): { field: string; message: string }[] {
  return problemsOf(() => new ModelDeployment(scope ?? Testing.chart(), 'md', { metadata: { name: 'md' }, ...props }));
}

/** A valid aggregated GPU vLLM spec to vary in tests. */
export const GPU_VLLM: ModelDeploymentProps = {
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1 }, memory: '32Gi' },
};

/** KAITO's node auto-provisioning (the default install) needs a node SKU: a GPU one... */
export const KAITO_GPU_NODE = { instanceType: 'Standard_NC24ads_A100_v4' };
/** ...or a CPU one for CPU workspaces. */
export const KAITO_CPU_NODE = { instanceType: 'Standard_D8s_v5' };

/** The components of a `nvidia.com/v1beta1` DynamoGraphDeployment, by name. */
export function dynamoComponents(dgd: any): Record<string, any> {
  return Object.fromEntries((dgd.spec.components as any[]).map((c) => [c.name, c]));
}

/** The container `main` of a DynamoGraphDeployment component's pod: it runs the Dynamo runtime. */
export function dynamoMain(component: any): any {
  return component.podTemplate.spec.containers.find((c: any) => c.name === 'main');
}
