import type * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import * as cdk8s from '../llama-stack';
import { checkDeferredRelease } from './deferred-release';
import { DeferredValues } from './deferred-values';
import type { LlamaStackWithProvidersArgs } from './llama-stack-args';
import { deferProviderConfig } from './provider-config';
import { ProblemCollector } from '../errors';
import { renderComponent } from './render-component';
import { CONFIG_MAPS_HASH_ANNOTATION, hashOfConfigMaps } from '../llama-stack/pod';

/**
 * The construct's `models`, a URL output as a placeholder. A config given inline is merged with the
 * models at render time and hashed into the pods' template, which a URL known only later would leave
 * stale: that combination is refused.
 */
function modelsProps(args: LlamaStackWithProvidersArgs, deferred: DeferredValues, problems: ProblemCollector): cdk8s.StackModel[] | undefined {
  return args.models?.map(({ url, namespace: _namespace, ...model }, i) => {
    if (typeof url !== 'string' && args.userConfig?.config !== undefined) {
      problems.add(`models[${i}].url`, 'is an output (the model\'s namespace is one), and userConfig.config is merged with the models when the component '
        + 'renders: give the ModelDeployment its namespace as text, or the config in a ConfigMap (userConfig.configMap), which the pod merges.');
    }
    return { ...model, url: deferred.placeholder(url, 'url') as string };
  });
}

/**
 * The construct's `userConfig`, and with a ConfigMap of the program, its name and the hash of its
 * content as `podAnnotations` (both known once the ConfigMap is).
 */
function userConfigProps(args: LlamaStackWithProvidersArgs, deferred: DeferredValues, problems: ProblemCollector)
  : { userConfig: cdk8s.UserConfig | undefined; podAnnotations?: { [key: string]: string } } {
  const user = args.userConfig;
  if (user === undefined) return { userConfig: undefined };
  const { configMap, configMapName, ...rest } = user;
  if (configMap === undefined) return { userConfig: { ...rest, configMapName: deferred.placeholder(configMapName, 'name') } };
  if (configMapName !== undefined || rest.config !== undefined) {
    problems.add('userConfig.configMap', 'expected exactly one of configMap, configMapName and config.');
    return { userConfig: undefined };
  }
  // Pulumi names a ConfigMap without metadata.name itself: known once it is registered.
  const name = configMap.metadata.apply((m) => m?.name ?? '');
  const hash = pulumi.all([name, configMap.data, configMap.binaryData])
    .apply(([n, data, binaryData]) => hashOfConfigMaps([{ name: n, data, binaryData }]));
  return {
    userConfig: { ...rest, configMapName: deferred.placeholder(name, 'name') },
    podAnnotations: { ...args.podAnnotations, [CONFIG_MAPS_HASH_ANNOTATION]: deferred.placeholder(hash, 'name') as string },
  };
}

/**
 * A Llama Stack server with deploy-time external providers, as a Pulumi component.
 *
 * It renders exactly the objects of the cdk8s construct of the same name (it synthesises that
 * construct in memory) and registers each as a child resource. Inputs that are outputs of other
 * resources are validated when they become known; every other value is validated at once, before
 * anything is registered.
 */
export class LlamaStackWithProviders extends pulumi.ComponentResource {
  /** Name of the Service. */
  public readonly serviceName: pulumi.Output<string>;
  /** Port of the Service. */
  public readonly servicePort: pulumi.Output<number>;
  /** The server's base URL inside the cluster (`http://<name>-service.<namespace>.svc.cluster.local:<port>`); the namespace may be an output. */
  public readonly url: pulumi.Output<string>;
  /** Names of the ConfigMaps the component rendered. */
  public readonly configMapNames: pulumi.Output<string[]>;
  /** The ids the server lists the `models` under (`<providerId>/<model>`), what a client names in a chat completion. */
  public readonly modelIds: pulumi.Output<string[]>;
  /** The server's Service, as registered: for an Ingress of the program, or `dependsOn`. */
  public readonly service: k8s.core.v1.Service;
  /** The server's Deployment, as registered. */
  public readonly deployment: k8s.apps.v1.Deployment;
  /** The registered Kubernetes resources. */
  public readonly resources: pulumi.CustomResource[];

  public constructor(name: string, args: LlamaStackWithProvidersArgs, opts?: pulumi.ComponentResourceOptions) {
    super('kube-inference:llama-stack:LlamaStackWithProviders', name, {}, opts);
    const deferred = new DeferredValues();
    const problems = new ProblemCollector();
    const props: cdk8s.LlamaStackWithProvidersProps = {
      ...args,
      name: args.name ?? name,
      namespace: deferred.placeholder(args.namespace, 'name'),
      distribution: { ...args.distribution, image: deferred.placeholder(args.distribution.image, 'image') },
      mergeImage: deferred.placeholder(args.mergeImage, 'image'),
      serviceAccountName: deferred.placeholder(args.serviceAccountName, 'name'),
      tls: args.tls && { ...args.tls, secretName: deferred.placeholder(args.tls.secretName, 'name') as string },
      caBundle: args.caBundle && { ...args.caBundle, configMapName: deferred.placeholder(args.caBundle.configMapName, 'name') as string },
      imagePullSecrets: args.imagePullSecrets?.map((secret) => deferred.placeholder(secret, 'name') as string),
      storage: args.storage && {
        ...args.storage,
        existingClaimName: deferred.placeholder(args.storage.existingClaimName, 'name'),
        storageClassName: deferred.placeholder(args.storage.storageClassName, 'name'),
      },
      ...userConfigProps(args, deferred, problems),
      models: modelsProps(args, deferred, problems),
      externalProviders: args.externalProviders && Object.fromEntries(Object.entries(args.externalProviders).map(([section, list]) => [
        section,
        list?.map((p, i) => ({
          ...p,
          image: deferred.placeholder(p.image, 'image'),
          config: deferProviderConfig(p.config, `externalProviders.${section}[${i}]`, deferred, problems),
        })),
      ])),
    };
    problems.throwIfAny(`LlamaStackWithProviders '${name}'`);

    const { construct: built, resources, registered } = renderComponent(this, name, props, deferred,
      (scope, id, p) => new cdk8s.LlamaStackWithProviders(scope, id, p),
      (resolved) => checkDeferredRelease(args, resolved, name));
    this.resources = resources;
    this.service = registered('Service', built.serviceName) as k8s.core.v1.Service;
    this.deployment = registered('Deployment', built.name) as k8s.apps.v1.Deployment;
    this.serviceName = pulumi.output(built.serviceName);
    this.servicePort = pulumi.output(built.port);
    this.configMapNames = pulumi.output(built.configMapNames);
    this.modelIds = pulumi.output(built.modelIds);
    this.url = deferred.output(built.url);
    this.registerOutputs({
      serviceName: this.serviceName, servicePort: this.servicePort, configMapNames: this.configMapNames, modelIds: this.modelIds, url: this.url,
    });
  }
}
