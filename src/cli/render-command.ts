import { dirname, resolve } from 'path';
import { Construct } from 'constructs';
import { apiGroupOf, isKubernetesApiVersion, isRecord } from '../checks';
import { ValidationError } from '../errors';
import { describeFsError, writeFilesAtomically } from '../io';
import { formatPath, PathSegment } from '../io/scalars';
import { DNS1123_LABEL } from '../name-patterns';
import { DEFAULT_KUBERNETES_MINOR } from '../schema/kubernetes/openapi';
import { synthesizeObjects } from '../synth';
import { LLSD_API_VERSION, MODEL_DEPLOYMENT_API_VERSIONS, MODEL_DEPLOYMENT_KIND, OGX_SERVER_API_VERSION, OGX_SERVER_KIND } from './document-kinds';
import { MANIFEST_LIMITS, readInputs } from './inputs';
import { CliIo, Command, parseCommandArgs } from './io';
import { LEDGER_FILE, ledgerText, readLedger, removeStaleFiles } from './output-ledger';
import { stringifyYaml } from './yaml-output';
import { nameRuleOf } from '../schema/kubernetes/object-meta';
import { closest } from '../suggest';

/** A kind of input document the render command understands. */
interface DocumentRenderer {
  readonly kind: string;
  readonly apiVersions: readonly string[];
  /**
   * Renders one document; `baseDir` is where relative paths in it point (its file's directory). The
   * other objects of the input are in the same cdk8s app (a ConfigMap the document names is found there).
   * May return how the constructs' warnings about this document read for its reader, over `warning`.
   * `exact` is the document with numbers as written (InputDocument.exact), where provider config is read.
   */
  readonly render: (
    scope: Construct, doc: Record<string, any>, label: string, baseDir: string, exact: Record<string, any>,
  ) => ((message: string) => string) | void;
  /** A warning of the constructs as the document's reader needs it (naming the document's fields). */
  readonly warning?: (message: string) => string;
}

/* eslint-disable @typescript-eslint/no-require-imports -- each renderer's module is loaded on first use */
const RENDERERS: readonly DocumentRenderer[] = [
  {
    kind: 'LlamaStackDistribution',
    apiVersions: [LLSD_API_VERSION],
    render: (...a) => (require('./llama-stack-document') as typeof import('./llama-stack-document')).renderLlamaStackDocument(...a),
    warning: (m) => (require('./llama-stack-document') as typeof import('./llama-stack-document')).documentWarning(m),
  },
  {
    kind: OGX_SERVER_KIND,
    apiVersions: [OGX_SERVER_API_VERSION],
    // The OGX operator holds provider settings as Go's float64s (run-config/ogx-configgen-providers.ts): plain numbers.
    render: (scope, doc, label, baseDir) => (require('./ogx-server-document') as typeof import('./ogx-server-document'))
      .renderOgxServerDocument(scope, doc, label, baseDir),
  },
  {
    kind: MODEL_DEPLOYMENT_KIND,
    apiVersions: MODEL_DEPLOYMENT_API_VERSIONS,
    render: (scope, doc, label) => {
      (require('../model-deployment/document') as typeof import('../model-deployment/document')).renderModelDeploymentDocument(scope, doc, label);
    },
  },
];
/* eslint-enable @typescript-eslint/no-require-imports */

const USAGE = `Usage: kube-inference render [FILE ...] [-o DIR]

Renders LlamaStackDistribution (${LLSD_API_VERSION}), OGXServer (${OGX_SERVER_API_VERSION}, the
OGX operator's, checked against its CRD first) and ModelDeployment
(${MODEL_DEPLOYMENT_API_VERSIONS.join(', ')}) documents into Kubernetes manifests,
through the same constructs a cdk8s or Pulumi program uses. Other Kubernetes objects in the
input (a ConfigMap beside the document that uses it) pass through unchanged, and a ConfigMap the
pods read is hashed into their template, so that changing it rolls them. An OGXServer's
spec.baseConfig ConfigMap given in the input is read: the config is generated at render time.

  FILE        multi-document YAML input; '-' (or no FILE) reads standard input
  -o, --output-dir DIR
              write one file per input document into DIR instead of standard output:
              <namespace>.<name>.k8s.yaml (<name>.k8s.yaml without a namespace), and
              <namespace>.<name>.<kind>.k8s.yaml for an object passed through. DIR/${LEDGER_FILE}
              lists the files written; the next run into DIR removes those it no longer writes
              (a deleted document's file goes, so GitOps pruning sees it) and no other file.

Warnings go to standard error. On invalid input the exit code is 1, nothing is written to standard
output or DIR, and standard error names the document, the field and the fix.
`;

/** One rendered input document. */
interface Rendered {
  readonly label: string;
  readonly fileName: string;
  readonly yaml: string;
}

/**
 * The most `render` writes in one run: 16 times the input limit. A Llama Stack document of a few
 * hundred bytes renders some 50 KiB (the init scripts are in every ConfigMap), so a full-size input of
 * small documents could otherwise render gigabytes and exhaust memory before a byte is written.
 */
export const MAX_RENDER_OUTPUT_BYTES = 16 * MANIFEST_LIMITS.maxBytes;

/** `kube-inference render`, writing at most `maxOutputBytes`. */
export function makeRenderCommand(maxOutputBytes: number): Command {
  return { name: 'render', usage: USAGE, run: (args, io) => render(args, io, maxOutputBytes) };
}

export const renderCommand: Command = makeRenderCommand(MAX_RENDER_OUTPUT_BYTES);

async function render(args: string[], io: CliIo, maxOutputBytes: number): Promise<number> {
  const parsed = parseCommandArgs({ args, allowPositionals: true, options: { 'output-dir': { type: 'string', short: 'o' } } });
  const inputs = await readInputs(parsed.positionals, io);
  if (!inputs.ok) {
    io.stderr(inputs.errors.map((e) => `error: ${e}\n`).join(''));
    return 1;
  }

  const errors: string[] = [];
  const warnings: string[] = [];
  const rendered: Rendered[] = [];
  const owners = new Map<string, string>();
  let outputBytes = 0;
  // Each document is ours (a renderer), or passes through unchanged (no problem), or is refused. The
  // documents render beside the objects passed through (a ConfigMap the pods read is hashed into their template).
  const classified = inputs.documents.map((input) => {
    const renderer = rendererOf(input.value);
    return { input, renderer, problem: renderer === undefined ? passThroughProblem(input.value) : undefined };
  });
  const neighbours = classified.filter((c) => c.renderer === undefined && c.problem === undefined).map((c) => c.input.value);
  for (const { input, renderer, problem } of classified) {
    const doc = input.value;
    const name = typeof doc?.metadata?.name === 'string' ? doc.metadata.name : undefined;
    const label = `${input.source} document ${input.index + 1} (${doc?.kind ?? 'unknown kind'}${name ? ` "${name}"` : ''})`;
    const namespace = typeof doc?.metadata?.namespace === 'string' ? doc.metadata.namespace : undefined;
    let manifests: any[];
    if (renderer === undefined) {
      if (problem !== undefined) {
        errors.push(`${label}: ${problem}`);
        continue;
      }
      // Its numbers as written: kubectl keeps integers to 64 bits.
      manifests = [input.exact];
    } else {
      let result;
      let warning = renderer.warning;
      try {
        const baseDir = input.source === '<stdin>' ? io.cwd : dirname(resolve(io.cwd, input.source));
        result = synthesizeObjects(namespace, (scope) => {
          warning = renderer.render(scope, doc, label, baseDir, input.exact) ?? warning;
        }, neighbours);
      } catch (e) {
        if (e instanceof ValidationError) {
          errors.push(e.message);
          continue;
        }
        throw e;
      }
      warnings.push(...result.warnings.map((w) => `warning: ${label}: ${warning?.(w) ?? w}\n`));
      manifests = result.manifests;
    }
    errors.push(...claimObjects(owners, manifests, label, namespace));
    const yaml = stringifyYaml(manifests);
    outputBytes += Buffer.byteLength(yaml);
    if (outputBytes > maxOutputBytes) {
      io.stderr(`error: ${label}: the rendered manifests would exceed ${maxOutputBytes} bytes (${maxOutputBytes / 1024 / 1024} MiB), the most one run `
        + 'writes; nothing was written. Render the documents in several runs (a few files each).\n');
      return 1;
    }
    // A passed-through object's file names its kind: it may share its name with a rendered document.
    const fileName = `${namespace ? `${namespace}.` : ''}${name}${renderer === undefined ? `.${String(doc.kind).toLowerCase()}` : ''}.k8s.yaml`;
    rendered.push({ label, fileName, yaml });
  }
  io.stderr(warnings.join(''));
  if (errors.length > 0) {
    io.stderr(errors.map((e) => `error: ${e}\n`).join(''));
    return 1;
  }

  const outputDir = parsed.values['output-dir'];
  if (outputDir === undefined) {
    io.stdout(rendered.map((r) => r.yaml).join('---\n'));
    return 0;
  }
  return writeOutputs(resolve(io.cwd, outputDir), rendered, io.stderr);
}

/** The renderer of a document of ours, undefined for any other object. */
function rendererOf(doc: any): DocumentRenderer | undefined {
  return RENDERERS.find((r) => r.kind === doc?.kind && r.apiVersions.includes(doc?.apiVersion));
}

/**
 * Why a document that is not ours cannot pass through unchanged: it is not a Kubernetes object, or it
 * looks like one of ours mistyped or of a version `render` does not read (passing it through would
 * drop it silently).
 */
function passThroughProblem(doc: any): string | undefined {
  const expected = `expected ${RENDERERS.map((r) => `kind ${r.kind} with apiVersion ${r.apiVersions.join(' or ')}`).join(', or ')}`;
  const found = `found apiVersion ${JSON.stringify(doc?.apiVersion)}, kind ${JSON.stringify(doc?.kind)}`;
  if (doc?.apiVersion === 'llamastack.io/v1alpha2') {
    return `unsupported document: llamastack.io/v1alpha2 exists only in pull request #253 of the llama-stack operator, which was not merged; write the document as ${LLSD_API_VERSION} (${found}).`;
  }
  const group = typeof doc?.apiVersion === 'string' ? apiGroupOf(doc.apiVersion) : undefined;
  const ours = RENDERERS.some((r) => r.kind === doc?.kind) || [LLSD_API_VERSION, OGX_SERVER_API_VERSION].some((v) => group === apiGroupOf(v));
  const near = typeof doc?.kind === 'string' ? closest(doc.kind, RENDERERS.map((r) => r.kind)) : undefined;
  if (ours || near !== undefined) {
    return `unsupported document: ${expected}; ${found}${near !== undefined && near !== doc.kind ? ` (did you mean kind ${near}?)` : ''}.`;
  }
  if (typeof doc?.apiVersion !== 'string' || typeof doc?.kind !== 'string' || typeof doc?.metadata?.name !== 'string' || doc.metadata.name === '') {
    return `not a Kubernetes object: ${expected}, or any other object with apiVersion, kind and metadata.name, which passes through unchanged; ${found}.`;
  }
  // What the API server refuses in any object, and what would lead a file written with -o elsewhere.
  if (!KIND.test(doc.kind)) return `kind ${JSON.stringify(doc.kind)} is not a Kubernetes kind (letters and digits, starting with a letter).`;
  const { name, namespace } = doc.metadata;
  if (name === '.' || name === '..' || /[/%]/.test(name)) {
    return `metadata.name ${JSON.stringify(name)} is not a name the API server takes: it may not be '.' or '..' or contain '/' or '%'.`;
  }
  // A built-in kind's names as the API server of the newest minor takes them (validate's rules); any
  // kind's without controls, which a file name written with -o would carry.
  const nameProblems = isKubernetesApiVersion(doc.apiVersion) ? nameRuleOf(doc.kind, Number(DEFAULT_KUBERNETES_MINOR.split('.')[1]))(name) : [];
  if (nameProblems.length > 0) return `metadata.name ${JSON.stringify(name)} is not a name the API server takes for a ${doc.kind}: ${nameProblems.join('; ')}.`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return `metadata.name ${JSON.stringify(name)} holds control characters, which no file written with -o may carry in its name: rename the object.`;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace.length > 63 || !DNS1123_LABEL.test(namespace))) {
    return `metadata.namespace ${JSON.stringify(namespace)} is not a namespace name (a DNS-1123 label, at most 63 characters).`;
  }
  const nonFinite = nonFiniteAt(doc, []);
  if (nonFinite !== undefined) {
    return `${formatPath(nonFinite).slice(1)}: a plain .inf or .nan is a number JSON cannot carry, so kubectl cannot send the object (quote it if a string is meant).`;
  }
  return undefined;
}

/** The path of the first infinity or NaN in plain data (a plain `.inf` or `.nan` of the input), or undefined. */
function nonFiniteAt(value: unknown, path: PathSegment[]): PathSegment[] | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  const entries: Array<[PathSegment, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : isRecord(value) ? Object.entries(value) : [];
  for (const [key, v] of entries) {
    const found = nonFiniteAt(v, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A Kubernetes kind: a CamelCase identifier. */
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

/**
 * Records which document renders each object (by API group, kind, namespace and name) and returns an
 * error for every object another document already renders: applied together, the second would
 * silently replace the first, on standard output as much as in files.
 */
function claimObjects(owners: Map<string, string>, manifests: readonly any[], label: string, namespace: string | undefined): string[] {
  const errors: string[] = [];
  for (const m of manifests) {
    const group = typeof m.apiVersion === 'string' ? apiGroupOf(m.apiVersion) : '';
    const ns = m.metadata?.namespace ?? namespace ?? '';
    const object = `${m.kind}${group ? `.${group}` : ''} ${ns ? `${ns}/` : ''}${m.metadata?.name}`;
    const other = owners.get(object);
    if (other && other !== label) {
      errors.push(`${label} and ${other} both render ${object}: give the documents different names or namespaces.`);
    } else {
      owners.set(object, label);
    }
  }
  return errors;
}

/**
 * Writes every rendered document into `dir`, all or nothing (see {@link writeFilesAtomically}), then
 * removes the files an earlier render wrote there that this one does not, and records what it wrote
 * (src/cli/output-ledger.ts). The ledger is replaced last: a run stopped before it leaves the earlier
 * ledger, whose stale files the next run removes.
 */
function writeOutputs(dir: string, rendered: readonly Rendered[], stderr: (text: string) => void): number {
  const names = new Map<string, string>();
  for (const r of rendered) {
    const other = names.get(r.fileName);
    if (other) {
      stderr(`error: ${r.label} and ${other} would both be written to ${r.fileName}: give them different names or namespaces.\n`);
      return 1;
    }
    names.set(r.fileName, r.label);
  }
  const previous = readLedger(dir);
  if ('error' in previous) {
    stderr(`error: ${previous.error} Nothing was written.\n`);
    return 1;
  }
  const written = rendered.map((r) => r.fileName);
  try {
    writeFilesAtomically(dir, rendered.map((r) => ({ name: r.fileName, text: r.yaml })));
    stderr(removeStaleFiles(dir, previous.names, written).map((w) => `warning: ${w}\n`).join(''));
    writeFilesAtomically(dir, [{ name: LEDGER_FILE, text: ledgerText(written) }]);
  } catch (e) {
    stderr(`error: cannot write to ${dir}: ${describeFsError(e)}\n`);
    return 1;
  }
  return 0;
}
