/** The user's Llama Stack config: exactly one of `configMapName` or `config`. */
export interface UserConfig {
  /**
   * Name of an existing ConfigMap (same namespace) holding the config.
   * @default - none; give `config` instead
   */
  readonly configMapName?: string;
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
   * Use this existing PersistentVolumeClaim instead of rendering one.
   * @default - a claim named `<name>-pvc` is rendered
   */
  readonly existingClaimName?: string;
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
 * Who may reach the server, and whether it is exposed outside the cluster: the llama-stack
 * operator's `spec.network` (its `exposeRoute` and `allowedFrom`).
 */
export interface NetworkOptions {
  /**
   * Expose the server outside the cluster through an Ingress `<name>-ingress`: every path (`/`,
   * `Prefix`) to the Service, with no host, as the operator's `exposeRoute` does.
   * @default false
   */
  readonly expose?: boolean;
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
}
