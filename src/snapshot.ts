import { Chart, Testing } from 'cdk8s';
import { initScripts, initScriptsDigest } from './llama-stack/scripts';

/**
 * The chart's manifests, as `Testing.synth(chart)` returns them, for a snapshot test of your own: the
 * text this library owns — its init scripts, some 1,900 lines in the scripts ConfigMap of a server whose
 * config is merged at synth time (and the server's start script inside a command) — and their digest (the
 * pods' annotation, the merge image's `write-init-scripts` argument) are replaced by a short reference
 * naming the script, so that the snapshot holds your settings and changes when they change, not with
 * every upgrade of the library. Everything else is as rendered.
 *
 * ```ts
 * expect(synthForSnapshot(chart)).toMatchSnapshot();
 * ```
 */
export function synthForSnapshot(chart: Chart): any[] {
  const library = new Map(Object.entries(initScripts()).map(([file, text]) => [text, `<kube-inference-constructs script ${file}>`]));
  library.set(initScriptsDigest(), '<hash of the kube-inference-constructs scripts>');
  const visit = (node: any): any => {
    if (typeof node === 'string') return library.get(node) ?? node;
    if (Array.isArray(node)) return node.map(visit);
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v)]));
    return node;
  };
  return Testing.synth(chart).map(visit);
}
