// A cdk8s app of today's template writes its own objects with cdk8s-plus (33): the construct takes them
// where it takes a name (Secrets, ConfigMaps, a ServiceAccount, a claim, env values), and its Service
// fits cdk8s-plus's IngressBackend. Type-checked against cdk8s-plus-33's own declarations (the tests are
// compiled), rendered with its own classes.
import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { LlamaStackWithProviders, ModelDeployment } from '../../src';

function chartWith(namespace = 'ai') {
  const chart = new Chart(Testing.app(), 'app', { namespace });
  const pull = new kplus.Secret(chart, 'pull', { metadata: { name: 'registry-pull' } });
  const tls = kplus.Secret.fromSecretName(chart, 'tls', 'server-tls');
  const config = new kplus.ConfigMap(chart, 'config', { metadata: { name: 'stack-config' }, data: { 'config.yaml': 'version: 2\n' } });
  const ca = new kplus.ConfigMap(chart, 'ca', { metadata: { name: 'corporate-ca' }, data: { 'ca-bundle.crt': 'PEM' } });
  const account = new kplus.ServiceAccount(chart, 'account', { metadata: { name: 'stack-identity' } });
  const claim = kplus.PersistentVolumeClaim.fromClaimName(chart, 'claim', 'stack-state');
  const token = new kplus.Secret(chart, 'token', { metadata: { name: 'api-token' }, stringData: { token: 'x' } });
  return { chart, pull, tls, config, ca, account, claim, token };
}

describe('cdk8s-plus objects where a name is taken', () => {
  test('Secrets, ConfigMaps, a ServiceAccount, a claim and EnvValues render as their names', () => {
    const { chart, pull, tls, config, ca, account, claim, token } = chartWith();
    const stack = new LlamaStackWithProviders(chart, 'stack', {
      distribution: { name: 'starter' },
      userConfig: { configMapName: config },
      imagePullSecrets: [pull],
      tls: { secretName: tls },
      caBundle: { configMapName: ca },
      serviceAccountName: account,
      storage: { existingClaimName: claim },
      envVariables: {
        API_TOKEN: kplus.EnvValue.fromSecretValue({ secret: token, key: 'token' }),
        POD_NAME: kplus.EnvValue.fromFieldRef(kplus.EnvFieldPaths.POD_NAME),
        MODE: kplus.EnvValue.fromValue('fast'),
      },
    });
    const manifests = Testing.synth(chart);
    const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === stack.name)!;
    const pod = deployment.spec.template.spec;
    expect(pod.serviceAccountName).toBe('stack-identity');
    expect(pod.imagePullSecrets).toEqual([{ name: 'registry-pull' }]);
    expect(pod.volumes).toEqual(expect.arrayContaining([
      expect.objectContaining({ secret: expect.objectContaining({ secretName: 'server-tls' }) }),
      expect.objectContaining({ configMap: expect.objectContaining({ name: 'corporate-ca' }) }),
      expect.objectContaining({ configMap: expect.objectContaining({ name: 'stack-config' }) }),
      expect.objectContaining({ persistentVolumeClaim: { claimName: 'stack-state' } }),
    ]));
    const server = pod.containers[0];
    expect(server.env).toEqual(expect.arrayContaining([
      { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'api-token', key: 'token' } } },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'MODE', value: 'fast' },
    ]));
    // Nothing of its own where the user's object is given: no ServiceAccount, no claim.
    expect(manifests.filter((m) => m.kind === 'ServiceAccount').map((m) => m.metadata.name)).toEqual(['stack-identity']);
    expect(manifests.filter((m) => m.kind === 'PersistentVolumeClaim')).toEqual([]);
  });

  test('an object of another namespace is refused with the field, both namespaces and the fix', () => {
    const { chart } = chartWith('ai');
    const other = new Chart(chart.node.scope!, 'other', { namespace: 'shared' });
    const secret = new kplus.Secret(other, 'pull', { metadata: { name: 'registry-pull' } });
    expect(() => new LlamaStackWithProviders(chart, 'stack', { distribution: { name: 'starter' }, imagePullSecrets: [secret] }))
      .toThrow("imagePullSecrets[0]: a Secret 'registry-pull' is in namespace 'shared', the pods in 'ai': a pod can only use Secrets of its own namespace. "
        + "Create it in 'ai', or put the construct in 'shared'.");
  });

  test('an env variable given in env and in envVariables is refused', () => {
    const { chart } = chartWith();
    expect(() => new LlamaStackWithProviders(chart, 'stack', {
      distribution: { name: 'starter' },
      env: [{ name: 'MODE', value: 'slow' }],
      envVariables: { MODE: kplus.EnvValue.fromValue('fast') },
    })).toThrow("envVariables.MODE: 'MODE' is also set by env[0]: give each variable once, in env or in envVariables.");
  });

  test('an object without a name (JavaScript, YAML) is refused with its field', () => {
    const { chart } = chartWith();
    expect(() => new LlamaStackWithProviders(chart, 'stack', { distribution: { name: 'starter' }, serviceAccountName: {} as any }))
      .toThrow("serviceAccountName: expected a ServiceAccount's name, or an object with a name (a cdk8s-plus or cdk8s object); this object has none.");
  });
});

describe('the Service with cdk8s-plus', () => {
  test('IngressBackend.fromService(stack.plusService(kplus)) routes to the rendered Service and renders nothing more', () => {
    const { chart } = chartWith();
    const stack = new LlamaStackWithProviders(chart, 'stack', { distribution: { name: 'starter' } });
    const before = Testing.synth(chart).length;
    const ingress = new kplus.Ingress(chart, 'ingress');
    ingress.addRule('/', kplus.IngressBackend.fromService(stack.plusService(kplus)));
    const manifests = Testing.synth(chart);
    expect(manifests.length).toBe(before + 1);
    const rule = manifests.find((m) => m.kind === 'Ingress').spec.rules[0].http.paths[0];
    expect(rule.backend).toEqual({ service: { name: stack.serviceName, port: { number: 8321 } } });
    expect(manifests.filter((m) => m.kind === 'Service').map((m) => m.metadata.name)).toEqual([stack.serviceName]);
  });

  test('with the metrics port, the server\'s port is chosen as cdk8s-plus asks', () => {
    const { chart } = chartWith();
    const stack = new LlamaStackWithProviders(chart, 'stack', { distribution: { name: 'starter' }, metricsPort: 9464 });
    expect(() => kplus.IngressBackend.fromService(stack.plusService(kplus))).toThrow(/multiple ports: 8321,9464/);
    const backend = kplus.IngressBackend.fromService(stack.plusService(kplus), { port: stack.port });
    new kplus.Ingress(chart, 'ingress', { defaultBackend: backend });
    expect(Testing.synth(chart).find((m) => m.kind === 'Ingress').spec.defaultBackend).toEqual({ service: { name: stack.serviceName, port: { number: 8321 } } });
  });
});

describe('ModelDeployment with cdk8s-plus objects', () => {
  test('the token Secret, pull Secrets and ServiceAccount render as their names; another namespace is refused', () => {
    const { chart, pull, account, token } = chartWith();
    const spec = {
      model: { id: 'Qwen/Qwen3-0.6B', source: 'huggingface' as const },
      engine: { type: 'vllm' as const },
      resources: { gpu: { count: 1 } },
      provider: { name: 'kuberay' as const },
    };
    new ModelDeployment(chart, 'model', { ...spec, secrets: { huggingFaceToken: token }, imagePullSecrets: [pull], serviceAccountName: account });
    const rayService = Testing.synth(chart).find((m) => m.kind === 'RayService');
    const head = rayService.spec.rayClusterConfig.headGroupSpec.template.spec;
    expect(head.serviceAccountName).toBe('stack-identity');
    expect(head.imagePullSecrets).toEqual([{ name: 'registry-pull' }]);
    expect(JSON.stringify(rayService)).toContain('"name":"api-token"');

    const other = new Chart(chart.node.scope!, 'other', { namespace: 'shared' });
    const foreign = new kplus.ServiceAccount(other, 'sa', { metadata: { name: 'shared-identity' } });
    expect(() => new ModelDeployment(chart, 'model2', { ...spec, serviceAccountName: foreign }))
      .toThrow("serviceAccountName: a ServiceAccount 'shared-identity' is in namespace 'shared', the pods in 'ai'");
  });

  test('references of the wrong shape (YAML, JavaScript) are problems of their fields, never a crash', () => {
    const { chart } = chartWith();
    expect(() => new ModelDeployment(chart, 'model', {
      model: { id: 'Qwen/Qwen3-0.6B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
      imagePullSecrets: 'registry-pull' as any,
      serviceAccountName: { metadata: {} } as any,
    })).toThrow(/imagePullSecrets: expected a list[^]*serviceAccountName: expected a ServiceAccount's name, or an object with a name/);
  });

  test('IngressBackend.fromService(model.plusService(kplus)) routes to the Service the operator makes', () => {
    const { chart } = chartWith();
    const model = new ModelDeployment(chart, 'model', {
      metadata: { name: 'chat' }, model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } },
    });
    new kplus.Ingress(chart, 'ingress', { defaultBackend: kplus.IngressBackend.fromService(model.plusService(kplus)) });
    const manifests = Testing.synth(chart);
    expect(manifests.find((m) => m.kind === 'Ingress').spec.defaultBackend).toEqual({ service: { name: 'chat-frontend', port: { number: 8000 } } });
    expect(manifests.filter((m) => m.kind === 'Service')).toEqual([]);
  });
});
