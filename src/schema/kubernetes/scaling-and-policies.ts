// The API server's checks beyond the schema of the other kinds this library renders or users commonly
// write beside it (k8s.io/kubernetes pkg/apis/{autoscaling,policy,networking,core}/validation):
// HorizontalPodAutoscaler, PodDisruptionBudget, NetworkPolicy and PersistentVolumeClaim.
import { FieldErrors } from './field-errors';
import { percent, portNumber } from './names';
import { checkLabelSelector } from './object-meta';
import { PROTOCOLS } from './pod-spec';
import { quantityValue } from './quantity';
import { isRecord } from '../../checks';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const POLICY_TYPES = ['Egress', 'Ingress'];

/**
 * Checks an autoscaler's replica bounds. Scaling to zero (HPAScaleToZero, on by default from 1.37)
 * takes an Object or External metric.
 */
export function checkHorizontalPodAutoscaler(object: Record<string, unknown>, minor: number, errors: FieldErrors): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const { minReplicas, maxReplicas } = spec;
  const toZero = minor >= 37 && minReplicas === 0;
  if (toZero) {
    const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
    if (!metrics.some((m) => isRecord(m) && (m.type === 'Object' || m.type === 'External'))) errors.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas');
  } else if (typeof minReplicas === 'number' && minReplicas < 1) {
    errors.invalid('spec.minReplicas', minReplicas, 'must be greater than or equal to 1');
  }
  if (typeof maxReplicas === 'number') {
    if (maxReplicas < 1) errors.invalid('spec.maxReplicas', maxReplicas, 'must be greater than 0');
    else if (typeof minReplicas === 'number' && maxReplicas < minReplicas) errors.invalid('spec.maxReplicas', maxReplicas, 'must be greater than or equal to `minReplicas`');
  }
}

export function checkPodDisruptionBudget(object: Record<string, unknown>, errors: FieldErrors): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const set = ['minAvailable', 'maxUnavailable'].filter((f) => spec[f] !== undefined && spec[f] !== null);
  if (set.length === 2) errors.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set');
  for (const field of set) {
    const v = spec[field];
    const at = `spec.${field}`;
    if (typeof v === 'number' && v < 0) errors.invalid(at, v, 'must be greater than or equal to 0');
    if (typeof v === 'string') errors.invalidEach(at, v, percent(v, true));
  }
  checkLabelSelector(spec.selector, 'spec.selector', errors);
}

export function checkNetworkPolicy(object: Record<string, unknown>, errors: FieldErrors): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  checkLabelSelector(spec.podSelector, 'spec.podSelector', errors);
  for (const [i, t] of (Array.isArray(spec.policyTypes) ? spec.policyTypes : []).entries()) {
    if (!POLICY_TYPES.includes(t as string)) errors.notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES);
  }
  for (const direction of ['ingress', 'egress'] as const) {
    const peers = direction === 'ingress' ? 'from' : 'to';
    (Array.isArray(spec[direction]) ? spec[direction] as unknown[] : []).forEach((rule, i) => {
      if (!isRecord(rule)) return;
      const at = `spec.${direction}[${i}]`;
      (Array.isArray(rule.ports) ? rule.ports : []).forEach((p, j) => {
        if (!isRecord(p)) return;
        if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol as string)) errors.notSupported(`${at}.ports[${j}].protocol`, p.protocol, PROTOCOLS);
        if (typeof p.port === 'number') errors.invalidEach(`${at}.ports[${j}].port`, p.port, portNumber(p.port));
        if (typeof p.endPort === 'number' && typeof p.port === 'number' && p.endPort < p.port) errors.invalid(`${at}.ports[${j}].endPort`, p.endPort, 'must be greater than or equal to `port`');
      });
      (Array.isArray(rule[peers]) ? rule[peers] as unknown[] : []).forEach((peer, j) => {
        if (!isRecord(peer)) return;
        const set = ['podSelector', 'namespaceSelector', 'ipBlock'].filter((f) => peer[f] !== undefined && peer[f] !== null);
        if (set.length === 0) errors.required(`${at}.${peers}[${j}]`, 'must specify a peer');
        if (peer.ipBlock !== undefined && set.length > 1) errors.forbidden(`${at}.${peers}[${j}]`, 'may not specify both ipBlock and another peer');
        checkLabelSelector(peer.podSelector, `${at}.${peers}[${j}].podSelector`, errors);
        checkLabelSelector(peer.namespaceSelector, `${at}.${peers}[${j}].namespaceSelector`, errors);
      });
    });
  }
}

export function checkPersistentVolumeClaim(object: Record<string, unknown>, errors: FieldErrors): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) errors.required('spec.accessModes', 'at least 1 access mode is required');
  modes.forEach((m, i) => {
    if (!ACCESS_MODES.includes(m as string)) errors.notSupported(`spec.accessModes[${i}]`, m, ACCESS_MODES);
  });
  const requests = isRecord(spec.resources) && isRecord(spec.resources.requests) ? spec.resources.requests : {};
  const storage = requests.storage;
  if (storage === undefined || storage === null) {
    errors.required('spec.resources.requests[storage]');
  } else {
    const amount = quantityValue(storage);
    if (amount !== undefined && amount <= 0) errors.invalid('spec.resources.requests[storage]', storage, 'must be greater than zero');
  }
}
