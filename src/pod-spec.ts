// The pod-level values both constructs take (environment, tolerations, volumes, probes), typed as the
// Kubernetes API server reads them: plain JSON field names, no classes. They are this package's own
// types (or the core schema's, from kubernetes-models) so that no cdk8s-plus major is pinned into the
// user's project: a cdk8s-plus `EnvValue` of any major fits `EnvValue`.
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { ITopologySpreadConstraint } from 'kubernetes-models/v1/TopologySpreadConstraint';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';

/** Selects a key of a Secret or ConfigMap. */
export interface KeySelector {
  /** Name of the Secret or ConfigMap. */
  readonly name: string;
  /** The key. */
  readonly key: string;
  /**
   * Whether the object or key may be missing.
   * @default false
   */
  readonly optional?: boolean;
}

/** Where an environment variable's value comes from. */
export interface EnvVarSource {
  /** A key of a Secret. */
  readonly secretKeyRef?: KeySelector;
  /** A key of a ConfigMap. */
  readonly configMapKeyRef?: KeySelector;
  /** A field of the pod, e.g. `metadata.name`. */
  readonly fieldRef?: { readonly fieldPath: string; readonly apiVersion?: string };
  /** A resource request or limit of a container, e.g. `limits.memory`. */
  readonly resourceFieldRef?: { readonly resource: string; readonly containerName?: string; readonly divisor?: string };
}

/** An environment variable of the serving containers. */
export interface EnvVar {
  /** Variable name. */
  readonly name: string;
  /**
   * Literal value.
   * @default - none (use valueFrom)
   */
  readonly value?: string;
  /**
   * Value from a Secret, ConfigMap or pod field.
   * @default - none
   */
  readonly valueFrom?: EnvVarSource;
}


/** A Kubernetes toleration. */
export interface Toleration {
  /** @default - all keys (with operator Exists) */
  readonly key?: string;
  /** @default 'Equal' */
  readonly operator?: 'Exists' | 'Equal';
  /** @default - none */
  readonly value?: string;
  /** @default - all effects */
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  /** @default - forever */
  readonly tolerationSeconds?: number;
}

/**
 * A value of an environment variable without its name, as cdk8s-plus's `EnvValue` (of any major)
 * holds it: `EnvValue.fromValue(...)`, `EnvValue.fromSecretValue(...)`, `EnvValue.fromConfigMap(...)`.
 */
export interface EnvValue {
  /**
   * Literal value.
   * @default - none (use valueFrom)
   */
  readonly value?: string;
  /**
   * Value from a Secret, ConfigMap, pod field or resource.
   * @default - none
   */
  readonly valueFrom?: EnvVarSource;
}

/** A volume of the pods, as the Kubernetes API reads it (`v1.Volume`). */
export type Volume = IVolume;
/** A mount of a volume into a container, as the Kubernetes API reads it (`v1.VolumeMount`). */
export type VolumeMount = IVolumeMount;
/** A probe of a container, as the Kubernetes API reads it (`v1.Probe`). */
export type Probe = IProbe;
/** How the pods spread over a topology, as the Kubernetes API reads it (`v1.TopologySpreadConstraint`). */
export type TopologySpreadConstraint = ITopologySpreadConstraint;
