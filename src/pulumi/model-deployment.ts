import * as pulumi from '@pulumi/pulumi';
import { ApiObjectMetadata } from 'cdk8s';
import * as cdk8s from '../model-deployment';
import { DeferredValues } from './deferred-values';
import { renderComponent } from './render-component';

/**
 * Args of the Pulumi {@link ModelDeployment}: the props of the cdk8s construct, where the
 * namespace, the image and the names of the Secrets and the ServiceAccount may be Pulumi inputs.
 */
export interface ModelDeploymentArgs extends Omit<cdk8s.ModelDeploymentProps, 'metadata' | 'image' | 'secrets' | 'imagePullSecrets' | 'serviceAccountName'> {
  /**
   * Name of the rendered resources.
   * @default - the component's name
   */
  readonly name?: string;
  /**
   * Namespace of the rendered resources (e.g. `namespace.metadata.name`).
   * @default - the provider's default namespace
   */
  readonly namespace?: pulumi.Input<string>;
  /**
   * Labels and annotations, as in the cdk8s construct's `metadata`.
   * @default - none
   */
  readonly metadata?: Omit<ApiObjectMetadata, 'name' | 'namespace'>;
  /**
   * Container image (may be an output, e.g. of an image build).
   * @default - the provider's default image for the engine
   */
  readonly image?: pulumi.Input<string>;
  /**
   * Secrets; the Hugging Face token Secret's name may be an output.
   * @default - none
   */
  readonly secrets?: { readonly huggingFaceToken?: pulumi.Input<string> };
  /**
   * Secrets to pull the serving images with; their names may be outputs.
   * @default []
   */
  readonly imagePullSecrets?: pulumi.Input<string>[];
  /**
   * The ServiceAccount the serving pods run as; its name may be an output.
   * @default - the provider's default
   */
  readonly serviceAccountName?: pulumi.Input<string>;
}

/**
 * Where the deployment serves its OpenAI-compatible API: the cdk8s construct's `endpoint`, with the
 * URL and namespace outputs (the namespace may be one). A `LlamaStackWithProviders` takes it as it is
 * in `models`.
 */
export interface PulumiModelEndpoint extends Omit<cdk8s.ModelEndpoint, 'url' | 'namespace'> {
  /** `http://<service>.<namespace>.svc.cluster.local:<port>/v1` (`http://<service>:<port>/v1` without a namespace). */
  readonly url: pulumi.Output<string>;
  /** Namespace of the Service, when given. */
  readonly namespace?: pulumi.Output<string>;
}

/**
 * One LLM deployment as a Pulumi component: renders the cdk8s `ModelDeployment` in memory (same
 * validation, same provider selection, same resources) and registers what it renders as children.
 */
export class ModelDeployment extends pulumi.ComponentResource {
  /** Name of the provider resource. */
  public readonly resourceName: pulumi.Output<string>;
  /** `apiVersion` and `kind` of the provider resource, e.g. `kaito.sh/v1beta1 Workspace`. */
  public readonly resourceType: pulumi.Output<string>;
  /** The provider that serves the model. */
  public readonly selectedProvider: pulumi.Output<string>;
  /** Why that provider was chosen. */
  public readonly selectionReason: pulumi.Output<string>;
  /** The provider resource (a Workspace, DynamoGraphDeployment or RayService), as registered: for `dependsOn`. */
  public readonly resource: pulumi.CustomResource;
  /** The registered Kubernetes resources. */
  public readonly resources: pulumi.CustomResource[];
  /** Where it serves its OpenAI-compatible API; `models: [model.endpoint]` of a `LlamaStackWithProviders` serves it there. */
  public readonly endpoint: PulumiModelEndpoint;

  public constructor(name: string, args: ModelDeploymentArgs, opts?: pulumi.ComponentResourceOptions) {
    super('kube-inference:model-deployment:ModelDeployment', name, {}, opts);
    const deferred = new DeferredValues();
    const { name: objectName, namespace, metadata, image, secrets, imagePullSecrets, serviceAccountName, ...spec } = args;
    const props: cdk8s.ModelDeploymentProps = {
      ...spec,
      metadata: { ...metadata, name: objectName ?? name, namespace: deferred.placeholder(namespace, 'name') },
      image: deferred.placeholder(image, 'image'),
      secrets: secrets && { huggingFaceToken: deferred.placeholder(secrets.huggingFaceToken, 'name') },
      imagePullSecrets: imagePullSecrets?.map((secret) => deferred.placeholder(secret, 'name') as string),
      serviceAccountName: deferred.placeholder(serviceAccountName, 'name'),
    };

    const { construct: built, resources, registered } = renderComponent(
      this, name, props, deferred, (scope, id, p) => new cdk8s.ModelDeployment(scope, id, p));
    this.resources = resources;
    this.resource = registered(built.resource.kind, built.resource.name);
    this.resourceName = pulumi.output(built.name);
    this.resourceType = pulumi.output(`${built.resource.apiVersion} ${built.resource.kind}`);
    this.selectedProvider = pulumi.output(built.provider.name);
    this.selectionReason = pulumi.output(built.selectionReason);
    const { url, namespace: endpointNamespace, ...endpoint } = built.endpoint;
    this.endpoint = {
      ...endpoint,
      url: deferred.output(url),
      ...(endpointNamespace !== undefined ? { namespace: deferred.output(endpointNamespace) } : {}),
    };
    this.registerOutputs({
      resourceName: this.resourceName,
      resourceType: this.resourceType,
      selectedProvider: this.selectedProvider,
      selectionReason: this.selectionReason,
      endpointUrl: this.endpoint.url,
    });
  }
}
