/**
 * A sandboxed pod run written as `kubectl get pod -o yaml` would show it: the Deployment's pod
 * template as the spec, and the containers' states as a kubelet reports them (`state.terminated` with
 * the exit code, reason and termination message; `state.waiting` with its reason; `ready`). A stand-in
 * for the kubelet, which cannot run here: only the fields `kube-inference status` reads are written,
 * in the kubelet's shapes (k8s.io/api core/v1 ContainerStatus).
 */
import { ContainerRun, PodRun } from './pod-runner';

export function kubernetesPod(run: PodRun, deployment: any, podName = `${deployment.metadata.name}-7c9f8d5b6-x2x4q`): any {
  const template = deployment.spec.template;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace: deployment.metadata.namespace ?? 'default', labels: template.metadata.labels },
    spec: template.spec,
    status: {
      phase: run.phase === 'Running' ? 'Running' : run.status.startsWith('Init:') ? 'Pending' : run.phase,
      conditions: [{ type: 'PodScheduled', status: 'True' }],
      initContainerStatuses: run.initContainers.map(containerStatus),
      containerStatuses: run.containers.map(containerStatus),
    },
  };
}

function containerStatus(c: ContainerRun): any {
  const base = { name: c.name, image: c.image, restartCount: 0, ready: c.state === 'running' && c.readyAtMs !== undefined };
  switch (c.state) {
    case 'terminated':
      return { ...base, state: { terminated: { exitCode: c.exitCode, reason: c.exitCode === 0 ? 'Completed' : 'Error', ...(c.message ? { message: c.message } : {}) } } };
    case 'running':
      return { ...base, state: { running: { startedAt: '2026-11-25T00:00:00Z' } } };
    default:
      return { ...base, state: { waiting: { reason: c.reason } } };
  }
}
