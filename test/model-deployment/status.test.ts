import { GPU_VLLM, render } from './helpers';
import { translateDynamoStatus, translateRayServiceStatus, translateStatus, translateWorkspaceStatus, UpstreamResource } from '../../src/model-deployment';

const condition = (type: string, status: string, reason = 'Reason', message = '') => ({ type, status, reason, message, lastTransitionTime: '2026-01-30T09:50:00Z' });

describe('KAITO Workspace status (conditions and status.state)', () => {
  const workspace = (status?: object, extra: object = {}): UpstreamResource => ({
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'gemma-cpu', annotations: { 'kube-inference.io/selection-reason': 'no GPU requested → kaito (only CPU provider)' } },
    resource: { count: 2, labelSelector: {} },
    status,
    ...extra,
  });

  test('WorkspaceSucceeded True → Running, every replica ready, endpoint <name>:80, selection reason read back', () => {
    expect(translateWorkspaceStatus(workspace({ state: 'Ready', conditions: [condition('WorkspaceSucceeded', 'True', 'workspaceSucceeded', 'workspace succeeds')] }))).toEqual({
      phase: 'Running',
      provider: { name: 'kaito', resourceName: 'gemma-cpu', resourceKind: 'Workspace', selectionReason: 'no GPU requested → kaito (only CPU provider)' },
      replicas: { desired: 2, ready: 2, available: 2 },
      endpoint: { service: 'gemma-cpu', port: 80, basePath: '/v1' },
    });
  });

  test('status.state Ready alone also means Running', () => {
    expect(translateWorkspaceStatus(workspace({ state: 'Ready' })).phase).toBe('Running');
  });

  test('InferenceReady False → Deploying with its message; WorkspaceSucceeded False with reason workspacePending is not a failure', () => {
    const status = translateWorkspaceStatus(workspace({
      state: 'Pending',
      conditions: [
        condition('ResourceReady', 'True', 'workspaceResourceStatusSuccess'),
        condition('InferenceReady', 'False', 'WorkspaceInferenceStatusPending', 'Inference workload is not ready'),
        condition('WorkspaceSucceeded', 'False', 'workspacePending', 'workspace is waiting for inference workload readiness'),
      ],
    }));
    expect(status).toMatchObject({ phase: 'Deploying', message: 'Inference workload is not ready', replicas: { desired: 2, ready: 0, available: 0 } });
  });

  test('NotReady (was serving, is not now) → Deploying', () => {
    expect(translateWorkspaceStatus(workspace({ state: 'NotReady' })).phase).toBe('Deploying');
  });

  test('an error condition → Failed with its message', () => {
    const status = translateWorkspaceStatus(workspace({
      conditions: [condition('ResourceReady', 'False', 'NodeClaimFailed', 'insufficient quota for Standard_NC24ads_A100_v4')],
    }));
    expect(status).toMatchObject({ phase: 'Failed', message: 'insufficient quota for Standard_NC24ads_A100_v4' });
  });

  test('status.state Failed → Failed', () => {
    expect(translateWorkspaceStatus(workspace({ state: 'Failed', conditions: [condition('InferenceReady', 'False', 'X', 'crash loop')] })))
      .toMatchObject({ phase: 'Failed', message: 'crash loop' });
  });

  test('resources not ready yet → Pending with the ResourceReady message; no status at all → Pending', () => {
    expect(translateWorkspaceStatus(workspace({ state: 'Pending', conditions: [condition('ResourceReady', 'False', 'workspaceResourcePending', 'waiting for nodes')] })))
      .toMatchObject({ phase: 'Pending', message: 'waiting for nodes' });
    expect(translateWorkspaceStatus(workspace(undefined))).toMatchObject({ phase: 'Pending', message: 'KAITO has not reported a status yet' });
  });

  test('a deletion timestamp → Terminating', () => {
    expect(translateWorkspaceStatus({ ...workspace({ state: 'Ready' }), metadata: { name: 'x', deletionTimestamp: '2026-01-30T10:00:00Z' } }).phase).toBe('Terminating');
  });
});

describe('Dynamo DynamoGraphDeployment status (status.state: initializing|pending|successful|failed)', () => {
  const dgd = (status?: object): UpstreamResource => ({
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name: 'llama-70b-pd' },
    spec: { services: { Frontend: { componentType: 'frontend', replicas: 2 }, VllmPrefillWorker: { componentType: 'worker', replicas: 2 }, VllmDecodeWorker: { componentType: 'worker', replicas: 4 } } },
    status,
  });

  test('successful → Running; desired counts workers only (2 prefill + 4 decode = 6); endpoint <name>-frontend:8000', () => {
    expect(translateDynamoStatus(dgd({ state: 'successful', conditions: [condition('Ready', 'True', 'AllReady', 'All resources are ready')] }))).toEqual({
      phase: 'Running',
      provider: { name: 'dynamo', resourceName: 'llama-70b-pd', resourceKind: 'DynamoGraphDeployment', selectionReason: undefined },
      replicas: { desired: 6, ready: 6, available: 6 },
      endpoint: { service: 'llama-70b-pd-frontend', port: 8000, basePath: '/v1' },
    });
  });

  test('pending → Deploying with the Ready condition\'s message', () => {
    expect(translateDynamoStatus(dgd({ state: 'pending', conditions: [condition('Ready', 'False', 'SomeResourcesAreNotReady', 'VllmDecodeWorker: 1/4 ready')] })))
      .toMatchObject({ phase: 'Deploying', message: 'VllmDecodeWorker: 1/4 ready', replicas: { desired: 6, ready: 0 } });
  });

  test('a state outside the operator\'s enum is Pending and named', () => {
    expect(translateDynamoStatus(dgd({ state: 'deploying' }))).toMatchObject({ phase: 'Pending', message: "unknown Dynamo state 'deploying'" });
  });

  test('successful but older than the spec (observedGeneration < generation) → Deploying', () => {
    const stale = { ...dgd({ state: 'successful', observedGeneration: 1 }), metadata: { name: 'llama', generation: 2 } };
    expect(translateDynamoStatus(stale)).toMatchObject({ phase: 'Deploying', message: 'the operator has not reconciled the latest spec yet' });
    const current = { ...dgd({ state: 'successful', observedGeneration: 2 }), metadata: { name: 'llama', generation: 2 } };
    expect(translateDynamoStatus(current).phase).toBe('Running');
  });

  test('initializing → Pending', () => {
    expect(translateDynamoStatus(dgd({ state: 'initializing' })).phase).toBe('Pending');
  });

  test('failed → Failed, message from status.message when present, else from the conditions', () => {
    expect(translateDynamoStatus(dgd({ state: 'failed', message: 'insufficient GPUs' }))).toMatchObject({ phase: 'Failed', message: 'insufficient GPUs' });
    expect(translateDynamoStatus(dgd({ state: 'failed', conditions: [condition('Ready', 'False', 'Failed', 'image pull failed')] })))
      .toMatchObject({ phase: 'Failed', message: 'image pull failed' });
  });

  test('per-service readiness, when a newer operator reports it, is summed over workers', () => {
    const status = translateDynamoStatus(dgd({ state: 'pending', services: { VllmPrefillWorker: { readyReplicas: 2, availableReplicas: 2 }, VllmDecodeWorker: { readyReplicas: 1, availableReplicas: 1 }, Frontend: { readyReplicas: 2 } } }));
    expect(status.replicas).toEqual({ desired: 6, ready: 3, available: 3 });
  });

  test('no status and unknown states → Pending with a message; deletion → Terminating', () => {
    expect(translateDynamoStatus(dgd())).toMatchObject({ phase: 'Pending', message: 'Dynamo has not reported a status yet' });
    expect(translateDynamoStatus(dgd({ state: 'scaling' }))).toMatchObject({ phase: 'Pending', message: "unknown Dynamo state 'scaling'" });
    expect(translateDynamoStatus({ ...dgd({ state: 'successful' }), metadata: { name: 'x', deletionTimestamp: '2026-01-30T10:00:00Z' } }).phase).toBe('Terminating');
  });

  test('nvidia.com/v1beta1: components in a list with their type, per-component readiness in status.components', () => {
    const beta: UpstreamResource = {
      apiVersion: 'nvidia.com/v1beta1',
      kind: 'DynamoGraphDeployment',
      metadata: { name: 'llama-70b-pd' },
      spec: {
        components: [
          { name: 'Frontend', type: 'frontend', replicas: 2 }, { name: 'VllmPrefillWorker', type: 'prefill', replicas: 2 }, { name: 'VllmDecodeWorker', type: 'decode', replicas: 4 },
        ],
      },
      status: {
        state: 'pending',
        conditions: [condition('Ready', 'False', 'some_resources_are_not_ready', 'VllmDecodeWorker: 1/4 ready')],
        components: {
          VllmPrefillWorker: { readyReplicas: 2, availableReplicas: 2 },
          VllmDecodeWorker: { readyReplicas: 1, availableReplicas: 1 },
          Frontend: { readyReplicas: 2 },
        },
      },
    };
    expect(translateDynamoStatus(beta)).toMatchObject({ phase: 'Deploying', message: 'VllmDecodeWorker: 1/4 ready', replicas: { desired: 6, ready: 3, available: 3 } });
    expect(translateStatus(beta).provider.name).toBe('dynamo');
  });
});

describe('KubeRay RayService status (condition Ready; application statuses)', () => {
  const rayService = (status?: object): UpstreamResource => ({
    apiVersion: 'ray.io/v1',
    kind: 'RayService',
    metadata: { name: 'qwen' },
    spec: { rayClusterConfig: { headGroupSpec: {}, workerGroupSpecs: [{ groupName: 'prefill-workers', replicas: 2 }, { groupName: 'decode-workers', replicas: 1 }] } },
    status,
  });
  const apps = (status: string, extra: object = {}) => ({ activeServiceStatus: { applicationStatuses: { llm: { status, ...extra } } } });

  test('Ready True → Running; endpoint <name>-serve-svc:8000', () => {
    expect(translateRayServiceStatus(rayService({ ...apps('RUNNING'), conditions: [condition('Ready', 'True', 'NonZeroServeEndpoints', 'Number of serve endpoints is greater than 0')] }))).toEqual({
      phase: 'Running',
      provider: { name: 'kuberay', resourceName: 'qwen', resourceKind: 'RayService', selectionReason: undefined },
      replicas: { desired: 3, ready: 3, available: 3 },
      endpoint: { service: 'qwen-serve-svc', port: 8000, basePath: '/v1' },
    });
  });

  test('worker counts come from rayClusterStatus when reported', () => {
    const status = { activeServiceStatus: { applicationStatuses: { llm: { status: 'RUNNING' } }, rayClusterStatus: { readyWorkerReplicas: 2, availableWorkerReplicas: 1 } }, conditions: [condition('Ready', 'True')] };
    expect(translateRayServiceStatus(rayService(status)).replicas).toEqual({ desired: 3, ready: 2, available: 1 });
  });

  test('a reported rayClusterStatus without counts means 0 (KubeRay omits int32 zeros)', () => {
    const status = { activeServiceStatus: { applicationStatuses: { llm: { status: 'DEPLOYING' } }, rayClusterStatus: { desiredWorkerReplicas: 3 } } };
    expect(translateRayServiceStatus(rayService(status)).replicas).toEqual({ desired: 3, ready: 0, available: 0 });
  });

  test('Ready False with ValidationFailed or InitializingTimeout is terminal in KubeRay → Failed with its message', () => {
    const refused = 'The RayService spec is invalid: spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set';
    expect(translateRayServiceStatus(rayService({ conditions: [condition('Ready', 'False', 'ValidationFailed', refused)] })))
      .toMatchObject({ phase: 'Failed', message: refused, replicas: { desired: 3, ready: 0, available: 0 } });
    expect(translateRayServiceStatus(rayService({ ...apps('DEPLOYING'), conditions: [condition('Ready', 'False', 'InitializingTimeout', 'RayService failed to become ready within the configured timeout of 30m0s')] })))
      .toMatchObject({ phase: 'Failed', message: 'RayService failed to become ready within the configured timeout of 30m0s' });
    expect(translateRayServiceStatus(rayService({ conditions: [condition('Ready', 'False', 'ValidationFailed')] })).message).toBe('KubeRay: ValidationFailed');
  });

  test('serve endpoints dropping to 0 while applications run again → Deploying', () => {
    expect(translateRayServiceStatus(rayService({ ...apps('DEPLOYING'), conditions: [condition('Ready', 'False', 'ZeroServeEndpoints', 'Number of serve endpoints dropped to 0')] })))
      .toMatchObject({ phase: 'Deploying', message: 'Number of serve endpoints dropped to 0' });
  });

  test('the deprecated serviceStatus Running counts when there is no Ready condition', () => {
    expect(translateRayServiceStatus(rayService({ serviceStatus: 'Running' })).phase).toBe('Running');
  });

  test.each(['DEPLOYING', 'NOT_STARTED'])('application %s with Ready False → Deploying with the condition message', (app) => {
    expect(translateRayServiceStatus(rayService({ ...apps(app), conditions: [condition('Ready', 'False', 'Initializing', 'Serve applications are deploying')] })))
      .toMatchObject({ phase: 'Deploying', message: 'Serve applications are deploying', replicas: { desired: 3, ready: 0 } });
  });

  test('DEPLOY_FAILED → Failed with the application message', () => {
    expect(translateRayServiceStatus(rayService({ ...apps('DEPLOY_FAILED', { message: 'ImportError: vllm' }), conditions: [condition('Ready', 'False', 'Initializing')] })))
      .toMatchObject({ phase: 'Failed', message: 'ImportError: vllm' });
  });

  test('the first Ray cluster is KubeRay\'s pending one: its applications and counts are read until one is active', () => {
    // As KubeRay 1.6.2 wrote it on the single-node cluster (test/cluster/kuberay.test.ts), abridged.
    const first = {
      activeServiceStatus: { rayClusterStatus: { desiredCPU: '0' } },
      pendingServiceStatus: {
        rayClusterName: 'qwen-4m9gp',
        rayClusterStatus: { readyWorkerReplicas: 1 },
        applicationStatuses: { llm: { status: 'DEPLOY_FAILED', message: "Deploying app 'llm' failed with exception: ModuleNotFoundError: No module named 'vllm'" } },
      },
      conditions: [condition('Ready', 'False', 'Initializing', 'RayService is initializing')],
    };
    expect(translateRayServiceStatus(rayService(first))).toMatchObject({
      phase: 'Failed', message: "Deploying app 'llm' failed with exception: ModuleNotFoundError: No module named 'vllm'", replicas: { desired: 3, ready: 1 },
    });
    const deploying = { ...first, pendingServiceStatus: { ...first.pendingServiceStatus, applicationStatuses: { llm: { status: 'DEPLOYING' } } } };
    expect(translateRayServiceStatus(rayService(deploying))).toMatchObject({ phase: 'Deploying', message: 'RayService is initializing' });
  });

  test('an upgrade: the active cluster serves; a failure of the new one is told alongside', () => {
    const upgrade = {
      activeServiceStatus: { rayClusterName: 'qwen-old', applicationStatuses: { llm: { status: 'RUNNING' } } },
      pendingServiceStatus: { rayClusterName: 'qwen-new', applicationStatuses: { llm: { status: 'DEPLOY_FAILED', message: 'ImportError: vllm' } } },
      conditions: [condition('Ready', 'True', 'NonZeroServeEndpoints'), condition('UpgradeInProgress', 'True', 'BothActivePendingClustersExist')],
    };
    expect(translateRayServiceStatus(rayService(upgrade))).toMatchObject({
      phase: 'Running', message: "the upgrade's new Ray cluster qwen-new fails: ImportError: vllm",
    });
    const healthy = { ...upgrade, pendingServiceStatus: { rayClusterName: 'qwen-new', applicationStatuses: { llm: { status: 'DEPLOYING' } } } };
    expect(translateRayServiceStatus(rayService(healthy)).message).toBeUndefined();
  });

  test('UNHEALTHY → Failed with the messages of its Serve deployments', () => {
    const status = apps('UNHEALTHY', { serveDeploymentStatuses: { LLMServer: { status: 'UNHEALTHY', message: 'replica crashed: CUDA out of memory' }, OpenAiIngress: { status: 'HEALTHY' } } });
    expect(translateRayServiceStatus(rayService(status))).toMatchObject({ phase: 'Failed', message: 'LLMServer: replica crashed: CUDA out of memory' });
    expect(translateRayServiceStatus(rayService(apps('UNHEALTHY'))).message).toBe("Serve application 'llm' is UNHEALTHY");
  });

  test('no applications yet → Pending; no status → Pending; deletion → Terminating', () => {
    expect(translateRayServiceStatus(rayService({ conditions: [condition('Ready', 'False', 'Initializing', 'cluster starting')] })))
      .toMatchObject({ phase: 'Pending', message: 'cluster starting' });
    expect(translateRayServiceStatus(rayService())).toMatchObject({ phase: 'Pending', message: 'KubeRay has not reported a status yet' });
    expect(translateRayServiceStatus({ ...rayService(apps('RUNNING')), metadata: { name: 'q', deletionTimestamp: '2026-01-30T10:00:00Z' } }).phase).toBe('Terminating');
  });

  test('KubeRay 1.7 suspension (spec.suspend): Suspending, then Suspended, is Pending with what to do', () => {
    const suspending = [condition('Suspending', 'True', 'SuspendRequested'), condition('Ready', 'False', 'SuspendInProgress')];
    expect(translateRayServiceStatus(rayService({ ...apps('RUNNING'), conditions: suspending }))).toMatchObject({
      phase: 'Pending',
      message: 'KubeRay is suspending the RayService (spec.suspend: true): its Ray cluster is being deleted',
      replicas: { desired: 3, ready: 0, available: 0 },
    });
    const suspended = [condition('Suspended', 'True', 'SuspendComplete'), condition('Suspending', 'False', 'SuspendComplete'), condition('Ready', 'False', 'SuspendComplete')];
    expect(translateRayServiceStatus(rayService({ conditions: suspended }))).toMatchObject({
      phase: 'Pending',
      message: 'KubeRay suspended the RayService (spec.suspend: true): its Ray cluster is deleted; set spec.suspend to false to resume',
    });
    // Resumed: Suspended False, and readiness is read as before.
    const resumed = [condition('Suspended', 'False', 'RayServiceResumed'), condition('Ready', 'True', 'NonZeroServeEndpoints')];
    expect(translateRayServiceStatus(rayService({ ...apps('RUNNING'), conditions: resumed })).phase).toBe('Running');
  });
});

describe('translateStatus dispatches on apiVersion and kind', () => {
  test('a rendered resource, read back with a status, maps through its provider and keeps the selection reason', () => {
    const { resource } = render(GPU_VLLM, 'llama-8b');
    const status = translateStatus({ ...resource, status: { state: 'successful' } });
    expect(status).toMatchObject({
      phase: 'Running',
      provider: { name: 'dynamo', resourceName: 'llama-8b', resourceKind: 'DynamoGraphDeployment', selectionReason: 'default → dynamo (GPU inference default)' },
      endpoint: { service: 'llama-8b-frontend', port: 8000, basePath: '/v1' },
      replicas: { desired: 1, ready: 1, available: 1 },
    });
  });

  test('both KAITO API versions are understood', () => {
    for (const apiVersion of ['kaito.sh/v1beta1', 'kaito.sh/v1alpha1']) {
      expect(translateStatus({ apiVersion, kind: 'Workspace', metadata: { name: 'w' }, status: { state: 'Ready' } }).phase).toBe('Running');
    }
  });

  test('anything else is refused with the supported kinds', () => {
    expect(() => translateStatus({ apiVersion: 'apps/v1', kind: 'Deployment' }))
      .toThrow('no provider reads the status of apps/v1 Deployment; supported: DynamoGraphDeployment (dynamo), Workspace (kaito), RayService (kuberay)');
    expect(() => translateStatus('phase: Running')).toThrow('expected a Kubernetes resource with apiVersion and kind');
  });
});
