import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';

type Factory = (name: string, obj: any, opts: pulumi.CustomResourceOptions) => pulumi.CustomResource;

// Core kinds get their typed Pulumi resource (better diffs and previews); any other kind, such as
// the custom resources of KAITO, Dynamo and KubeRay, is registered as a CustomResource.
const TYPED: Readonly<Record<string, Factory>> = {
  'v1/ConfigMap': (n, o, opts) => new k8s.core.v1.ConfigMap(n, o, opts),
  'v1/Secret': (n, o, opts) => new k8s.core.v1.Secret(n, o, opts),
  'v1/Service': (n, o, opts) => new k8s.core.v1.Service(n, o, opts),
  'v1/ServiceAccount': (n, o, opts) => new k8s.core.v1.ServiceAccount(n, o, opts),
  'v1/PersistentVolumeClaim': (n, o, opts) => new k8s.core.v1.PersistentVolumeClaim(n, o, opts),
  'apps/v1/Deployment': (n, o, opts) => new k8s.apps.v1.Deployment(n, o, opts),
  'autoscaling/v2/HorizontalPodAutoscaler': (n, o, opts) => new k8s.autoscaling.v2.HorizontalPodAutoscaler(n, o, opts),
  'policy/v1/PodDisruptionBudget': (n, o, opts) => new k8s.policy.v1.PodDisruptionBudget(n, o, opts),
  'networking.k8s.io/v1/Ingress': (n, o, opts) => new k8s.networking.v1.Ingress(n, o, opts),
  'networking.k8s.io/v1/NetworkPolicy': (n, o, opts) => new k8s.networking.v1.NetworkPolicy(n, o, opts),
};

/**
 * Registers rendered Kubernetes objects as children of a component. The logical name of each is
 * `<component>-<kind>-<object name>`, stable across runs so updates never replace by accident.
 */
export function registerObjects(parent: pulumi.ComponentResource, componentName: string, manifests: readonly any[]): pulumi.CustomResource[] {
  return manifests.map((obj) => {
    const kind = String(obj.kind);
    const name = `${componentName}-${kind.toLowerCase()}-${typeof obj.metadata?.name === 'string' ? obj.metadata.name : 'object'}`;
    const factory = TYPED[`${obj.apiVersion}/${kind}`];
    return factory ? factory(name, obj, { parent }) : new k8s.apiextensions.CustomResource(name, obj, { parent });
  });
}
