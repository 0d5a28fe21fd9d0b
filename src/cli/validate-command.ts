import { Dirent, readdirSync, statSync } from 'fs';
import { join, resolve } from 'path';
import { compareStrings, isRecord } from '../checks';
import { ClusterDryRun, ClusterTarget, ClusterUnreachableError } from './cluster-dry-run';
import { readInputs } from './inputs';
import { CliIo, Command, parseCommandArgs, UsageError } from './io';
import { describeFsError } from '../io';
import { DEFAULT_KUBERNETES_MINOR, KUBERNETES_MINORS } from '../schema/kubernetes/openapi';
import { ManifestValidator } from '../schema/manifest-validator';

const USAGE = `Usage: kube-inference validate [FILE|DIR ...] [--target-version 1.N] [--crd FILE ...] [--strict]
       kube-inference validate [FILE|DIR ...] --server [--kubeconfig FILE] [--context NAME]

Validates Kubernetes manifests (ours or not).

Offline (the default): built-in kinds as the API server of the target Kubernetes version would,
against its OpenAPI schema (unknown fields and wrong types are errors, as under kubectl's strict
field validation) and its own checks that no schema expresses (names and label syntax, duplicate
names, mounts of missing volumes, selectors that miss their template, ranges); custom resources
against the vendored KAITO, Dynamo, KubeRay, OGX (OGXServer) and OpenShift Route CRDs and any CRD
given with --crd.

  FILE|DIR               multi-document YAML; a directory means every *.yaml/*.yml below it but
                         Kustomize's own kustomization.yaml (not an object, as kubectl apply -k reads it);
                         '-' (or nothing) reads standard input; the items of a List are validated each
  --target-version 1.N   the Kubernetes minor to check against: ${KUBERNETES_MINORS[0]} to ${DEFAULT_KUBERNETES_MINOR} (default ${DEFAULT_KUBERNETES_MINOR})
  --crd FILE             also validate against the CRDs in FILE (repeatable)
  --strict               objects with no schema are errors, not warnings

Online (--server): each object is sent to the cluster with server-side dry-run and strict field
validation (as \`kubectl apply --server-side --dry-run=server\`); nothing is written. The cluster is
the judge, with its admission webhooks and policies; the offline checks do not run.

  --server               ask the cluster of the kubeconfig
  --kubeconfig FILE      the kubeconfig (default: $KUBECONFIG, else ~/.kube/config)
  --context NAME         its context (default: its current context)

Exit code 0 when every object is valid, 1 when any is invalid (each named on stderr with the
field and the reason) or the cluster cannot be reached, 2 on bad usage.
`;

export const validateCommand: Command = {
  name: 'validate',
  usage: USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs({
      args,
      allowPositionals: true,
      options: {
        'crd': { type: 'string', multiple: true },
        'strict': { type: 'boolean' },
        'target-version': { type: 'string' },
        'server': { type: 'boolean' },
        'kubeconfig': { type: 'string' },
        'context': { type: 'string' },
      },
    });
    const { server, kubeconfig, context } = parsed.values;
    const minor = targetMinor(parsed.values['target-version']);
    if (server && (parsed.values.crd || parsed.values.strict || minor !== undefined)) {
      throw new UsageError('--server asks the cluster itself: --crd, --strict and --target-version are for offline checks');
    }
    if (!server && (kubeconfig !== undefined || context !== undefined)) throw new UsageError('--kubeconfig and --context go with --server');
    const unlisted: string[] = [];
    const files = parsed.positionals.flatMap((p) => expand(p, io.cwd, unlisted));
    const inputs = await readInputs(files, io);
    if (!inputs.ok || unlisted.length > 0) {
      io.stderr([...unlisted, ...(inputs.ok ? [] : inputs.errors)].map((e) => `error: ${e}\n`).join(''));
      return 1;
    }
    const objects = inputs.documents.flatMap((input) => objectsOf(input.value, `${input.source} document ${input.index + 1}`));
    if (server) return validateOnServer(objects, { kubeconfig: kubeconfig && resolve(io.cwd, kubeconfig), context }, io);
    let validator: ManifestValidator;
    try {
      validator = ManifestValidator.withVendoredCrds((parsed.values.crd ?? []).map((f) => resolve(io.cwd, f)), minor);
    } catch (e) {
      io.stderr(`error: cannot load the CRDs: ${(e as Error).message}\n`);
      return 1;
    }
    const counts = { valid: 0, invalid: 0, unknown: 0 };
    for (const { obj, label } of objects) {
      const result = validator.validate(obj);
      const unknown = result.against === 'unknown' && result.valid;
      if (!result.valid || (unknown && parsed.values.strict)) {
        counts.invalid++;
        for (const v of result.violations) {
          io.stderr(`error: ${label}: ${v.path || '(object)'}: ${v.message}\n`);
        }
        if (unknown) {
          io.stderr(`error: ${label}: ${result.notes.join('; ')}\n`);
        }
      } else if (unknown) {
        counts.unknown++;
        io.stderr(`warning: ${label}: ${result.notes.join('; ')}\n`);
      } else {
        counts.valid++;
        for (const note of result.notes) {
          io.stderr(`note: ${label}: ${note}\n`);
        }
      }
    }
    const total = counts.valid + counts.invalid + counts.unknown;
    io.stderr(`${total} object(s): ${counts.valid} valid, ${counts.invalid} invalid, ${counts.unknown} without a schema (Kubernetes ${minor ?? DEFAULT_KUBERNETES_MINOR})\n`);
    return counts.invalid > 0 ? 1 : 0;
  },
};

/** `1.33`, `v1.33` or `1.33.4` as a supported minor (`1.33`); undefined when not given. */
function targetMinor(version: string | undefined): string | undefined {
  if (version === undefined) return undefined;
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(version);
  const minor = m ? `${m[1]}.${m[2]}` : undefined;
  if (minor === undefined || !(KUBERNETES_MINORS as readonly string[]).includes(minor)) {
    throw new UsageError(`--target-version ${version}: the offline checks know Kubernetes ${KUBERNETES_MINORS.join(', ')}; give one of them (or validate against your cluster with --server)`);
  }
  return minor;
}

async function validateOnServer(objects: Array<{ obj: any; label: string }>, target: ClusterTarget, io: CliIo): Promise<number> {
  let invalid = 0;
  try {
    const cluster = ClusterDryRun.connect(target);
    for (const { obj, label } of objects) {
      const verdict = isRecord(obj) ? await cluster.dryRun(obj) : { accepted: false, message: 'not a Kubernetes object', warnings: [] };
      for (const w of verdict.warnings) io.stderr(`warning: ${label}: ${w}\n`);
      if (!verdict.accepted) {
        invalid++;
        io.stderr(`error: ${label}: ${verdict.message}\n`);
      }
    }
    io.stderr(`${objects.length} object(s): ${objects.length - invalid} accepted, ${invalid} refused by ${cluster.server} (server-side dry-run, strict field validation)\n`);
  } catch (e) {
    if (!(e instanceof ClusterUnreachableError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return 1;
  }
  return invalid > 0 ? 1 : 0;
}

/**
 * The objects of a document with their labels: the document itself, or the items of a list
 * (`kind: List`, as `kubectl get -o yaml` prints several objects, or a typed list such as
 * `ConfigMapList`, whose items may leave out their apiVersion and kind), each validated in turn.
 */
function objectsOf(doc: any, where: string): Array<{ obj: any; label: string }> {
  const label = (obj: any, at: string) => `${at} (${obj?.kind ?? 'unknown kind'}${typeof obj?.metadata?.name === 'string' ? ` "${obj.metadata.name}"` : ''})`;
  const listKind = typeof doc?.kind === 'string' && doc.kind.endsWith('List') && Array.isArray(doc.items) ? doc.kind : undefined;
  if (listKind === undefined) return [{ obj: doc, label: label(doc, where) }];
  const itemKind = listKind === 'List' ? undefined : listKind.slice(0, -'List'.length);
  return (doc.items as unknown[]).map((item: any, i) => {
    const obj = itemKind !== undefined && isRecord(item) ? { apiVersion: doc.apiVersion, kind: itemKind, ...item } : item;
    return { obj, label: label(obj, `${where} item ${i + 1}`) };
  });
}

/**
 * A directory stands for the YAML files below it, in a stable order; a Kustomize config
 * (`kustomization.yaml`, which a GitOps directory often holds beside the manifests) is not an object.
 */
function expand(path: string, cwd: string, errors: string[]): string[] {
  if (path === '-') {
    return [path];
  }
  const full = resolve(cwd, path);
  let isDir = false;
  try {
    isDir = statSync(full).isDirectory();
  } catch {
    return [path]; // reported by the reader as missing
  }
  if (!isDir) {
    return [path];
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(full, { withFileTypes: true });
  } catch (e) {
    // Named as the user wrote it (or as found below it), as the reader names files.
    errors.push(`cannot list the directory ${describeFsError(Object.assign(e as object, { path }))}`);
    return [];
  }
  return entries
    .sort((a, b) => compareStrings(a.name, b.name))
    .flatMap((e) => (e.isDirectory() ? expand(join(path, e.name), cwd, errors) : /\.ya?ml$/.test(e.name) && !KUSTOMIZATION_FILE.test(e.name) ? [join(path, e.name)] : []));
}

/** The file names Kustomize reads its config from (sigs.k8s.io/kustomize/api/konfig: RecognizedKustomizationFileNames). */
const KUSTOMIZATION_FILE = /^kustomization\.ya?ml$/;
