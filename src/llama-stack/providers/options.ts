// The options of external providers, alone: what users give under `externalProviders`.
import type { EnvVar, Probe } from '../../pod-spec';
import type { ImagePullPolicy, ResourceRequirements } from '../options';

/**
 * External providers organised by the API they serve. Which sections a distribution accepts depends
 * on its server release (`serverVersion`); a provider in a section the release does not have
 * fails synth. Providers are installed and merged in section order (as listed here), then list order.
 */
export interface ExternalProviders {
  /** Inference providers (every release). */
  readonly inference?: ExternalProvider[];
  /** Safety providers (every release). */
  readonly safety?: ExternalProvider[];
  /** Agents providers (llama-stack 0.6 and older; 0.7 renamed the API `responses`). */
  readonly agents?: ExternalProvider[];
  /** Responses providers (llama-stack 0.7 and newer; the former `agents`). */
  readonly responses?: ExternalProvider[];
  /** Vector IO providers (`vector_io`, every release). */
  readonly vectorIo?: ExternalProvider[];
  /** Dataset IO providers (`datasetio`, llama-stack 0.7 and older). */
  readonly datasetIo?: ExternalProvider[];
  /** Scoring providers (llama-stack 0.7 and older). */
  readonly scoring?: ExternalProvider[];
  /** Eval providers (llama-stack 0.7 and older). */
  readonly eval?: ExternalProvider[];
  /** Tool runtime providers (`tool_runtime`, every release). */
  readonly toolRuntime?: ExternalProvider[];
  /** Post-training providers (`post_training`, llama-stack 0.6 and older). */
  readonly postTraining?: ExternalProvider[];
  /** Files providers (every release). */
  readonly files?: ExternalProvider[];
  /** File processors providers (`file_processors`, llama-stack 0.4 and newer). */
  readonly fileProcessors?: ExternalProvider[];
  /** Batches providers (llama-stack 0.2.18 and newer). */
  readonly batches?: ExternalProvider[];
  /** Telemetry providers (llama-stack 0.2 only; 0.3 made telemetry internal). */
  readonly telemetry?: ExternalProvider[];
}

/** One external provider: a provider image blended into the pod at start-up. */
export interface ExternalProvider {
  /**
   * Unique instance id (`provider_id` in the Llama Stack config), written to the config unchanged.
   * Any one-line text llama-stack accepts as a provider id, such as `trustyai_fms`; not `__disabled__`
   * and no `${env.…}` (llama-stack would disable or rewrite it). Kubernetes names are derived from
   * it with `providerKey`: the init container is `install-provider-<providerKey(providerId)>`.
   */
  readonly providerId: string;
  /** The provider image (with `/lls-provider/lls-provider-spec.yaml` and `/lls-provider/packages/*.whl`). */
  readonly image: string;
  /**
   * When to pull the provider image.
   * @default 'IfNotPresent'
   */
  readonly imagePullPolicy?: ImagePullPolicy;
  /**
   * Provider-specific configuration (the provider entry's `config`). Any value may be a
   * {@link SecretKeyReference} (see {@link ConfigValue.fromSecret}).
   * @default - no config
   */
  readonly config?: { [key: string]: any };
  /**
   * The provider image's metadata (its `lls-provider-spec.yaml`), as an object or YAML text. With it
   * the metadata and the provider's API placement are checked at synth time, and when every
   * provider's metadata and the config (`userConfig.config`) are known, the config is merged at
   * synth time: the pod then needs neither the extraction nor the merge step.
   * @default - the metadata is read from the image in the pod
   */
  readonly metadata?: { [key: string]: any } | string;
  /**
   * Like `metadata`, read from this file (relative to the directory synth runs in).
   * @default - the metadata is read from the image in the pod
   */
  readonly metadataFile?: string;
  /**
   * Runs the provider's service as a sidecar of the server's pod, from the same image: the install
   * init container still puts the in-process adapter into the server, the
   * service runs beside it on a port of its own (`PROVIDER_PORT`), and the adapter's config receives
   * its address (`config.url: http://localhost:<port>` by default).
   * @default - no sidecar: the provider runs in the server's process only
   */
  readonly sidecar?: ProviderSidecar;
  /**
   * Runs the provider's service in pods of its own, from the same image: a Deployment and a Service `<name>-<provider key>`, reachable only from the server's pods (a
   * NetworkPolicy); the adapter's config receives the Service's address
   * (`config.url: http://<name>-<provider key>:<port>` by default).
   * @default - no service of its own
   */
  readonly service?: ProviderService;
}

/**
 * A reference to one key of a Kubernetes Secret, usable as a value anywhere inside a provider's
 * `config`. The secret never appears in a manifest: the config carries Llama Stack's `${env.NAME}`
 * substitution and the server container gets `NAME` from the Secret.
 */
export interface SecretKeyReference {
  /** The Secret and key to read. */
  readonly secretKeyRef: {
    /** Name of the Secret, in the same namespace. */
    readonly name: string;
    /** Key within the Secret. */
    readonly key: string;
  };
}

/** Helpers for values inside a provider's `config`. */
export class ConfigValue {
  /**
   * A value read from a Secret at run time: `{ secretKeyRef: { name, key } }`.
   * In YAML input write that object directly.
   */
  public static fromSecret(name: string, key: string): SecretKeyReference {
    return { secretKeyRef: { name, key } };
  }

  private constructor() {}
}

/** The options of a provider's service, in a sidecar or in pods of its own. */
export interface ProviderServicePart {
  /**
   * The service's command.
   * @default - the image's entrypoint
   */
  readonly command?: string[];
  /**
   * Arguments to the command.
   * @default - the image's
   */
  readonly args?: string[];
  /**
   * More environment variables of the service (`PROVIDER_PORT` is the construct's).
   * @default - none
   */
  readonly env?: EnvVar[];
  /**
   * The service's resource requests and limits (of each of its containers).
   * @default - none
   */
  readonly resources?: ResourceRequirements;
  /**
   * The key of the provider's `config` that receives the service's address.
   * @default - `spec.serviceAddress.configKey` of the provider's metadata, else 'url'
   */
  readonly configKey?: string;
  /**
   * Appended to the address, e.g. `/v1`.
   * @default - `spec.serviceAddress.path` of the provider's metadata, else nothing
   */
  readonly path?: string;
  /**
   * When the service is ready to take calls.
   * @default - a TCP connection to the port, every 10 seconds
   */
  readonly readinessProbe?: Probe;
  /**
   * When the kubelet restarts the service.
   * @default - a TCP connection to the port, every 10 seconds, three failures
   */
  readonly livenessProbe?: Probe;
}

/** A provider's service run as a sidecar of the server's pod. */
export interface ProviderSidecar extends ProviderServicePart {
  /**
   * The port the service listens on, given to it as `PROVIDER_PORT`; its address is
   * `http://localhost:<port><path>`. Unique in the pod, never the server's, at least 1024 (the
   * containers run without privileges).
   * @default - 18000 + the sidecar's position among the pod's sidecars (spec order)
   */
  readonly port?: number;
  /**
   * How the kubelet knows the service has started: the server starts only after (with native sidecars).
   * @default - a TCP connection to the port, every second for up to two minutes
   */
  readonly startupProbe?: Probe;
  /**
   * Keep the pod Ready while this sidecar is not, so that the server keeps serving the other APIs
   * while a provider's service fails: it gets no readiness probe; its liveness probe still restarts it.
   * @default false
   */
  readonly podReadyWithoutIt?: boolean;
}

/** A provider's service in its own Deployment and Service. */
export interface ProviderService extends ProviderServicePart {
  /**
   * The port the service listens on, given to it as `PROVIDER_PORT`, and the Service's port; its
   * address is `http://<name>-<provider key>:<port><path>`. At least 1024 (the containers run without
   * privileges).
   * @default 8080
   */
  readonly port?: number;
  /**
   * Pods of the service.
   * @default 1
   */
  readonly replicas?: number;
  /**
   * Service account of the service's pods.
   * @default - one of its own, `<server>-<provider key>-sa`, without a token mounted
   */
  readonly serviceAccountName?: string;
  /**
   * How the kubelet knows the service has started (its other probes wait for it).
   * @default - none
   */
  readonly startupProbe?: Probe;
}
