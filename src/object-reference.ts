// Objects the constructs refer to by name (a Secret, a ConfigMap, a ServiceAccount, a claim): given as
// the name, or as any object that has one, so a cdk8s-plus `ISecret`, `IConfigMap`, `IServiceAccount`
// or `IPersistentVolumeClaim` of whichever major the app uses, or a cdk8s `ApiObject`, is taken as is.
// Structural on purpose: depending on one cdk8s-plus major would pin it into every user's project.
import { isRecord, ShapeChecker, SUBDOMAIN_HINT } from './checks';
import type { ProblemCollector } from './errors';
import { DNS1123_SUBDOMAIN } from './name-patterns';

/**
 * An object with a name: a cdk8s-plus `ISecret`, `IConfigMap`, `IServiceAccount`,
 * `IPersistentVolumeClaim` (any major), or a cdk8s `ApiObject`.
 */
export interface NamedObject {
  /** The object's name. */
  readonly name: string;
  /**
   * The object's metadata; a namespace given there must be the construct's.
   * @default - the construct's namespace
   */
  readonly metadata?: { readonly namespace?: string };
}

/** An object of the construct's namespace: its name, or the object itself. */
export type ObjectReference = string | NamedObject;

/** The name a reference refers to. */
export function nameOf(reference: ObjectReference): string {
  return typeof reference === 'string' ? reference : reference.name;
}

/** A construct's reference to an object its pods read, as its props hold it (unchecked), with the field and the kind (`a Secret`). */
export type ReferenceField = readonly [value: unknown, field: string, kind: string];

/** Checks each reference's shape ({@link checkReference}). */
export function checkReferences(check: ShapeChecker, references: readonly ReferenceField[]): void {
  for (const [value, field, kind] of references) checkReference(check, value, field, kind);
}

/** Checks each reference's namespace ({@link checkReferenceNamespace}); their shapes were checked. */
export function checkReferencesNamespace(references: readonly ReferenceField[], namespace: string | undefined, problems: ProblemCollector): void {
  for (const [value, field, kind] of references) checkReferenceNamespace(value as ObjectReference | undefined, field, kind, namespace, problems);
}

/**
 * Checks a reference: a name that is a DNS-1123 subdomain, or an object whose `name` is. `kind` says
 * what is referred to (`a Secret`).
 */
export function checkReference(check: ShapeChecker, value: unknown, path: string, kind: string): void {
  const name = isRecord(value) ? value.name : value;
  if (isRecord(value) && typeof name !== 'string') {
    check.problems.add(path, `expected ${kind}'s name, or an object with a name (a cdk8s-plus or cdk8s object); this object has none.`);
    return;
  }
  check.string(name, isRecord(value) ? `${path}.name` : path, { pattern: DNS1123_SUBDOMAIN, patternHint: `${kind} name, ${SUBDOMAIN_HINT}` });
}

/**
 * A pod refers only to objects of its own namespace: a referred object placed in another one is a
 * problem (the kubelet would look for it in the pod's namespace and not find it).
 */
export function checkReferenceNamespace(
  reference: ObjectReference | undefined, path: string, kind: string, namespace: string | undefined, problems: ProblemCollector,
): void {
  const theirs = typeof reference === 'object' ? reference.metadata?.namespace : undefined;
  if (theirs !== undefined && theirs !== (namespace ?? 'default')) {
    problems.add(path, `${kind} '${nameOf(reference!)}' is in namespace '${theirs}', the pods in '${namespace ?? 'default'}': `
      + `a pod can only use ${kind.replace(/^an? /, '')}s of its own namespace. Create it in '${namespace ?? 'default'}', or put the construct in '${theirs}'.`);
  }
}
