import { ApiObject } from 'cdk8s';
import type * as k8s from 'cdk8s-plus-28/lib/imports/k8s';
import type { Construct } from 'constructs';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IService } from 'kubernetes-models/v1/Service';

// The core objects the constructs render, written as the JSON the API server reads and rendered by
// cdk8s's own ApiObject, which drops undefined values and sorts keys as the generated classes' output
// did. cdk8s-plus-28's generated classes would cost 2.7 MB of JavaScript at every start of the CLI for
// the kinds it renders; the types are only types (`kubernetes-models`), erased at build time.

/** An object's body: what follows `apiVersion` and `kind`. */
type Body<T> = Omit<T, 'apiVersion' | 'kind'>;

function define(scope: Construct, id: string, apiVersion: string, kind: string, body: object): ApiObject {
  return new ApiObject(scope, id, { apiVersion, kind, ...body });
}

/** A `v1` ConfigMap. */
export function defineConfigMap(scope: Construct, id: string, body: Body<IConfigMap>): ApiObject {
  return define(scope, id, 'v1', 'ConfigMap', body);
}

/** A `v1` Service. */
export function defineService(scope: Construct, id: string, body: Body<IService>): ApiObject {
  return define(scope, id, 'v1', 'Service', body);
}

/** A `v1` PersistentVolumeClaim. */
export function definePersistentVolumeClaim(scope: Construct, id: string, body: Body<IPersistentVolumeClaim>): ApiObject {
  return define(scope, id, 'v1', 'PersistentVolumeClaim', body);
}

/** An `apps/v1` Deployment. */
export function defineDeployment(scope: Construct, id: string, body: Body<IDeployment>): ApiObject {
  return define(scope, id, 'apps/v1', 'Deployment', body);
}

/** An `autoscaling/v2` HorizontalPodAutoscaler. */
export function defineHorizontalPodAutoscaler(scope: Construct, id: string, body: Body<IHorizontalPodAutoscaler>): ApiObject {
  return define(scope, id, 'autoscaling/v2', 'HorizontalPodAutoscaler', body);
}

/** A `policy/v1` PodDisruptionBudget. */
export function definePodDisruptionBudget(scope: Construct, id: string, body: Body<IPodDisruptionBudget>): ApiObject {
  return define(scope, id, 'policy/v1', 'PodDisruptionBudget', body);
}

/** A `networking.k8s.io/v1` Ingress. */
export function defineIngress(scope: Construct, id: string, body: Body<IIngress>): ApiObject {
  return define(scope, id, 'networking.k8s.io/v1', 'Ingress', body);
}

/** A `networking.k8s.io/v1` NetworkPolicy. */
export function defineNetworkPolicy(scope: Construct, id: string, body: Body<INetworkPolicy>): ApiObject {
  return define(scope, id, 'networking.k8s.io/v1', 'NetworkPolicy', body);
}

/**
 * An env entry as the API server reads it. The props take cdk8s's `EnvVar` type, whose
 * `resourceFieldRef.divisor` is a `Quantity` object in a cdk8s program and a plain string when the
 * entry was read from YAML; both arrive as the string.
 */
export function envVarJson(env: k8s.EnvVar): IEnvVar {
  const field = env.valueFrom?.resourceFieldRef;
  const divisor: unknown = field?.divisor;
  if (field === undefined || divisor === undefined || typeof divisor !== 'object' || divisor === null) {
    return env as IEnvVar;
  }
  return { ...env, valueFrom: { ...env.valueFrom, resourceFieldRef: { ...field, divisor: (divisor as k8s.Quantity).value } } } as IEnvVar;
}
