// DynamoGraphDeployment `nvidia.com/v1alpha1` (schema of the vendored Dynamo 0.6.1 CRD): a map of
// services, each with Dynamo's own `resources` shape (GPU count as a string) and an
// `extraPodSpec.mainContainer`.
import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import { DynamoComponent, DynamoPlan } from './plan';
import type {
  DynamoGraphDeploymentProps,
  DynamoGraphDeploymentSpecBackendFramework,
  DynamoGraphDeploymentSpecServices,
  DynamoGraphDeploymentSpecServicesResourcesLimits,
} from '../../../imports/dynamo-graph-deployment.generated';
import { defineCustomResource } from '../../../kubernetes-objects';
import { Toleration } from '../../../pod-spec';
import { DEFAULT_GPU_TYPE } from '../../resolved-spec';
import { KubePodIdentity, literalArg, nonEmpty } from '../common';

/** Pod-level settings shared by every component. */
export interface DynamoPodSettings {
  /** Pod labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** Pod annotations. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Node selector. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Tolerations. */
  readonly tolerations: readonly Toleration[];
  /** ServiceAccount and image pull Secrets. */
  readonly identity: KubePodIdentity;
}

/** Turns a version-independent plan into one DynamoGraphDeployment schema version. */
export interface DynamoTransformer {
  /** The schema version it writes. */
  readonly apiVersion: string;
  /** Creates the DynamoGraphDeployment in `scope`. */
  render(scope: Construct, metadata: ApiObjectMetadata, plan: DynamoPlan, pods: DynamoPodSettings): ApiObject;
}

/** The CRD's `backendFramework` enum has our backends' names as its values (`vllm`, `sglang`, `trtllm`). */
function backendFramework(backend: DynamoPlan['backendFramework']): DynamoGraphDeploymentSpecBackendFramework {
  return backend as `${DynamoGraphDeploymentSpecBackendFramework}` as DynamoGraphDeploymentSpecBackendFramework;
}

/** The pod volume a component's ConfigMap is mounted from. */
const CONFIG_VOLUME = 'engine-config';

/** The `nvidia.com/v1alpha1` transformer. */
export class DynamoV1Alpha1Transformer implements DynamoTransformer {
  public readonly apiVersion = 'nvidia.com/v1alpha1';

  public render(scope: Construct, metadata: ApiObjectMetadata, plan: DynamoPlan, pods: DynamoPodSettings): ApiObject {
    const services: Record<string, DynamoGraphDeploymentSpecServices> = {};
    for (const component of plan.components) {
      services[component.key] = this.service(plan, component, pods);
    }
    return defineCustomResource<DynamoGraphDeploymentProps>(scope, 'Resource', { apiVersion: this.apiVersion, kind: 'DynamoGraphDeployment' }, {
      metadata,
      spec: { backendFramework: backendFramework(plan.backendFramework), services },
    });
  }

  private service(plan: DynamoPlan, c: DynamoComponent, pods: DynamoPodSettings): DynamoGraphDeploymentSpecServices {
    return {
      componentType: c.componentType,
      subComponentType: c.subComponentType,
      dynamoNamespace: plan.name,
      replicas: c.replicas,
      envFromSecret: plan.envFromSecret,
      envs: plan.env,
      resources: this.resources(c),
      extraPodMetadata: nonEmpty(pods.labels) || nonEmpty(pods.annotations)
        ? { labels: nonEmpty(pods.labels), annotations: nonEmpty(pods.annotations) }
        : undefined,
      extraPodSpec: {
        serviceAccountName: pods.identity.serviceAccountName,
        imagePullSecrets: pods.identity.imagePullSecrets?.map((s) => ({ ...s })),
        nodeSelector: nonEmpty(pods.nodeSelector),
        tolerations: pods.tolerations.length > 0 ? pods.tolerations.map((t) => ({ ...t })) : undefined,
        volumes: c.configMount ? [{ name: CONFIG_VOLUME, configMap: { name: c.configMount.configMap } }] : undefined,
        mainContainer: {
          image: c.image,
          command: c.command.map(literalArg),
          args: c.args.map(literalArg),
          volumeMounts: c.configMount ? [{ name: CONFIG_VOLUME, mountPath: c.configMount.mountPath, readOnly: true }] : undefined,
        },
      },
    };
  }

  /**
   * Dynamo's own resource shape: `gpu` is a count as a string and maps to `nvidia.com/gpu`; any
   * other GPU resource goes under `custom`.
   */
  private resources(c: DynamoComponent): DynamoGraphDeploymentSpecServices['resources'] {
    const requests = { cpu: c.cpu, memory: c.memory };
    let limits: DynamoGraphDeploymentSpecServicesResourcesLimits = { memory: c.memory };
    if (c.gpu) {
      limits = c.gpu.type === DEFAULT_GPU_TYPE
        ? { ...limits, gpu: String(c.gpu.count) }
        : { ...limits, custom: { [c.gpu.type]: String(c.gpu.count) } };
    }
    const hasRequests = requests.cpu !== undefined || requests.memory !== undefined;
    const hasLimits = Object.values(limits).some((v) => v !== undefined);
    return hasRequests || hasLimits
      ? { requests: hasRequests ? requests : undefined, limits: hasLimits ? limits : undefined }
      : undefined;
  }
}
