import { LLAMA_STACK_PROPS } from '../llama-stack/props-shape';

/**
 * Where each field of the construct's props lives in an operator document (a LlamaStackDistribution,
 * an OGXServer), so that problems and warnings name the field the user wrote rather than the prop.
 */
export class DocumentFields {
  private readonly map: Map<string, string>;

  /**
   * @param entries props field (and what is below it) → the document's field; the longest that matches wins
   * @param unmapped the document's field of a props field no entry matches
   */
  public constructor(entries: Iterable<readonly [string, string]>, private readonly unmapped: (prop: string) => string) {
    this.map = new Map(entries);
  }

  /** Maps `prop` (and what is below it) to the document's `field`. */
  public set(prop: string, field: string): void {
    this.map.set(prop, field);
  }

  /** The document's field of a props field. */
  public field(prop: string): string {
    let best: string | undefined;
    for (const p of this.map.keys()) {
      if ((prop === p || prop.startsWith(`${p}.`) || prop.startsWith(`${p}[`)) && p.length > (best?.length ?? -1)) best = p;
    }
    return best === undefined ? this.unmapped(prop) : this.map.get(best)! + prop.slice(best.length);
  }

  /** A message of the construct as the document's reader needs it: one that starts with a props field (`storage: …`) names the document's. */
  public message(message: string): string {
    const field = /^[A-Za-z][\w.[\]]*(?=[: ])/.exec(message)?.[0];
    const prop = field?.split(/[.[]/)[0];
    return field !== undefined && LLAMA_STACK_PROPS.includes(prop!) ? this.field(field) + message.slice(field.length) : message;
  }
}
