import { isRecord } from '../checks';
import { ProviderRegistry } from './registry';
import { ModelDeploymentStatus, UpstreamResource } from './status';

/**
 * The unified status of an upstream resource (as saved with `kubectl get -o yaml`), computed by
 * the provider that understands its apiVersion and kind.
 * @throws Error when the input is not a resource, or no registered provider handles its kind
 */
export function translateStatus(resource: unknown, registry: ProviderRegistry = ProviderRegistry.builtIn()): ModelDeploymentStatus {
  if (!isRecord(resource) || typeof resource.apiVersion !== 'string' || typeof resource.kind !== 'string') {
    throw new Error('expected a Kubernetes resource with apiVersion and kind');
  }
  const upstream = resource as UpstreamResource;
  const provider = registry.forResource(upstream);
  if (!provider) {
    const known = registry.providers.map((p) => `${p.resourceType.kind} (${p.name})`).join(', ');
    throw new Error(`no provider reads the status of ${upstream.apiVersion} ${upstream.kind}; supported: ${known}`);
  }
  return provider.translateStatus(upstream);
}
