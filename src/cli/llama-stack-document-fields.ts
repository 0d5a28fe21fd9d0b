import { isRecord, joinPath, SERVER_WRITTEN_METADATA } from '../checks';
import { ProblemCollector } from '../errors';
import { closest } from '../suggest';

// Every field a `LlamaStackDistribution` document may hold, and what `render` does with it: nothing
// is dropped silently. The operator's fields are those of `llamastack.io/v1alpha1` as the llama-stack
// operator's main branch last defined them (llamastack/llama-stack-k8s-operator,
// api/v1alpha1/llamastackdistribution_types.go, before the project was renamed to OGX and the kind
// replaced by `OGXServer`). A key in no list is refused, with the nearest known name.

/** What `render` does with a field. */
type Use =
  /** Rendered (translated into the construct's props). */
  | 'rendered'
  /** Accepted and not rendered, without a word: written by the API server, not by the user. */
  | 'server-written'
  /** A field of the operator this renderer does not translate: a warning names it. */
  | { readonly ignored: string }
  /** A field only an unmerged pull request of the operator added: a warning names the PR. */
  | { readonly onlyInPr: number };

interface Field {
  readonly use: Use;
  /** The fields of a mapping value, checked in turn. */
  readonly fields?: Fields;
  /** The fields of each item of a list value, checked in turn. */
  readonly items?: Fields;
}
type Fields = Readonly<Record<string, Field>>;

const rendered = (fields?: Fields, items?: Fields): Field => ({ use: 'rendered', fields, items });
const onlyInPr = (pr: number): Field => ({ use: { onlyInPr: pr } });
const serverWritten: Field = { use: 'server-written' };
const ignoredMetadata: Field = { use: { ignored: 'describes the LlamaStackDistribution itself; the objects render writes do not carry it, and it is ignored.' } };

const RESOURCE_REQUIREMENTS: Fields = {
  requests: rendered(),
  limits: rendered(),
  claims: { use: { ignored: 'is not supported by this renderer and is ignored (dynamic resource claims need the pod\'s resourceClaims).' } },
};

/** The fields of a LlamaStackDistribution document. */
export const LLAMA_STACK_DOCUMENT_FIELDS: Fields = {
  apiVersion: rendered(),
  kind: rendered(),
  // Object metadata: name and namespace name the rendered objects, labels label them, and annotations
  // set the server version, operatorSelector and the like; the rest describes the document itself.
  metadata: rendered({
    name: rendered(),
    namespace: rendered(),
    labels: rendered(),
    annotations: rendered(),
    ...Object.fromEntries(SERVER_WRITTEN_METADATA.map((f) => [f, serverWritten])),
    ...Object.fromEntries(['generateName', 'ownerReferences', 'finalizers'].map((f) => [f, ignoredMetadata])),
  }),
  status: serverWritten,
  spec: rendered({
    replicas: rendered(),
    server: rendered({
      distribution: rendered({ name: rendered(), image: rendered() }),
      containerSpec: rendered({
        name: rendered(),
        port: rendered(),
        resources: rendered(RESOURCE_REQUIREMENTS),
        env: rendered(undefined, { name: rendered(), value: rendered(), valueFrom: rendered() }),
        command: rendered(),
        args: rendered(),
        // llama-stack-k8s-operator PR #151 (closed, issue #150 open).
        envFrom: onlyInPr(151),
      }),
      workers: rendered(),
      podOverrides: rendered({
        serviceAccountName: rendered(),
        terminationGracePeriodSeconds: rendered(),
        volumes: rendered(),
        volumeMounts: rendered(),
      }),
      podDisruptionBudget: rendered({ minAvailable: rendered(), maxUnavailable: rendered() }),
      topologySpreadConstraints: rendered(),
      autoscaling: rendered({
        minReplicas: rendered(), maxReplicas: rendered(), targetCPUUtilizationPercentage: rendered(), targetMemoryUtilizationPercentage: rendered(),
      }),
      // size and mountPath are the operator's; the rest are the construct's, which the operator's
      // shape has no equivalent for.
      storage: rendered({
        size: rendered(), mountPath: rendered(), storageClassName: rendered(), existingClaimName: rendered(), ephemeral: rendered(),
      }),
      // configMapKey and an inline config are the construct's.
      userConfig: rendered({ configMapName: rendered(), configMapNamespace: rendered(), configMapKey: rendered(), config: rendered() }),
      tlsConfig: rendered({ caBundle: rendered({ configMapName: rendered(), configMapNamespace: rendered(), configMapKeys: rendered() }) }),
      // llama-stack-k8s-operator PR #166 (closed).
      envFromExternalConfigMaps: onlyInPr(166),
      // Deploy-time providers: llama-stack-k8s-operator PR #240 (closed), whose design this renders;
      // the construct checks every entry.
      externalProviders: rendered(),
      // The construct's `models`: models served in the cluster, served through the server's own API.
      models: rendered(undefined, { url: rendered(), model: rendered(), providerId: rendered() }),
      // The construct's: the operator's shape has no pull secrets, no choice of health check and no
      // pod security settings (OpenShift's assigned ids).
      imagePullSecrets: rendered(),
      healthCheck: rendered(),
      podSecurity: rendered({
        runAsUser: rendered(), runAsGroup: rendered(), fsGroup: rendered(), restricted: rendered(), idsFromPlatform: rendered(),
      }),
    }),
    // exposeAs and ingressClassName are the construct's.
    network: rendered({
      exposeRoute: rendered(),
      exposeAs: rendered(),
      ingressClassName: rendered(),
      allowedFrom: rendered({ namespaces: rendered(), labels: rendered() }),
    }),
  }),
};

/**
 * Checks a document's keys against {@link LLAMA_STACK_DOCUMENT_FIELDS}: unknown keys are problems
 * (with the nearest known name), operator fields that are not translated are warnings.
 */
export function checkDocumentFields(doc: Record<string, unknown>, problems: ProblemCollector, warn: (message: string) => void): void {
  const unknown: string[] = [];
  walk(doc, LLAMA_STACK_DOCUMENT_FIELDS, '', (at, message) => {
    if (unknown.push(at) <= MAX_UNKNOWN_REPORTED) problems.add(at, message());
  }, warn);
  if (unknown.length > MAX_UNKNOWN_REPORTED) {
    problems.add(unknown[MAX_UNKNOWN_REPORTED], `and ${unknown.length - MAX_UNKNOWN_REPORTED} more unknown fields (the first ${MAX_UNKNOWN_REPORTED} are listed)`);
  }
}

/** Unknown fields listed one by one; past these, they are counted (a hostile document may hold millions). */
const MAX_UNKNOWN_REPORTED = 20;

/** Reports an unknown field; the message (with its suggestion) is made only when it is listed. */
type Report = (at: string, message: () => string) => void;

function walk(value: Record<string, unknown>, fields: Fields, path: string, unknownField: Report, warn: (message: string) => void): void {
  for (const [key, child] of Object.entries(value)) {
    const at = joinPath(path, key);
    const field = Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined;
    if (field === undefined) {
      unknownField(at, () => unknownFieldMessage(key, fields));
      continue;
    }
    if (typeof field.use === 'object') {
      warn('ignored' in field.use
        ? `${at} ${field.use.ignored}`
        : `${at} exists only in pull request #${field.use.onlyInPr} of the llama-stack operator, which was not merged; it is not rendered and is ignored.`);
      continue;
    }
    if (field.fields && isRecord(child)) {
      walk(child, field.fields, at, unknownField, warn);
    }
    if (field.items && Array.isArray(child)) {
      child.forEach((item, i) => {
        if (isRecord(item)) walk(item, field.items!, `${at}[${i}]`, unknownField, warn);
      });
    }
  }
}

/** The nearest known name at this level, or where a field of that name lives elsewhere in the document. */
function unknownFieldMessage(key: string, fields: Fields): string {
  const known = Object.keys(fields);
  const near = closest(key, known);
  const elsewhere = near === undefined ? pathsOf(key, LLAMA_STACK_DOCUMENT_FIELDS, '') : [];
  const expected = `expected one of: ${known.join(', ')}`;
  if (near !== undefined) return `unknown field; did you mean '${near}'? (${expected})`;
  if (elsewhere.length > 0) return `unknown field here: ${key} belongs at ${elsewhere.join(' or ')} (${expected})`;
  return `unknown field; ${expected}`;
}

/** Every path of the document where a field named `key` lives. */
function pathsOf(key: string, fields: Fields, path: string): string[] {
  return Object.entries(fields).flatMap(([name, field]) => {
    const at = joinPath(path, name);
    return [
      ...(name === key ? [at] : []),
      ...(field.fields ? pathsOf(key, field.fields, at) : []),
      ...(field.items ? pathsOf(key, field.items, `${at}[]`) : []),
    ];
  });
}
