import { ApiObject, ApiObjectMetadata } from 'cdk8s';
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
// did. cdk8s-plus's generated classes would cost megabytes of JavaScript at every start of the CLI for
// the kinds it renders; the types are only types (`kubernetes-models`), erased at build time.

/** The kinds the constructs render, with their types. */
interface Kinds {
  ConfigMap: IConfigMap;
  Service: IService;
  ServiceAccount: IServiceAccount;
  PersistentVolumeClaim: IPersistentVolumeClaim;
  Deployment: IDeployment;
  HorizontalPodAutoscaler: IHorizontalPodAutoscaler;
  PodDisruptionBudget: IPodDisruptionBudget;
  Ingress: IIngress;
  NetworkPolicy: INetworkPolicy;
}

/** The API version each kind is rendered in. */
const API_VERSIONS: { readonly [K in keyof Kinds]: string } = {
  ConfigMap: 'v1',
  Service: 'v1',
  ServiceAccount: 'v1',
  PersistentVolumeClaim: 'v1',
  Deployment: 'apps/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  PodDisruptionBudget: 'policy/v1',
  Ingress: 'networking.k8s.io/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
};

/** Defines an object of `kind` from its body (what follows `apiVersion` and `kind`). */
export function defineObject<K extends keyof Kinds>(scope: Construct, id: string, kind: K, body: Omit<Kinds[K], 'apiVersion' | 'kind'>): ApiObject {
  return new ApiObject(scope, id, { apiVersion: API_VERSIONS[kind], kind, ...body });
}

/**
 * Defines a custom resource (a provider's, an OpenShift Route) as the JSON the API server reads, through cdk8s's own
 * ApiObject (undefined values dropped, keys sorted). `Props` are the props of the class cdk8s
 * generated from the CRD (`src/imports/`), imported as a type only, so that the build still checks
 * every field name against the CRD: the classes themselves are the whole schema as JavaScript
 * (RayService's alone is 1.6 MB), which every run rendering one would load and compile.
 */
export function defineCustomResource<Props extends { readonly metadata?: ApiObjectMetadata }>(
  scope: Construct, id: string, type: { readonly apiVersion: string; readonly kind: string }, props: Props,
): ApiObject {
  return new ApiObject(scope, id, { apiVersion: type.apiVersion, kind: type.kind, ...props });
}
