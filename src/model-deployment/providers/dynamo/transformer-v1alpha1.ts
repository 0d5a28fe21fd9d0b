// DynamoGraphDeployment `nvidia.com/v1alpha1`, deprecated since Dynamo v1.2 and stored as v1beta1 since
// v1.5 (the operator converts it): a map of services, each with Dynamo's own `resources` shape (GPU
// count as a string) and an `extraPodSpec.mainContainer`. For operators before v1.5.
import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import { DynamoComponent, DynamoPlan } from './plan';
import { configVolumeMounts, DynamoPodSettings, DynamoTransformer, podMetadata, podSpecFields } from './transformer';
import type {
  DynamoGraphDeploymentProps,
  DynamoGraphDeploymentSpecBackendFramework,
  DynamoGraphDeploymentSpecServices,
  DynamoGraphDeploymentSpecServicesResourcesLimits,
} from '../../../imports/dynamo-graph-deployment.generated';
import { defineCustomResource } from '../../../kubernetes-objects';
import { DEFAULT_GPU_TYPE } from '../../resolved-spec';
import { literalArg } from '../common';

/** The CRD's `backendFramework` enum has our backends' names as its values (`vllm`, `sglang`, `trtllm`). */
function backendFramework(backend: DynamoPlan['backendFramework']): DynamoGraphDeploymentSpecBackendFramework {
  return backend as `${DynamoGraphDeploymentSpecBackendFramework}` as DynamoGraphDeploymentSpecBackendFramework;
}

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
      runtimeVersionOverride: plan.runtimeVersionOverride,
      envFromSecret: plan.envFromSecret,
      envs: plan.env,
      resources: this.resources(c),
      extraPodMetadata: podMetadata(pods),
      extraPodSpec: {
        ...podSpecFields(pods, c),
        mainContainer: {
          image: c.image,
          command: c.command.map(literalArg),
          args: c.args.map(literalArg),
          volumeMounts: configVolumeMounts(c),
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
