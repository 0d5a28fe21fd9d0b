// The API server's checks of metadata (k8s.io/apimachinery/pkg/api/validation/objectmeta.go).
import { FieldErrors } from './field-errors';
import { dns1035Label, dns1123Label, dns1123Subdomain, labelValue, pathSegmentName, qualifiedName } from './names';
import { isRecord } from '../../checks';

/** A check of an object's name. */
export type NameRule = (name: string) => string[];

/** What a built-in kind's names must be: most are DNS-1123 subdomains; these are not. */
const NAME_RULES: Record<string, NameRule> = {
  Namespace: dns1123Label,
  Role: pathSegmentName,
  ClusterRole: pathSegmentName,
  RoleBinding: pathSegmentName,
  ClusterRoleBinding: pathSegmentName,
  HorizontalPodAutoscaler: pathSegmentName,
};

const ANNOTATIONS_MAX_BYTES = 256 * 1024;

/**
 * The names a built-in kind takes in a Kubernetes minor. Services' were DNS-1035 labels (a letter
 * first) until RelaxedServiceNameValidation, on by default from 1.36 (pkg/features/kube_features.go).
 */
export function nameRuleOf(kind: string, minor: number): NameRule {
  if (kind === 'Service') return minor >= 36 ? dns1123Label : dns1035Label;
  return NAME_RULES[kind] ?? dns1123Subdomain;
}

/** Checks an object's metadata: its name (by `nameRule`), namespace, labels and annotations. */
export function checkObjectMeta(nameRule: NameRule, metadata: unknown, errors: FieldErrors): void {
  if (!isRecord(metadata)) {
    errors.required('metadata.name', 'name or generateName is required');
    return;
  }
  const { name, generateName, namespace } = metadata;
  if (typeof name === 'string' && name !== '') {
    errors.invalidEach('metadata.name', name, nameRule(name));
  } else if (typeof generateName !== 'string' || generateName === '') {
    errors.required('metadata.name', 'name or generateName is required');
  }
  if (typeof namespace === 'string' && namespace !== '') errors.invalidEach('metadata.namespace', namespace, dns1123Label(namespace));
  checkLabels(metadata.labels, 'metadata.labels', errors);
  if (isRecord(metadata.annotations)) {
    let bytes = 0;
    for (const [key, value] of Object.entries(metadata.annotations)) {
      errors.invalidEach('metadata.annotations', key, qualifiedName(key.toLowerCase()));
      bytes += Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) : 0);
    }
    if (bytes > ANNOTATIONS_MAX_BYTES) errors.tooLong('metadata.annotations', ANNOTATIONS_MAX_BYTES);
  }
}

/** Checks a label map (an object's labels, a selector's matchLabels, a Service's selector). */
export function checkLabels(labels: unknown, path: string, errors: FieldErrors): void {
  if (!isRecord(labels)) return;
  for (const [key, value] of Object.entries(labels)) {
    errors.invalidEach(path, key, qualifiedName(key));
    if (typeof value === 'string') errors.invalidEach(path, value, labelValue(value));
  }
}

/** Checks a label selector's `matchLabels` and `matchExpressions`. */
export function checkLabelSelector(selector: unknown, path: string, errors: FieldErrors): void {
  if (!isRecord(selector)) return;
  checkLabels(selector.matchLabels, `${path}.matchLabels`, errors);
  if (!Array.isArray(selector.matchExpressions)) return;
  selector.matchExpressions.forEach((e, i) => {
    if (!isRecord(e)) return;
    const at = `${path}.matchExpressions[${i}]`;
    if (typeof e.key === 'string') errors.invalidEach(`${at}.key`, e.key, qualifiedName(e.key));
    const values = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errors.required(`${at}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\'');
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errors.forbidden(`${at}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\'');
        break;
      case undefined:
        break;
      default:
        errors.invalid(`${at}.operator`, e.operator, 'not a valid selector operator');
    }
  });
}

/** Whether a label selector selects these labels (a `matchExpressions` the check cannot read: true). */
export function selects(selector: Record<string, unknown>, labels: Record<string, unknown>): boolean {
  const matchLabels = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  if (!Object.entries(matchLabels).every(([k, v]) => labels[k] === v)) return false;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  return expressions.every((e) => {
    if (!isRecord(e) || typeof e.key !== 'string') return true;
    const values = Array.isArray(e.values) ? e.values : [];
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    switch (e.operator) {
      case 'In': return has && values.includes(labels[e.key]);
      case 'NotIn': return !has || !values.includes(labels[e.key]);
      case 'Exists': return has;
      case 'DoesNotExist': return !has;
      default: return true;
    }
  });
}
