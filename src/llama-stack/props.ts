// The props of LlamaStackWithProviders, alone.
import type {
  AutoscalingOptions, CaBundleOptions, Distribution, HealthCheck, ImagePullPolicy, NetworkOptions, PodDisruptionBudgetOptions, PodSecurityOptions,
  ResourceRequirements, ServerTlsOptions, StackModel, StorageOptions, UserConfig,
} from './options';
import type { ObjectReference } from '../object-reference';
import type { EnvValue, EnvVar, Toleration, TopologySpreadConstraint, Volume, VolumeMount } from '../pod-spec';
import type { ExternalProviders } from './providers/options';

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
