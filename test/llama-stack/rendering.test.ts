import { ApiObject, Chart, Testing } from 'cdk8s';
import { errorOf, find, LAUNCH_SERVER, podSpec, render, THREE_PROVIDERS } from './helpers';
import { ConfigValue, LlamaStackWithProviders, LlamaStackWithProvidersProps, warningsOf } from '../../src';
import { initScripts, initScriptsDigest } from '../../src/llama-stack/scripts';

describe('LlamaStackWithProviders without external providers', () => {
  const manifests = render({ distribution: { name: 'starter' } });
  const pod = podSpec(manifests);
  const server = pod.containers[0];

  test('renders a ServiceAccount of its own, a Deployment and a Service only', () => {
    expect(manifests.map((m) => m.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
  });

  test('maps a named distribution to its image', () => {
    expect(server.image).toBe('docker.io/llamastack/distribution-starter:0.7.3');
  });

  test('has no init containers and leaves the image its entrypoint (no config to point at)', () => {
    expect(pod.initContainers).toBeUndefined();
    expect(server.command).toBeUndefined();
  });

  test('serves port 8321 through the Service and probes /v1/health', () => {
    expect(server.ports).toEqual([{ name: 'http', containerPort: 8321, protocol: 'TCP' }]);
    const service = find(manifests, 'Service');
    expect(service.metadata.name).toBe('stack-service');
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8321, protocol: 'TCP', targetPort: 'http' }]);
    for (const probe of [server.startupProbe, server.readinessProbe, server.livenessProbe]) {
      expect(probe.httpGet).toEqual({ path: '/v1/health', port: 'http' });
    }
  });

  test('meets the restricted Pod Security Standard by default', () => {
    expect(pod.securityContext).toEqual({
      fsGroup: 1001, runAsGroup: 1001, runAsUser: 1001, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(server.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true });
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  test('selects its pods by name and instance', () => {
    const deployment = find(manifests, 'Deployment');
    expect(deployment.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'llama-stack', 'app.kubernetes.io/instance': 'stack' });
    expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(find(manifests, 'Service').spec.selector).toEqual(deployment.spec.selector.matchLabels);
  });

  test('matches the snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });
});

describe('LlamaStackWithProviders with a user config', () => {
  test('an inline config becomes a ConfigMap, mounted and passed to the server explicitly', () => {
    const manifests = render({ distribution: { image: 'quay.io/acme/llama:0.4' }, userConfig: { config: { version: 2, apis: ['inference'] } } });
    const cm = find(manifests, 'ConfigMap');
    expect(cm.metadata.name).toBe('stack-config');
    // With the pod's plain HTTP said explicitly (ogx 1.2 and later need it; this release ignores it).
    expect(cm.data['config.yaml']).toBe('version: 2\napis:\n- inference\nserver:\n  insecure: true\n');
    const pod = podSpec(manifests);
    expect(pod.containers[0].command).toEqual(LAUNCH_SERVER);
    expect(pod.containers[0].env).toContainEqual({ name: 'LLAMA_STACK_CONFIG', value: '/etc/llama-stack/config.yaml' });
    expect(pod.volumes).toContainEqual({ name: 'user-config', configMap: { name: 'stack-config' } });
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'user-config', mountPath: '/etc/llama-stack', readOnly: true });
  });

  test('YAML text is kept as written, comments included, and its hash rolls the pods', () => {
    const text = '# tuned for production\nversion: 2\nproviders: {}\n';
    const a = render({ distribution: { name: 'starter' }, userConfig: { config: text }, configFileName: 'run.yaml' });
    expect(find(a, 'ConfigMap').data['run.yaml']).toBe(`${text}server:\n  insecure: true\n`);
    const b = render({ distribution: { name: 'starter' }, userConfig: { config: text.replace('2', '3') }, configFileName: 'run.yaml' });
    const hash = (m: any[]) => find(m, 'Deployment').spec.template.metadata.annotations['kube-inference.io/config-hash'];
    expect(hash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(a)).not.toBe(hash(b));
  });

  test('a ConfigMap reference is mounted whole, the server started with its key, with no ConfigMap rendered', () => {
    const manifests = render({ distribution: { name: 'starter' }, userConfig: { configMapName: 'my-config', configMapKey: 'run.yaml' } });
    expect(manifests.map((m) => m.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
    // As the operator mounts it: files beside the config (certificates, templates) are reachable.
    expect(podSpec(manifests).volumes).toContainEqual({ name: 'user-config', configMap: { name: 'my-config' } });
    expect(podSpec(manifests).containers[0].command).toEqual(LAUNCH_SERVER);
    expect(podSpec(manifests).containers[0].env).toContainEqual({ name: 'LLAMA_STACK_CONFIG', value: '/etc/llama-stack/run.yaml' });
  });

  test('with providers, the merge reads the ConfigMap\'s key and writes the release\'s config file name', () => {
    const manifests = render({ ...THREE_PROVIDERS, userConfig: { configMapName: 'my-config', configMapKey: 'tuned.yaml' } });
    const merge = podSpec(manifests).initContainers.find((c: any) => c.name === 'merge-config');
    expect(merge.args).toEqual(expect.arrayContaining(['--base-config', '/opt/llama-stack/base-config/tuned.yaml', '--config-file-name', 'config.yaml']));
  });
});

describe('LlamaStackWithProviders with external providers', () => {
  const manifests = render(THREE_PROVIDERS);
  const pod = podSpec(manifests);
  const server = pod.containers[0];
  const byName = (name: string) => pod.initContainers.find((c: any) => c.name === name);

  test('writes the scripts, inspects the distribution, runs one installer per provider in spec order (section order, then list order), then extract and merge', () => {
    expect(pod.initContainers.map((c: any) => c.name)).toEqual([
      'write-init-scripts',
      'inspect-distribution',
      'install-provider-custom-vllm',
      'install-provider-ollama',
      'install-provider-trustyai-fms',
      'extract-distribution-config',
      'merge-config',
    ]);
  });

  test('installers use the provider image and pull policy (IfNotPresent by default)', () => {
    expect(byName('install-provider-custom-vllm')).toMatchObject({ image: 'quay.io/acme/vllm-provider:1.2.0', imagePullPolicy: 'IfNotPresent' });
    expect(byName('install-provider-ollama').imagePullPolicy).toBe('Always');
  });

  test('mounts follow the seed\'s shared volume table, readOnly included', () => {
    const mounts = (name: string) => (name === 'llama-stack' ? server : byName(name)).volumeMounts;
    const scripts = { name: 'init-scripts', mountPath: '/opt/llama-stack/scripts', readOnly: true };
    expect(mounts('inspect-distribution')).toEqual([scripts, { name: 'external-providers', mountPath: '/opt/llama-stack/external-providers' }]);
    expect(mounts('install-provider-custom-vllm')).toEqual([scripts, { name: 'external-providers', mountPath: '/opt/llama-stack/external-providers' }]);
    expect(mounts('extract-distribution-config')).toEqual([scripts, { name: 'base-config', mountPath: '/opt/llama-stack/base-config' }]);
    expect(mounts('merge-config')).toEqual([
      { name: 'external-providers', mountPath: '/opt/llama-stack/external-providers', readOnly: true },
      { name: 'base-config', mountPath: '/opt/llama-stack/base-config', readOnly: true },
      { name: 'merged-config', mountPath: '/opt/llama-stack/config' },
    ]);
    expect(mounts('llama-stack')).toEqual([
      { name: 'external-providers', mountPath: '/opt/llama-stack/external-providers', readOnly: true },
      { name: 'merged-config', mountPath: '/opt/llama-stack/config', readOnly: true },
      scripts,
      { name: 'llama-storage', mountPath: '/.llama' },
    ]);
  });

  test('the shared volume is an emptyDir limited to 2Gi by default', () => {
    expect(pod.volumes).toContainEqual({ name: 'external-providers', emptyDir: { sizeLimit: '2Gi' } });
    const limited = podSpec(render({ ...THREE_PROVIDERS, sharedVolumeSizeLimit: '5Gi' }));
    expect(limited.volumes).toContainEqual({ name: 'external-providers', emptyDir: { sizeLimit: '5Gi' } });
  });

  test('the merge image the pod runs anyway writes the init scripts, checked against their digest: none is in the manifests', () => {
    expect(manifests.map((m) => m.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
    expect(pod.initContainers[0]).toEqual({
      name: 'write-init-scripts',
      image: 'ghcr.io/kube-inference/merge:0.1.0',
      command: ['kube-inference'],
      args: ['write-init-scripts', '--sha256', initScriptsDigest(), '--dir', '/opt/llama-stack/scripts'],
      volumeMounts: [{ name: 'init-scripts', mountPath: '/opt/llama-stack/scripts' }],
      resources: byName('merge-config').resources,
      securityContext: byName('merge-config').securityContext,
      terminationMessagePolicy: 'FallbackToLogsOnError',
    });
    expect(byName('inspect-distribution').command).toEqual(['/bin/sh', '/opt/llama-stack/scripts/inspect-distribution.sh']);
    expect(byName('install-provider-ollama').command).toEqual(['/bin/sh', '/opt/llama-stack/scripts/install-provider.sh']);
    expect(byName('extract-distribution-config').command).toEqual(['/bin/sh', '/opt/llama-stack/scripts/extract-distribution-config.sh']);
    expect(pod.volumes).toContainEqual({ name: 'init-scripts', emptyDir: { sizeLimit: '64Mi' } });
    expect(find(manifests, 'Deployment').spec.template.metadata.annotations['kube-inference.io/init-scripts-hash']).toBe(initScriptsDigest());
    expect(JSON.stringify(manifests)).not.toContain(initScripts()['preflight.py'].slice(0, 200));
  });

  test('the server runs preflight, then starts explicitly with the merged config', () => {
    expect(server.command).toEqual(['/bin/sh', '/opt/llama-stack/scripts/start-server.sh']);
    expect(server.env).toContainEqual({ name: 'LLAMA_STACK_CONFIG', value: '/opt/llama-stack/config/config.yaml' });
    expect(server.env).toContainEqual({ name: 'EXTERNAL_PROVIDERS_DIR', value: '/opt/llama-stack/external-providers' });
  });

  test('without preflight the server is started directly, with the merged config', () => {
    const plain = podSpec(render({ ...THREE_PROVIDERS, preflight: false })).containers[0];
    expect(plain.command).toEqual(LAUNCH_SERVER);
    expect(plain.env).toContainEqual({ name: 'LLAMA_STACK_CONFIG', value: '/opt/llama-stack/config/config.yaml' });
    expect(plain.volumeMounts.map((m: any) => m.name)).not.toContain('init-scripts');
  });

  test('PYTHONPATH starts with the provider packages', () => {
    expect(server.env).toContainEqual({ name: 'PYTHONPATH', value: '/opt/llama-stack/external-providers/python-packages' });
  });

  test('the extraction searches both config.yaml and run.yaml at the known paths', () => {
    expect(byName('extract-distribution-config').env).toEqual([
      { name: 'CONFIG_SEARCH_PATHS', value: '/opt/app-root/config.yaml:/opt/app-root/run.yaml:/etc/llama-stack/config.yaml:/etc/llama-stack/run.yaml:/app/run.yaml' },
      { name: 'BASE_CONFIG_FILE', value: '/opt/llama-stack/base-config/config.yaml' },
      { name: 'DISTRIBUTION_IMAGE', value: 'docker.io/llamastack/distribution-starter:0.7.3' },
      { name: 'DISTRIBUTION_NAME', value: 'starter' },
      // The release's command (its console script finds the Python) and package (its distributions hold the configs).
      { name: 'SERVER_COMMAND', value: 'llama stack run' },
      { name: 'SERVER_PACKAGE', value: 'llama_stack' },
    ]);
    expect(byName('extract-distribution-config').image).toBe(server.image);
  });

  test('the distribution is inspected first, in its own image, with the server\'s PYTHONPATH and user env, without provider secrets', () => {
    const env = [{ name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf', key: 'token' } } }, { name: 'PYTHONPATH', value: '/opt/extra' }];
    const inference = [{ providerId: 'p', image: 'quay.io/a/p:1', config: { api_key: ConfigValue.fromSecret('creds', 'key') } }];
    const withSecret = { ...THREE_PROVIDERS, imagePullPolicy: 'Always' as const, env, externalProviders: { inference } };
    const p = podSpec(render(withSecret));
    const inspect = p.initContainers[1];
    expect(inspect).toMatchObject({
      name: 'inspect-distribution',
      image: p.containers[0].image,
      imagePullPolicy: 'Always',
      command: ['/bin/sh', '/opt/llama-stack/scripts/inspect-distribution.sh'],
      securityContext: p.initContainers[1].securityContext,
      resources: p.initContainers[1].resources,
      terminationMessagePolicy: 'FallbackToLogsOnError',
    });
    expect(inspect.env).toEqual([
      env[0],
      { name: 'PYTHONPATH', value: '/opt/llama-stack/external-providers/python-packages:/opt/extra' },
      { name: 'EXTERNAL_PROVIDERS_DIR', value: '/opt/llama-stack/external-providers' },
      { name: 'DISTRIBUTION_IMAGE', value: p.containers[0].image },
      { name: 'SERVER_COMMAND', value: 'llama stack run' },
      { name: 'SERVER_PACKAGE', value: 'llama_stack' },
    ]);
    expect(p.containers[0].env.filter((e: any) => e.name.startsWith('LLS_PROVIDER_'))).toHaveLength(1);
    expect(p.initContainers.find((c: any) => c.name === 'extract-distribution-config').imagePullPolicy).toBe('Always');
  });

  test('the merge step runs kube-inference merge-config with the pod paths and the release', () => {
    expect(byName('merge-config').command).toEqual(['kube-inference']);
    expect(byName('merge-config').args).toEqual([
      'merge-config',
      '--metadata-dir', '/opt/llama-stack/external-providers/metadata',
      '--base-config', '/opt/llama-stack/base-config/config.yaml',
      '--output-dir', '/opt/llama-stack/config',
      '--config-file-name', 'config.yaml',
      '--server-version', '0.7',
      // The pod serves plain HTTP: the merged config says so (server.insecure: true).
      '--insecure',
    ]);
    expect(byName('merge-config').image).toMatch(/^ghcr\.io\/kube-inference\/merge:\d+\.\d+\.\d+/);
  });

  test('every init container reports its failure reason from its logs and runs restricted', () => {
    for (const c of pod.initContainers) {
      expect(c.terminationMessagePolicy).toBe('FallbackToLogsOnError');
      expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true });
    }
  });

  test('installers get every value through the environment, with the crd-config document as JSON', () => {
    const env = Object.fromEntries(byName('install-provider-custom-vllm').env.map((e: any) => [e.name, e.value]));
    expect(env).toMatchObject({
      PROVIDER_ID: 'custom-vllm',
      PROVIDER_IMAGE: 'quay.io/acme/vllm-provider:1.2.0',
      PROVIDER_API: 'inference',
      PROVIDER_CRD_SECTION: 'inference',
      INIT_CONTAINER_NAME: 'install-provider-custom-vllm',
      EXTERNAL_PROVIDERS_DIR: '/opt/llama-stack/external-providers',
    });
    expect(JSON.parse(env.PROVIDER_CRD_CONFIG)).toEqual({
      providerId: 'custom-vllm', api: 'inference', crdSection: 'inference', image: 'quay.io/acme/vllm-provider:1.2.0', order: 0, config: { url: 'http://vllm:8000/v1' },
    });
    expect(JSON.parse(Object.fromEntries(byName('install-provider-trustyai-fms').env.map((e: any) => [e.name, e.value])).PROVIDER_CRD_CONFIG))
      .toEqual({ providerId: 'trustyai-fms', api: 'safety', crdSection: 'safety', image: 'quay.io/trustyai/fms-provider:0.4.0', order: 2 });
  });

  test('with a user config, the merge reads it instead of extracting the distribution\'s', () => {
    const p = podSpec(render({ ...THREE_PROVIDERS, userConfig: { configMapName: 'mine' } }));
    expect(p.initContainers.map((c: any) => c.name)).not.toContain('extract-distribution-config');
    const merge = p.initContainers.find((c: any) => c.name === 'merge-config');
    expect(merge.volumeMounts[1]).toEqual({ name: 'user-config', mountPath: '/opt/llama-stack/base-config', readOnly: true });
    expect(p.volumes.map((v: any) => v.name)).toEqual(['init-scripts', 'external-providers', 'merged-config', 'user-config', 'llama-storage']);
  });

  test('matches the snapshot', () => {
    expect(manifests).toMatchSnapshot();
  });
});

describe('server environment', () => {
  const envOf = (props: any) => podSpec(render({ ...THREE_PROVIDERS, ...props })).containers[0].env;

  test('a literal user PYTHONPATH is kept after the provider packages', () => {
    const env = envOf({ env: [{ name: 'PYTHONPATH', value: '/app/lib' }] });
    expect(env.filter((e: any) => e.name === 'PYTHONPATH')).toEqual([{ name: 'PYTHONPATH', value: '/opt/llama-stack/external-providers/python-packages:/app/lib' }]);
  });

  test('a PYTHONPATH from a ConfigMap is kept through Kubernetes variable expansion', () => {
    const ref = { configMapKeyRef: { name: 'paths', key: 'pythonpath' } };
    const env = envOf({ env: [{ name: 'PYTHONPATH', valueFrom: ref }] });
    const i = env.findIndex((e: any) => e.name === 'USER_PYTHONPATH');
    expect(env[i]).toEqual({ name: 'USER_PYTHONPATH', valueFrom: ref });
    expect(env[i + 1]).toEqual({ name: 'PYTHONPATH', value: '/opt/llama-stack/external-providers/python-packages:$(USER_PYTHONPATH)' });
  });

  test('user env overrides the construct\'s defaults of the same name', () => {
    const env = envOf({ env: [{ name: 'HF_HOME', value: '/models' }] });
    expect(env.filter((e: any) => e.name === 'HF_HOME')).toEqual([{ name: 'HF_HOME', value: '/models' }]);
  });

  test('a resourceFieldRef divisor is rendered as the quantity', () => {
    const ref = { containerName: 'llama-stack', resource: 'limits.memory', divisor: '1Mi' };
    const env = envOf({ env: [{ name: 'MEMORY_MI', valueFrom: { resourceFieldRef: ref } }] });
    expect(env.filter((e: any) => e.name === 'MEMORY_MI')).toEqual([
      { name: 'MEMORY_MI', valueFrom: { resourceFieldRef: { containerName: 'llama-stack', resource: 'limits.memory', divisor: '1Mi' } } },
    ]);
  });

  // The props are the JSON the API server reads: a class of cdk8s's generated imports (the app's own
  // imports/k8s.ts) is not that JSON, and is refused with its field rather than rendered as {"value": ...}.
  test('a divisor given as a class instance of generated imports is refused with its field', () => {
    const divisor = new (class Quantity { public constructor(public readonly value: string) {} })('1Mi');
    expect(() => envOf({ env: [{ name: 'M', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: divisor as any } } }] }))
      .toThrow(/env\[0\]\.valueFrom\.resourceFieldRef\.divisor: expected a string/);
  });
});

describe('storage', () => {
  test('defaults to an emptyDir at /.llama', () => {
    expect(podSpec(render({ distribution: { name: 'starter' } })).volumes).toEqual([{ name: 'llama-storage', emptyDir: {} }]);
  });

  test('a persistent claim is rendered and the rollout recreates pods', () => {
    const manifests = render({ distribution: { name: 'starter' }, storage: { size: '20Gi', storageClassName: 'fast', mountPath: '/data' } });
    const pvc = find(manifests, 'PersistentVolumeClaim');
    expect(pvc.metadata.name).toBe('stack-pvc');
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '20Gi' } } });
    expect(find(manifests, 'Deployment').spec.strategy).toEqual({ type: 'Recreate' });
    expect(podSpec(manifests).containers[0].volumeMounts).toContainEqual({ name: 'llama-storage', mountPath: '/data' });
  });

  test('an existing claim is used as is', () => {
    const manifests = render({ distribution: { name: 'starter' }, storage: { existingClaimName: 'shared' } });
    expect(manifests.map((m) => m.kind)).not.toContain('PersistentVolumeClaim');
    expect(podSpec(manifests).volumes).toEqual([{ name: 'llama-storage', persistentVolumeClaim: { claimName: 'shared' } }]);
  });
});

describe('pod options', () => {
  test('relaxing the restricted profile keeps the uid and fsGroup', () => {
    const pod = podSpec(render({ distribution: { name: 'starter' }, podSecurity: { restricted: false, runAsUser: 0 } }));
    expect(pod.securityContext).toEqual({ runAsUser: 0, runAsGroup: 1001, fsGroup: 1001 });
    expect(pod.containers[0].securityContext).toBeUndefined();
  });

  test('service account, pull secrets, node selector and tolerations reach the pod', () => {
    const pod = podSpec(render({
      distribution: { name: 'meta-reference-gpu' },
      serviceAccountName: 'llama',
      imagePullSecrets: ['registry'],
      nodeSelector: { 'nvidia.com/gpu.present': 'true' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      resources: { limits: { 'nvidia.com/gpu': '1' } },
    }));
    expect(pod).toMatchObject({
      serviceAccountName: 'llama',
      imagePullSecrets: [{ name: 'registry' }],
      nodeSelector: { 'nvidia.com/gpu.present': 'true' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    });
    expect(pod.containers[0].resources).toEqual({ limits: { 'nvidia.com/gpu': '1' } });
  });

  test('the operator\'s podOverrides: more volumes and server mounts after the construct\'s, and a termination grace period', () => {
    const pod = podSpec(render({
      distribution: { name: 'starter' },
      volumes: [{ name: 'certs', secret: { secretName: 'certs' } }, { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }],
      volumeMounts: [{ name: 'certs', mountPath: '/etc/certs', readOnly: true }, { name: 'scratch', mountPath: '/scratch' }],
      terminationGracePeriodSeconds: 60,
    }));
    expect(pod.terminationGracePeriodSeconds).toBe(60);
    expect(pod.volumes.slice(-2)).toEqual([{ name: 'certs', secret: { secretName: 'certs' } }, { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }]);
    expect(pod.containers[0].volumeMounts.slice(-2)).toEqual([{ name: 'certs', mountPath: '/etc/certs', readOnly: true }, { name: 'scratch', mountPath: '/scratch' }]);
  });

  test('the pods run as a ServiceAccount of their own, unless one is named (then none is rendered)', () => {
    const own = render({ distribution: { name: 'starter' } });
    expect(find(own, 'ServiceAccount').metadata.name).toBe('stack-sa');
    expect(podSpec(own).serviceAccountName).toBe('stack-sa');
    const named = render({ distribution: { name: 'starter' }, serviceAccountName: 'shared' });
    expect(named.map((m) => m.kind)).not.toContain('ServiceAccount');
    expect(podSpec(named).serviceAccountName).toBe('shared');
  });

  test('idsFromPlatform (OpenShift restricted-v2): no uid, gid or fsGroup, the rest of the restricted profile kept', () => {
    const pod = podSpec(render({ ...THREE_PROVIDERS, podSecurity: { idsFromPlatform: true } }));
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    for (const c of [...pod.initContainers, ...pod.containers]) {
      expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true });
    }
    expect(errorOf({ distribution: { name: 'starter' }, podSecurity: { idsFromPlatform: true, fsGroup: 1001 } }))
      .toContain('podSecurity.fsGroup: is assigned by the platform with idsFromPlatform: remove fsGroup, or set idsFromPlatform to false.');
  });

  test('operatorSelector: the operator\'s pod selector, so the Deployment can replace the operator\'s in place', () => {
    const manifests = render({ distribution: { name: 'starter' }, replicas: 2, operatorSelector: true, network: { allowedFrom: {} } });
    const operator = { 'app': 'llama-stack', 'app.kubernetes.io/instance': 'stack' };
    const deployment = find(manifests, 'Deployment');
    expect(deployment.spec.selector).toEqual({ matchLabels: operator });
    expect(deployment.spec.template.metadata.labels).toMatchObject(operator);
    expect(find(manifests, 'Service').spec.selector).toEqual(operator);
    expect(find(manifests, 'Service').metadata.name).toBe('stack-service');
    expect(find(manifests, 'PodDisruptionBudget').spec.selector).toEqual({ matchLabels: operator });
    expect(find(manifests, 'NetworkPolicy').spec.podSelector).toEqual({ matchLabels: operator });
  });

  // llama-stack's QuotaMiddleware counts every HTTP request, health checks included, by client address
  // (llama_stack/core/server/quota.py): HTTP probes from the kubelet would use up the anonymous quota.
  test('probes follow the config: a connection only with a quota, HTTPS with TLS, HTTP otherwise; healthCheck decides for a ConfigMap', () => {
    const probesOf = (props: any) => {
      const server = podSpec(render({ distribution: { name: 'starter' }, ...props })).containers[0];
      return [server.startupProbe, server.readinessProbe, server.livenessProbe];
    };
    const quota = 'version: 2\nserver:\n  quota:\n    kvstore: {backend: kv_default, namespace: quota}\n    anonymous_max_requests: 100\n    authenticated_max_requests: 1000\n    period: day\n';
    for (const probe of probesOf({ userConfig: { config: quota } })) {
      expect(probe).toMatchObject({ tcpSocket: { port: 'http' } });
      expect(probe).not.toHaveProperty('httpGet');
    }
    for (const probe of probesOf({ userConfig: { config: { version: 2, server: { tls_certfile: '/certs/tls.crt', tls_keyfile: '/certs/tls.key' } } } })) {
      expect(probe.httpGet).toEqual({ path: '/v1/health', port: 'http', scheme: 'HTTPS' });
    }
    for (const probe of probesOf({ userConfig: { config: { version: 2, server: { port: 8321 } } } })) {
      expect(probe.httpGet).toEqual({ path: '/v1/health', port: 'http' });
    }
    for (const probe of probesOf({ userConfig: { configMapName: 'cluster-config' }, healthCheck: 'tcp' })) {
      expect(probe).toMatchObject({ tcpSocket: { port: 'http' }, timeoutSeconds: 5 });
    }
    expect(errorOf({ distribution: { name: 'starter' }, healthCheck: 'grpc' as any })).toContain('healthCheck: "grpc" is not a health check: expected http, https or tcp.');
  });

  test('namespace and extra labels reach every object', () => {
    const manifests = render({ distribution: { name: 'starter' }, namespace: 'ai', labels: { team: 'ml' } });
    for (const m of manifests) {
      expect(m.metadata.namespace).toBe('ai');
      expect(m.metadata.labels).toMatchObject({ 'team': 'ml', 'app.kubernetes.io/managed-by': 'kube-inference-constructs' });
    }
  });
});

// As the llama-stack operator renders spec.network: an Ingress for exposeRoute, a NetworkPolicy for allowedFrom.
describe('network', () => {
  test('without network options nothing but the Deployment and Service is rendered', () => {
    expect(render({ distribution: { name: 'starter' } }).map((m) => m.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
  });

  test('expose renders an Ingress <name>-ingress: every path to the Service port, in the IngressClass given', () => {
    const ingress = find(render({ distribution: { name: 'starter' }, port: 9000, network: { expose: true, ingressClassName: 'nginx' } }), 'Ingress');
    expect(ingress.metadata.name).toBe('stack-ingress');
    expect(ingress.spec).toEqual({
      ingressClassName: 'nginx',
      rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'stack-service', port: { number: 9000 } } } }] } }],
    });
  });

  test('expose with an allowedFrom that admits no other namespace is a warning: only OpenShift\'s router would reach an Ingress', () => {
    const warned = (network: any) => {
      const chart = Testing.chart();
      new LlamaStackWithProviders(chart, 'x', { distribution: { name: 'starter' }, network });
      return warningsOf(chart).filter((w) => w.startsWith('network.allowedFrom'));
    };
    expect(warned({ expose: true, ingressClassName: 'nginx', allowedFrom: {} })).toEqual(['network.allowedFrom: the NetworkPolicy admits the server\'s own '
      + 'namespace and OpenShift\'s router only, while an Ingress is rendered: no other ingress controller reaches the server through it. '
      + 'Admit the namespace of yours (e.g. ingress-nginx).']);
    expect(warned({ expose: true, allowedFrom: { namespaces: ['ingress-nginx'] } })).toEqual([]);
    expect(warned({ expose: true, exposeAs: 'Route', allowedFrom: {} })).toEqual([]);
    expect(warned({ expose: true })).toEqual([]);
  });

  test('a Route whose generated host label would be over 63 characters is refused when the namespace is known', () => {
    const route = { expose: true, exposeAs: 'Route' as const };
    const namespace = 'n'.repeat(63 - 'stack-route-'.length);
    expect(find(render({ distribution: { name: 'starter' }, namespace, network: route }), 'Route').metadata.name).toBe('stack-route');
    expect(errorOf({ distribution: { name: 'starter' }, namespace: `${namespace}x`, network: route })).toContain(
      `network.exposeAs: the OpenShift router would give the Route 'stack-route' the host 'stack-route-${namespace}x.<router domain>', whose first `
      + 'label is 64 characters; the API server refuses one over 63. Shorten the name and the namespace together by 1 character, or expose as an Ingress.');
    // Unknown namespace: nothing to check. An Ingress has no generated host.
    expect(find(render({ distribution: { name: 'starter' }, network: route }), 'Route').metadata.name).toBe('stack-route');
    expect(find(render({ distribution: { name: 'starter' }, namespace: `${namespace}x`, network: { expose: true } }), 'Ingress')).toBeDefined();
  });

  test('allowedFrom renders a NetworkPolicy admitting the own namespace, the namespaces and label keys given, and OpenShift\'s router', () => {
    const manifests = render({ distribution: { name: 'starter' }, network: { allowedFrom: { namespaces: ['web'], labels: ['example.com/llama-clients'] } } });
    const policy = find(manifests, 'NetworkPolicy');
    expect(policy.metadata.name).toBe('stack-network-policy');
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: find(manifests, 'Deployment').spec.selector.matchLabels },
      policyTypes: ['Ingress'],
      ingress: [{
        from: [
          { podSelector: {} },
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } } },
          { namespaceSelector: { matchExpressions: [{ key: 'example.com/llama-clients', operator: 'Exists' }] } },
          { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } },
        ],
        ports: [{ protocol: 'TCP', port: 8321 }],
      }],
    });
    expect(manifests.map((m) => m.kind)).not.toContain('Ingress');
  });

  test('* admits every namespace, and then nothing else is listed', () => {
    const policy = find(render({ distribution: { name: 'starter' }, network: { allowedFrom: { namespaces: ['web', '*'] } } }), 'NetworkPolicy');
    expect(policy.spec.ingress[0].from).toEqual([{ namespaceSelector: {} }]);
  });
});

// As the llama-stack operator renders more than one replica and server.autoscaling.
describe('replicas, autoscaling and disruption', () => {
  const selectorOf = (manifests: any[]) => find(manifests, 'Deployment').spec.selector.matchLabels;

  test('one replica: no PodDisruptionBudget, no spread, no anti-affinity', () => {
    const manifests = render({ distribution: { name: 'starter' } });
    expect(manifests.map((m) => m.kind)).toEqual(['ServiceAccount', 'Deployment', 'Service']);
    expect(podSpec(manifests)).not.toHaveProperty('topologySpreadConstraints');
    expect(podSpec(manifests)).not.toHaveProperty('affinity');
  });

  test('more than one replica: one pod at a time may go, spread over regions, zones and nodes, other nodes preferred', () => {
    const manifests = render({ distribution: { name: 'starter' }, replicas: 3 });
    const selector = selectorOf(manifests);
    expect(find(manifests, 'PodDisruptionBudget')).toMatchObject({ metadata: { name: 'stack-pdb' }, spec: { selector: { matchLabels: selector }, maxUnavailable: 1 } });
    const pod = podSpec(manifests);
    expect(pod.topologySpreadConstraints).toEqual(['topology.kubernetes.io/region', 'topology.kubernetes.io/zone', 'kubernetes.io/hostname']
      .map((topologyKey) => ({ maxSkew: 1, topologyKey, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selector } })));
    expect(pod.affinity).toEqual({
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } } }] },
    });
  });

  test('spread constraints and a disruption budget given replace the defaults', () => {
    const spread = [{ maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'x' } } }];
    const manifests = render({ distribution: { name: 'starter' }, replicas: 2, topologySpreadConstraints: spread, podDisruptionBudget: { minAvailable: '50%' } });
    expect(podSpec(manifests).topologySpreadConstraints).toEqual(spread);
    expect(find(manifests, 'PodDisruptionBudget').spec).toEqual({ selector: { matchLabels: selectorOf(manifests) }, minAvailable: '50%' });
  });

  test('autoscaling: an autoscaler of the Deployment, which then renders no replica count; 80% CPU unless targets are given', () => {
    const manifests = render({ distribution: { name: 'starter' }, replicas: 2, autoscaling: { maxReplicas: 5 } });
    expect(find(manifests, 'Deployment').spec).not.toHaveProperty('replicas');
    expect(find(manifests, 'HorizontalPodAutoscaler')).toMatchObject({
      apiVersion: 'autoscaling/v2',
      metadata: { name: 'stack-hpa' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'stack' },
        minReplicas: 2,
        maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      },
    });
    const targets = find(render({ distribution: { name: 'starter' }, autoscaling: { minReplicas: 2, maxReplicas: 4, targetCPUUtilizationPercentage: 60, targetMemoryUtilizationPercentage: 70 } }), 'HorizontalPodAutoscaler');
    expect(targets.spec.minReplicas).toBe(2);
    expect(targets.spec.metrics.map((m: any) => `${m.resource.name} ${m.resource.target.averageUtilization}`)).toEqual(['cpu 60', 'memory 70']);
  });
});

test('rendering twice yields identical output', () => {
  expect(JSON.stringify(render(THREE_PROVIDERS))).toBe(JSON.stringify(render(THREE_PROVIDERS)));
});

describe('LlamaStackWithProviders: how the server starts', () => {
  const server = (props: Partial<LlamaStackWithProvidersProps>) => podSpec(render({ distribution: { name: 'starter' }, ...props })).containers[0];

  test('workers: LLS_WORKERS for launch-server.sh, with the operator\'s resource defaults', () => {
    const s = server({ workers: 3 });
    expect(s.command).toEqual(LAUNCH_SERVER); // also with the image's own config: the script starts the workers
    expect(s.env).toContainEqual({ name: 'LLS_WORKERS', value: '3' });
    expect(s.resources).toEqual({ requests: { cpu: '3', memory: '1Gi' }, limits: { cpu: '3', memory: '1Gi' } });
    // What is given is kept; only what is missing is defaulted.
    expect(server({ workers: 2, resources: { requests: { memory: '4Gi' }, limits: { cpu: '4' } } }).resources)
      .toEqual({ requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '4', memory: '4Gi' } });
    expect(server({}).resources).toEqual({ requests: { cpu: '500m', memory: '1Gi' } });
    expect(server({}).command).toBeUndefined(); // the image's entrypoint, with its own config
  });

  test('workers that cannot start are refused, naming why', () => {
    expect(errorOf({ distribution: { name: 'starter' }, workers: 0 })).toContain('workers: 0 is not a worker count: expected a whole number ≥ 1.');
    expect(errorOf({ distribution: { name: 'starter' }, serverVersion: '0.2', workers: 2 }))
      .toContain('workers: llama-stack 0.2 cannot start uvicorn workers');
    expect(errorOf({ distribution: { name: 'starter' }, workers: 2, userConfig: { config: { version: 2, server: { tls_certfile: '/certs/tls.crt' } } } }))
      .toContain('would not read server.tls_certfile of the config and would serve plain HTTP');
    expect(errorOf({ distribution: { name: 'starter' }, workers: 2, userConfig: { config: { version: 2, server: { workers: 4 } } } }))
      .toContain('the config sets server.workers to 4');
  });

  test('containerName, command and args, as the operator\'s containerSpec', () => {
    const s = server({ containerName: 'server', command: ['python', '-m', 'my.server'], args: ['--config', '$(LLAMA_STACK_CONFIG)'] });
    expect(s).toMatchObject({ name: 'server', command: ['python', '-m', 'my.server'], args: ['--config', '$(LLAMA_STACK_CONFIG)'] });
    // args alone go to the server command the construct starts.
    expect(server({ args: ['--port', '9000'], userConfig: { configMapName: 'c' } })).toMatchObject({ command: LAUNCH_SERVER, args: ['--port', '9000'] });
    expect(errorOf({ ...THREE_PROVIDERS, containerName: 'merge-config' })).toContain('containerName: \'merge-config\' is the name of one of the pod\'s other containers');
    expect(errorOf({ distribution: { name: 'starter' }, containerName: 'Server_1' })).toContain('containerName: "Server_1" is not a container name (a DNS-1123 label)');
    expect(errorOf({ distribution: { name: 'starter' }, command: [] })).toContain('command: is an empty list');
  });

  test('a command of the user\'s with providers: no preflight, and a warning says so', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'stack', { name: 'stack', ...THREE_PROVIDERS, command: ['my-server'] });
    const s = Testing.synth(chart).find((m) => m.kind === 'Deployment').spec.template.spec.containers[0];
    expect(s.command).toEqual(['my-server']);
    expect(s.env.map((e: any) => e.name)).not.toContain('EXTERNAL_PROVIDERS_DIR');
    expect(warningsOf(chart)).toEqual([expect.stringContaining('command replaces how the server starts: the external providers\' preflight check does not run')]);
  });
});

describe('LlamaStackWithProviders: ConfigMaps of the same app roll the pods', () => {
  type Cm = { name: string; data: Record<string, string>; namespace?: string };
  const synth = (configMaps: Cm[], props: Partial<LlamaStackWithProvidersProps> = {}) => {
    const app = Testing.app();
    const chart = new Chart(app, 'c', { namespace: 'ai' });
    new LlamaStackWithProviders(chart, 'stack', { name: 'stack', distribution: { name: 'starter' }, userConfig: { configMapName: 'cfg' }, ...props });
    // Defined after the construct, in another chart: the hash is taken once the whole app is built.
    const other = new Chart(app, 'config', { namespace: 'ai' });
    configMaps.forEach((c, i) => new ApiObject(other, `cm${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: c.name, namespace: c.namespace }, data: c.data }));
    return (Testing.synth(chart).find((m) => m.kind === 'Deployment').spec.template.metadata.annotations ?? {})['kube-inference.io/configmaps-hash'];
  };

  test('the content of a ConfigMap the pods read is hashed into their template; another content, another hash', () => {
    const a = synth([{ name: 'cfg', data: { 'config.yaml': 'version: 2\n' } }]);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(synth([{ name: 'cfg', data: { 'config.yaml': 'version: 2\n' } }])).toBe(a);
    expect(synth([{ name: 'cfg', data: { 'config.yaml': 'version: 3\n' } }])).not.toBe(a);
    // The CA bundle's, a volume's and an env reference's ConfigMaps too; unrelated ones do not count.
    const withCa = synth([{ name: 'cfg', data: { 'config.yaml': 'version: 2\n' } }, { name: 'ca', data: { 'ca-bundle.crt': 'x' } }], { caBundle: { configMapName: 'ca' } });
    expect(withCa).not.toBe(a);
    expect(synth([{ name: 'cfg', data: { 'config.yaml': 'version: 2\n' } }, { name: 'unrelated', data: { a: 'b' } }])).toBe(a);
    expect(synth([{ name: 'vol', data: { a: 'b' } }], {
      userConfig: undefined,
      volumes: [{ name: 'v', configMap: { name: 'vol' } }],
      env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'vol', key: 'a' } } }],
    })).toMatch(/^[0-9a-f]{64}$/);
  });

  test('podAnnotations go on the pods; the construct\'s own hashes win over the same keys', () => {
    const template = find(render({
      distribution: { name: 'starter' },
      userConfig: { config: { version: 2 } },
      podAnnotations: { 'sidecar.opentelemetry.io/inject': 'true', 'kube-inference.io/config-hash': 'mine' },
    }), 'Deployment').spec.template;
    expect(template.metadata.annotations['sidecar.opentelemetry.io/inject']).toBe('true');
    expect(template.metadata.annotations['kube-inference.io/config-hash']).toMatch(/^[0-9a-f]{64}$/);
    expect(errorOf({ distribution: { name: 'starter' }, podAnnotations: { 'bad key!': 'x' } })).toContain('podAnnotations');
  });

  test('no ConfigMap of the app (one of the cluster), or one of another namespace: no hash', () => {
    expect(synth([])).toBeUndefined();
    expect(synth([{ name: 'cfg', namespace: 'other', data: { a: 'b' } }])).toBeUndefined();
  });
});

describe('LlamaStackWithProviders: a user ConfigMap the app defines is checked for the config key', () => {
  const build = (data: Record<string, string>, configMapKey?: string) => {
    const chart = Testing.chart();
    new ApiObject(chart, 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data });
    new LlamaStackWithProviders(chart, 'stack', { name: 'stack', distribution: { name: 'starter' }, userConfig: { configMapName: 'cfg', configMapKey } });
    return chart;
  };

  test('only the other release\'s file name: read by that name, with a warning', () => {
    const chart = build({ 'run.yaml': 'version: 2\n' });
    expect(podSpec(Testing.synth(chart)).containers[0].env).toContainEqual({ name: 'OGX_CONFIG', value: '/etc/llama-stack/run.yaml' });
    expect(warningsOf(chart)).toEqual([expect.stringContaining('userConfig: the ConfigMap \'cfg\' has no key config.yaml, the config file of this server release; the server reads its run.yaml.')]);
  });

  test('a key it does not hold is refused, listing its keys', () => {
    expect(() => build({ 'run.yaml': 'version: 2\n' }, 'tuned.yaml')).toThrow('userConfig.configMapKey: the ConfigMap \'cfg\' has no key tuned.yaml (its keys: run.yaml)');
    expect(() => build({ 'other.txt': 'x' })).toThrow('userConfig.configMapName: the ConfigMap \'cfg\' has no key config.yaml (its keys: other.txt)');
    expect(warningsOf(build({ 'config.yaml': 'version: 2\n' }))).toEqual([]);
  });
});

describe('the storage mount path in the server\'s environment', () => {
  test('reaches HOME as the mount has it: Kubernetes does not expand a $(NAME) of it', () => {
    const server = podSpec(render({ distribution: { name: 'starter' }, serverVersion: '0.7', storage: { size: '1Gi', mountPath: '/data/$(HOME)' } })).containers[0];
    expect(server.volumeMounts).toContainEqual({ name: 'llama-storage', mountPath: '/data/$(HOME)' });
    const env = Object.fromEntries(server.env.map((e: any) => [e.name, e.value]));
    expect([env.HOME, env.LLAMA_STACK_CONFIG_DIR, env.HF_HOME]).toEqual(['/data/$$(HOME)', '/data/$$(HOME)', '/data/$$(HOME)']);
  });
});
