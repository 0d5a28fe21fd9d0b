import type { CrdValidationResult } from './crd-validator';
import { apiGroupOf } from '../checks';
import { checkConfigData } from './kubernetes/config-data';
import { FieldErrors } from './kubernetes/field-errors';
import { checkObjectMeta, nameRuleOf } from './kubernetes/object-meta';
import { DEFAULT_KUBERNETES_MINOR, KubernetesOpenApi } from './kubernetes/openapi';
import { checkIngress, checkRoleBinding } from './kubernetes/rbac-and-ingress';
import { checkHorizontalPodAutoscaler, checkNetworkPolicy, checkPersistentVolumeClaim, checkPodDisruptionBudget } from './kubernetes/scaling-and-policies';
import { checkService } from './kubernetes/service';
import { checkWorkload, WORKLOAD_KINDS } from './kubernetes/workloads';

/** A kind's checks beyond its schema, for a Kubernetes minor. */
type KindCheck = (object: Record<string, unknown>, minor: number, errors: FieldErrors) => void;

/** The API server's checks beyond the schema, by kind (of the built-in groups only). */
const KIND_CHECKS: Record<string, KindCheck> = {
  ...Object.fromEntries(WORKLOAD_KINDS.map((kind): [string, KindCheck] => [kind, (o, m, e) => checkWorkload(kind, o, m, e)])),
  Service: (o, _m, e) => checkService(o, e),
  ConfigMap: (o, _m, e) => checkConfigData('ConfigMap', o, e),
  Secret: (o, _m, e) => checkConfigData('Secret', o, e),
  HorizontalPodAutoscaler: (o, m, e) => checkHorizontalPodAutoscaler(o, m, e),
  PodDisruptionBudget: (o, _m, e) => checkPodDisruptionBudget(o, e),
  NetworkPolicy: (o, _m, e) => checkNetworkPolicy(o, e),
  PersistentVolumeClaim: (o, _m, e) => checkPersistentVolumeClaim(o, e),
  RoleBinding: (o, _m, e) => checkRoleBinding('RoleBinding', o, e),
  ClusterRoleBinding: (o, _m, e) => checkRoleBinding('ClusterRoleBinding', o, e),
  Ingress: (o, _m, e) => checkIngress(o, e),
};

/**
 * Validates a core or built-in Kubernetes object as the API server of a Kubernetes minor would: against
 * the OpenAPI schema of its kind (unknown fields and wrong types are errors, as under kubectl's strict
 * field validation), then the server's own checks that no schema expresses (names and label syntax,
 * duplicate names, volume mounts naming no volume, selectors that miss the template, ranges). Returns
 * undefined when the apiVersion is of no built-in group (a custom resource).
 */
export function validateKubernetesObject(
  object: { apiVersion: string; kind: string },
  minor: string = DEFAULT_KUBERNETES_MINOR,
): CrdValidationResult | undefined {
  const api = KubernetesOpenApi.of(minor);
  const { apiVersion, kind } = object;
  if (!api.serves(apiVersion, kind)) {
    if (!api.servesGroup(apiGroupOf(apiVersion))) return undefined;
    const served = api.versionsOfKind(kind);
    const hint = served.length > 0 ? `; Kubernetes ${minor} serves it as ${served.map((v) => `${v} ${kind}`).join(', ')}` : '';
    return { valid: false, violations: [{ path: 'apiVersion', message: `Kubernetes ${minor} serves no ${apiVersion} ${kind}${hint}` }], notes: [] };
  }
  const errors = new FieldErrors();
  const record = object as unknown as Record<string, unknown>;
  const minorNumber = Number(minor.split('.')[1]);
  api.check(record, errors);
  checkObjectMeta(nameRuleOf(kind, minorNumber), record.metadata, errors);
  KIND_CHECKS[kind]?.(record, minorNumber, errors);
  return { valid: errors.violations.length === 0, violations: errors.violations, notes: [] };
}
