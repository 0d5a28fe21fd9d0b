// DynamoGraphDeployment `nvidia.com/v1beta1`, served since Dynamo v1.2 and stored since v1.5 (the vendored
// CRD, operator main at 2a6da14c): a list of components, each with a `type` (prefill and decode are types
// of their own) and a standard `podTemplate` whose container `main` runs the runtime: image, command,
// args, env, resources (the GPU under its own resource name) and mounts; the pod-level settings beside it.
// The same objects the operator stores for our v1alpha1 output, converted
// (ai-dynamo/dynamo deploy/operator/api/v1alpha1/dynamographdeployment_conversion.go), except that the
// frontend comes first as the plan orders it and the removed `dynamoNamespace` is not written: the
// operator derives the namespace from the object's namespace and name.
import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import { DynamoComponent, DynamoPlan } from './plan';
import { configVolumeMounts, DynamoPodSettings, DynamoTransformer, podMetadata, podSpecFields } from './transformer';
import type {
  DynamoGraphDeploymentV1Beta1Props,
  DynamoGraphDeploymentV1Beta1SpecBackendFramework,
  DynamoGraphDeploymentV1Beta1SpecComponents,
  DynamoGraphDeploymentV1Beta1SpecComponentsPodTemplateSpecContainersResourcesLimits as Quantity,
  DynamoGraphDeploymentV1Beta1SpecComponentsType,
} from '../../../imports/dynamo-graph-deployment.generated';
import { defineCustomResource } from '../../../kubernetes-objects';
import { literalArg } from '../common';

/** The container of a component's pod that runs the Dynamo runtime (upstream's `MainContainerName`). */
export const DYNAMO_MAIN_CONTAINER = 'main';

/** The `nvidia.com/v1beta1` transformer. */
export class DynamoV1Beta1Transformer implements DynamoTransformer {
  public readonly apiVersion = 'nvidia.com/v1beta1';

  public render(scope: Construct, metadata: ApiObjectMetadata, plan: DynamoPlan, pods: DynamoPodSettings): ApiObject {
    return defineCustomResource<DynamoGraphDeploymentV1Beta1Props>(scope, 'Resource', { apiVersion: this.apiVersion, kind: 'DynamoGraphDeployment' }, {
      metadata,
      spec: {
        // The enum's values are our backends' names (`vllm`, `sglang`, `trtllm`).
        backendFramework: plan.backendFramework as `${DynamoGraphDeploymentV1Beta1SpecBackendFramework}` as DynamoGraphDeploymentV1Beta1SpecBackendFramework,
        components: plan.components.map((c) => this.component(plan, c, pods)),
      },
    });
  }

  private component(plan: DynamoPlan, c: DynamoComponent, pods: DynamoPodSettings): DynamoGraphDeploymentV1Beta1SpecComponents {
    const type = c.subComponentType ?? c.componentType;
    return {
      name: c.key,
      type: type as `${DynamoGraphDeploymentV1Beta1SpecComponentsType}` as DynamoGraphDeploymentV1Beta1SpecComponentsType,
      replicas: c.replicas,
      runtimeVersionOverride: plan.runtimeVersionOverride,
      podTemplate: {
        metadata: podMetadata(pods),
        spec: {
          ...podSpecFields(pods, c),
          containers: [{
            name: DYNAMO_MAIN_CONTAINER,
            image: c.image,
            command: c.command.map(literalArg),
            args: c.args.map(literalArg),
            env: plan.env,
            envFrom: plan.envFromSecret !== undefined ? [{ secretRef: { name: plan.envFromSecret } }] : undefined,
            resources: resources(c),
            volumeMounts: configVolumeMounts(c),
          }],
        },
      },
    };
  }
}

/** Kubernetes' own resource shape: the memory request is also the limit, the GPUs a limit under their resource name. */
function resources(c: DynamoComponent): { requests?: Record<string, Quantity>; limits?: Record<string, Quantity> } | undefined {
  const requests = defined({ cpu: c.cpu, memory: c.memory });
  const limits = defined({ memory: c.memory, ...(c.gpu ? { [c.gpu.type]: String(c.gpu.count) } : {}) });
  if (requests === undefined && limits === undefined) return undefined;
  return { requests, limits };
}

/** The entries with a value, as the generated quantity type (whose JSON is the string), or undefined when none. */
function defined(values: Record<string, string | undefined>): Record<string, Quantity> | undefined {
  const entries = Object.entries(values).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries) as unknown as Record<string, Quantity>;
}
