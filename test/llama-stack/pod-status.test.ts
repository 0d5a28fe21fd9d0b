/**
 * The status of a server pod in the kubelet's states that the sandbox cannot produce (a running
 * install, a crash loop, an image that cannot be pulled, an unscheduled or deleted pod), on pods made
 * from the rendered Deployment with container statuses in the kubelet's shapes (k8s.io/api core/v1
 * ContainerStatus). test/pod-startup/status.test.ts reads pods of real runs.
 */
import { find, render } from './helpers';
import { ConfigValue } from '../../src';
import { llamaStackPodStatus } from '../../src/llama-stack/pod/status';

const deployment = find(render({
  distribution: { name: 'starter' },
  externalProviders: {
    inference: [{ providerId: 'vllm$x', image: 'quay.io/acme/vllm:1', config: { token: ConfigValue.fromSecret('s', 'k') } }],
    safety: [{ providerId: 'guard', image: 'quay.io/acme/guard:1' }],
  },
}), 'Deployment');

const done = (name: string) => ({ name, ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } });
const waiting = (name: string, reason = 'PodInitializing') => ({ name, ready: false, restartCount: 0, state: { waiting: { reason } } });
const running = (name: string, ready = false) => ({ name, ready, restartCount: 0, state: { running: { startedAt: '2026-11-25T00:00:00Z' } } });
const initNames: string[] = deployment.spec.template.spec.initContainers.map((c: any) => c.name);

function pod(init: Record<string, any>, server: any, extra: { metadata?: any; conditions?: any[] } = {}): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'stack-abc', namespace: 'ai', labels: deployment.spec.template.metadata.labels, ...extra.metadata },
    spec: deployment.spec.template.spec,
    status: {
      conditions: extra.conditions ?? [{ type: 'PodScheduled', status: 'True' }],
      initContainerStatuses: initNames.map((n) => init[n] ?? waiting(n)),
      containerStatuses: [server ?? waiting('llama-stack')],
    },
  };
}

describe('the status of a LlamaStackWithProviders pod', () => {
  test('init containers in turn: Installing while its container runs, Pending before, Ready after; the server Initializing', () => {
    expect(initNames).toEqual([
      'write-init-scripts', 'inspect-distribution', 'install-provider-vllm-x-72e3b77e', 'install-provider-guard', 'extract-distribution-config', 'merge-config',
    ]);
    const s = llamaStackPodStatus(pod({
      'write-init-scripts': done('write-init-scripts'),
      'inspect-distribution': done('inspect-distribution'),
      'install-provider-vllm-x-72e3b77e': running('install-provider-vllm-x-72e3b77e'),
    }, undefined));
    expect(s).toMatchObject({ name: 'stack', namespace: 'ai', pod: 'stack-abc', phase: 'Initializing', message: 'init container install-provider-vllm-x-72e3b77e has not completed' });
    // The id as written, though the pod spec carries it escaped for $(VAR) expansion.
    expect(s.providers).toEqual([
      { providerId: 'vllm$x', api: 'inference', image: 'quay.io/acme/vllm:1', mode: 'inline', phase: 'Installing' },
      { providerId: 'guard', api: 'safety', image: 'quay.io/acme/guard:1', mode: 'inline', phase: 'Pending' },
    ]);
  });

  test('an image that cannot be pulled, and a crash loop, are failures with the reason and the last run\'s message', () => {
    const pull = llamaStackPodStatus(pod({
      'write-init-scripts': done('write-init-scripts'),
      'inspect-distribution': done('inspect-distribution'),
      'install-provider-vllm-x-72e3b77e': { ...waiting('install-provider-vllm-x-72e3b77e', 'ImagePullBackOff'), state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "quay.io/acme/vllm:1"' } } },
    }, undefined));
    expect(pull.phase).toBe('Failed');
    expect(pull.providers[0]).toMatchObject({ phase: 'Failed', reason: 'ImagePullBackOff: Back-off pulling image "quay.io/acme/vllm:1"' });

    const loop = llamaStackPodStatus(pod({
      'write-init-scripts': done('write-init-scripts'),
      'inspect-distribution': done('inspect-distribution'),
      'install-provider-vllm-x-72e3b77e': {
        name: 'install-provider-vllm-x-72e3b77e',
        ready: false,
        restartCount: 4,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'ERROR: Missing /lls-provider/lls-provider-spec.yaml' } },
      },
    }, undefined));
    expect(loop.providers[0].reason).toBe('CrashLoopBackOff: Error (exit code 1): ERROR: Missing /lls-provider/lls-provider-spec.yaml');
    expect(loop.message).toBe('init container install-provider-vllm-x-72e3b77e failed: CrashLoopBackOff: Error (exit code 1): ERROR: Missing /lls-provider/lls-provider-spec.yaml');
  });

  test('a merge image of another version than the manifest\'s: the pod fails at its first init container, saying why', () => {
    const message = 'error: this merge image (kube-inference 0.2.0) carries init scripts with SHA-256 aa…, but the manifest was rendered for scripts with SHA-256 bb…';
    const s = llamaStackPodStatus(pod({
      'write-init-scripts': { ...done('write-init-scripts'), state: { terminated: { exitCode: 1, reason: 'Error', message } } },
    }, undefined));
    expect(s).toMatchObject({ phase: 'Failed', message: `init container write-init-scripts failed: Error (exit code 1): ${message}` });
    expect(s.providers.map((p) => p.phase)).toEqual(['Pending', 'Pending']);
  });

  test('a termination message longer than any kubelet writes is cut to its last 4096 bytes, as the kubelet cuts one, saying so', () => {
    // 11 MiB of preflight blocks: read whole, every block would be searched to its end (quadratic) and printed.
    const block = "ERROR: Preflight check failed for external provider 'vllm$x'\nCheck: import\n";
    const message = `${block.repeat(Math.ceil((11 * 1024 * 1024) / block.length))}Resolution: rebuild the image`;
    const all = Object.fromEntries(initNames.map((n) => [n, done(n)]));
    const s = llamaStackPodStatus(pod(all, { ...waiting('llama-stack', 'CrashLoopBackOff'), lastState: { terminated: { exitCode: 1, reason: 'Error', message } } }));
    const kept = Buffer.from(message).subarray(-4096).toString('utf8');
    expect(kept.endsWith('Check: import\nResolution: rebuild the image')).toBe(true);
    expect(s.message).toBe(`the server container failed: CrashLoopBackOff: Error (exit code 1): (a message of ${Buffer.byteLength(message)} bytes, cut to its last 4096, `
      + `the most a kubelet keeps) ${kept.trim()}`);
  });

  test('the server: Ready when ready, Initializing while starting, its restarts counted; Pending unscheduled; Terminating when deleted', () => {
    const all = Object.fromEntries(initNames.map((n) => [n, done(n)]));
    expect(llamaStackPodStatus(pod(all, { ...running('llama-stack', true), restartCount: 2 }))).toMatchObject({ phase: 'Ready', restarts: 2 });
    expect(llamaStackPodStatus(pod(all, running('llama-stack')))).toMatchObject({ phase: 'Initializing', message: 'the server is starting: not ready yet' });
    expect(llamaStackPodStatus(pod({}, undefined, { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 3 Insufficient cpu.' }] })))
      .toMatchObject({ phase: 'Pending', message: 'not scheduled: 0/3 nodes are available: 3 Insufficient cpu.' });
    expect(llamaStackPodStatus(pod(all, running('llama-stack', true), { metadata: { deletionTimestamp: '2026-11-25T00:00:00Z' } })).phase).toBe('Terminating');
  });

  test('a pod of something else is refused', () => {
    expect(() => llamaStackPodStatus({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'a' }] } }))
      .toThrow('expected a pod of a LlamaStackWithProviders server');
  });
});

describe('a provider with a sidecar (seed 002, Level 2a)', () => {
  const withSidecar = (kubernetesVersion?: string) => find(render({
    distribution: { name: 'starter' },
    kubernetesVersion,
    externalProviders: { inference: [{ providerId: 'echo', image: 'quay.io/acme/echo:1', sidecar: {} }, { providerId: 'plain', image: 'quay.io/acme/plain:1' }] },
  }), 'Deployment').spec.template.spec;
  const sidecarPod = (spec: any, sidecar: any, server: any) => {
    const installs = spec.initContainers.filter((c: any) => c.restartPolicy !== 'Always').map((c: any) => done(c.name));
    const native = spec.initContainers.some((c: any) => c.restartPolicy === 'Always');
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stack-abc', labels: deployment.spec.template.metadata.labels },
      spec,
      status: {
        initContainerStatuses: native ? [...installs, sidecar] : installs,
        containerStatuses: native ? [server] : [server, sidecar],
      },
    };
  };

  test.each([['native', undefined], ['regular', '1.28']])('%s: mode sidecar with its readiness and restarts; Ready while it is', (_, version) => {
    const status = llamaStackPodStatus(sidecarPod(withSidecar(version), { ...running('provider-echo', true), restartCount: 2 }, running('llama-stack', true)));
    expect(status.phase).toBe('Ready');
    expect(status.providers).toEqual([
      { providerId: 'echo', api: 'inference', image: 'quay.io/acme/echo:1', mode: 'sidecar', phase: 'Ready', sidecar: { container: 'provider-echo', ready: true, restarts: 2 } },
      { providerId: 'plain', api: 'inference', image: 'quay.io/acme/plain:1', mode: 'inline', phase: 'Ready' },
    ]);
  });

  test('a sidecar that crashes: its provider Degraded with the reason; the server keeps its own phase', () => {
    const status = llamaStackPodStatus(sidecarPod(withSidecar(), { ...waiting('provider-echo', 'CrashLoopBackOff'), restartCount: 5 }, running('llama-stack', true)));
    expect(status.phase).toBe('Ready');
    expect(status.providers[0]).toMatchObject({ mode: 'sidecar', phase: 'Degraded', reason: 'sidecar provider-echo: CrashLoopBackOff', sidecar: { ready: false, restarts: 5 } });
  });

  test('a native sidecar running while the server starts is not an init container that has not completed', () => {
    const status = llamaStackPodStatus(sidecarPod(withSidecar(), running('provider-echo', true), running('llama-stack', false)));
    expect(status).toMatchObject({ phase: 'Initializing', message: 'the server is starting: not ready yet' });
  });
});

describe('a provider with a service in pods of its own (seed 002, Level 2b)', () => {
  const manifests = render({ distribution: { name: 'starter' }, externalProviders: { vectorIo: [{ providerId: 'vectors', image: 'quay.io/acme/vectors:1', service: { replicas: 2 } }] } });
  const spec = find(manifests, 'Deployment').spec.template.spec;
  const serverPod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'stack-abc', labels: deployment.spec.template.metadata.labels },
    spec,
    status: { initContainerStatuses: spec.initContainers.map((c: any) => done(c.name)), containerStatuses: [running('llama-stack', true)] },
  };
  const serviceDeployment = (available: number) => ({ ...manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === 'stack-vectors'), status: { availableReplicas: available } });

  test('mode service, with its Deployment\'s availability when given; Degraded while no pod of it is available', () => {
    expect(llamaStackPodStatus(serverPod).providers[0]).toEqual({ providerId: 'vectors', api: 'vector_io', image: 'quay.io/acme/vectors:1', mode: 'service', phase: 'Ready', service: { name: 'stack-vectors' } });
    expect(llamaStackPodStatus(serverPod, new Map([['stack-vectors', serviceDeployment(2)]])).providers[0])
      .toMatchObject({ mode: 'service', phase: 'Ready', service: { name: 'stack-vectors', replicas: { desired: 2, available: 2 } } });
    expect(llamaStackPodStatus(serverPod, new Map([['stack-vectors', serviceDeployment(0)]])).providers[0])
      .toMatchObject({ phase: 'Degraded', reason: 'service stack-vectors: no pod available', service: { replicas: { desired: 2, available: 0 } } });
  });
});

test('a pod of an ogx server (its container ogx, the default for ogx releases) reads the same', () => {
  const ogx = find(render({ distribution: { name: 'starter' }, serverVersion: '1.5', externalProviders: { inference: [{ providerId: 'p', image: 'quay.io/acme/p:1' }] } }), 'Deployment');
  const spec = ogx.spec.template.spec;
  expect(spec.containers[0].name).toBe('ogx');
  const status = llamaStackPodStatus({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'stack-ogx', labels: ogx.spec.template.metadata.labels },
    spec,
    status: {
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }],
      initContainerStatuses: spec.initContainers.map((c: any) => done(c.name)),
      containerStatuses: [running('ogx', true)],
    },
  });
  expect(status).toMatchObject({ name: 'stack', pod: 'stack-ogx', phase: 'Ready', restarts: 0 });
  expect(status.providers).toEqual([{ providerId: 'p', api: 'inference', image: 'quay.io/acme/p:1', mode: 'inline', phase: 'Ready' }]);
});
