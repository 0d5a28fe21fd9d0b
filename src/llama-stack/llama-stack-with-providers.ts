import { createHash } from 'crypto';
import { ApiObject, Chart, Lazy, Names } from 'cdk8s';
import { Construct } from 'constructs';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { ProblemCollector } from '../errors';
import type { RouteProps } from '../imports/openshift-route.generated';
import { defineCustomResource, defineObject } from '../kubernetes-objects';
import { LABEL_DOMAIN, standardLabels } from '../labels';
import { nameOf, ObjectReference } from '../object-reference';
import { CdkPlusModule, plusServiceOf } from '../plus-service';
import type { EnvValue, EnvVar, Toleration, TopologySpreadConstraint, Volume, VolumeMount } from '../pod-spec';
import { defaultMergeImage } from '../run-config/merge-image';
import { servedModelId } from '../run-config/served-models';
import { checkObjectsUniqueInApp } from '../unique-objects';
import { addWarning } from '../warnings';
import { DEFAULT_DISTRIBUTION_CONFIG_PATHS, Distribution } from './distribution';
import { ExternalProviders, ImagePullPolicy } from './external-providers';
import { HealthCheck } from './health-check';
import { HTTPS_BACKEND_ANNOTATIONS, ingressSpec, networkPolicySpec, routeSpec } from './network';
import {
  AutoscalingOptions, CaBundleOptions, NetworkOptions, PodDisruptionBudgetOptions, PodSecurityOptions, ServerTlsOptions, StackModel, StorageOptions,
  UserConfig,
} from './options';
import {
  checkUserVolumes, containerSecurityContext, initContainers, PodPlan, podSecurityContext, ResourceRequirements, scriptsSource, serverContainer,
  serverPortName, sidecars, volumes, VOLUMES,
} from './pod';
import { defineProviderService } from './provider-service';
import { kubernetesMinorOf, NATIVE_SIDECARS_SINCE } from './provider-sidecar';
import { autoscalerSpec, disruptionBudgetSpec, podPlacement } from './scaling';
import { initScripts, initScriptsDigest } from './scripts';
import { serverResources } from './server-process';
import { CONFIG_MAPS_HASH_ANNOTATION, configMapsUsedBy, hashOfAppConfigMaps, userConfigMap } from './used-config-maps';
import { MAX_NAME_LENGTH, validateProps } from './validate';

/** Props of {@link LlamaStackWithProviders}. */
export interface LlamaStackWithProvidersProps {
  /**
   * Base name of every rendered object: the Deployment is `<name>`, the Service `<name>-service`.
   * @default - a unique name derived from the construct path
   */
  readonly name?: string;
  /**
   * Namespace of every rendered object.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /**
   * Extra labels for every rendered object and the pods.
   * @default - only the standard `app.kubernetes.io/*` labels
   */
  readonly labels?: { [key: string]: string };
  /** The distribution to run (OGX, formerly Llama Stack): a named distribution or an image. */
  readonly distribution: Distribution;
  /**
   * The server release the distribution runs: an ogx line (`'1.5'`, `'1.1'`, … `'0.8'`) or a
   * llama-stack one (`'0.7'` … `'0.2'`), or a full version such as `'1.5.0'`. It decides how the pod
   * starts the server (`ogx run` or `llama stack run`, `OGX_*` or `LLAMA_STACK_*`, `--insecure` from
   * ogx 1.2), which `externalProviders` sections and config APIs are accepted (ogx 1.0 removed
   * `safety`, llama-stack 0.7 renamed `agents` to `responses`), the image of a named distribution, the
   * default `configFileName` and storage path, and is passed to the merge step.
   * @default - the release the distribution image's tag names (`...:1.1.3` → 1.1), otherwise '1.5'
   */
  readonly serverVersion?: string;
  /**
   * The old name of `serverVersion`, from before llama-stack was renamed OGX.
   * @deprecated Use `serverVersion`.
   * @default - `serverVersion`
   */
  readonly llamaStackVersion?: string;
  /**
   * When to pull the distribution image.
   * @default - Kubernetes' default for the tag
   */
  readonly imagePullPolicy?: ImagePullPolicy;
  /**
   * The port the server listens on (container and Service).
   * @default 8321
   */
  readonly port?: number;
  /**
   * Number of server pods.
   * @default 1
   */
  readonly replicas?: number;
  /**
   * Environment of the server container. Entries override the construct's defaults of the same
   * name; a `PYTHONPATH` is kept, after the provider packages.
   * @default - none
   */
  readonly env?: EnvVar[];
  /**
   * Environment of the server container by name, as cdk8s-plus containers take it: a cdk8s-plus
   * `EnvValue` of any major (`EnvValue.fromSecretValue({ secret, key })`) or `{ value }` /
   * `{ valueFrom }`. Added after `env`; a name may be in one of them only.
   * @default - none
   */
  readonly envVariables?: { [name: string]: EnvValue };
  /**
   * Resources of the server container.
   * @default - requests of 500m CPU and 1Gi memory, no limits; with `workers`, as the operator sets
   * them: requests of one CPU per worker and 1Gi memory, and limits equal to the requests
   */
  readonly resources?: ResourceRequirements;
  /**
   * Worker processes of the server (the operators' `workers`), and `resources` default to the
   * operators' (one CPU per worker). From ogx 1.2 the run command starts them itself (`OGX_WORKERS`),
   * TLS included. From llama-stack 0.3 to ogx 1.1 the server starts as the llama-stack operator starts
   * it, `uvicorn <package>.core.server.server:create_app --factory --workers <n>`; that start does not
   * read the config's `server.tls_*` or `server.workers`: for TLS there, set `server.workers` in the
   * config instead.
   * @default - one server process (the config's `server.workers` apply)
   */
  readonly workers?: number;
  /**
   * Name of the server container (the operators' `containerSpec.name`).
   * @default - 'ogx' for an ogx release (as the OGX operator names it), 'llama-stack' for llama-stack
   */
  readonly containerName?: string;
  /**
   * The server container's command (the operator's `containerSpec.command`), replacing how the
   * construct starts the server: `OGX_CONFIG` (`LLAMA_STACK_CONFIG` for llama-stack) names the
   * config it prepared, and the providers' preflight check does not run.
   * @default - the server is started with the prepared config (through opentelemetry-instrument when an `OTEL_*` variable is set)
   */
  readonly command?: string[];
  /**
   * The server container's args (the operator's `containerSpec.args`): arguments of the server
   * command (`ogx run <config>`, `llama stack run <config>`, or the uvicorn command with `workers`),
   * or of `command`.
   * @default - none
   */
  readonly args?: string[];
  /**
   * Resources of each init container (installers, extraction, merge).
   * @default - requests of 100m CPU and 256Mi memory, no limits
   */
  readonly initContainerResources?: ResourceRequirements;
  /**
   * The user's Llama Stack config. Without it the distribution's own config is used: extracted
   * from the image when providers must be merged into it, or left to the image otherwise.
   * @default - the distribution's config
   */
  readonly userConfig?: UserConfig;
  /**
   * File name of the config the server runs with (and of the base config the merge reads).
   * ogx and llama-stack ≥ 0.4 call it `config.yaml`, earlier versions `run.yaml`.
   * @default - that of the release (`serverVersion`): 'config.yaml' from 0.4, 'run.yaml' before
   */
  readonly configFileName?: string;
  /**
   * Files where the distribution image may keep its config, when it must be extracted. The
   * extraction tries the image's `RUN_CONFIG_PATH` first, then these paths in order, then the config
   * shipped in the installed `llama_stack` package for the distribution the image runs
   * (`distribution.name`, else the image's `DISTRO_NAME`), as upstream images keep it.
   * @default - /opt/app-root/config.yaml, /opt/app-root/run.yaml, /etc/llama-stack/config.yaml,
   * /etc/llama-stack/run.yaml, /app/run.yaml
   */
  readonly distributionConfigPaths?: string[];
  /**
   * Storage for the server's state directory.
   * @default - an emptyDir mounted at `/.ogx` (`/.llama` for llama-stack)
   */
  readonly storage?: StorageOptions;
  /**
   * Select the pods as the operator of the release does (`app: ogx`, or `app: llama-stack`, and
   * `app.kubernetes.io/instance: <name>`), so that the rendered Deployment can replace, in place, one
   * the operator created: a Deployment's selector cannot be changed. Give `name` the operator's
   * resource name; the Service's name, `<name>-service`, is the operator's already.
   * @default false
   */
  readonly operatorSelector?: boolean;
  /**
   * An existing service account for the pods: its name, or a cdk8s-plus `IServiceAccount` / cdk8s
   * `ApiObject`.
   * @default - a ServiceAccount `<name>-sa` of their own, rendered with them (as the operator creates one)
   */
  readonly serviceAccountName?: ObjectReference;
  /**
   * Mount the service account's API token into the pods. Llama Stack does not call the
   * Kubernetes API, so the token is not mounted unless asked for.
   * @default false
   */
  readonly automountServiceAccountToken?: boolean;
  /**
   * Secrets used to pull the distribution, provider and merge images: their names, or cdk8s-plus
   * `ISecret`s / cdk8s `ApiObject`s.
   * @default - none
   */
  readonly imagePullSecrets?: ObjectReference[];
  /**
   * More annotations of the pods (their template), for the tools that read them (a sidecar injector,
   * a metrics scraper), or a hash of configuration kept elsewhere, so that changing it rolls the pods.
   * The construct's own annotations (`kube-inference.io/*-hash`) win over an annotation of the same key.
   * @default - only the construct's hashes
   */
  readonly podAnnotations?: { [key: string]: string };
  /**
   * Node selector of the pods (e.g. for GPU nodes).
   * @default - none
   */
  readonly nodeSelector?: { [key: string]: string };
  /**
   * Tolerations of the pods.
   * @default - none
   */
  readonly tolerations?: Toleration[];
  /**
   * More volumes of the pods (the operator's `podOverrides.volumes`), for `volumeMounts`.
   * @default - none
   */
  readonly volumes?: Volume[];
  /**
   * More mounts of the server container (the operator's `podOverrides.volumeMounts`), of `volumes` or of
   * the construct's own volumes.
   * @default - none
   */
  readonly volumeMounts?: VolumeMount[];
  /**
   * Certificate authorities the server trusts for its outgoing TLS, from a ConfigMap (the operator's
   * `tlsConfig.caBundle`): mounted at `/etc/ssl/certs/ca-bundle`, named by `SSL_CERT_FILE`.
   * @default - the image's trust store
   */
  readonly caBundle?: CaBundleOptions;
  /**
   * How the kubelet checks the server (startup, readiness and liveness probes): `http` (GET
   * `/v1/health`), `https` (the same over TLS) or `tcp` (a connection only: with a request quota,
   * llama-stack up to ogx 0.8 counts health checks against it; TLS servers included). `https` without
   * `tls` says that the config serves TLS itself (`server.tls_certfile`): the construct leaves its
   * `server` section as it is.
   * @default - from the config when it is given inline: `tcp` with a `server.quota` the release reads; else `https` with
   * `tls` or `server.tls_certfile`; else `http`
   */
  readonly healthCheck?: HealthCheck;
  /**
   * The server's own TLS: a Secret with its certificate and key, mounted and named in the config.
   * Without it the pod serves plain HTTP inside the cluster, as the operators' pods do: the config
   * says `server.insecure: true` (ogx 1.2 and later refuse to start without TLS otherwise), and
   * `network.allowedFrom` limits who reaches it.
   * @default - plain HTTP
   */
  readonly tls?: ServerTlsOptions;
  /**
   * The OGX operator's declarative config: the `providers`, `resources`, `storage`, `disabledAPIs`,
   * `distribution` and `network.port` fields of an `ogx.io/v1beta1` OGXServer spec (checked against its
   * CRD at synth; `network.port` must be `port`), generated into the server's config
   * as the operator's config generator (ogx-k8s-operator v0.14.0) generates it: over `userConfig` (the
   * operator's `baseConfig`) at synth time when it is given inline, else in the pod, by the merge step,
   * over the ConfigMap's or the image's own config. The Secrets it references reach the server as the
   * operator's `OGX_<ID>_<FIELD>` variables. ogx releases only.
   * @default - none: the config as given
   */
  readonly declarativeConfig?: { [key: string]: any };
  /**
   * Serve the server's Prometheus metrics (ogx 1.2 and later, `OGX_METRICS_ENDPOINT_ENABLED`) on this
   * port of the pod, named `metrics` on the container and the Service, as the OGX operator's
   * `monitoring` does (its default port is 9464). Each worker process of ogx ≤ 1.5 binds the port
   * itself, so it cannot be combined with more than one worker.
   * @default - no metrics endpoint
   */
  readonly metricsPort?: number;
  /**
   * How long a stopping pod may take to finish its requests before it is killed.
   * @default - Kubernetes' default (30 seconds)
   */
  readonly terminationGracePeriodSeconds?: number;
  /**
   * Pod security settings.
   * @default - the restricted profile with uid, gid and fsGroup 1001
   */
  readonly podSecurity?: PodSecurityOptions;
  /**
   * Exposure through an Ingress and isolation with a NetworkPolicy, as the operator's `spec.network`.
   * @default - no Ingress and no NetworkPolicy
   */
  readonly network?: NetworkOptions;
  /**
   * A HorizontalPodAutoscaler `<name>-hpa`; the Deployment then leaves its replica count to it.
   * @default - none: `replicas` pods
   */
  readonly autoscaling?: AutoscalingOptions;
  /**
   * A PodDisruptionBudget `<name>-pdb`.
   * @default - with more than one replica, `maxUnavailable: 1`; else none
   */
  readonly podDisruptionBudget?: PodDisruptionBudgetOptions;
  /**
   * Topology spread constraints of the pods.
   * @default - with more than one replica, spread over regions, zones and nodes (`ScheduleAnyway`), and other nodes preferred
   */
  readonly topologySpreadConstraints?: TopologySpreadConstraint[];
  /**
   * External providers by API, installed into the pod at start-up.
   * @default - none: a plain Llama Stack server
   */
  readonly externalProviders?: ExternalProviders;
  /**
   * Models served in the cluster that the server serves through its own API: a `ModelDeployment`'s
   * `endpoint` as it is (`models: [model.endpoint]`). Each becomes a built-in `remote::vllm` provider
   * of `providers.inference` (after the external providers) with the model registered for it, which
   * the server lists as `<providerId>/<model>` (`modelIds`); written into the config at synth time when
   * it is given inline, else by the merge step in the pod.
   * @default - none
   */
  readonly models?: StackModel[];
  /**
   * The Kubernetes minor of the cluster (`'1.30'`). From 1.29 providers' sidecars are native sidecars
   * (init containers with `restartPolicy: Always`: started before the server, stopped after it);
   * before, regular containers started with the server.
   * @default '1.29' - the oldest release supported: native sidecars
   */
  readonly kubernetesVersion?: string;
  /**
   * Check every external provider before the server starts (import, `get_provider_spec()`, native
   * code for this architecture, metadata consistency); a failing provider stops the container with
   * a message naming it and its image.
   * @default true
   */
  readonly preflight?: boolean;
  /**
   * Image of the merge step (`kube-inference merge-config`): the image built from this package's
   * release (`containers/merge/Containerfile`), pushed where the cluster pulls from. The release
   * workflow publishes the default from the first release on; until then build and push it (README,
   * "The merge image"). Only pods that merge their config in the pod run it.
   * @default - `ghcr.io/kube-inference/merge:<package version>`
   */
  readonly mergeImage?: string;
  /**
   * Size limit of the emptyDir the providers are installed into.
   * @default '2Gi'
   */
  readonly sharedVolumeSizeLimit?: string;
}

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
        metadata: metadata(`${this.name}-route`), spec: routeSpec(this.serviceName, portName, termination, props.tls?.routeDestinationCaCertificate),
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
