import * as pulumi from '@pulumi/pulumi';
import { isPlainObject } from '../checks';
import { ProblemCollector } from '../errors';
import { DeferredValues } from './deferred-values';

/**
 * A value of a provider's `config` in the Pulumi component: plain data, written into the Llama Stack
 * config at render time, or a Secret reference whose Secret `name` may be an output (a Secret
 * created in the same program). Any other Pulumi output is refused, by type and at run time: the
 * config is text in a ConfigMap or an environment variable, and an output has no text until the
 * update runs. Put such a value in a Secret and reference it instead.
 */
export type PulumiProviderConfigValue =
  | string | number | boolean | null
  | readonly PulumiProviderConfigValue[]
  | PulumiSecretKeyReference
  | { readonly [key: string]: PulumiProviderConfigValue };

/** A reference to one key of a Kubernetes Secret; its name may be an output. */
export interface PulumiSecretKeyReference {
  readonly secretKeyRef: {
    /** Name of the Secret, in the same namespace (e.g. `secret.metadata.name`). */
    readonly name: pulumi.Input<string>;
    /** Key within the Secret. */
    readonly key: string;
  };
}

/** Helpers for values inside a provider's `config` (the Pulumi component's). */
export class ConfigValue {
  /**
   * A value read from a Secret at run time: `{ secretKeyRef: { name, key } }`; `name` may be the
   * output of a Secret created in the same program.
   */
  public static fromSecret(name: pulumi.Input<string>, key: string): PulumiSecretKeyReference {
    return { secretKeyRef: { name, key } };
  }

  private constructor() {}
}

/**
 * The config with every Secret name that is an output replaced by a placeholder of `deferred`;
 * anything else that is not plain data (an output, a promise, a function, a class instance) is a
 * problem naming its field.
 */
export function deferProviderConfig(
  config: { readonly [key: string]: PulumiProviderConfigValue } | undefined,
  field: string,
  deferred: DeferredValues,
  problems: ProblemCollector,
): { [key: string]: unknown } | undefined {
  if (config === undefined) return undefined;
  const visit = (value: unknown, where: string): unknown => {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
    if (Array.isArray(value)) return value.map((item, i) => visit(item, `${where}[${i}]`));
    if (isPlainObject(value)) {
      const ref = (value as { secretKeyRef?: { name?: unknown } }).secretKeyRef;
      if (Object.keys(value).length === 1 && isPlainObject(ref) && ref.name !== undefined && typeof ref.name !== 'string') {
        return { secretKeyRef: { ...ref, name: deferred.placeholder(ref.name as pulumi.Input<string>, 'name') } };
      }
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v, `${where}.${k}`)]));
    }
    const what = pulumi.Output.isInstance(value) ? 'a Pulumi output' : value instanceof Promise ? 'a promise' : `a ${typeof value === 'object' ? value.constructor?.name ?? 'object' : typeof value}`;
    problems.add(where, `${what} cannot go into a provider config: the config is written as text when the component renders, before outputs are known. `
      + 'Give a plain value, or store the value in a Secret and use ConfigValue.fromSecret(secret.metadata.name, key) from kube-inference-constructs/pulumi.');
    return value;
  };
  return visit(config, `${field}.config`) as { [key: string]: unknown };
}
