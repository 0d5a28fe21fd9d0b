import { ApiObject, ApiObjectMetadata, Chart, Names } from 'cdk8s';
import { Construct } from 'constructs';
import { ShapeChecker } from '../checks';
import { Problem, ProblemCollector, ValidationError } from '../errors';
import { DNS1035_LABEL, DNS1123_LABEL } from '../name-patterns';
import { checkReferencesNamespace } from '../object-reference';
import { CdkPlusModule, plusServiceOf } from '../plus-service';
import { checkObjectsUniqueInApp } from '../unique-objects';
import { addWarning } from '../warnings';
import { commonLabels, podLabels, PROVIDER_ANNOTATION, propagatedLabels, resourceLabels, SELECTION_REASON_ANNOTATION } from './metadata';
import { checkOverrides } from './overrides';
import { InferenceProvider } from './provider';
import { ProviderRegistry } from './registry';
import { ResolvedModelDeployment, resolveSpec } from './resolved-spec';
import { selectProvider } from './selection';
import { EndpointStatus } from './status';
import { ModelDeploymentSpec } from './types';
import { CORE_MESSAGES, referencesOf, validateModelDeploymentSpec } from './validation';

/** Props of {@link ModelDeployment}: the unified spec, plus where and how to render it. */
export interface ModelDeploymentProps extends ModelDeploymentSpec {
  /**
   * Name, namespace, labels and annotations. Only labels with the `kube-inference.io/` prefix are
   * copied to the provider resource; annotations are copied.
   * @default - name derived from the construct path, the chart's namespace
   */
  readonly metadata?: ApiObjectMetadata;
  /**
   * The providers to choose from: add a third-party provider, or configure the built-ins.
   * @default ProviderRegistry.builtIn()
   */
  readonly providers?: ProviderRegistry;
  /**
   * API versions the target cluster serves (`kubectl api-versions`). When given, the chosen
   * provider's CRD version must be one of them ("Provider '{name}' CRD not installed in cluster").
   * @default - not checked
   */
  readonly clusterApiVersions?: string[];
}

/**
 * Where a rendered deployment serves its OpenAI-compatible API inside the cluster. A
 * `LlamaStackWithProviders` takes it as it is in `models`, to serve the model through its own API.
 */
export interface ModelEndpoint extends EndpointStatus {
  /** Name of the deployment (its resources' name). */
  readonly name: string;
  /**
   * The model's name on the API, what `GET /v1/models` lists and requests name: `model.servedName`,
   * else `model.id` (for KAITO's InferenceSet, its name); undefined for a custom image that does not say.
   */
  readonly model?: string;
  /** Namespace of the Service: `metadata.namespace`, else the chart's; undefined when neither is set. */
  readonly namespace?: string;
  /**
   * The base URL for OpenAI clients, e.g. the `url` of a Llama Stack `remote::vllm` provider:
   * `http://<service>.<namespace>.svc.cluster.local:<port>/v1`, or `http://<service>:<port>/v1`
   * (reachable from the same namespace only) when no namespace is set.
   */
  readonly url: string;
}

/**
 * One LLM deployment, rendered at synth time into the custom resource of the provider that runs
 * it: a KAITO `Workspace`, an NVIDIA Dynamo `DynamoGraphDeployment` or a KubeRay `RayService`
 * (or a registered third-party provider's resource).
 *
 * Invalid props fail the synth with every problem listed; the provider is the one named in
 * `provider.name` or chosen by the selection algorithm, and the choice and its reason are recorded
 * on the resource (`kube-inference.io/provider`, `kube-inference.io/selection-reason`).
 */
export class ModelDeployment extends Construct {
  /** Name of the rendered resources. */
  public readonly name: string;
  /** The provider that rendered this deployment. */
  public readonly provider: InferenceProvider;
  /** Why that provider was chosen. */
  public readonly selectionReason: string;
  /** The primary rendered resource (Workspace, DynamoGraphDeployment, RayService, ...). */
  public readonly resource: ApiObject;
  /** The validated spec with defaults applied. */
  public readonly deployment: ResolvedModelDeployment;
  /** The Service, port and URL of the OpenAI-compatible API the provider's runtime serves. */
  public readonly endpoint: ModelEndpoint;

  public constructor(scope: Construct, id: string, props: ModelDeploymentProps) {
    super(scope, id);
    checkObjectsUniqueInApp(this);
    const subject = `ModelDeployment '${this.node.path}'`;
    const { metadata = {}, providers, clusterApiVersions, ...spec } = props;

    // 1. The spec on its own: shapes and the core rules of the ModelDeployment webhook.
    const problems = new ProblemCollector();
    const validation = validateModelDeploymentSpec(spec);
    validation.problems.forEach((p) => problems.add(p.field, p.message));
    this.name = metadata.name ?? Names.toDnsLabel(this);
    checkMetadata(problems, metadata, this.name);
    if (validation.problems.length === 0) {
      // The shapes are right: the objects named are in the pods' namespace.
      const podNamespace = metadata.namespace ?? Chart.of(this).namespace;
      checkReferencesNamespace(referencesOf(spec), podNamespace, problems);
    }
    problems.throwIfAny(subject);
    validation.warnings.forEach((w) => addWarning(this, w));

    // 2. The provider: named, or selected by the providers' rules.
    const deployment = resolveSpec(spec as ModelDeploymentSpec, this.name, metadata.namespace);
    const registry = providers ?? ProviderRegistry.builtIn();
    const selected = selectProvider(deployment, registry);
    selected.warnings.forEach((w) => addWarning(this, w));
    if (!selected.selection) throw new ValidationError(subject, [selected.problem!]);
    const { provider, reason, explicit } = selected.selection;

    // 3. What the provider makes of it: compatibility, overrides, installed CRD.
    const providerProblems: Problem[] = [...provider.checkCompatibility(deployment)];
    const overrides = checkOverrides(provider.name, provider.overrides, spec.provider?.overrides);
    providerProblems.push(...overrides.problems);
    if (clusterApiVersions && !clusterApiVersions.includes(provider.resourceType.apiVersion)) {
      providerProblems.push({ field: 'provider.name', message: CORE_MESSAGES.crdNotInstalled(provider.name) });
    }
    if (providerProblems.length > 0) {
      if (!explicit) {
        providerProblems.push({ field: 'provider.name', message: `'${provider.name}' was selected automatically (${reason}); set provider.name to choose another provider` });
      }
      throw new ValidationError(subject, providerProblems);
    }
    overrides.warnings.forEach((w) => addWarning(this, w));

    // 4. Render.
    const { kept, dropped } = propagatedLabels(metadata.labels ?? {});
    this.provider = provider;
    this.selectionReason = reason;
    this.deployment = deployment;
    this.resource = provider.render({
      scope: this,
      deployment,
      metadata: {
        name: this.name,
        namespace: metadata.namespace,
        labels: resourceLabels(deployment, provider.name, kept),
        annotations: { ...metadata.annotations, [PROVIDER_ANNOTATION]: provider.name, [SELECTION_REASON_ANNOTATION]: reason },
      },
      podLabels: podLabels(deployment),
      podAnnotations: { ...deployment.podMetadata.annotations },
      commonLabels: commonLabels(deployment, provider.name),
      warn: (message) => addWarning(this, message),
    });
    if (dropped.length > 0) {
      // Named after what was rendered: KAITO renders an InferenceSet instead of its Workspace for replicas other than 1.
      addWarning(this, `metadata.labels ${dropped.join(', ')} not copied to the ${this.resource.kind}: only labels with `
        + 'the kube-inference.io/ prefix are (use podTemplate.metadata.labels for pod labels)');
    }
    const model = provider.servedModelName !== undefined ? provider.servedModelName(deployment) : deployment.model.servedName ?? deployment.model.id;
    this.endpoint = modelEndpoint(this.name, model, provider.endpoint(deployment), metadata.namespace ?? Chart.of(this).namespace);
  }

  /**
   * The Service the provider's operator makes for the model (`endpoint.service`, which this construct
   * does not render) as a `Service` of the app's own cdk8s-plus (whichever major), for the cdk8s-plus
   * APIs that take one: `kplus.IngressBackend.fromService(model.plusService(kplus))`.
   * @param plus the cdk8s-plus module of the app (`import * as kplus from 'cdk8s-plus-33'`)
   */
  public plusService<S>(plus: CdkPlusModule<S>): S {
    return plusServiceOf(plus, {
      metadata: { name: this.endpoint.service, namespace: this.endpoint.namespace },
      ports: [{ port: this.endpoint.port }],
    });
  }
}

function modelEndpoint(name: string, model: string | undefined, endpoint: EndpointStatus, namespace: string | undefined): ModelEndpoint {
  const host = namespace === undefined ? endpoint.service : `${endpoint.service}.${namespace}.svc.cluster.local`;
  return { name, ...(model !== undefined ? { model } : {}), ...endpoint, namespace, url: `http://${host}:${endpoint.port}${endpoint.basePath}` };
}

/**
 * The name becomes Service names (KAITO's Service is the Workspace's name; Dynamo and KubeRay add
 * suffixes), so it must be an RFC 1035 label.
 */
function checkMetadata(problems: ProblemCollector, metadata: ApiObjectMetadata, name: string): void {
  const check = new ShapeChecker(problems);
  if (name.length > 63 || !DNS1035_LABEL.test(name)) {
    problems.add('metadata.name', `${JSON.stringify(name)} is not a valid name: lower-case letters, digits and '-', starting with a letter, at most 63 characters`);
  }
  if (metadata.namespace !== undefined) {
    const namespace = check.string(metadata.namespace, 'metadata.namespace', { pattern: DNS1123_LABEL, patternHint: 'a namespace name (DNS label)' });
    if (namespace !== undefined && namespace.length > 63) {
      problems.add('metadata.namespace', `${JSON.stringify(namespace)} is ${namespace.length} characters; a namespace name has at most 63`);
    }
  }
  check.labelMap(metadata.labels, 'metadata.labels', 'label');
  check.labelMap(metadata.annotations, 'metadata.annotations', 'annotation');
}
