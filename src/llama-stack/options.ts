import type { ObjectReference } from '../object-reference';

/** The user's Llama Stack config: exactly one of `configMapName` or `config`. */
export interface UserConfig {
  /**
   * An existing ConfigMap (same namespace) holding the config: its name, or a cdk8s-plus
   * `IConfigMap` / cdk8s `ApiObject`.
   * @default - none; give `config` instead
   */
  readonly configMapName?: ObjectReference;
  /**
   * The key of that ConfigMap holding the config (`config.yaml` for llama-stack ≥ 0.4,
   * `run.yaml` before).
   * @default - the `configFileName` of the construct
   */
  readonly configMapKey?: string;
  /**
   * The config itself: an object, or YAML text (kept as written, comments included).
   * The construct renders it into a ConfigMap.
   * @default - none; give `configMapName` instead
   */
  readonly config?: { [key: string]: any } | string;
}

/**
 * Storage for the server's state directory (`~/.llama`: SQLite stores, files, caches).
 * Without `storage` the pod uses an emptyDir (state is lost when the pod goes).
 */
export interface StorageOptions {
  /**
   * Size of the PersistentVolumeClaim (or the emptyDir size limit when `ephemeral`).
   * @default '10Gi'
   */
  readonly size?: string;
  /**
   * Storage class of the claim.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
  /**
   * Use this existing PersistentVolumeClaim instead of rendering one: its name, or a cdk8s-plus
   * `IPersistentVolumeClaim` / cdk8s `ApiObject`.
   * @default - a claim named `<name>-pvc` is rendered
   */
  readonly existingClaimName?: ObjectReference;
  /**
   * Use an emptyDir limited to `size` instead of a claim.
   * @default false
   */
  readonly ephemeral?: boolean;
  /**
   * Where the state directory is mounted; the server is pointed at it.
   * @default '/.llama'
   */
  readonly mountPath?: string;
}

/**
 * Certificate authorities the server trusts for its outgoing TLS (a provider's endpoint behind a
 * private CA), as the llama-stack operator's `tlsConfig.caBundle`: PEM certificates in a ConfigMap
 * of the server's namespace. The server's `SSL_CERT_FILE` names them, so they replace the image's
 * default trust store, as with the operator.
 */
export interface CaBundleOptions {
  /** The ConfigMap holding the certificates: its name, or a cdk8s-plus `IConfigMap` / cdk8s `ApiObject`. */
  readonly configMapName: ObjectReference;
  /**
   * Its keys holding PEM certificates; several are joined into one file at pod start.
   * @default ['ca-bundle.crt']
   */
  readonly configMapKeys?: string[];
}

/**
 * A HorizontalPodAutoscaler for the server, as the llama-stack operator's `server.autoscaling`.
 * Without a target, it scales on 80% CPU utilisation.
 */
export interface AutoscalingOptions {
  /**
   * The fewest replicas. The operator's rule is kept: never fewer than `replicas`.
   * @default - `replicas`, or 1
   */
  readonly minReplicas?: number;
  /** The most replicas. */
  readonly maxReplicas: number;
  /**
   * Target average CPU utilisation, in percent of the CPU request.
   * @default - 80 when no memory target is given either
   */
  readonly targetCPUUtilizationPercentage?: number;
  /**
   * Target average memory utilisation, in percent of the memory request.
   * @default - none
   */
  readonly targetMemoryUtilizationPercentage?: number;
}

/**
 * A PodDisruptionBudget for the server's pods, as the operator's `server.podDisruptionBudget`: give
 * one of the two, as a number of pods or a percentage (`'50%'`).
 */
export interface PodDisruptionBudgetOptions {
  /**
   * Pods that must stay available during a voluntary disruption (a node drain).
   * @default - none
   */
  readonly minAvailable?: number | string;
  /**
   * Pods that may be unavailable during a voluntary disruption.
   * @default - none
   */
  readonly maxUnavailable?: number | string;
}

/**
 * Who may reach the server, and whether it is exposed outside the cluster: the llama-stack
 * operator's `spec.network` (its `exposeRoute` and `allowedFrom`).
 */
export interface NetworkOptions {
  /**
   * Expose the server outside the cluster through an Ingress `<name>-ingress`: every path (`/`,
   * `Prefix`) to the Service, with no host, as the operator's `exposeRoute` does (or a Route, with
   * `exposeAs`).
   * @default false
   */
  readonly expose?: boolean;
  /**
   * What `expose` renders: an `Ingress`, or an OpenShift `Route` `<name>-route` (route.openshift.io/v1)
   * to the Service's port, TLS terminated by the router (`edge`, plain HTTP redirected), or passed
   * through to a server that serves TLS itself (`healthCheck: https`). On OpenShift the router also
   * makes a Route of an Ingress; a Route of its own sets the TLS termination.
   * @default 'Ingress'
   */
  readonly exposeAs?: ExposeAs;
  /**
   * The IngressClass of the Ingress.
   * @default - the cluster's default IngressClass
   */
  readonly ingressClassName?: string;
  /**
   * Admit traffic to the server's port only from these sources, with a NetworkPolicy
   * `<name>-network-policy` (ingress only): the pods of the server's own namespace always, then the
   * namespaces named and the namespaces that carry the labels listed, and OpenShift's router.
   * @default - no NetworkPolicy: every pod of the cluster may reach the server
   */
  readonly allowedFrom?: AllowedFrom;
}

/** What {@link NetworkOptions.expose} renders. */
export type ExposeAs = 'Ingress' | 'Route';

/** The sources of {@link NetworkOptions.allowedFrom}. */
export interface AllowedFrom {
  /**
   * Namespaces whose pods may reach the server; `*` admits every namespace.
   * @default - none besides the server's own
   */
  readonly namespaces?: string[];
  /**
   * Label keys: the pods of every namespace that carries one of them (with any value) may reach the server.
   * @default - none
   */
  readonly labels?: string[];
}

/**
 * Pod security. By default every container meets the Pod Security Standards `restricted` profile:
 * non-root with a fixed uid and fsGroup, no privilege escalation, all capabilities dropped and the
 * `RuntimeDefault` seccomp profile.
 */
export interface PodSecurityOptions {
  /**
   * The uid every container runs as.
   * @default 1001
   */
  readonly runAsUser?: number;
  /**
   * The gid every container runs as.
   * @default 1001
   */
  readonly runAsGroup?: number;
  /**
   * The group that owns mounted volumes, so the non-root containers can write the shared volume.
   * @default 1001
   */
  readonly fsGroup?: number;
  /**
   * Apply the `restricted` profile. Set to false only for images that cannot run under it
   * (the uid, gid and fsGroup above still apply).
   * @default true
   */
  readonly restricted?: boolean;
  /**
   * Leave the uid and fsGroup to the platform, and render none. OpenShift's `restricted-v2`
   * SecurityContextConstraints assign both from the namespace's range and refuse a pod that fixes
   * others; its images make their directories writable for group 0, which every assigned uid has.
   * `runAsUser`, `runAsGroup` and `fsGroup` are then not given.
   * @default false
   */
  readonly idsFromPlatform?: boolean;
}

/**
 * The server's own TLS (`server.tls_certfile`, `server.tls_keyfile` of its config): a certificate and
 * its key in a Secret of the server's namespace, such as the `kubernetes.io/tls` Secret cert-manager
 * writes for a Certificate. The construct mounts the Secret read-only into the server container and
 * writes the files' paths into the config (at synth time for a config it renders, by the merge step in
 * the pod otherwise); the probes then speak HTTPS, the Service's port is named `https`, a Route
 * re-encrypts to the pod, and an Ingress is told its backend speaks HTTPS.
 */
export interface ServerTlsOptions {
  /** The Secret holding the certificate and key: its name, or a cdk8s-plus `ISecret` / cdk8s `ApiObject`. */
  readonly secretName: ObjectReference;
  /**
   * Its key holding the certificate (chain), PEM.
   * @default 'tls.crt'
   */
  readonly certificateKey?: string;
  /**
   * Its key holding the private key, PEM.
   * @default 'tls.key'
   */
  readonly privateKeyKey?: string;
  /**
   * Its key holding the certificate authorities whose client certificates the server requires
   * (mutual TLS, `server.tls_cafile`); cert-manager writes the issuer's CA as `ca.crt`.
   * @default - clients are not asked for certificates
   */
  readonly clientCaKey?: string;
  /**
   * The CA that signed the server's certificate, PEM, for an OpenShift Route (`network.exposeAs:
   * 'Route'`): the router re-encrypts to the pod and verifies its certificate against it
   * (`destinationCACertificate`). Without it the router trusts only the cluster's service CA
   * (certificates of OpenShift's `service.beta.openshift.io/serving-cert-secret-name`).
   * @default - the router verifies with the service CA
   */
  readonly routeDestinationCaCertificate?: string;
}

/**
 * A model the server serves through its own API, reached over the OpenAI-compatible API of a model
 * server in the cluster: `ModelDeployment.endpoint` as it is (`models: [model.endpoint]`), or written
 * out for a model served elsewhere. It becomes a built-in `remote::vllm` provider of
 * `providers.inference` and a model registered for it, which the server lists as `<providerId>/<model>`.
 */
export interface StackModel {
  /** The OpenAI-compatible base URL, with its `/v1`: `http://llama-8b-frontend.models.svc.cluster.local:8000/v1`. */
  readonly url: string;
  /** The model's name on that server, what its `GET /v1/models` lists (a ModelDeployment's `model.servedName`, else `model.id`). */
  readonly model?: string;
  /**
   * The `provider_id` of its provider in the config.
   * @default - `name`, else the first label of the URL's host
   */
  readonly providerId?: string;
  /** The deployment's name (a ModelDeployment endpoint's), the default `providerId`. */
  readonly name?: string;
  /** The Service (a ModelDeployment endpoint's; not read). */
  readonly service?: string;
  /** The Service's port (a ModelDeployment endpoint's; not read). */
  readonly port?: number;
  /** The API's path (a ModelDeployment endpoint's; not read). */
  readonly basePath?: string;
  /** The Service's namespace (a ModelDeployment endpoint's; not read). */
  readonly namespace?: string;
}

/** The distribution to run: exactly one of `name` or `image`. */
export interface Distribution {
  /**
   * A named distribution, mapped to upstream's image of the server release (`serverVersion`):
   * `docker.io/ogxai/distribution-<name>:<version>` for OGX (`starter`, `postgres-demo`, `nvidia`,
   * `oci`, `open-benchmark`, `watsonx`), `docker.io/llamastack/distribution-<name>:<version>` for
   * llama-stack (`starter`, `remote-vllm`, `meta-reference-gpu`, `postgres-demo`), tagged with the
   * newest patch release this library verified.
   * @default - none; give `image` instead
   */
  readonly name?: string;
  /**
   * A distribution image reference. Prefer a digest (`...@sha256:...`) or a fixed tag in production.
   * @default - none; give `name` instead
   */
  readonly image?: string;
}

/** Image pull policies a container accepts. */
export type ImagePullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** Container resource requests and limits, as Kubernetes quantities (`'500m'`, `'2Gi'`, `nvidia.com/gpu: '1'`). */
export interface ResourceRequirements {
  /** Minimum resources reserved for the container. */
  readonly requests?: { [resource: string]: string };
  /** Maximum resources the container may use. */
  readonly limits?: { [resource: string]: string };
}

/**
 * How the kubelet checks the server:
 * - `http`: GET `/v1/health` on the server port;
 * - `https`: the same over TLS, for a server with `server.tls_certfile`;
 * - `tcp`: a connection to the port only, for a server with `server.quota`. Its middleware counts
 *   every HTTP request against the client's quota, health checks included, and the kubelet's
 *   checks all come from one address (llama_stack/core/server/quota.py): frequent HTTP probes
 *   would use up the anonymous quota and have a healthy server restarted.
 */
export type HealthCheck = 'http' | 'https' | 'tcp';
