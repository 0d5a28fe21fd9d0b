import { Chart, Testing } from 'cdk8s';
import { LABEL_DOMAIN } from './labels';
import { initScripts } from './llama-stack/scripts';

/** The annotation whose value is the hash of the init scripts (it rolls the pods when a library upgrade changes them). */
const SCRIPTS_HASH_ANNOTATION = `${LABEL_DOMAIN}/init-scripts-hash`;

/**
 * The chart's manifests, as `Testing.synth(chart)` returns them, for a snapshot test of your own: the
 * text this library owns — its init scripts, some 1,900 lines in each server's scripts ConfigMap (and the
 * server's start script inside a command) — and their hash on the pods' template are replaced by a
 * short reference naming the script, so that the snapshot holds your settings and changes when they
 * change, not with every upgrade of the library. Everything else is as rendered.
 *
 * ```ts
 * expect(synthForSnapshot(chart)).toMatchSnapshot();
 * ```
 */
export function synthForSnapshot(chart: Chart): any[] {
  const scripts = new Map(Object.entries(initScripts()).map(([file, text]) => [text, `<kube-inference-constructs script ${file}>`]));
  const visit = (node: any, key?: string): any => {
    if (typeof node === 'string') {
      if (key === SCRIPTS_HASH_ANNOTATION) return '<hash of the kube-inference-constructs scripts>';
      return scripts.get(node) ?? node;
    }
    if (Array.isArray(node)) return node.map((item) => visit(item));
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v, k)]));
    return node;
  };
  return Testing.synth(chart).map((manifest) => visit(manifest));
}
