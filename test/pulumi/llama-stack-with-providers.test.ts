import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { ApiObject, Testing } from 'cdk8s';
import { mockPulumi, settled, valueOf } from './mocks';
import * as cdk8s from '../../src';
import { LlamaStackWithProviders, LlamaStackWithProvidersArgs } from '../../src/pulumi';
import { checkDeferredRelease } from '../../src/pulumi/deferred-release';
import { DeferredValues } from '../../src/pulumi/deferred-values';
import { synthesizeObjects } from '../../src/synth';
import { THREE_PROVIDERS } from '../llama-stack/helpers';

// The cdk8s props of the parity tests as Pulumi args: they name no object by reference (the args take names, as Inputs).
const asArgs = (props: cdk8s.LlamaStackWithProvidersProps) => props as LlamaStackWithProvidersArgs;

const registered = mockPulumi();
const ofComponent = (prefix: string) => registered.filter((r) => r.name.startsWith(`${prefix}-`) && r.type.startsWith('kubernetes:'));

describe('Pulumi LlamaStackWithProviders', () => {
  test('registers exactly the objects the cdk8s construct renders (parity)', async () => {
    const props = { ...THREE_PROVIDERS, namespace: 'ai' };
    const component = new LlamaStackWithProviders('parity', asArgs(props));
    await settled(component.resources);

    const chart = Testing.chart();
    new cdk8s.LlamaStackWithProviders(chart, 'x', { ...props, name: 'parity' });
    const expected = Testing.synth(chart);

    const actual = ofComponent('parity').map((r) => r.inputs);
    const key = (o: any) => `${o.kind}/${o.metadata.name}`;
    expect(actual.map(key).sort()).toEqual(expected.map(key).sort());
    for (const object of expected) {
      expect(actual.find((o) => key(o) === key(object))).toEqual(object);
    }
  });

  test('uses the component type token and typed resources for core kinds', async () => {
    const component = new LlamaStackWithProviders('tokens', {
      distribution: { name: 'starter' }, replicas: 2, autoscaling: { maxReplicas: 3 }, network: { expose: true, allowedFrom: { namespaces: ['web'] } },
    });
    await settled(component.resources);
    expect(registered.find((r) => r.name === 'tokens')?.type).toBe('kube-inference:llama-stack:LlamaStackWithProviders');
    expect(ofComponent('tokens').map((r) => `${r.type} ${r.name}`).sort()).toEqual([
      'kubernetes:apps/v1:Deployment tokens-deployment-tokens',
      'kubernetes:autoscaling/v2:HorizontalPodAutoscaler tokens-horizontalpodautoscaler-tokens-hpa',
      'kubernetes:core/v1:Service tokens-service-tokens-service',
      'kubernetes:core/v1:ServiceAccount tokens-serviceaccount-tokens-sa',
      'kubernetes:networking.k8s.io/v1:Ingress tokens-ingress-tokens-ingress',
      'kubernetes:networking.k8s.io/v1:NetworkPolicy tokens-networkpolicy-tokens-network-policy',
      'kubernetes:policy/v1:PodDisruptionBudget tokens-poddisruptionbudget-tokens-pdb',
    ]);
  });

  test('exposes the service name and port, the rendered ConfigMaps, and the Service and Deployment as resources', async () => {
    const component = new LlamaStackWithProviders('outputs', asArgs({ ...THREE_PROVIDERS, port: 9000 }));
    expect(await valueOf(component.serviceName)).toBe('outputs-service');
    expect(await valueOf(component.servicePort)).toBe(9000);
    // The init scripts come from the merge image, which this pod runs: no ConfigMap of the construct's own.
    expect(await valueOf(component.configMapNames)).toEqual([]);
    expect(component.service).toBeInstanceOf(k8s.core.v1.Service);
    expect(await valueOf(component.service.urn)).toMatch(/::outputs-service-outputs-service$/);
    expect(component.deployment).toBeInstanceOf(k8s.apps.v1.Deployment);
    expect(await valueOf(component.deployment.urn)).toMatch(/::outputs-deployment-outputs$/);
  });

  test('a warning about a value known later is logged once that value is known, never about its placeholder', async () => {
    const warn = jest.spyOn(pulumi.log, 'warn').mockImplementation(() => Promise.resolve());
    try {
      const component = new LlamaStackWithProviders('untagged', { distribution: { image: pulumi.output('quay.io/acme/llama-stack:custom') } });
      await settled(component.resources);
      const messages = warn.mock.calls.map(([message]) => message);
      expect(messages.filter((m) => /deferred-[0-9a-f]{16}/.test(m))).toEqual([]);
      expect(messages.filter((m) => m.includes('the tag of quay.io/acme/llama-stack:custom does not say which server release it runs'))).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });

  test('accepts outputs of other resources for the namespace and images', async () => {
    const namespace = new k8s.core.v1.Namespace('ns', { metadata: { name: 'models' } });
    const tag = pulumi.output('1.5.0');
    const component = new LlamaStackWithProviders('deferred', {
      namespace: namespace.metadata.name,
      distribution: { image: pulumi.interpolate`quay.io/acme/llama-stack:${tag}` },
      externalProviders: { inference: [{ providerId: 'custom-vllm', image: pulumi.interpolate`quay.io/acme/vllm-provider:${tag}` }] },
    });
    await settled(component.resources);
    const deployment = ofComponent('deferred').find((r) => r.type === 'kubernetes:apps/v1:Deployment')!.inputs;
    expect(deployment.metadata.namespace).toBe('models');
    const pod = deployment.spec.template.spec;
    expect(pod.containers[0].image).toBe('quay.io/acme/llama-stack:1.5.0');
    const install = pod.initContainers.find((c: any) => c.name === 'install-provider-custom-vllm');
    expect(pod.initContainers[1]).toMatchObject({ name: 'inspect-distribution', image: 'quay.io/acme/llama-stack:1.5.0' });
    expect(install.image).toBe('quay.io/acme/vllm-provider:1.5.0');
    // The image also sits inside a larger string (the crd-config document): substituted there too.
    expect(JSON.parse(install.env.find((e: any) => e.name === 'PROVIDER_CRD_CONFIG').value).image).toBe('quay.io/acme/vllm-provider:1.5.0');
    expect(JSON.stringify(ofComponent('deferred').map((r) => r.inputs))).not.toMatch(/deferred-[0-9a-f]{16}-\d/);
  });

  test('the names of the TLS Secret, the CA bundle ConfigMap, image pull Secrets and storage may be outputs; the objects equal the cdk8s construct\'s', async () => {
    const secret = new k8s.core.v1.Secret('tls-secret', { metadata: { name: 'stack-tls' } });
    const cas = new k8s.core.v1.ConfigMap('cas', { metadata: { name: 'trusted-cas' } });
    const pull = new k8s.core.v1.Secret('pull', { metadata: { name: 'registry-login' } });
    const claim = new k8s.core.v1.PersistentVolumeClaim('claim', { metadata: { name: 'stack-data' }, spec: { accessModes: ['ReadWriteOnce'] } });
    const plain = {
      tls: { secretName: 'stack-tls' },
      caBundle: { configMapName: 'trusted-cas' },
      imagePullSecrets: ['registry-login'],
      storage: { existingClaimName: 'stack-data' },
    };
    const component = new LlamaStackWithProviders('names', {
      namespace: 'ai',
      distribution: { name: 'starter' },
      tls: { secretName: secret.metadata.name },
      caBundle: { configMapName: cas.metadata.name },
      imagePullSecrets: [pull.metadata.name],
      storage: { existingClaimName: claim.metadata.name },
    });
    await settled(component.resources);
    const chart = Testing.chart();
    new cdk8s.LlamaStackWithProviders(chart, 'x', { name: 'names', namespace: 'ai', distribution: { name: 'starter' }, ...plain });
    const key = (o: any) => `${o.kind}/${o.metadata.name}`;
    const actual = ofComponent('names').map((r) => r.inputs);
    expect(actual.map(key).sort()).toEqual(Testing.synth(chart).map(key).sort());
    for (const object of Testing.synth(chart)) expect(actual.find((o) => key(o) === key(object))).toEqual(object);
    expect(await valueOf(component.url)).toBe('https://names-service.ai.svc.cluster.local:8321');
    expect(JSON.stringify(actual)).toMatch(/stack-tls[^]*trusted-cas|trusted-cas[^]*stack-tls/);
    expect(JSON.stringify(actual)).toContain('"imagePullSecrets":[{"name":"registry-login"}]');
    expect(JSON.stringify(actual)).toContain('"claimName":"stack-data"');
  });

  test('a ConfigMap of the program: its name, and its content hashed into the pods\' template, so changing it rolls them', async () => {
    const hashOf = async (name: string, data: Record<string, string>) => {
      const cm = new k8s.core.v1.ConfigMap(`${name}-cm`, { metadata: { name: 'stack-config' }, data });
      const component = new LlamaStackWithProviders(name, { distribution: { name: 'starter' }, userConfig: { configMap: cm } });
      await settled(component.resources);
      const pod = ofComponent(name).find((r) => r.type === 'kubernetes:apps/v1:Deployment')!.inputs.spec.template;
      expect(pod.spec.volumes).toContainEqual({ name: 'user-config', configMap: { name: 'stack-config' } });
      return pod.metadata.annotations['kube-inference.io/configmaps-hash'];
    };
    const a = await hashOf('cm-a', { 'config.yaml': 'version: 2\n' });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await hashOf('cm-b', { 'config.yaml': 'version: 2\n' })).toBe(a);
    expect(await hashOf('cm-c', { 'config.yaml': 'version: 3\n' })).not.toBe(a);
    // The same hash the construct computes for a ConfigMap of its cdk8s app.
    const chart = Testing.chart();
    new cdk8s.LlamaStackWithProviders(chart, 's', { name: 's', distribution: { name: 'starter' }, userConfig: { configMapName: 'stack-config' } });
    new ApiObject(chart, 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stack-config' }, data: { 'config.yaml': 'version: 2\n' } });
    expect(Testing.synth(chart).find((o) => o.kind === 'Deployment').spec.template.metadata.annotations['kube-inference.io/configmaps-hash']).toBe(a);
    expect(() => new LlamaStackWithProviders('cm-both', {
      distribution: { name: 'starter' }, userConfig: { configMap: new k8s.core.v1.ConfigMap('cm-both-cm', {}), configMapName: 'x' },
    })).toThrow('userConfig.configMap: expected exactly one of configMap, configMapName and config.');
  });

  test('invalid props fail before anything is registered, with the construct\'s message', () => {
    const before = registered.length;
    expect(() => new LlamaStackWithProviders('invalid', { distribution: { name: 'nope' } }))
      .toThrow("distribution.name: 'nope' is not a distribution ogx 1.5 publishes an image of");
    expect(registered.filter((r) => r.name.startsWith('invalid')).length).toBe(0);
    expect(registered.length).toBeGreaterThanOrEqual(before);
  });

  test('an output that turns out invalid fails with the construct\'s validation message', async () => {
    // The component validates the real values through the construct once the outputs are known
    // (DeferredValues.substitute's check); a failing check rejects every value derived from it,
    // which fails the registrations under the real engine. Here one derived value is observed.
    const deferred = new DeferredValues();
    const props = { distribution: { name: 'starter' }, externalProviders: { inference: [{ providerId: 'p', image: deferred.placeholder<string>(pulumi.output('not an image'), 'image') }] } };
    const [object] = deferred.substitute([{ image: props.externalProviders.inference[0].image }], (values) => {
      synthesizeObjects(undefined, (scope) => new cdk8s.LlamaStackWithProviders(scope, 'late', deferred.resolve(props, values)));
    });
    await expect(valueOf(object.image)).rejects.toThrow("externalProviders.inference[0].image: 'not an image' is not a valid image reference");
  });

  test('an image output whose tag names another release than the default it was rendered for fails, naming serverVersion', () => {
    const late = { distribution: { image: pulumi.output('x') } };
    const resolved = (image: string) => ({ distribution: { image } });
    expect(() => checkDeferredRelease(late, resolved('docker.io/llamastack/distribution-starter:0.7.3'), 'late'))
      .toThrow("distribution.image: 'docker.io/llamastack/distribution-starter:0.7.3' names llama-stack 0.7 by its tag, but it was an output not known "
        + "while rendering, so the pod was rendered for ogx 1.5 (the default). Set serverVersion: '0.7'.");
    // The default's own tag, a tag naming no release, a release given, an image known while rendering: nothing to say.
    for (const image of ['docker.io/ogxai/distribution-starter:1.5.0', 'quay.io/acme/stack:latest']) {
      expect(() => checkDeferredRelease(late, resolved(image), 'late')).not.toThrow();
    }
    expect(() => checkDeferredRelease({ ...late, serverVersion: '1.5' }, resolved('docker.io/llamastack/distribution-starter:0.7.3'), 'late')).not.toThrow();
    const known = { distribution: { image: 'docker.io/llamastack/distribution-starter:0.7.3' } };
    expect(() => checkDeferredRelease(known, resolved(known.distribution.image), 'late')).not.toThrow();
  });
});
