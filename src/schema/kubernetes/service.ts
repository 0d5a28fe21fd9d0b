// The API server's checks of a Service beyond its schema (ValidateService in
// pkg/apis/core/validation/validation.go of k8s.io/kubernetes).
import { FieldErrors } from './field-errors';
import { dns1123Label, ianaServiceName, portNumber } from './names';
import { checkLabels } from './object-meta';
import { PROTOCOLS } from './pod-spec';
import { isRecord } from '../../checks';

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const SESSION_AFFINITIES = ['ClientIP', 'None'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];

export function checkService(object: Record<string, unknown>, errors: FieldErrors): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  const type = spec.type ?? 'ClusterIP';
  if (!TYPES.includes(type as string)) errors.notSupported('spec.type', type, TYPES);
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  if (ports.length === 0 && type !== 'ExternalName' && spec.clusterIP !== 'None') errors.required('spec.ports');
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((p, i) => {
    if (!isRecord(p)) return;
    const at = `spec.ports[${i}]`;
    if (typeof p.name === 'string' && p.name !== '') {
      errors.invalidEach(`${at}.name`, p.name, dns1123Label(p.name));
      if (names.has(p.name)) errors.duplicate(`${at}.name`, p.name);
      names.add(p.name);
    } else if (ports.length > 1) {
      errors.required(`${at}.name`);
    }
    if (typeof p.port === 'number') errors.invalidEach(`${at}.port`, p.port, portNumber(p.port));
    const protocol = p.protocol ?? 'TCP';
    if (!PROTOCOLS.includes(protocol as string)) errors.notSupported(`${at}.protocol`, protocol, PROTOCOLS);
    const key = `${String(p.port)}/${String(protocol)}`;
    if (keys.has(key)) errors.duplicate(at, { port: p.port, protocol });
    keys.add(key);
    if (typeof p.targetPort === 'number') errors.invalidEach(`${at}.targetPort`, p.targetPort, portNumber(p.targetPort));
    else if (typeof p.targetPort === 'string') errors.invalidEach(`${at}.targetPort`, p.targetPort, ianaServiceName(p.targetPort));
    if (p.nodePort !== undefined && p.nodePort !== 0 && type !== 'NodePort' && type !== 'LoadBalancer') {
      errors.forbidden(`${at}.nodePort`, 'may not be used when `type` is \'ClusterIP\'');
    }
  });
  if (spec.sessionAffinity !== undefined && !SESSION_AFFINITIES.includes(spec.sessionAffinity as string)) errors.notSupported('spec.sessionAffinity', spec.sessionAffinity, SESSION_AFFINITIES);
  for (const field of ['externalTrafficPolicy', 'internalTrafficPolicy']) {
    if (spec[field] !== undefined && !TRAFFIC_POLICIES.includes(spec[field] as string)) errors.notSupported(`spec.${field}`, spec[field], TRAFFIC_POLICIES);
  }
  checkLabels(spec.selector, 'spec.selector', errors);
  // ValidateService: an ExternalName Service names its target; a LoadBalancer has a cluster IP.
  if (type === 'ExternalName' && (spec.externalName === undefined || spec.externalName === '')) errors.required('spec.externalName');
  if (type === 'LoadBalancer' && spec.clusterIP === 'None') errors.invalid('spec.clusterIPs[0]', 'None', 'may not be set to \'None\' for LoadBalancer services');
}
