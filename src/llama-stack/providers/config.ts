import { ProblemCollector } from '../../errors';
import { WholeFloat } from '../../io/scalars';
import { CONFIG_KEY, DNS1123_SUBDOMAIN } from '../../name-patterns';

/** An environment variable the server container reads from a Secret. */
export interface SecretEnvVar {
  readonly name: string;
  /** Where the reference is in the props, e.g. `externalProviders.inference[0].config.api_key`. */
  readonly path: string;
  readonly secretName: string;
  readonly secretKey: string;
}

/** A provider config with every secret reference replaced by `${env.NAME}`. */
export interface ResolvedProviderConfig {
  readonly config: { [key: string]: unknown };
  readonly secretEnv: SecretEnvVar[];
}

// Key names whose literal values look like credentials: worth a warning, never an error.
const CREDENTIAL_KEY = /(api[_-]?key|token|password|secret|credential)/i;

/**
 * Replaces each `{ secretKeyRef: { name, key } }` in a provider's config by Llama Stack's
 * `${env.NAME}` substitution and returns the environment variables the server needs.
 * The variable name is derived from the provider id and the value's path, so it is stable.
 */
export function resolveProviderConfig(
  providerId: string,
  config: { [key: string]: unknown },
  field: string,
  problems: ProblemCollector,
  warn: (message: string) => void,
): ResolvedProviderConfig {
  const secretEnv: SecretEnvVar[] = [];
  const prefix = `LLS_PROVIDER_${envToken(providerId)}`;

  const visit = (value: unknown, path: string[]): unknown => {
    const where = `${field}.config${path.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('')}`;
    if (Array.isArray(value)) {
      return value.map((item, i) => visit(item, [...path, String(i)]));
    }
    // A float of whole value from a document (`1.0`) is a scalar, written as a float.
    if (value !== null && typeof value === 'object' && !(value instanceof WholeFloat)) {
      const entries = Object.entries(value as Record<string, unknown>);
      if ('secretKeyRef' in (value as object)) {
        const ref = (value as { secretKeyRef: unknown }).secretKeyRef as Record<string, unknown> | null;
        const name = ref?.name;
        const key = ref?.key;
        if (entries.length !== 1 || typeof name !== 'string' || typeof key !== 'string') {
          problems.add(where, `a secret reference must be exactly { secretKeyRef: { name: <Secret name>, key: <key> } } (provider '${providerId}'); fix its shape or, if this is not meant as a secret reference, rename the 'secretKeyRef' key.`);
          return value;
        }
        if (!DNS1123_SUBDOMAIN.test(name)) {
          problems.add(`${where}.secretKeyRef.name`, `'${name}' is not a valid Secret name (provider '${providerId}'): expected a DNS-1123 subdomain such as 'vllm-api-key'.`);
        }
        if (!CONFIG_KEY.test(key) || key.length > 253) {
          problems.add(`${where}.secretKeyRef.key`, `'${key}' is not a valid Secret key (provider '${providerId}'): expected letters, digits, '-', '_' or '.'.`);
        }
        const envName = [prefix, ...path.map(envToken)].join('_');
        secretEnv.push({ name: envName, path: where, secretName: name, secretKey: key });
        return `\${env.${envName}}`;
      }
      const out: Record<string, unknown> = {};
      for (const [k, v] of entries) {
        out[k] = visit(v, [...path, k]);
      }
      return out;
    }
    if (typeof value === 'string' && value !== '' && !value.includes('${env.') && CREDENTIAL_KEY.test(path[path.length - 1] ?? '')) {
      warn(`${where} of provider '${providerId}' looks like a credential given as a literal: it will be visible in the rendered manifests. Use ConfigValue.fromSecret(name, key) (YAML: { secretKeyRef: { name, key } }) instead.`);
    }
    return value;
  };

  const resolved = visit(config, []) as { [key: string]: unknown };
  return { config: resolved, secretEnv };
}

/** An upper-case environment-variable token: letters, digits and underscores. */
function envToken(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}
