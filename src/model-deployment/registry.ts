// The set of providers a ModelDeployment can use: the three built-ins, plus whatever a third
// party registers (the seed's InferenceProviderConfig, done in-process).
import { compareStrings } from '../checks';
import { InferenceProvider, ResourceType } from './provider';
import { DynamoProvider, DynamoProviderOptions } from './providers/dynamo';
import { KaitoProvider, KaitoProviderOptions } from './providers/kaito';
import { KubeRayProvider, KubeRayProviderOptions } from './providers/kuberay';
import { UpstreamResource } from './status';

const PROVIDER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Options of the built-in providers. */
export interface BuiltInProviderOptions {
  /** KAITO options (API version). */
  readonly kaito?: KaitoProviderOptions;
  /** Dynamo options (API version, release for default images). */
  readonly dynamo?: DynamoProviderOptions;
  /** KubeRay options (Ray version, image). */
  readonly kuberay?: KubeRayProviderOptions;
}

/**
 * Providers by name. Pass one to `ModelDeployment` (prop `providers`) to add a third-party provider
 * or to configure the built-ins; each ModelDeployment otherwise uses `ProviderRegistry.builtIn()`.
 */
export class ProviderRegistry {
  /** A registry with KAITO, Dynamo and KubeRay. */
  public static builtIn(options: BuiltInProviderOptions = {}): ProviderRegistry {
    return new ProviderRegistry([
      new DynamoProvider(options.dynamo),
      new KaitoProvider(options.kaito),
      new KubeRayProvider(options.kuberay),
    ]);
  }

  private readonly byName = new Map<string, InferenceProvider>();

  /** @param providers providers to register, in any order */
  public constructor(providers: readonly InferenceProvider[] = []) {
    for (const provider of providers) this.register(provider);
  }

  /**
   * Adds a provider. Its name must be new and lower-case; selection-rule priorities must be
   * integers. (Rule conditions are parsed as CEL the first time selection evaluates them.)
   * @throws Error when the provider is malformed or the name is taken
   */
  public register(provider: InferenceProvider): this {
    if (!PROVIDER_NAME.test(provider.name)) {
      throw new Error(`provider name ${JSON.stringify(provider.name)} must be lower-case alphanumerics and '-'`);
    }
    if (this.byName.has(provider.name)) {
      throw new Error(`a provider named '${provider.name}' is already registered`);
    }
    provider.selectionRules.forEach((rule, index) => {
      if (typeof rule.condition !== 'string' || rule.condition.trim() === '') {
        throw new Error(`provider '${provider.name}': selection rule ${index + 1} has no condition`);
      }
      if (!Number.isSafeInteger(rule.priority)) {
        throw new Error(`provider '${provider.name}': selection rule ${index + 1} priority must be an integer, got ${rule.priority}`);
      }
    });
    this.byName.set(provider.name, provider);
    return this;
  }

  /** The provider with this name. */
  public get(name: string): InferenceProvider | undefined {
    return this.byName.get(name);
  }

  /** Every provider, sorted by name (the selection tie-break order). */
  public get providers(): InferenceProvider[] {
    return [...this.byName.values()].sort((a, b) => compareStrings(a.name, b.name));
  }

  /** Registered provider names, sorted. */
  public get names(): string[] {
    return this.providers.map((p) => p.name);
  }

  /** The provider that understands resources of this apiVersion and kind. */
  public forResource(resource: ResourceType | UpstreamResource): InferenceProvider | undefined {
    return this.providers.find((p) => p.handlesResource({ apiVersion: resource.apiVersion, kind: resource.kind }));
  }
}
