// The API server's checks beyond the schema of role bindings and Ingresses
// (pkg/apis/rbac/validation and pkg/apis/networking/validation of k8s.io/kubernetes).
import { FieldErrors } from './field-errors';
import { isRecord } from '../../checks';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

/** Checks a RoleBinding's or ClusterRoleBinding's role reference and subjects. */
export function checkRoleBinding(kind: 'RoleBinding' | 'ClusterRoleBinding', object: Record<string, unknown>, errors: FieldErrors): void {
  const roleRef = isRecord(object.roleRef) ? object.roleRef : {};
  const roleKinds = kind === 'RoleBinding' ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (roleRef.kind !== undefined && !roleKinds.includes(roleRef.kind as string)) errors.notSupported('roleRef.kind', roleRef.kind, roleKinds);
  if (roleRef.apiGroup !== undefined && roleRef.apiGroup !== RBAC_GROUP) errors.notSupported('roleRef.apiGroup', roleRef.apiGroup, [RBAC_GROUP]);
  (Array.isArray(object.subjects) ? object.subjects : []).forEach((subject, i) => {
    if (!isRecord(subject)) return;
    const at = `subjects[${i}]`;
    if (!SUBJECT_KINDS.includes(subject.kind as string)) errors.notSupported(`${at}.kind`, subject.kind, SUBJECT_KINDS);
    else if (subject.kind === 'ServiceAccount' && kind === 'ClusterRoleBinding' && (typeof subject.namespace !== 'string' || subject.namespace === '')) errors.required(`${at}.namespace`);
  });
}

/** Checks an Ingress's paths: their types, and that Exact and Prefix paths are absolute. */
export function checkIngress(object: Record<string, unknown>, errors: FieldErrors): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  (Array.isArray(spec.rules) ? spec.rules : []).forEach((rule, i) => {
    const paths = isRecord(rule) && isRecord(rule.http) && Array.isArray(rule.http.paths) ? rule.http.paths : [];
    paths.forEach((p, j) => {
      if (!isRecord(p)) return;
      const at = `spec.rules[${i}].http.paths[${j}]`;
      if (!PATH_TYPES.includes(p.pathType as string)) errors.notSupported(`${at}.pathType`, p.pathType, PATH_TYPES);
      else if (p.pathType !== 'ImplementationSpecific' && typeof p.path === 'string' && !p.path.startsWith('/')) errors.invalid(`${at}.path`, p.path, 'must be an absolute path');
    });
  });
}
