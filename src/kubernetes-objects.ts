import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

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

/** A `v1` ServiceAccount. */
export function defineServiceAccount(scope: Construct, id: string, body: Body<IServiceAccount>): ApiObject {
  return define(scope, id, 'v1', 'ServiceAccount', body);
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
 * A value of cdk8s's generated types as the API server reads it. Those types wrap quantities and
 * int-or-strings in classes (`Quantity.fromString('1Mi')`) whose JSON is the wrapped `value`; the
 * same field read from YAML is the plain value already. Every other object is plain data.
 */
export function apiJson<T>(value: unknown): T {
  if (Array.isArray(value)) return value.map((v) => apiJson(v)) as T;
  if (value === null || typeof value !== 'object') return value as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && 'value' in value) {
    return (value as { value: unknown }).value as T;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, apiJson(v)])) as T;
}
