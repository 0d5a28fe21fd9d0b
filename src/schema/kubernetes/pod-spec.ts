// The API server's checks of a pod's spec that its schema cannot express
// (pkg/apis/core/validation/validation.go of k8s.io/kubernetes: ValidatePodSpec and what it calls), as
// they apply to Pods and to the pod templates of workloads.
import { FieldErrors, uniqueName } from './field-errors';
import { dns1123Label, envVarName, ianaServiceName, portNumber } from './names';
import { checkLabels } from './object-meta';
import { quantityValue } from './quantity';
import { checkVolumes } from './volumes';
import { INT32_MAX, isRecord } from '../../checks';

/** Where a pod spec sits and what its owner allows. */
export interface PodSpecContext {
  /** Kubernetes minor, e.g. 37. */
  readonly minor: number;
  /** The restart policies the owner allows (Deployments: only `Always`). */
  readonly restartPolicies: readonly string[];
  /** Volumes the owner adds to its pods: a StatefulSet's claim templates. */
  readonly ownerVolumes?: readonly string[];
}

/** A pod's restart policies (a Pod's, or a Job's template's, may be any; a Deployment's only Always). */
export const RESTART_POLICIES: readonly string[] = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const TOLERATION_OPERATORS = ['Equal', 'Exists'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const ID_FIELDS = ['runAsUser', 'runAsGroup', 'fsGroup'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
/** A port's protocols. */
export const PROTOCOLS: readonly string[] = ['SCTP', 'TCP', 'UDP'];
const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const ENV_SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef'];
const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

/** Absent (a value of the wrong type is the schema check's to report). */
const missing = (value: unknown) => value === undefined || value === null || value === '';
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const records = (value: unknown): Array<Record<string, unknown>> => list(value).map((v) => (isRecord(v) ? v : {}));

/** Checks a pod spec at `path` (e.g. `spec.template.spec`). */
export function checkPodSpec(spec: unknown, path: string, context: PodSpecContext, errors: FieldErrors): void {
  if (!isRecord(spec)) return;
  const volumes = checkVolumes(spec.volumes, `${path}.volumes`, errors);
  context.ownerVolumes?.forEach((v) => volumes.add(v));
  const names = new Set<string>();
  const groups: Array<[string, string]> = [['initContainers', 'init'], ['containers', 'regular'], ['ephemeralContainers', 'ephemeral']];
  for (const [field, role] of groups) {
    records(spec[field]).forEach((c, i) => checkContainer(c, `${path}.${field}[${i}]`, role, volumes, names, context, errors));
  }
  if (Array.isArray(spec.containers) && spec.containers.length === 0) errors.required(`${path}.containers`);
  if (spec.restartPolicy === undefined) {
    // Defaulted to Always, which Jobs do not take.
    if (!context.restartPolicies.includes('Always')) errors.required(`${path}.restartPolicy`, `valid values: ${context.restartPolicies.map((p) => JSON.stringify(p)).join(', ')}`);
  } else {
    if (!RESTART_POLICIES.includes(spec.restartPolicy as string)) errors.notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES);
    else if (!context.restartPolicies.includes(spec.restartPolicy as string)) errors.notSupported(`${path}.restartPolicy`, spec.restartPolicy, context.restartPolicies);
  }
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy as string)) errors.notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES);
  checkIds(spec.securityContext, `${path}.securityContext`, errors);
  checkTolerations(spec.tolerations, `${path}.tolerations`, errors);
  checkLabels(spec.nodeSelector, `${path}.nodeSelector`, errors);
  // validatePodDNSConfig: MaxDNSNameservers.
  const nameservers = isRecord(spec.dnsConfig) ? list(spec.dnsConfig.nameservers) : [];
  if (nameservers.length > 3) errors.invalid(`${path}.dnsConfig.nameservers`, nameservers, 'must not have more than 3 nameservers');
  // validateTopologySpreadConstraints.
  records(spec.topologySpreadConstraints).forEach((c, i) => {
    if (typeof c.maxSkew === 'number' && c.maxSkew <= 0) errors.invalid(`${path}.topologySpreadConstraints[${i}].maxSkew`, c.maxSkew, 'must be greater than zero');
  });
  for (const field of ['terminationGracePeriodSeconds', 'activeDeadlineSeconds'] as const) {
    const v = spec[field];
    if (typeof v === 'number' && v < (field === 'activeDeadlineSeconds' ? 1 : 0)) errors.invalid(`${path}.${field}`, v, `must be greater than or equal to ${field === 'activeDeadlineSeconds' ? 1 : 0}`);
  }
}

function checkContainer(
  c: Record<string, unknown>, path: string, role: string, volumes: Set<string>, names: Set<string>, context: PodSpecContext, errors: FieldErrors,
): void {
  if (missing(c.name)) {errors.required(`${path}.name`);} else if (typeof c.name === 'string') {uniqueName(c.name, `${path}.name`, names, dns1123Label, errors);}
  if (role !== 'ephemeral' && (missing(c.image) || (typeof c.image === 'string' && c.image.trim() === ''))) errors.required(`${path}.image`);
  if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(c.imagePullPolicy as string)) errors.notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES);
  if (c.restartPolicy !== undefined) {
    // Only init containers restart on their own: `Always` makes one a sidecar (Kubernetes 1.29+).
    if (role !== 'init') errors.forbidden(`${path}.restartPolicy`, 'may not be set for non-init containers');
    else if (c.restartPolicy !== 'Always') errors.notSupported(`${path}.restartPolicy`, c.restartPolicy, ['Always']);
  }
  if (c.terminationMessagePolicy !== undefined && !TERMINATION_MESSAGE_POLICIES.includes(c.terminationMessagePolicy as string)) {
    errors.notSupported(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES);
  }
  checkIds(c.securityContext, `${path}.securityContext`, errors);
  checkPorts(c.ports, `${path}.ports`, errors);
  checkEnv(c, path, context, errors);
  checkMounts(c.volumeMounts, `${path}.volumeMounts`, volumes, errors);
  checkResources(c.resources, `${path}.resources`, errors);
  const sidecar = role === 'init' && c.restartPolicy === 'Always';
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (c[probe] === undefined || c[probe] === null) continue;
    if (role !== 'regular' && !sidecar) errors.forbidden(`${path}.${probe}`, `may not be set for ${role} containers`);
    else checkProbe(c[probe], `${path}.${probe}`, probe !== 'readinessProbe', errors);
  }
}

/** User and group ids: 0 to the largest int32. */
function checkIds(securityContext: unknown, path: string, errors: FieldErrors): void {
  if (!isRecord(securityContext)) return;
  for (const field of ID_FIELDS) {
    const v = securityContext[field];
    if (typeof v === 'number' && (v < 0 || v > INT32_MAX)) errors.invalid(`${path}.${field}`, v, `must be between 0 and ${INT32_MAX}, inclusive`);
  }
}

function checkTolerations(tolerations: unknown, path: string, errors: FieldErrors): void {
  records(tolerations).forEach((t, i) => {
    const at = `${path}[${i}]`;
    const operator = t.operator ?? 'Equal';
    if (!TOLERATION_OPERATORS.includes(operator as string)) errors.notSupported(`${at}.operator`, operator, TOLERATION_OPERATORS);
    else if (operator === 'Exists' && !missing(t.value)) errors.invalid(`${at}.operator`, t.value, "value must be empty when `operator` is 'Exists'");
    else if (missing(t.key) && operator !== 'Exists') errors.invalid(`${at}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"');
    if (!missing(t.effect) && !TAINT_EFFECTS.includes(t.effect as string)) errors.notSupported(`${at}.effect`, t.effect, TAINT_EFFECTS);
  });
}

function checkPorts(ports: unknown, path: string, errors: FieldErrors): void {
  const names = new Set<string>();
  records(ports).forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (typeof p.containerPort === 'number') errors.invalidEach(`${at}.containerPort`, p.containerPort, portNumber(p.containerPort));
    if (typeof p.hostPort === 'number' && p.hostPort !== 0) errors.invalidEach(`${at}.hostPort`, p.hostPort, portNumber(p.hostPort));
    if (typeof p.name === 'string' && p.name !== '') uniqueName(p.name, `${at}.name`, names, ianaServiceName, errors);
    if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol as string)) errors.notSupported(`${at}.protocol`, p.protocol, PROTOCOLS);
  });
}

function checkEnv(c: Record<string, unknown>, path: string, context: PodSpecContext, errors: FieldErrors): void {
  records(c.env).forEach((e, i) => {
    const at = `${path}.env[${i}]`;
    if (missing(e.name)) errors.required(`${at}.name`);
    else if (typeof e.name === 'string') errors.invalidEach(`${at}.name`, e.name, envVarName(e.name, context.minor));
    if (!isRecord(e.valueFrom)) return;
    if (typeof e.value === 'string' && e.value !== '') errors.invalid(`${at}.valueFrom`, '', 'may not be specified when `value` is not empty');
    const sources = ENV_SOURCES.filter((s) => isRecord(e.valueFrom) && e.valueFrom[s] !== undefined && e.valueFrom[s] !== null);
    if (sources.length === 0) errors.invalid(`${at}.valueFrom`, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`');
    else if (sources.length > 1) errors.invalid(`${at}.valueFrom`, '', 'may not have more than one field specified at a time');
  });
  records(c.envFrom).forEach((e, i) => {
    const sources = ['configMapRef', 'secretRef'].filter((s) => e[s] !== undefined && e[s] !== null);
    if (sources.length !== 1) errors.invalid(`${path}.envFrom[${i}]`, '', sources.length === 0 ? 'must specify one of: `configMapRef` or `secretRef`' : 'may not have more than one field specified at a time');
  });
}

function checkMounts(mounts: unknown, path: string, volumes: Set<string>, errors: FieldErrors): void {
  const paths = new Set<string>();
  records(mounts).forEach((m, i) => {
    const at = `${path}[${i}]`;
    if (typeof m.name === 'string' && m.name !== '' && !volumes.has(m.name)) errors.notFound(`${at}.name`, m.name);
    if (typeof m.mountPath === 'string') {
      if (m.mountPath === '') errors.required(`${at}.mountPath`);
      else if (paths.has(m.mountPath)) errors.invalid(`${at}.mountPath`, m.mountPath, 'must be unique');
      paths.add(m.mountPath);
    }
    for (const field of ['subPath', 'subPathExpr'] as const) {
      const sub = m[field];
      if (typeof sub !== 'string' || sub === '') continue;
      if (sub.startsWith('/')) errors.invalid(`${at}.${field}`, sub, 'must be a relative path');
      if (sub.split('/').includes('..')) errors.invalid(`${at}.${field}`, sub, "must not contain '..'");
    }
    if (typeof m.subPath === 'string' && m.subPath !== '' && typeof m.subPathExpr === 'string' && m.subPathExpr !== '') {
      errors.invalid(`${at}.subPathExpr`, m.subPathExpr, 'subPathExpr and subPath are mutually exclusive');
    }
  });
}

function checkResources(resources: unknown, path: string, errors: FieldErrors): void {
  if (!isRecord(resources)) return;
  const limits = isRecord(resources.limits) ? resources.limits : {};
  const requests = isRecord(resources.requests) ? resources.requests : {};
  for (const [field, map] of [['limits', limits], ['requests', requests]] as const) {
    for (const [name, value] of Object.entries(map)) {
      const at = `${path}.${field}[${name}]`;
      const native = !name.includes('/') || name.startsWith('kubernetes.io/');
      if (native && !CONTAINER_RESOURCES.has(name.replace(/^kubernetes\.io\//, '')) && !name.startsWith('hugepages-')) {
        errors.invalid(at, name, 'must be a standard resource for containers');
        continue;
      }
      const amount = quantityValue(value);
      if (amount !== undefined && amount < 0) errors.invalid(at, value, 'must be greater than or equal to 0');
    }
  }
  for (const [name, request] of Object.entries(requests)) {
    const requested = quantityValue(request);
    const limited = quantityValue(limits[name]);
    if (requested === undefined) continue;
    // Extended resources (`nvidia.com/gpu`) cannot be overcommitted.
    const extended = name.includes('/') && !name.startsWith('kubernetes.io/');
    if (extended && limited === undefined) {
      errors.required(`${path}.limits`, 'Limit must be set for non overcommitable resources');
    } else if (extended && limited !== requested) {
      errors.invalid(`${path}.requests`, request, `must be equal to ${name} limit of ${limits[name]}`);
    } else if (limited !== undefined && requested > limited) {
      errors.invalid(`${path}.requests`, request, `must be less than or equal to ${name} limit of ${limits[name]}`);
    }
  }
}

function checkProbe(probe: unknown, path: string, successThresholdOne: boolean, errors: FieldErrors): void {
  if (!isRecord(probe)) return;
  const handlers = PROBE_HANDLERS.filter((h) => probe[h] !== undefined && probe[h] !== null);
  if (handlers.length === 0) errors.required(path, 'must specify a handler type');
  else if (handlers.length > 1) errors.forbidden(`${path}.${handlers[1]}`, 'may not specify more than 1 handler type');
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const v = probe[field];
    if (typeof v === 'number' && v < 0) errors.invalid(`${path}.${field}`, v, 'must be greater than or equal to 0');
  }
  if (successThresholdOne && typeof probe.successThreshold === 'number' && probe.successThreshold !== 1) {
    errors.invalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1');
  }
  for (const handler of ['httpGet', 'tcpSocket'] as const) {
    const h = probe[handler];
    if (!isRecord(h)) continue;
    if (typeof h.port === 'number') errors.invalidEach(`${path}.${handler}.port`, h.port, portNumber(h.port));
    else if (typeof h.port === 'string') errors.invalidEach(`${path}.${handler}.port`, h.port, ianaServiceName(h.port));
  }
}
