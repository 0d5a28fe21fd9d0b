/**
 * Hand-made broken objects that a real Kubernetes API server refuses (test/apiserver/validate-gap.test.ts
 * proves it on every tested minor), each with the field the server names. Those marked `serverOnly`
 * are the gap of `validate`'s offline checks, listed in docs/validate.md.
 */

/** One broken object. */
export interface BrokenObject {
  /** What is wrong, as docs/validate.md lists it. */
  readonly what: string;
  readonly object: Record<string, any>;
  /** The field path the server's message names (and `validate` reports, unless `serverOnly`). */
  readonly field: string;
  /** What the server's message holds where it names no field (decoding errors, unserved versions). */
  readonly serverSays?: string;
  /** Broken only from this minor on (e.g. 37 for Kubernetes 1.37). */
  readonly since?: number;
  /** Broken only before this minor (a rule relaxed then). */
  readonly before?: number;
  /** `validate` offline does not catch it: only the server does. */
  readonly serverOnly?: true;
}

const container = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'registry.example/app:1', ...extra });

/** A valid Deployment with its pod spec changed. */
function deployment(pod: Record<string, unknown> = {}, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'broken', ...metadata },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'x' } },
      template: { metadata: { labels: { app: 'x' } }, spec: { containers: [container()], ...pod } },
      ...spec,
    },
  };
}

const withContainer = (extra: Record<string, unknown>) => deployment({ containers: [container(extra)] });
/** A Deployment with one volume of this source (mounted nowhere). */
const withVolume = (source: Record<string, unknown>) => deployment({ volumes: [{ name: 'v', ...source }] });
const service = (spec: Record<string, unknown>, name = 'broken') => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }], ...spec } });
const configMap = (extra: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'broken' }, ...extra });
const pvc = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'broken' }, spec });
const hpa = (spec: Record<string, unknown>) => ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'broken' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' }, maxReplicas: 3, ...spec } });
const probe = (handlers: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...handlers, ...extra });
const httpGet = { httpGet: { path: '/', port: 8080 } };

export const BROKEN_OBJECTS: readonly BrokenObject[] = [
  // Unknown fields and wrong types: strict field validation.
  { what: 'an unknown field in a container', object: withContainer({ imagePullPolicyy: 'Always' }), field: 'spec.template.spec.containers[0].imagePullPolicyy' },
  { what: 'an unknown field in a spec', object: deployment({}, { replica: 2 }), field: 'spec.replica' },
  { what: 'an unknown field in metadata', object: deployment({}, {}, { label: { a: 'b' } }), field: 'metadata.label' },
  { what: 'a number where a string goes (an env value)', object: withContainer({ env: [{ name: 'A', value: 1 }] }), field: 'spec.template.spec.containers[0].env[0].value', serverSays: 'cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string' },
  { what: 'a string where an integer goes (replicas)', object: deployment({}, { replicas: '3' }), field: 'spec.replicas' },
  { what: 'a quantity that does not parse', object: withContainer({ resources: { requests: { memory: '1 GB' } } }), field: 'spec.template.spec.containers[0].resources.requests[memory]', serverSays: 'quantities must match the regular expression' },
  { what: 'an API version the release no longer serves', object: { ...hpa({}), apiVersion: 'autoscaling/v2beta2' }, field: 'apiVersion', serverSays: 'no matches for kind' },
  // Names and labels.
  { what: 'an object name that is not a DNS subdomain', object: deployment({}, {}, { name: 'Bad_Name' }), field: 'metadata.name' },
  { what: 'an object name over 253 characters', object: deployment({}, {}, { name: 'a'.repeat(254) }), field: 'metadata.name' },
  { what: 'a namespace that is not a DNS label', object: deployment({}, {}, { namespace: 'Team_A' }), field: 'metadata.namespace', serverSays: 'namespaces "Team_A" not found' },
  { what: 'a label key that is not a qualified name', object: deployment({}, {}, { labels: { 'bad key!': 'x' } }), field: 'metadata.labels' },
  { what: 'a label value with a space', object: deployment({}, {}, { labels: { team: 'a b' } }), field: 'metadata.labels' },
  { what: 'a label value over 63 characters', object: deployment({}, {}, { labels: { team: 'a'.repeat(64) } }), field: 'metadata.labels' },
  { what: 'an annotation key with two slashes', object: deployment({}, {}, { annotations: { 'a/b/c': 'x' } }), field: 'metadata.annotations' },
  { what: 'a Service name that starts with a digit (before 1.36)', object: service({}, '1api'), field: 'metadata.name', before: 36 },
  { what: 'a container name in capitals', object: withContainer({ name: 'App' }), field: 'spec.template.spec.containers[0].name' },
  { what: 'a port name that is not an IANA service name', object: withContainer({ ports: [{ containerPort: 80, name: 'http_port' }] }), field: 'spec.template.spec.containers[0].ports[0].name' },
  { what: 'an environment variable name with "="', object: withContainer({ env: [{ name: 'A=B', value: 'x' }] }), field: 'spec.template.spec.containers[0].env[0].name' },
  { what: 'an environment variable name starting with a digit (before 1.32)', object: withContainer({ env: [{ name: '1ST', value: 'x' }] }), field: 'spec.template.spec.containers[0].env[0].name', before: 32 },
  { what: 'a ConfigMap key with a space', object: configMap({ data: { 'bad key': 'x' } }), field: 'data[bad key]' },
  // Duplicates and references.
  { what: 'two containers of one name', object: deployment({ containers: [container(), container({ image: 'other' })] }), field: 'spec.template.spec.containers[1].name' },
  { what: 'two volumes of one name', object: deployment({ volumes: [{ name: 'v', emptyDir: {} }, { name: 'v', emptyDir: {} }] }), field: 'spec.template.spec.volumes[1].name' },
  { what: 'two ports of one name in a container', object: withContainer({ ports: [{ containerPort: 80, name: 'http' }, { containerPort: 81, name: 'http' }] }), field: 'spec.template.spec.containers[0].ports[1].name' },
  { what: 'two mounts at one path', object: deployment({ containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/x' }, { name: 'w', mountPath: '/x' }] })], volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] }), field: 'spec.template.spec.containers[0].volumeMounts[1].mountPath' },
  { what: 'a mount of a volume that does not exist', object: withContainer({ volumeMounts: [{ name: 'missing', mountPath: '/x' }] }), field: 'spec.template.spec.containers[0].volumeMounts[0].name' },
  { what: 'a volume of two types', object: deployment({ volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'c' } }] }), field: 'spec.template.spec.volumes[0].configMap' },
  { what: 'a key both in data and binaryData', object: configMap({ data: { a: 'x' }, binaryData: { a: 'eA==' } }), field: 'data[a]' },
  { what: 'two Service ports without names', object: service({ ports: [{ port: 80 }, { port: 81 }] }), field: 'spec.ports[0].name' },
  // Selectors and templates.
  { what: 'a selector that does not match the template\'s labels', object: deployment({}, { selector: { matchLabels: { app: 'y' } } }), field: 'spec.template.metadata.labels' },
  { what: 'an empty selector', object: deployment({}, { selector: {} }), field: 'spec.selector' },
  { what: 'a selector operator that does not exist', object: deployment({}, { selector: { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] } }), field: 'spec.selector.matchExpressions[0].operator' },
  { what: 'restartPolicy Never in a Deployment', object: deployment({ restartPolicy: 'Never' }), field: 'spec.template.spec.restartPolicy' },
  { what: 'a Job whose pods restart Always (the default)', object: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'broken' }, spec: { template: { spec: { containers: [container()] } } } }, field: 'spec.template.spec.restartPolicy' },
  // Ranges and allowed values.
  { what: 'negative replicas', object: deployment({}, { replicas: -1 }), field: 'spec.replicas' },
  { what: 'a container port of 70000', object: withContainer({ ports: [{ containerPort: 70000 }] }), field: 'spec.template.spec.containers[0].ports[0].containerPort' },
  { what: 'a Service port of 0', object: service({ ports: [{ port: 0 }] }), field: 'spec.ports[0].port' },
  { what: 'a probe on port 0', object: withContainer({ readinessProbe: { httpGet: { path: '/', port: 0 } } }), field: 'spec.template.spec.containers[0].readinessProbe.httpGet.port' },
  { what: 'requests above limits', object: withContainer({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }), field: 'spec.template.spec.containers[0].resources.requests' },
  { what: 'requests above limits in exbibytes', object: withContainer({ resources: { requests: { memory: '2Ei' }, limits: { memory: '1Ei' } } }), field: 'spec.template.spec.containers[0].resources.requests' },
  { what: 'requests above limits in exa', object: withContainer({ resources: { requests: { cpu: '2E' }, limits: { cpu: '1E' } } }), field: 'spec.template.spec.containers[0].resources.requests' },
  { what: 'an extended resource requested without a limit', object: withContainer({ resources: { requests: { 'nvidia.com/gpu': 1 } } }), field: 'spec.template.spec.containers[0].resources.limits' },
  { what: 'a resource name that is not standard nor qualified', object: withContainer({ resources: { limits: { gpu: 1 } } }), field: 'spec.template.spec.containers[0].resources.limits[gpu]' },
  { what: 'a negative CPU request', object: withContainer({ resources: { requests: { cpu: '-1' } } }), field: 'spec.template.spec.containers[0].resources.requests[cpu]' },
  { what: 'an imagePullPolicy that does not exist', object: withContainer({ imagePullPolicy: 'Sometimes' }), field: 'spec.template.spec.containers[0].imagePullPolicy' },
  { what: 'a port protocol that does not exist', object: withContainer({ ports: [{ containerPort: 80, protocol: 'HTTP' }] }), field: 'spec.template.spec.containers[0].ports[0].protocol' },
  { what: 'a Service type that does not exist', object: service({ type: 'Internal' }), field: 'spec.type' },
  { what: 'a container without an image', object: deployment({ containers: [{ name: 'app' }] }), field: 'spec.template.spec.containers[0].image' },
  { what: 'a Deployment without containers', object: deployment({ containers: [] }), field: 'spec.template.spec.containers' },
  // Fields that exclude each other.
  { what: '`value` with `valueFrom`', object: withContainer({ env: [{ name: 'A', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }), field: 'spec.template.spec.containers[0].env[0].valueFrom' },
  { what: 'a probe with two handlers', object: withContainer({ livenessProbe: probe(httpGet, { tcpSocket: { port: 8080 } }) }), field: 'spec.template.spec.containers[0].livenessProbe.tcpSocket' },
  { what: 'a probe without a handler', object: withContainer({ livenessProbe: { periodSeconds: 5 } }), field: 'spec.template.spec.containers[0].livenessProbe' },
  { what: 'a liveness probe with successThreshold 2', object: withContainer({ livenessProbe: probe(httpGet, { successThreshold: 2 }) }), field: 'spec.template.spec.containers[0].livenessProbe.successThreshold' },
  { what: 'a rollingUpdate with the Recreate strategy', object: deployment({}, { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }), field: 'spec.strategy.rollingUpdate' },
  { what: 'maxUnavailable and maxSurge both 0', object: deployment({}, { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }), field: 'spec.strategy.rollingUpdate.maxUnavailable' },
  { what: 'maxSurge "50" (a percent needs "%")', object: deployment({}, { strategy: { rollingUpdate: { maxSurge: '50' } } }), field: 'spec.strategy.rollingUpdate.maxSurge' },
  { what: 'a PodDisruptionBudget with minAvailable and maxUnavailable', object: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'broken' }, spec: { minAvailable: 1, maxUnavailable: 1, selector: { matchLabels: { app: 'x' } } } }, field: 'spec' },
  // Paths.
  { what: 'a subPath with ".."', object: deployment({ containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/x', subPath: '../x' }] })], volumes: [{ name: 'v', emptyDir: {} }] }), field: 'spec.template.spec.containers[0].volumeMounts' },
  { what: 'an absolute subPath', object: deployment({ containers: [container({ volumeMounts: [{ name: 'v', mountPath: '/x', subPath: '/etc' }] })], volumes: [{ name: 'v', emptyDir: {} }] }), field: 'spec.template.spec.containers[0].volumeMounts' },
  { what: 'a configMap volume item path with ".."', object: withVolume({ configMap: { name: 'c', items: [{ key: 'k', path: 'a/../../x' }] } }), field: 'spec.template.spec.volumes[0].configMap.items[0].path' },
  { what: 'an absolute secret volume item path', object: withVolume({ secret: { secretName: 's', items: [{ key: 'k', path: '/etc/x' }] } }), field: 'spec.template.spec.volumes[0].secret.items[0].path' },
  { what: 'a downwardAPI file path starting with ".."', object: withVolume({ downwardAPI: { items: [{ path: '..x', fieldRef: { fieldPath: 'metadata.name' } }] } }), field: 'spec.template.spec.volumes[0].downwardAPI.path' },
  { what: 'a projected configMap item path with ".."', object: withVolume({ projected: { sources: [{ configMap: { name: 'c', items: [{ key: 'k', path: '../x' }] } }] } }), field: 'spec.template.spec.volumes[0].projected.sources[0].configMap.items[0].path' },
  { what: 'a projected source with two kinds', object: withVolume({ projected: { sources: [{ configMap: { name: 'c' }, secret: { name: 's' } }] } }), field: 'spec.template.spec.volumes[0].projected.sources[0]' },
  { what: 'a volume defaultMode above 0777', object: withVolume({ configMap: { name: 'c', defaultMode: 0o1000 } }), field: 'spec.template.spec.volumes[0].configMap.defaultMode' },
  { what: 'a volume item mode below 0', object: withVolume({ secret: { secretName: 's', items: [{ key: 'k', path: 'k', mode: -1 }] } }), field: 'spec.template.spec.volumes[0].secret.items[0].mode' },
  { what: 'a hostPath type that does not exist', object: withVolume({ hostPath: { path: '/data', type: 'Dir' } }), field: 'spec.template.spec.volumes[0].hostPath.type' },
  // Other kinds.
  { what: 'a Secret whose data is not base64', object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'broken' }, data: { a: 'not base64!' } }, field: 'data' },
  { what: 'a TLS Secret without tls.key', object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'broken' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==' } }, field: 'data[tls.key]' },
  { what: 'a PersistentVolumeClaim without access modes', object: pvc({ resources: { requests: { storage: '1Gi' } } }), field: 'spec.accessModes' },
  { what: 'a PersistentVolumeClaim without a storage request', object: pvc({ accessModes: ['ReadWriteOnce'] }), field: 'spec.resources' },
  { what: 'an autoscaler with maxReplicas below minReplicas', object: hpa({ minReplicas: 5, maxReplicas: 2 }), field: 'spec.maxReplicas' },
  { what: 'an autoscaler with minReplicas 0 (before 1.37)', object: hpa({ minReplicas: 0 }), field: 'spec.minReplicas', before: 37 },
  { what: 'an autoscaler scaling to zero on resource metrics only (1.37 on)', object: hpa({ minReplicas: 0 }), field: 'spec.metrics', since: 37 },
  { what: 'a NetworkPolicy type that does not exist', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'broken' }, spec: { podSelector: {}, policyTypes: ['Both'] } }, field: 'spec.policyTypes[0]' },
  // Checked offline too, beyond the schema.
  { what: 'a securityContext runAsUser below 0', object: deployment({ securityContext: { runAsUser: -1 } }), field: 'spec.template.spec.securityContext.runAsUser' },
  { what: 'a dnsPolicy that does not exist', object: deployment({ dnsPolicy: 'Bogus' }), field: 'spec.template.spec.dnsPolicy' },
  { what: 'a terminationMessagePolicy that does not exist', object: withContainer({ terminationMessagePolicy: 'Bogus' }), field: 'spec.template.spec.containers[0].terminationMessagePolicy' },
  { what: 'a Service sessionAffinity that does not exist', object: service({ sessionAffinity: 'Sticky' }), field: 'spec.sessionAffinity' },
  { what: 'progressDeadlineSeconds not above minReadySeconds', object: deployment({}, { minReadySeconds: 10, progressDeadlineSeconds: 5 }), field: 'spec.progressDeadlineSeconds' },
  { what: 'a toleration with operator Exists and a value', object: deployment({ tolerations: [{ key: 'a', operator: 'Exists', value: 'b' }] }), field: 'spec.template.spec.tolerations[0].operator' },
  { what: 'a RoleBinding to a kind that is not a role', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'broken' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Deployment', name: 'x' }, subjects: [] }, field: 'roleRef.kind' },
  { what: 'an Ingress pathType that does not exist', object: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'broken' }, spec: { rules: [{ http: { paths: [{ path: '/', pathType: 'Any', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } }, field: 'spec.rules[0].http.paths[0].pathType' },
  { what: 'four DNS nameservers', object: deployment({ dnsPolicy: 'None', dnsConfig: { nameservers: ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'] } }), field: 'spec.template.spec.dnsConfig.nameservers' },
  { what: 'a topology spread maxSkew of 0', object: deployment({ topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'x' } } }] }), field: 'spec.template.spec.topologySpreadConstraints[0].maxSkew' },
  { what: 'a nodeSelector key that is not a qualified name', object: deployment({ nodeSelector: { 'bad key!': 'x' } }), field: 'spec.template.spec.nodeSelector' },
  { what: 'an ExternalName Service without externalName', object: service({ type: 'ExternalName', selector: undefined }), field: 'spec.externalName' },
  { what: 'a headless LoadBalancer Service', object: service({ type: 'LoadBalancer', clusterIP: 'None' }), field: 'spec.clusterIPs[0]' },
  // What only the server catches: the cluster's state and configuration...
  { what: 'a namespace that does not exist', object: deployment({}, {}, { namespace: 'nowhere' }), field: 'metadata.namespace', serverSays: 'namespaces "nowhere" not found', serverOnly: true },
  { what: 'a privileged pod in a namespace that enforces Pod Security `restricted` (admission)', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'broken' }, spec: { containers: [container({ securityContext: { privileged: true } })] } }, field: 'spec', serverSays: 'violates PodSecurity "restricted:latest"', serverOnly: true },
  { what: 'a clusterIP outside the cluster\'s service range', object: service({ clusterIP: '10.0.0.10' }), field: 'spec.clusterIPs', serverOnly: true },
  // ... and rules of the server's that validate does not have.
  { what: 'a CronJob schedule that does not parse', object: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'broken' }, spec: { schedule: '*/5 * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [container()] } } } } } }, field: 'spec.schedule', serverOnly: true },
  { what: 'privileged with allowPrivilegeEscalation false', object: withContainer({ securityContext: { privileged: true, allowPrivilegeEscalation: false } }), field: 'spec.template.spec.containers[0].securityContext', serverOnly: true },
  { what: 'a hostPort other than the containerPort under hostNetwork', object: deployment({ hostNetwork: true, containers: [container({ ports: [{ containerPort: 80, hostPort: 81 }] })] }), field: 'spec.template.spec.containers[0].ports[0].hostPort', serverOnly: true },
];

/**
 * Valid objects of the kinds and shapes the checks above touch, which the server accepts and `validate`
 * must accept too (no false alarm): the broken objects' counterparts, beyond what the library renders.
 */
export const VALID_OBJECTS: readonly Record<string, any>[] = [
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db' },
    spec: {
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [container({ volumeMounts: [{ name: 'data', mountPath: '/data' }] })] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  },
  { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' }, spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [container()] } } } },
  { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container()] } } } } } },
  service({ clusterIP: 'None', ports: [] }, 'headless'),
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } },
  service({ ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'metrics', port: 9090, targetPort: 9090 }] }, 'two-ports'),
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } },
  configMap({ data: { 'a.yaml': 'x' }, binaryData: { 'b.bin': 'AAE=' } }),
  deployment({
    initContainers: [{ name: 'sidecar', image: 'registry.example/sidecar:1', restartPolicy: 'Always', readinessProbe: { tcpSocket: { port: 9000 } } }],
    tolerations: [{ operator: 'Exists' }, { key: 'gpu', operator: 'Equal', value: 'a100', effect: 'NoSchedule' }],
    securityContext: { runAsUser: 1001, fsGroup: 1001 },
  }, { strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } }, minReadySeconds: 5, progressDeadlineSeconds: 600 }),
  withContainer({ resources: { requests: { 'nvidia.com/gpu': 1, 'cpu': 1 }, limits: { 'nvidia.com/gpu': '1', 'memory': '1Gi' } }, env: [{ name: 'FROM_FIELD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }),
  deployment({
    volumes: [
      { name: 'c', configMap: { name: 'c', defaultMode: 0o644, items: [{ key: 'k', path: 'a/b..c', mode: 0o600 }, { key: 'l', path: 'x..' }] } },
      { name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      { name: 'p', projected: { defaultMode: 0o444, sources: [{ secret: { name: 's', items: [{ key: 'k', path: 'dir/k' }] } }, { serviceAccountToken: { path: 'token' } }] } },
      { name: 'h', hostPath: { path: '/data', type: 'DirectoryOrCreate' } },
    ],
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    dnsConfig: { nameservers: ['10.0.0.1', '10.0.0.2', '10.0.0.3'] },
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'x' } } }],
  }),
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb' }, spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'x' } } } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'crb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }] },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: { rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } },
];
