import { readdirSync, statSync } from 'fs';
import { join, resolve } from 'path';
import { compareStrings, isRecord } from '../checks';
import { readInputs } from './inputs';
import { Command, parseCommandArgs } from './io';
import { ManifestValidator } from '../schema/manifest-validator';

const USAGE = `Usage: kube-inference validate [FILE|DIR ...] [--crd FILE ...] [--strict]

Validates Kubernetes manifests (ours or not): core and built-in kinds against the Kubernetes
OpenAPI schema, custom resources against the vendored KAITO, Dynamo and KubeRay CRDs and any CRD
given with --crd.

  FILE|DIR     multi-document YAML; a directory means every *.yaml/*.yml below it;
               '-' (or nothing) reads standard input; the items of a List are validated each
  --crd FILE   also validate against the CRDs in FILE (repeatable)
  --strict     objects with no schema are errors, not warnings

Exit code 0 when every object is valid, 1 when any is invalid (each named on stderr with the
field and the reason), 2 on bad usage.
`;

export const validateCommand: Command = {
  name: 'validate',
  usage: USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs({
      args,
      allowPositionals: true,
      options: { crd: { type: 'string', multiple: true }, strict: { type: 'boolean' } },
    });
    const files = parsed.positionals.flatMap((p) => expand(p, io.cwd));
    const inputs = await readInputs(files, io);
    if (!inputs.ok) {
      io.stderr(inputs.errors.map((e) => `error: ${e}\n`).join(''));
      return 1;
    }
    let validator: ManifestValidator;
    try {
      validator = ManifestValidator.withVendoredCrds((parsed.values.crd ?? []).map((f) => resolve(io.cwd, f)));
    } catch (e) {
      io.stderr(`error: cannot load the CRDs: ${(e as Error).message}\n`);
      return 1;
    }
    const counts = { valid: 0, invalid: 0, unknown: 0 };
    for (const { obj, label } of inputs.documents.flatMap((input) => objectsOf(input.value, `${input.source} document ${input.index + 1}`))) {
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
    io.stderr(`${total} object(s): ${counts.valid} valid, ${counts.invalid} invalid, ${counts.unknown} without a schema\n`);
    return counts.invalid > 0 ? 1 : 0;
  },
};

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

/** A directory stands for the YAML files below it, in a stable order. */
function expand(path: string, cwd: string): string[] {
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
  return readdirSync(full, { withFileTypes: true })
    .sort((a, b) => compareStrings(a.name, b.name))
    .flatMap((e) => (e.isDirectory() ? expand(join(path, e.name), cwd) : /\.ya?ml$/.test(e.name) ? [join(path, e.name)] : []));
}
