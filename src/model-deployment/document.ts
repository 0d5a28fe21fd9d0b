// `kube-inference render` input: ModelDeployment documents (`airunway.ai/v1alpha1`, the group
// kubeairunway serves today, or the older `kubeairunway.ai/v1alpha1` and `kubefoundry.ai/v1alpha1`),
// rendered through the same construct a cdk8s program uses.
import { Construct } from 'constructs';
import { isRecord, SERVER_WRITTEN_METADATA } from '../checks';
import { Problem, ProblemCollector, ValidationError } from '../errors';
import { closest } from '../suggest';
import { MODEL_DEPLOYMENT_API_VERSIONS, MODEL_DEPLOYMENT_KIND } from './document-kind';
import { ModelDeployment } from './model-deployment';
import { ProviderRegistry } from './registry';

export { MODEL_DEPLOYMENT_API_VERSIONS, MODEL_DEPLOYMENT_KIND };

/** How documents are rendered. */
export interface ModelDeploymentDocumentOptions {
  /**
   * Providers to choose from.
   * @default ProviderRegistry.builtIn()
   */
  readonly providers?: ProviderRegistry;
  /**
   * API versions the target cluster serves, for the "CRD not installed" check.
   * @default - not checked
   */
  readonly clusterApiVersions?: string[];
}

/** Spec fields that hold Kubernetes quantities: YAML may write them as numbers (`cpu: 8`), as kubectl accepts. */
const QUANTITY_FIELDS: readonly (readonly string[])[] = [
  ['resources', 'cpu'], ['resources', 'memory'],
  ['scaling', 'prefill', 'cpu'], ['scaling', 'prefill', 'memory'],
  ['scaling', 'decode', 'cpu'], ['scaling', 'decode', 'memory'],
];

/** The metadata a document's objects are rendered from. */
const DOCUMENT_METADATA: readonly string[] = ['name', 'namespace', 'labels', 'annotations'];

/**
 * Validates a `ModelDeployment` document's envelope (apiVersion, kind, metadata.name/namespace,
 * spec) and renders it with a {@link ModelDeployment} in `scope`, named after `metadata.name`.
 * @param label names the document in error messages (e.g. `in.yaml document 2 (ModelDeployment "x")`)
 * @throws ValidationError listing every problem, with fields as document paths (`spec.engine.type`)
 */
export function renderModelDeploymentDocument(
  scope: Construct, doc: unknown, label: string, options: ModelDeploymentDocumentOptions = {},
): ModelDeployment {
  const problems = new ProblemCollector();
  if (!isRecord(doc)) {
    problems.add('', 'expected a ModelDeployment document (a YAML mapping)');
    problems.throwIfAny(label);
  }
  const d = doc as Record<string, unknown>;
  if (typeof d.apiVersion !== 'string' || !MODEL_DEPLOYMENT_API_VERSIONS.includes(d.apiVersion)) {
    problems.add('apiVersion', `expected one of ${MODEL_DEPLOYMENT_API_VERSIONS.join(', ')}, got ${JSON.stringify(d.apiVersion)}`);
  }
  if (d.kind !== MODEL_DEPLOYMENT_KIND) {
    problems.add('kind', `expected ${MODEL_DEPLOYMENT_KIND}, got ${JSON.stringify(d.kind)}`);
  }
  for (const key of Object.keys(d)) {
    // `status` is accepted (and ignored) so a document saved from a cluster renders as it is.
    if (!['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(key)) {
      problems.add(key, 'unknown field; expected apiVersion, kind, metadata, spec');
    }
  }
  const metadata = isRecord(d.metadata) ? d.metadata : undefined;
  if (!metadata) {
    problems.add('metadata', 'missing: every document needs metadata.name; the rendered objects are named after it');
  } else {
    if (typeof metadata.name !== 'string' || metadata.name === '') {
      problems.add('metadata.name', 'missing: every document needs metadata.name; the rendered objects are named after it');
    }
    if (metadata.namespace !== undefined && typeof metadata.namespace !== 'string') {
      problems.add('metadata.namespace', `expected a string, got ${JSON.stringify(metadata.namespace)}`);
    }
    for (const key of Object.keys(metadata).filter((k) => !DOCUMENT_METADATA.includes(k) && !SERVER_WRITTEN_METADATA.includes(k))) {
      const near = closest(key, DOCUMENT_METADATA);
      problems.add(`metadata.${key}`, `unknown field; ${near ? `did you mean '${near}'? (` : ''}expected one of: ${DOCUMENT_METADATA.join(', ')}${near ? ')' : ''}`);
    }
  }
  if (!isRecord(d.spec)) {
    problems.add('spec', d.spec === undefined ? 'missing: a ModelDeployment needs a spec with model and engine' : 'expected a mapping');
  } else {
    // Props of the construct that are not spec fields must not be smuggled in through the spec.
    for (const key of ['metadata', 'providers', 'clusterApiVersions'].filter((k) => k in (d.spec as object))) {
      problems.add(`spec.${key}`, 'unknown field; expected one of: model, provider, engine, serving, scaling, resources, image, env, podTemplate, secrets, nodeSelector, tolerations');
    }
  }
  problems.throwIfAny(label);

  const meta = metadata!;
  try {
    return new ModelDeployment(scope, meta.name as string, {
      ...(quantitiesAsStrings(d.spec as Record<string, unknown>) as any),
      metadata: {
        name: meta.name as string,
        namespace: meta.namespace as string | undefined,
        labels: meta.labels as Record<string, string> | undefined,
        annotations: meta.annotations as Record<string, string> | undefined,
      },
      providers: options.providers,
      clusterApiVersions: options.clusterApiVersions,
    });
  } catch (e) {
    if (e instanceof ValidationError) {
      throw new ValidationError(label, e.problems.map((p) => documentProblem(p)));
    }
    throw e;
  }
}

/** A construct problem with its field as a document path. */
function documentProblem(problem: Problem): Problem {
  if (problem.field.startsWith('metadata.') || problem.field === 'metadata') return problem;
  return { field: problem.field === '' ? 'spec' : `spec.${problem.field}`, message: problem.message };
}

/** A copy of the spec with numeric quantities (`cpu: 8`) as strings (`"8"`). */
function quantitiesAsStrings(spec: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(spec);
  for (const path of QUANTITY_FIELDS) {
    let parent: unknown = copy;
    for (const key of path.slice(0, -1)) parent = isRecord(parent) ? parent[key] : undefined;
    const last = path[path.length - 1];
    if (isRecord(parent) && typeof parent[last] === 'number') parent[last] = String(parent[last]);
  }
  return copy;
}
