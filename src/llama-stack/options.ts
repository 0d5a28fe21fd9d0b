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
