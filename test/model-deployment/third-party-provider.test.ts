import { ApiObject, Testing } from 'cdk8s';
import { problemsFor } from './helpers';
import {
  DynamoProvider,
  InferenceProvider,
  ModelDeployment,
  ModelDeploymentStatus,
  ProviderRegistry,
  RenderContext,
  ResolvedModelDeployment,
  resolveSpec,
  ResourceType,
  selectProvider,
  translateStatus,
  UpstreamResource,
} from '../../src/model-deployment';
import { warningsOf } from '../../src/warnings';

// A third-party provider's overrides join the typed `provider` spec as a user of the package adds them
// (`declare module 'kube-inference-constructs'`): `provider: { overrides: { tier: 'gold' } }` type-checks,
// `tier: 'platinum'` would not.
declare module '../../src' {
  interface ProviderOverridesByName {
    readonly acme: { readonly tier?: 'gold' | 'silver' };
  }
}

/**
 * A third-party provider, written against the public interface only: it renders a made-up
 * `serving.acme.dev/v1 AcmeModel` and selects itself, through a CEL rule, for `acme/` models.
 */
class AcmeProvider implements InferenceProvider {
  public readonly name = 'acme';
  public readonly displayName = 'Acme';
  public readonly capabilities = { engines: ['vllm'] as const, servingModes: ['aggregated'] as const, cpuSupport: false, gpuSupport: true };
  public readonly selectionRules = [
    { condition: "spec.model.id.startsWith('acme/')", priority: 1000, reason: 'acme/ model → acme (vendor-tuned serving)' },
  ];
  public readonly overrides = { tier: { type: 'string' as const, enum: ['gold', 'silver'], description: 'Service tier.' } };
  public readonly resourceType: ResourceType = { apiVersion: 'serving.acme.dev/v1', kind: 'AcmeModel' };

  public checkCompatibility(d: ResolvedModelDeployment) {
    return d.replicas > 8 ? [{ field: 'scaling.replicas', message: 'Acme serves at most 8 replicas' }] : [];
  }

  public render(context: RenderContext): ApiObject {
    const d = context.deployment;
    return new ApiObject(context.scope, 'Resource', {
      ...this.resourceType,
      metadata: context.metadata,
      spec: { model: d.model.id, replicas: d.replicas, gpus: d.resources.gpu.count, tier: d.overrides.tier ?? 'silver' },
    });
  }

  public endpoint(d: ResolvedModelDeployment) {
    return { service: `${d.name}-acme`, port: 8080, basePath: '/openai/v1' };
  }

  public handlesResource(type: ResourceType): boolean {
    return type.apiVersion === this.resourceType.apiVersion && type.kind === this.resourceType.kind;
  }

  public translateStatus(resource: UpstreamResource): ModelDeploymentStatus {
    const ready = (resource.status as { ready?: boolean } | undefined)?.ready === true;
    return {
      phase: ready ? 'Running' : 'Deploying',
      provider: { name: this.name, resourceName: resource.metadata?.name ?? '', resourceKind: resource.kind },
      replicas: { desired: 1, ready: ready ? 1 : 0, available: ready ? 1 : 0 },
      endpoint: { service: `${resource.metadata?.name ?? ''}-acme`, port: 8080, basePath: '/openai/v1' },
    };
  }
}

const registry = () => ProviderRegistry.builtIn().register(new AcmeProvider());
const GPU = { resources: { gpu: { count: 1 } }, engine: { type: 'vllm' as const } };

describe('a third-party provider registered with a CEL selection rule', () => {
  test('its CEL rule selects it, with its priority and reason, without changes to the core', () => {
    const chart = Testing.chart();
    const md = new ModelDeployment(chart, 'md', {
      metadata: { name: 'acme-chat' },
      model: { id: 'acme/chat-7b' },
      ...GPU,
      provider: { overrides: { tier: 'gold' } },
      providers: registry(),
    });
    expect(md.provider.name).toBe('acme');
    expect(md.selectionReason).toBe('acme/ model → acme (vendor-tuned serving)');
    expect(Testing.synth(chart)).toEqual([{
      apiVersion: 'serving.acme.dev/v1',
      kind: 'AcmeModel',
      metadata: expect.objectContaining({
        name: 'acme-chat',
        annotations: { 'kube-inference.io/provider': 'acme', 'kube-inference.io/selection-reason': 'acme/ model → acme (vendor-tuned serving)' },
      }),
      spec: { model: 'acme/chat-7b', replicas: 1, gpus: 1, tier: 'gold' },
    }]);
    expect(warningsOf(chart)).toEqual([]);
  });

  test('when its rule does not match, selection is still seed 003 §4.4', () => {
    const d = resolveSpec({ model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, ...GPU }, 'md');
    expect(selectProvider(d, registry()).selection?.provider.name).toBe('dynamo');
  });

  test('a matching rule does not win for a spec outside its capabilities', () => {
    const d = resolveSpec({ model: { id: 'acme/chat-7b' }, engine: { type: 'sglang' }, resources: { gpu: { count: 1 } } }, 'md');
    expect(selectProvider(d, registry()).selection).toMatchObject({ reason: 'engine=sglang → dynamo (only sglang provider)' });
  });

  test('its documented overrides and compatibility check apply like the built-ins\'', () => {
    expect(problemsFor({ model: { id: 'acme/chat-7b' }, ...GPU, scaling: { replicas: 9 }, provider: { overrides: { tier: 'bronze' as any } }, providers: registry() })).toEqual([
      { field: 'scaling.replicas', message: 'Acme serves at most 8 replicas' },
      { field: 'provider.overrides.tier', message: 'expected one of gold, silver, got string "bronze"' },
      { field: 'provider.name', message: "'acme' was selected automatically (acme/ model → acme (vendor-tuned serving)); set provider.name to choose another provider" },
    ]);
  });

  test('status of its resource goes through its translateStatus', () => {
    const status = translateStatus({ apiVersion: 'serving.acme.dev/v1', kind: 'AcmeModel', metadata: { name: 'acme-chat' }, status: { ready: true } }, registry());
    expect(status.phase).toBe('Running');
    expect(() => translateStatus({ apiVersion: 'serving.acme.dev/v1', kind: 'AcmeModel', metadata: { name: 'x' } }))
      .toThrow('no provider reads the status of serving.acme.dev/v1 AcmeModel; supported: DynamoGraphDeployment (dynamo), Workspace (kaito), RayService (kuberay)');
  });

  test('the highest priority wins whatever the registration order; equal priorities go by provider name', () => {
    const d = resolveSpec({ model: { id: 'acme/chat-7b' }, ...GPU }, 'md');
    const acme = new AcmeProvider();
    const higher = Object.assign(new AcmeProvider(), { name: 'zzz-acme', selectionRules: [{ condition: 'true', priority: 2000 }] });
    expect(selectProvider(d, new ProviderRegistry([acme, higher])).selection?.provider.name).toBe('zzz-acme');
    expect(selectProvider(d, new ProviderRegistry([higher, acme])).selection?.provider.name).toBe('zzz-acme');
    const tie = Object.assign(new AcmeProvider(), { name: 'aaa-acme' });
    expect(selectProvider(d, new ProviderRegistry([acme, tie])).selection?.provider.name).toBe('aaa-acme');
  });

  test('registration rejects duplicates and malformed providers; CEL errors name the provider', () => {
    expect(() => registry().register(new AcmeProvider())).toThrow("a provider named 'acme' is already registered");
    expect(() => new ProviderRegistry([Object.assign(new AcmeProvider(), { name: 'Acme' })])).toThrow('provider name "Acme" must be lower-case alphanumerics and \'-\'');
    expect(() => new ProviderRegistry([Object.assign(new AcmeProvider(), { selectionRules: [{ condition: 'true', priority: 1.5 }] })]))
      .toThrow("provider 'acme': selection rule 1 priority must be an integer, got 1.5");
    const broken = new ProviderRegistry([Object.assign(new AcmeProvider(), { selectionRules: [{ condition: 'spec.model.id ==', priority: 1 }] })]);
    expect(() => selectProvider(resolveSpec({ model: { id: 'a/b' }, ...GPU }, 'md'), broken))
      .toThrow(/^provider 'acme': selection rule 1 is not valid CEL: invalid CEL expression "spec.model.id =="/);
  });

  test('a rule that fails at evaluation counts as not matching, with a warning', () => {
    const fragile = Object.assign(new AcmeProvider(), { selectionRules: [{ condition: 'spec.podTemplate.metadata.labels.team == "acme"', priority: 5 }] });
    const reg = new ProviderRegistry([fragile, new DynamoProvider()]);
    const result = selectProvider(resolveSpec({ model: { id: 'a/b' }, ...GPU }, 'md'), reg);
    expect(result.selection?.provider.name).toBe('dynamo');
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^provider 'acme': selection rule 1 could not be evaluated and counts as not matching: CEL expression/);
  });

  test('rules see the documented defaults and integers as CEL ints', () => {
    const arithmetic = Object.assign(new AcmeProvider(), {
      selectionRules: [{ condition: "spec.scaling.replicas + 1 == 2 && spec.serving.mode == 'aggregated' && spec.model.source == 'huggingface'", priority: 1 }],
    });
    const d = resolveSpec({ model: { id: 'a/b' }, ...GPU }, 'md');
    expect(selectProvider(d, new ProviderRegistry([arithmetic])).selection?.reason)
      .toBe("selection rule spec.scaling.replicas + 1 == 2 && spec.serving.mode == 'aggregated' && spec.model.source == 'huggingface' (priority 1) → acme");
  });
});
