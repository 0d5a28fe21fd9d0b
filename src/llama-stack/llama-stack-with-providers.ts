import { createHash } from 'crypto';
import { ApiObject, Chart, Lazy, Names } from 'cdk8s';
import { Construct } from 'constructs';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { ProblemCollector } from '../errors';
import type { RouteProps } from '../imports/openshift-route.generated';
import { defineCustomResource, defineObject } from '../kubernetes-objects';
import { LABEL_DOMAIN, standardLabels } from '../labels';
import { nameOf } from '../object-reference';
import { CdkPlusModule, plusServiceOf } from '../plus-service';
import { defaultMergeImage } from '../run-config/merge-image';
import { servedModelId } from '../run-config/served-models';
import { checkObjectsUniqueInApp } from '../unique-objects';
import { addWarning } from '../warnings';
import { containerSecurityContext, podSecurityContext } from './pod/container-settings';
import { initContainers, sidecars } from './pod/init-containers';
import { PodPlan, scriptsSource, VOLUMES } from './pod/plan';
import { autoscalerSpec, disruptionBudgetSpec, podPlacement } from './pod/scaling';
import { CONFIG_MAPS_HASH_ANNOTATION, configMapsUsedBy, hashOfAppConfigMaps, userConfigMap } from './pod/used-config-maps';
import { checkUserVolumes, volumes } from './pod/volumes';
import type { LlamaStackWithProvidersProps } from './props';
import { defineProviderService } from './providers/service';
import { kubernetesMinorOf, NATIVE_SIDECARS_SINCE } from './providers/sidecar';
import { initScripts, initScriptsDigest } from './scripts';
import { serverContainer, serverPortName } from './server/container';
import { DEFAULT_DISTRIBUTION_CONFIG_PATHS } from './server/distribution';
import { HTTPS_BACKEND_ANNOTATIONS, ingressSpec, networkPolicySpec, routeName, routeSpec } from './server/network';
import { serverResources } from './server/process';
import { MAX_NAME_LENGTH, validateProps } from './validate';

/**
 * A Llama Stack server with deploy-time external providers, rendered at synth time.
 *
 * Renders a Deployment, a Service, and the ConfigMaps and PersistentVolumeClaim it needs. With
 * external providers, the pod installs each provider image's wheels in an init container, assembles
 * the config (extracting the distribution's config when no user config is given, then merging the
 * providers into it) and starts the server explicitly with the merged config.
 */
export class LlamaStackWithProviders extends Construct {
  /** Base name of the rendered objects. */
  public readonly name: string;
  /** Name of the Service. */
  public readonly serviceName: string;
  /** Port of the Service. */
  public readonly port: number;
  /**
   * The server's base URL inside the cluster, for its clients: `http://<name>-service.<namespace>.svc.cluster.local:<port>`
   * (`https://` with `tls`; `http://<name>-service:<port>`, reachable from the same namespace only, when
   * neither `namespace` nor the chart's is set).
   */
  public readonly url: string;
  /** Names of the ConfigMaps this construct rendered (not the user's own). */
  public readonly configMapNames: string[] = [];
  /** The rendered Deployment. */
  public readonly deployment: ApiObject;
  /** The rendered Service. */
  public readonly service: ApiObject;
  /** The rendered Ingress, with `network.expose`. */
  public readonly ingress?: ApiObject;
  /** The rendered OpenShift Route, with `network.expose` and `exposeAs: 'Route'`. */
  public readonly route?: ApiObject;
  /**
   * True when the config was merged at synth time (every provider's metadata and the config were
   * known): the pod runs neither the extraction nor the merge step.
   */
  public readonly mergedAtSynthTime: boolean;
  /**
   * The ids the server lists the `models` under, in order (`<providerId>/<model>`): what a client
   * names in `model` of a chat completion.
   */
  public readonly modelIds: string[];

  public constructor(scope: Construct, id: string, props: LlamaStackWithProvidersProps) {
    super(scope, id);
    checkObjectsUniqueInApp(this);
    this.name = props.name ?? Names.toDnsLabel(this, { maxLen: MAX_NAME_LENGTH });
    const problems = new ProblemCollector();
    const namespace = props.namespace ?? Chart.of(this).namespace;
    const validated = validateProps(props, this.name, namespace, problems, (m) => addWarning(this, m));
    problems.throwIfAny(`LlamaStackWithProviders '${this.node.path}'`);

    this.port = props.port ?? 8321;
    this.serviceName = `${this.name}-service`;
    const configFileName = validated.configFileName;
    const release = validated.release!;
    // The operator selects its pods by `app: ogx` (`app: llama-stack` before the rename) and the
    // instance; a Deployment's selector is immutable, so taking over the operator's Deployment in place
    // needs the same one. Our own selector keeps `llama-stack` whatever the release, so that a server
    // moved from llama-stack to ogx is rolled in place.
    const selector: Record<string, string> = props.operatorSelector
      ? { 'app': release.project, 'app.kubernetes.io/instance': this.name }
      : { 'app.kubernetes.io/name': 'llama-stack', 'app.kubernetes.io/instance': this.name };
    const labels = { ...(props.labels ?? {}), ...standardLabels('llama-stack', this.name, 'server'), ...selector };
    const metadata = (name: string) => ({ name, namespace: props.namespace, labels });
    const podAnnotations: Record<string, string> = {};

    const host = namespace === undefined ? this.serviceName : `${this.serviceName}.${namespace}.svc.cluster.local`;
    this.url = `${props.tls ? 'https' : 'http'}://${host}:${this.port}`;
    let configMap: PodPlan['configMap'];
    if (props.userConfig?.configMapName !== undefined) {
      configMap = userConfigMap(this, props.userConfig, configFileName, namespace, problems);
    } else if (validated.inlineConfigText !== undefined) {
      // The user's config, or (when every provider's metadata was known) the config merged now,
      // with extra-providers.yaml and merge-log.txt beside it for review.
      const merged = validated.synthTimeConfig;
      const name = `${this.name}-config`;
      const data = merged?.files ?? { [configFileName]: validated.inlineConfigText };
      defineObject(this, 'user-config', 'ConfigMap', { metadata: metadata(name), data: { ...data } });
      this.configMapNames.push(name);
      configMap = { name, key: configFileName };
      // A changed config must roll the pods: a ConfigMap edit alone does not restart them.
      podAnnotations[`${LABEL_DOMAIN}/config-hash`] = sha256(data[configFileName]);
    }
    this.mergedAtSynthTime = validated.synthTimeConfig?.mergedProviders ?? false;
    this.modelIds = validated.servedModels.map(servedModelId);
    const providersLeft = validated.providers.length > 0 && !this.mergedAtSynthTime;
    const servedModelsLeft = validated.servedModels.length > 0 && validated.synthTimeConfig === undefined;
    // The merge runs in the pod for providers whose metadata only the images hold, and for what must be
    // written into a config only the pod sees (a ConfigMap of the cluster, the image's own): the
    // served models, the server's certificate, the OGX operator's declarative config.
    const configSeenInPodOnly = validated.inlineConfigText === undefined;
    const mergeInPod = providersLeft || servedModelsLeft
      || (configSeenInPodOnly && (typeof validated.transport === 'object' || validated.declarative?.inPod !== undefined));

    // The init scripts come from the merge image when the pod runs it, else as reviewable text in their
    // own ConfigMap; their digest rolls the pods when a new library version changes them.
    const scriptsConfigMap = `${this.name}-init-scripts`;
    const scripts = scriptsSource({ providers: validated.providers, mergeInPod, configMap });
    if (scripts === 'configMap') {
      defineObject(this, 'init-scripts', 'ConfigMap', { metadata: metadata(scriptsConfigMap), data: { ...initScripts() } });
      this.configMapNames.push(scriptsConfigMap);
    }
    if (scripts !== 'none') podAnnotations[`${LABEL_DOMAIN}/init-scripts-hash`] = initScriptsDigest();

    const storageMountPath = props.storage?.mountPath ?? release.stateDir;
    const persistent = props.storage !== undefined && !props.storage.ephemeral;
    const claimName = props.storage?.existingClaimName === undefined ? `${this.name}-pvc` : nameOf(props.storage.existingClaimName);
    if (persistent && props.storage?.existingClaimName === undefined) {
      defineObject(this, 'storage', 'PersistentVolumeClaim', {
        metadata: metadata(claimName),
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: props.storage?.storageClassName,
          resources: { requests: { storage: props.storage?.size ?? '10Gi' } },
        },
      });
    }
    const storage: PodPlan['storage'] = persistent
      ? { name: VOLUMES.storage, persistentVolumeClaim: { claimName } }
      : {
        name: VOLUMES.storage,
        emptyDir: props.storage?.size ? { sizeLimit: props.storage.size } : {},
      };

    const plan: PodPlan = {
      image: validated.image,
      distributionName: props.distribution.name,
      imagePullPolicy: props.imagePullPolicy,
      port: this.port,
      configFileName,
      release,
      providers: validated.providers,
      configMap,
      scriptsConfigMap,
      preflight: props.preflight ?? true,
      mergeInPod,
      mergeImage: props.mergeImage ?? defaultMergeImage(),
      distributionConfigPaths: props.distributionConfigPaths ?? DEFAULT_DISTRIBUTION_CONFIG_PATHS,
      sharedVolumeSizeLimit: props.sharedVolumeSizeLimit ?? '2Gi',
      storage,
      storageMountPath,
      security: {
        runAsUser: props.podSecurity?.runAsUser ?? 1001,
        runAsGroup: props.podSecurity?.runAsGroup ?? 1001,
        fsGroup: props.podSecurity?.fsGroup ?? 1001,
        restricted: props.podSecurity?.restricted ?? true,
        idsFromPlatform: props.podSecurity?.idsFromPlatform ?? false,
      },
      env: validated.env,
      healthCheck: validated.healthCheck,
      transport: validated.transport,
      tls: props.tls,
      declarativeConfig: validated.declarative?.inPod,
      servedModels: servedModelsLeft ? validated.servedModels : [],
      metricsPort: props.metricsPort,
      configSecretEnv: validated.declarative?.secretEnv ?? [],
      generatesStorage: validated.declarative?.generatesStorage,
      caBundle: props.caBundle,
      extraVolumes: props.volumes ?? [],
      extraVolumeMounts: props.volumeMounts ?? [],
      resources: serverResources(props.resources, props.workers),
      initResources: props.initContainerResources ?? { requests: { cpu: '100m', memory: '256Mi' } },
      containerName: props.containerName ?? (release.project === 'ogx' ? 'ogx' : 'llama-stack'),
      workers: props.workers,
      command: props.command,
      args: props.args,
      nativeSidecars: (kubernetesMinorOf(props.kubernetesVersion ?? '1.29') ?? NATIVE_SIDECARS_SINCE) >= NATIVE_SIDECARS_SINCE,
    };

    // The pods' own identity, as the operator gives each server one: permissions granted to it
    // (an image pull secret, a role) reach this server only.
    const serviceAccountName = props.serviceAccountName === undefined ? `${this.name}-sa` : nameOf(props.serviceAccountName);
    if (props.serviceAccountName === undefined) {
      defineObject(this, 'service-account', 'ServiceAccount', { metadata: metadata(serviceAccountName) });
    }
    const init = initContainers(plan);
    // Native sidecars are among the init containers; before Kubernetes 1.29 they run beside the server.
    const regularSidecars = plan.nativeSidecars ? [] : sidecars(plan);
    const server = serverContainer(plan);
    const podVolumes = volumes(plan);
    // The user's volumes and mounts beside the construct's: what the API server would refuse, said now.
    checkUserVolumes(plan, podVolumes, server, problems);
    if ([...init, ...regularSidecars].some((c) => c.name === server.name)) {
      problems.add('containerName', `'${server.name}' is the name of one of the pod's other containers: choose another name.`);
    }
    problems.throwIfAny(`LlamaStackWithProviders '${this.node.path}'`);
    const replicas = props.replicas ?? 1;
    const podSpec: IPodSpec = {
      serviceAccountName,
      terminationGracePeriodSeconds: props.terminationGracePeriodSeconds,
      automountServiceAccountToken: props.automountServiceAccountToken ?? false,
      imagePullSecrets: props.imagePullSecrets?.map((secret) => ({ name: nameOf(secret) })),
      securityContext: podSecurityContext(plan.security),
      nodeSelector: props.nodeSelector,
      ...podPlacement(selector, replicas, props.topologySpreadConstraints),
      tolerations: props.tolerations,
      initContainers: init.length > 0 ? init : undefined,
      containers: [server, ...regularSidecars],
      volumes: podVolumes,
    };
    // The user's ConfigMaps the pods read, when this app defines them too (a cdk8s program, or other
    // objects of a render input): their content rolls the pods, as our own config's hash does. Known
    // only once the whole app is built, so resolved at synth.
    const usedConfigMaps = configMapsUsedBy(podSpec).filter((n) => !this.configMapNames.includes(n));
    const annotations = Lazy.any({
      produce: () => {
        const hash = hashOfAppConfigMaps(this, usedConfigMaps, namespace);
        const all = { ...props.podAnnotations, ...podAnnotations, ...(hash !== undefined ? { [CONFIG_MAPS_HASH_ANNOTATION]: hash } : {}) };
        return Object.keys(all).length > 0 ? all : undefined;
      },
    });
    this.deployment = defineObject(this, 'deployment', 'Deployment', {
      metadata: metadata(this.name),
      spec: {
        // With an autoscaler, the replica count is its to set (a rendered count would undo its work at every apply).
        replicas: props.autoscaling ? undefined : replicas,
        selector: { matchLabels: selector },
        // A ReadWriteOnce claim cannot be attached to the old and the new pod at once.
        strategy: persistent ? { type: 'Recreate' } : undefined,
        template: { metadata: { labels, annotations: annotations as unknown as Record<string, string> }, spec: podSpec },
      },
    });

    const portName = serverPortName(plan);
    this.service = defineObject(this, 'service', 'Service', {
      metadata: metadata(this.serviceName),
      spec: {
        selector,
        ports: [
          { name: portName, port: this.port, targetPort: portName, protocol: 'TCP', ...(plan.tls ? { appProtocol: 'https' } : {}) },
          ...(plan.metricsPort !== undefined ? [{ name: 'metrics', port: plan.metricsPort, targetPort: 'metrics', protocol: 'TCP' as const }] : []),
        ],
      },
    });

    for (const p of validated.providers) {
      if (!p.service) continue;
      defineProviderService(this, p.service, {
        server: this.name,
        namespace: props.namespace,
        serverSelector: selector,
        labels: props.labels,
        podSecurityContext: podSecurityContext(plan.security),
        containerSecurityContext: containerSecurityContext(plan.security),
      });
    }

    if (props.autoscaling) {
      defineObject(this, 'autoscaler', 'HorizontalPodAutoscaler', { metadata: metadata(`${this.name}-hpa`), spec: autoscalerSpec(this.name, replicas, props.autoscaling) });
    }
    const budget = disruptionBudgetSpec(selector, replicas, props.podDisruptionBudget);
    if (budget) {
      defineObject(this, 'disruption-budget', 'PodDisruptionBudget', { metadata: metadata(`${this.name}-pdb`), spec: budget });
    }
    if (props.network?.expose && props.network.exposeAs === 'Route') {
      const termination = plan.tls ? 'reencrypt' : plan.healthCheck === 'https' ? 'passthrough' : 'edge';
      this.route = defineCustomResource<RouteProps>(this, 'route', { apiVersion: 'route.openshift.io/v1', kind: 'Route' }, {
        metadata: metadata(routeName(this.name)), spec: routeSpec(this.serviceName, portName, termination, props.tls?.routeDestinationCaCertificate),
      });
    } else if (props.network?.expose) {
      this.ingress = defineObject(this, 'ingress', 'Ingress', {
        metadata: { ...metadata(`${this.name}-ingress`), ...(plan.tls ? { annotations: { ...HTTPS_BACKEND_ANNOTATIONS } } : {}) },
        spec: ingressSpec(props.network, this.serviceName, this.port),
      });
    }
    if (props.network?.allowedFrom) {
      defineObject(this, 'network-policy', 'NetworkPolicy', {
        metadata: metadata(`${this.name}-network-policy`),
        spec: networkPolicySpec(selector, this.port, props.network.allowedFrom, plan.metricsPort),
      });
    }
  }

  /**
   * The server's Service as a `Service` of the app's own cdk8s-plus (whichever major), for the
   * cdk8s-plus APIs that take one: `kplus.IngressBackend.fromService(stack.plusService(kplus))`.
   * It stands for the Service this construct renders, and renders nothing itself. With `metricsPort`
   * the Service has two ports: name the server's (`{ port: stack.port }`) where one is chosen.
   * @param plus the cdk8s-plus module of the app (`import * as kplus from 'cdk8s-plus-33'`)
   */
  public plusService<S>(plus: CdkPlusModule<S>): S {
    const ports: { port: number; name: string }[] = this.service.toJson().spec.ports;
    return plusServiceOf(plus, {
      metadata: { name: this.serviceName, namespace: this.service.metadata.namespace },
      ports: ports.map((p) => ({ port: p.port, name: p.name })),
    });
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
