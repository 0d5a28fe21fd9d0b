import { randomBytes } from 'node:crypto';
import * as pulumi from '@pulumi/pulumi';

/** The validators a placeholder must pass: a DNS name, an image reference, or an http URL. */
export type DeferredKind = 'name' | 'image' | 'url';

/**
 * Values not known while rendering (Pulumi outputs, such as a namespace created by another
 * resource). The construct renders with a placeholder of the right shape in their place, and the
 * placeholders are swapped for the outputs in the rendered objects.
 */
export class DeferredValues {
  private readonly outputs: pulumi.Output<string>[] = [];
  private readonly placeholders: string[] = [];
  /**
   * Random per component: a placeholder can never equal text a user wrote (say, a literal
   * `pulumi-deferred-0-x`), so substitution never rewrites a user's value. Placeholders never
   * reach the registered resources, so the output stays the same for the same input.
   */
  private readonly nonce = randomBytes(8).toString('hex');

  /** A plain value as is; for an output or promise, a placeholder that passes the field's validation. */
  public placeholder<T extends string | undefined>(value: pulumi.Input<string> | T, kind: DeferredKind): string | T {
    if (value === undefined || typeof value === 'string') {
      return value as T;
    }
    const i = this.outputs.length;
    const name = `deferred-${this.nonce}-${i}`;
    const text = kind === 'image' ? `${name}.invalid/deferred:input` : kind === 'url' ? `http://${name}.invalid/v1` : name;
    this.outputs.push(pulumi.output(value));
    this.placeholders.push(text);
    return text;
  }

  /** True when `text` (a warning of the render) is about a placeholder rather than a value given. */
  public mentionedIn(text: string): boolean {
    return this.placeholders.some((p) => text.includes(p));
  }

  /** True when any value is deferred. */
  public get any(): boolean {
    return this.outputs.length > 0;
  }

  /**
   * Replaces every placeholder in the rendered objects by its output. `check` runs once all
   * outputs are known, with the real values (it re-validates them); its failure fails the update.
   *
   * A value depends only on the outputs of its own placeholders: Pulumi records an input's
   * dependencies per property, and replaces a dependent whose replace-triggering property depends on
   * a resource being replaced. Derived from all outputs, every value (a Service's namespace too) would
   * depend on every resource given, such as a ConfigMap whose data changed. The check still gates
   * every value, through a promise, which carries no dependencies.
   */
  public substitute(manifests: readonly any[], check: (values: string[]) => void): any[] {
    if (!this.any) {
      return [...manifests];
    }
    const checked = this.checked(check);
    const pattern = new RegExp(this.placeholders.map(escape).join('|'), 'g');
    const indexOf = (placeholder: string) => this.placeholders.indexOf(placeholder);
    const visit = (text: string): any => {
      const found = text.match(pattern);
      if (!found) {
        return text;
      }
      const own = [...new Set(found.map(indexOf))];
      return pulumi.all(own.map((i) => this.outputs[i])).apply(async (values) => {
        await checked;
        const valueOf = (p: string) => values[own.indexOf(indexOf(p))];
        return found.length === 1 && found[0] === text ? valueOf(text) : text.replace(pattern, valueOf);
      });
    };
    return manifests.map((m) => mapStrings(m, visit));
  }

  /**
   * A promise that settles once `check` ran with every output's value and resolves when it passed. In a
   * preview with an output not known, the check cannot run: the promise resolves as soon as that is
   * so, since the values known do not wait for the unknown ones. `pulumi.isSecret` is the public way
   * to await an output settling, known or not; the check's failure travels beside it, so the output
   * itself never rejects with nobody to observe it.
   */
  private checked(check: (values: string[]) => void): Promise<void> {
    let failure: { error: unknown } | undefined;
    const ran = pulumi.all(this.outputs).apply((values) => {
      try {
        check(values);
      } catch (error) {
        failure = { error };
      }
    });
    const checked = pulumi.isSecret(ran).then(() => {
      if (failure) throw failure.error;
    });
    // A preview in which no value is known observes no value's check: this is not a leak.
    checked.catch(() => undefined);
    return checked;
  }

  /** A text the construct rendered (holding placeholders or not) as the output it stands for. */
  public output(text: string): pulumi.Output<string> {
    return pulumi.output(this.substitute([text], () => undefined)[0] as pulumi.Input<string>);
  }

  /** Puts the real values where the placeholders were, in any structure (for re-validation). */
  public resolve<T>(structure: T, values: string[]): T {
    return mapStrings(structure, (text) => {
      const i = this.placeholders.indexOf(text);
      return i >= 0 ? values[i] : text;
    });
  }
}

/** Copies a JSON-like structure, mapping every string through `fn`. */
function mapStrings(node: any, fn: (text: string) => any): any {
  if (typeof node === 'string') {
    return fn(node);
  }
  if (Array.isArray(node)) {
    return node.map((item) => mapStrings(item, fn));
  }
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, mapStrings(v, fn)]));
  }
  return node;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
