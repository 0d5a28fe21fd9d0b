import type { CrdValidationResult, SchemaViolation } from './crd-validator';

/** An object's validator, as `kubernetes-models` ships one per kind. */
type ModelClass = new (data: unknown) => { validate(): void };

const cache = new Map<string, ModelClass | null>();

/**
 * The `kubernetes-models` class of a core or built-in kind (`v1 ConfigMap`, `apps/v1 Deployment`,
 * `networking.k8s.io/v1 Ingress`, …), or undefined when that package has no schema for it.
 */
function modelOf(apiVersion: string, kind: string): ModelClass | undefined {
  const id = `${apiVersion}/${kind}`;
  if (!cache.has(id)) {
    let found: ModelClass | null = null;
    // The package's paths mirror apiVersion: `v1/ConfigMap`, `apps/v1/Deployment`.
    if (/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(apiVersion) && /^[A-Z][A-Za-z0-9]*$/.test(kind)) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        found = (require(`kubernetes-models/${apiVersion}/${kind}`) as Record<string, ModelClass>)[kind] ?? null;
      } catch {
        found = null;
      }
    }
    cache.set(id, found);
  }
  return cache.get(id) ?? undefined;
}

/**
 * Validates a core or built-in Kubernetes object against the OpenAPI schema of its kind (from
 * `kubernetes-models`, compiled with ajv). Returns undefined when the kind is not a built-in one.
 */
export function validateKubernetesObject(object: { apiVersion: string; kind: string }): CrdValidationResult | undefined {
  const Model = modelOf(object.apiVersion, object.kind);
  if (!Model) {
    return undefined;
  }
  const violations: SchemaViolation[] = [];
  try {
    new Model(object).validate();
  } catch (e) {
    const errors = (e as { errors?: Array<{ instancePath: string; message?: string; params?: Record<string, unknown> }> }).errors;
    for (const error of errors ?? [{ instancePath: '', message: (e as Error).message }]) {
      const path = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      const allowed = error.params?.allowedValues ? ` (allowed: ${(error.params.allowedValues as unknown[]).join(', ')})` : '';
      violations.push({ path: path.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('').replace(/^\./, ''), message: `${error.message ?? 'is invalid'}${allowed}` });
    }
  }
  return { valid: violations.length === 0, violations, notes: [] };
}
