/**
 * `kube-inference render` of the OGX operator's `OGXServer` (ogx.io/v1beta1, ogx-ai/ogx-k8s-operator
 * v0.14.0): every sample of the operator (test/fixtures/ogx-samples, copied verbatim) renders as it is, and
 * each is compared, object by object, with what the operator's controller creates for it; the operator's
 * config-generator cases render through documents; the CRD's checks, the NetworkPolicy translation, the
 * monitoring rules and every warned field are exercised.
 *
 * What the operator creates is written below from its controller (read, not run: the operator's Go module
 * is not served here), per /tmp/research/ogx-operator.md §B, from:
 * - controllers/ogxserver_controller.go (reconcileResources, determineKindsToExclude: which objects),
 * - pkg/deploy/kustomizer.go and the kustomize base of controllers/manifests/base (names `<name>-…`,
 *   the Deployment unprefixed, selector `app: ogx` + `app.kubernetes.io/instance`),
 * - controllers/resource_helper.go (the container `ogx`: env, ports, mounts, volumes, the startup probe),
 * - pkg/deploy/plugins/service_transformer.go (the Service's metrics port),
 * - pkg/deploy/plugins/networkpolicy_transformer.go (the NetworkPolicy, its non-Praxis branch),
 * - controllers/network_resources.go (the Ingress), controllers/configmap_reconciler.go (the generated config).
 */
import { createHash } from 'crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { cli } from './run';
import { ProblemCollector } from '../../src/errors';
import { checkAgainstCrd } from '../../src/schema/ogx-server-crd';
import { Cluster } from '../apiserver/cluster';
import { describeWithApiServer, NEWEST_TESTED_MINOR } from '../apiserver/server';

const SAMPLES = join(__dirname, '..', 'fixtures', 'ogx-samples');
const CONFIGGEN = join(__dirname, '..', 'fixtures', 'ogx-configgen');
const ROOT = join(__dirname, '..', '..');

interface Rendered {
  readonly code: number;
  readonly objects: any[];
  readonly warnings: string[];
  readonly stderr: string;
}

/** Renders files or standard input; warnings without their `warning: <file> document N (…): ` prefix. */
async function render(args: string[], stdin?: string): Promise<Rendered> {
  const r = await cli(['render', ...args], { stdin });
  return {
    code: r.code,
    objects: r.code === 0 ? parseAllDocuments(r.stdout).map((d) => d.toJS()) : [],
    warnings: r.stderr.split('\n').filter((l) => l.startsWith('warning: ')).map((l) => l.replace(/^warning: \S+ document \d+ \([^)]*\): /, '')),
    stderr: r.stderr,
  };
}

const renderYaml = (text: string) => render(['-'], text);
const ogx = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'srv', namespace: 'ai' }) =>
  stringify({ apiVersion: 'ogx.io/v1beta1', kind: 'OGXServer', metadata, spec: { distribution: { name: 'starter' }, ...spec } });

const names = (objects: any[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`);
const of = (objects: any[], kind: string, name?: string) => objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
const podOf = (objects: any[], name?: string) => of(objects, 'Deployment', name).spec.template.spec;
const serverOf = (objects: any[], name?: string) => podOf(objects, name).containers[0];
const envOf = (container: any): Record<string, any> => Object.fromEntries((container.env ?? []).map((e: any) => [e.name, e.value ?? e.valueFrom]));
const mine = (objects: any[], name: string) => objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/instance'] === name);

// ---------------------------------------------------------------------------------------------------
// What the operator's controller creates for one OGXServer (the document as the API server stores it).
// ---------------------------------------------------------------------------------------------------

interface OperatorView {
  /** Kind/name of every object it creates (`<hash>` for the generated config's content hash). */
  readonly objects: string[];
  /** Created only when the Prometheus Operator's CRDs are installed (determineKindsToExclude). */
  readonly withPrometheusOperator: string[];
  readonly selector: Record<string, string>;
  readonly container: {
    readonly name: string;
    readonly image: string;
    readonly env: string[];
    readonly ports: Array<{ containerPort: number; name?: string }>;
    readonly mounts: Array<{ name: string; mountPath: string }>;
    readonly startupProbePath: string;
  };
  readonly volumes: string[];
  readonly servicePorts: Array<{ name: string; port: number }>;
  /** The NetworkPolicy's ingress rules, when it renders one. */
  readonly networkPolicyIngress?: any[];
  /** The image the generated config is `distro_name` of, with a runtime config; undefined when the image runs its own. */
  readonly runtimeConfig?: 'override' | 'generated';
}

/** The operator's distribution map (distributions.json of ogx-ai/ogx-k8s-operator v0.14.0): its four names, all at 1.3.0. */
const OPERATOR_DISTRIBUTIONS: Record<string, string> = {
  'starter': 'docker.io/ogxai/distribution-starter:1.3.0',
  'remote-vllm': 'docker.io/ogxai/distribution-remote-vllm:1.3.0',
  'meta-reference-gpu': 'docker.io/ogxai/distribution-meta-reference-gpu:1.3.0',
  'postgres-demo': 'docker.io/ogxai/distribution-postgres-demo:1.3.0',
};
/** The operator's namespace, where it runs (OPERATOR_NAMESPACE; its default). */
const OPERATOR_NAMESPACE = 'ogx-k8s-operator-system';

function operatorView(doc: any): OperatorView {
  const name = doc.metadata.name;
  const spec = doc.spec;
  const workload = spec.workload ?? {};
  const port = spec.network?.port ?? 8321;
  const monitoring = spec.monitoring?.enabled !== false;
  const metricsPort = spec.monitoring?.metricsPort ?? 9464;
  const declarative = ['providers', 'resources', 'storage', 'disabledAPIs'].some((k) => spec[k] !== undefined);
  const runtimeConfig = spec.overrideConfig ? 'override' : declarative ? 'generated' : undefined;
  const ca = (spec.tls?.trust?.caCertificates ?? []).length > 0;
  const replicas = workload.replicas ?? 1;
  // determineKindsToExclude (controllers/ogxserver_controller.go): PVC without storage, NetworkPolicy
  // with policy.enabled false, PDB unless asked or replicas > 1, HPA unless asked.
  const objects = [`Deployment/${name}`, `Service/${name}-service`, `ServiceAccount/${name}-sa`];
  if (workload.storage) objects.push(`PersistentVolumeClaim/${name}-pvc`);
  if (spec.network?.policy?.enabled !== false) objects.push(`NetworkPolicy/${name}-network-policy`);
  if (workload.podDisruptionBudget || replicas > 1) objects.push(`PodDisruptionBudget/${name}-pdb`);
  if (workload.autoscaling) objects.push(`HorizontalPodAutoscaler/${name}-hpa`);
  if (spec.network?.externalAccess?.enabled) objects.push(`Ingress/${name}-ingress`);
  if (runtimeConfig === 'generated') objects.push(`ConfigMap/${name}-config-<hash>`);
  if (ca) objects.push(`ConfigMap/${name}-ca-bundle`);
  // configureContainerEnvironment (controllers/resource_helper.go), in order; a user variable replaces the operator's.
  const userEnv: string[] = (workload.overrides?.env ?? []).map((e: any) => e.name);
  const env = [
    'HF_HOME', ...(ca ? ['SSL_CERT_FILE'] : []), 'OGX_WORKERS', 'OGX_PORT',
    ...(runtimeConfig ? ['RUN_CONFIG_PATH', 'OGX_CONFIG'] : []),
    ...(spec.registryRefreshIntervalSeconds !== undefined ? ['OGX_REGISTRY_REFRESH_INTERVAL_SECONDS'] : []),
    ...(monitoring ? ['OGX_METRICS_ENDPOINT_ENABLED', 'OGX_METRICS_HOST', 'OGX_METRICS_PORT'] : []),
  ].filter((n) => !userEnv.includes(n)).concat(userEnv);
  const mountPath = workload.storage?.mountPath ?? '/.ogx';
  const peers = [
    { podSelector: {} },
    { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': OPERATOR_NAMESPACE } } },
    ...(spec.network ? [{ namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } }] : []),
  ];
  const customIngress = spec.network?.policy?.ingress;
  return {
    objects,
    withPrometheusOperator: monitoring ? [`ServiceMonitor/${name}-service-monitor`, `PrometheusRule/${name}-prometheus-rules`] : [],
    selector: { 'app': 'ogx', 'app.kubernetes.io/instance': name },
    container: {
      name: 'ogx',
      image: spec.distribution.image ?? OPERATOR_DISTRIBUTIONS[spec.distribution.name],
      env,
      ports: [{ containerPort: port }, ...(monitoring ? [{ name: 'metrics', containerPort: metricsPort }] : [])],
      mounts: [
        { name: 'ogx-storage', mountPath },
        ...(runtimeConfig ? [{ name: 'user-config', mountPath: '/etc/ogx/' }] : []),
        ...(ca ? [{ name: 'ca-bundle', mountPath: '/etc/ssl/certs/ca-bundle' }] : []),
        ...(workload.overrides?.volumeMounts ?? []),
      ],
      startupProbePath: '/v1/health',
    },
    volumes: ['ogx-storage', ...(ca ? ['ca-bundle'] : []), ...(runtimeConfig ? ['user-config'] : []), ...(workload.overrides?.volumes ?? []).map((v: any) => v.name)],
    servicePorts: [{ name: 'http', port }, ...(monitoring && metricsPort !== port ? [{ name: 'metrics', port: metricsPort }] : [])],
    networkPolicyIngress: spec.network?.policy?.enabled === false ? undefined : customIngress?.length ? customIngress : [
      { from: peers, ports: [{ protocol: 'TCP', port }] },
      ...(monitoring ? [{ from: [{ namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'monitoring' } } }], ports: [{ protocol: 'TCP', port: metricsPort }] }] : []),
    ],
    runtimeConfig,
  };
}

/** The CRD's defaults the API server applies before the operator reads the document (crds/ogx.io_ogxservers.yaml). */
function withCrdDefaults(doc: any): any {
  const d = structuredClone(doc);
  const s = d.spec;
  if (s.network) s.network = { port: 8321, ...s.network };
  if (s.network?.policy) s.network.policy = { enabled: true, ...s.network.policy };
  if (s.monitoring) s.monitoring = { enabled: true, ...s.monitoring };
  if (s.workload) s.workload = { replicas: 1, ...s.workload };
  if (s.workload?.storage) s.workload.storage = { mountPath: '/.ogx', ...s.workload.storage };
  return d;
}

/**
 * Compares what render wrote for one document with what the operator creates, object by object, and
 * asserts each difference the docs list as intentional (docs/ogx-operator.md, "What differs").
 */
function compareWithOperator(doc: any, rendered: any[], options: { baseConfigInInput?: boolean } = {}): void {
  const op = operatorView(withCrdDefaults(doc));
  const name = doc.metadata.name;
  const spec = doc.spec;
  const objects = mine(rendered, name);
  // Objects: the same names, less what has no equivalent without an operator, plus what the construct adds.
  const expected = op.objects.filter((o) => !(o === `ServiceAccount/${name}-sa` && spec.workload?.overrides?.serviceAccountName)) // an existing account is used
    .filter((o) => o !== `ConfigMap/${name}-config-<hash>`) // generated at render time into <name>-config, or in the pod
    .filter((o) => o !== `ConfigMap/${name}-ca-bundle`); // the certificates' ConfigMap is mounted itself
  if (op.runtimeConfig === 'generated' && options.baseConfigInInput) expected.push(`ConfigMap/${name}-config`);
  expect(names(objects).sort()).toEqual(expected.sort());
  // ServiceMonitor and PrometheusRule: never rendered (docs; a warning when monitoring is asked for explicitly).
  for (const o of op.withPrometheusOperator) expect(names(objects)).not.toContain(o);

  const deployment = of(objects, 'Deployment', name);
  const pod = deployment.spec.template.spec;
  const server = pod.containers[0];
  // Intentional: our own selector (app.kubernetes.io/name: llama-stack), unless operator-selector asks for the operator's.
  const operatorSelector = doc.metadata.annotations?.['kube-inference.io/operator-selector'] === 'true';
  expect(deployment.spec.selector.matchLabels).toEqual(operatorSelector ? op.selector : { 'app.kubernetes.io/name': 'llama-stack', 'app.kubernetes.io/instance': name });
  expect(server.name).toBe(op.container.name);
  // Intentional: the image of the release rendered (ogx 1.5), where the operator's distributions.json says 1.3.0.
  expect(server.image).toBe(spec.distribution.image ?? op.container.image.replace(/:1\.3\.0$/, ':1.5.0'));
  // Env: every variable of the operator's but RUN_CONFIG_PATH (the server is started with its config
  // explicitly), plus the construct's (HOME on the storage volume, the start script's).
  const env = envOf(server);
  expect(Object.keys(env).sort()).toEqual([
    ...op.container.env.filter((n) => n !== 'RUN_CONFIG_PATH'),
    'HOME', 'SERVER_COMMAND', 'SERVER_PACKAGE', 'SERVER_INSECURE',
    ...Object.keys(env).filter((n) => n.startsWith('OGX_') && /_(API_KEY|TOKEN|PASSWORD|CONNECTION_STRING)$/.test(n)), // the generated config's Secrets
  ].sort());
  expect(env.OGX_PORT).toBe(String(spec.network?.port ?? 8321));
  expect(env.HF_HOME).toBe(spec.workload?.storage?.mountPath ?? '/.ogx');
  // Intentional: the config's path is the construct's (/etc/llama-stack/<key>, or the config merged in the pod), not /etc/ogx/config.yaml.
  if (op.runtimeConfig === 'override') expect(env.OGX_CONFIG).toBe(`/etc/llama-stack/${spec.overrideConfig.key}`);
  if (op.runtimeConfig === 'generated') expect(env.OGX_CONFIG).toBe(options.baseConfigInInput ? '/etc/llama-stack/config.yaml' : '/opt/llama-stack/config/config.yaml');
  if (op.runtimeConfig === undefined) expect(env.OGX_CONFIG).toBeUndefined();
  // Intentional: plain HTTP said explicitly (ogx 1.2 and later refuse to start without TLS otherwise): the operator's pod runs the image's entrypoint.
  expect(env.SERVER_INSECURE).toBe('true');
  expect(server.command).toEqual(['/bin/sh', '-c', expect.stringContaining('launch-server'), 'launch-server']);
  // Ports: the same numbers; ours are named (http, metrics).
  expect(server.ports.map((p: any) => p.containerPort)).toEqual(op.container.ports.map((p) => p.containerPort));
  expect(server.ports.find((p: any) => p.name === 'metrics')?.containerPort).toBe(op.container.ports.find((p) => p.name === 'metrics')?.containerPort);
  // Mounts: the storage at the same path (volume llama-storage, not ogx-storage); the config under
  // /etc/llama-stack (or the merged config's directory), not /etc/ogx/; the CA bundle at the same path;
  // the overrides'; nothing else.
  const mountPaths = server.volumeMounts.map((m: any) => m.mountPath);
  expect(mountPaths).toContain(op.container.mounts[0].mountPath);
  for (const m of op.container.mounts.slice(1)) {
    if (m.name === 'user-config') expect(mountPaths).toContain(op.runtimeConfig === 'generated' && !options.baseConfigInInput ? '/opt/llama-stack/config' : '/etc/llama-stack');
    else expect(mountPaths).toContain(m.mountPath);
  }
  expect(server.volumeMounts).toHaveLength(op.container.mounts.length);
  const volumes = pod.volumes.map((v: any) => v.name);
  // The operator's user-config volume (its config's ConfigMap) is ours too, but for a config generated in the
  // pod over the image's own: an emptyDir the merge step writes it into.
  const overImage = op.runtimeConfig === 'generated' && !options.baseConfigInInput && !spec.baseConfig;
  for (const v of op.volumes) expect(volumes).toContain(v === 'ogx-storage' ? 'llama-storage' : v === 'user-config' && overImage ? 'merged-config' : v);
  // Probes: the operator's startup probe path, and readiness and liveness probes besides (intentional).
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) expect(server[probe].httpGet.path).toBe(op.container.startupProbePath);
  // The Service: the same ports.
  expect(of(objects, 'Service').spec.ports.map((p: any) => ({ name: p.name, port: p.port }))).toEqual(op.servicePorts);
  // The NetworkPolicy: the operator's own namespace is not needed without an operator; its monitoring
  // rule is ours too, admitting the server's sources besides OpenShift's monitoring namespaces (docs).
  const policy = of(objects, 'NetworkPolicy');
  expect(policy === undefined).toBe(op.networkPolicyIngress === undefined);
  if (policy && !spec.network?.policy?.ingress) {
    const sources = [{ podSelector: {} }, { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } }];
    expect(policy.spec.ingress).toEqual([
      { from: sources, ports: [{ protocol: 'TCP', port: spec.network?.port ?? 8321 }] },
      ...op.networkPolicyIngress!.slice(1).map((rule) => ({ from: [...sources, ...rule.from], ports: rule.ports })),
    ]);
  }
}

const readSample = (file: string) => parseAllDocuments(readFileSync(join(SAMPLES, file), 'utf8')).map((d) => d.toJS()).filter((d) => d);
const SAMPLE_FILES = readdirSync(SAMPLES).filter((f) => f.endsWith('.yaml')).sort();

describe('the OGX operator\'s samples (v0.14.0 config/samples), rendered as they are', () => {
  test('the fixtures are upstream\'s files, with their source and licence', () => {
    expect(SAMPLE_FILES).toEqual([
      '_v1beta1_ogxserver.yaml', 'example-with-ca-bundle.yaml', 'example-with-configmap.yaml', 'example-with-generated-config.yaml',
      'example-with-monitoring.yaml', 'example-with-network-config.yaml', 'example-withoutconfigmap.yaml', 'starter-config-configmap.yaml',
    ]);
    expect(readFileSync(join(SAMPLES, 'SOURCE.txt'), 'utf8')).toContain('1784464ae8b2a4b5f06d69e857a6a93d8c6280fa');
    expect(readFileSync(join(SAMPLES, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  test.each(SAMPLE_FILES)('%s: every OGXServer in it renders (exit 0) and matches what the operator creates, object by object', async (file) => {
    const r = await render([join(SAMPLES, file)]);
    expect(r.stderr).not.toContain('error:');
    expect(r.code).toBe(0);
    for (const doc of readSample(file).filter((d) => d.kind === 'OGXServer')) compareWithOperator(doc, r.objects);
  });

  test('_v1beta1_ogxserver.yaml: storage, workers, overrides, budget, spread, autoscaling, monitoring on a custom port', async () => {
    const r = await render([join(SAMPLES, '_v1beta1_ogxserver.yaml')]);
    expect(r.warnings).toEqual([
      'spec.monitoring.enabled: the metrics endpoint is rendered (port 9090, named metrics on the container and the Service); the ServiceMonitor '
      + 'ogxserver-sample-service-monitor and PrometheusRule ogxserver-sample-prometheus-rules the operator adds when the Prometheus Operator\'s CRDs '
      + 'are installed are not: write them beside the server if you scrape with the Prometheus Operator; the rendered NetworkPolicy '
      + 'admits port 9090 from the server\'s sources and OpenShift\'s monitoring namespaces.',
    ]);
    const server = serverOf(r.objects);
    // workers set: OGX_WORKERS, and the operator's resources (one CPU per worker, 1Gi; limits equal).
    expect(envOf(server)).toMatchObject({ OGX_WORKERS: '1', OGX_METRICS_PORT: '9090', OGX_CONFIG: '/etc/llama-stack/config.yaml', OLLAMA_INFERENCE_MODEL: 'llama3.2:1b' });
    expect(server.resources).toEqual({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } });
    expect(podOf(r.objects).volumes).toContainEqual({ name: 'user-config', configMap: { name: 'starter-config' } });
    expect(of(r.objects, 'PersistentVolumeClaim').spec.resources.requests.storage).toBe('20Gi');
    expect(of(r.objects, 'Deployment').spec.strategy).toEqual({ type: 'Recreate' });
    expect(of(r.objects, 'Deployment').spec.replicas).toBeUndefined(); // the HPA's
    expect(of(r.objects, 'HorizontalPodAutoscaler').spec).toMatchObject({ minReplicas: 1, maxReplicas: 5 });
    expect(of(r.objects, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1);
  });

  test('_v1beta1_ogxserver.yaml with the starter-config ConfigMap beside it: the ConfigMap rolls the pods', async () => {
    const r = await render([join(SAMPLES, 'starter-config-configmap.yaml'), join(SAMPLES, '_v1beta1_ogxserver.yaml')]);
    expect(r.code).toBe(0);
    expect(of(r.objects, 'Deployment').spec.template.metadata.annotations['kube-inference.io/configmaps-hash']).toMatch(/^[0-9a-f]{64}$/);
  });

  test('example-with-ca-bundle.yaml: the certificates\' ConfigMap key is trusted (SSL_CERT_FILE)', async () => {
    const r = await render([join(SAMPLES, 'example-with-ca-bundle.yaml')]);
    expect(r.warnings).toEqual([]);
    expect(envOf(serverOf(r.objects)).SSL_CERT_FILE).toBe('/etc/ssl/certs/ca-bundle/ca-bundle.crt');
    expect(podOf(r.objects).volumes).toContainEqual({ name: 'ca-bundle', configMap: { name: 'custom-ca-bundle', items: [{ key: 'ca-bundle.crt', path: 'ca-bundle.crt' }] } });
  });

  test('example-with-configmap.yaml: the overrideConfig ConfigMap passes through and is run as it is', async () => {
    const r = await render([join(SAMPLES, 'example-with-configmap.yaml')]);
    expect(r.warnings).toEqual([]);
    expect(names(r.objects)[0]).toBe('ConfigMap/ogx-server-config');
    expect(of(r.objects, 'ConfigMap', 'ogx-server-config')).toEqual(readSample('example-with-configmap.yaml')[0]);
    expect(of(r.objects, 'Deployment').spec.template.metadata.annotations['kube-inference.io/configmaps-hash']).toMatch(/^[0-9a-f]{64}$/);
  });

  test('example-with-generated-config.yaml: the config is generated in the pod over the image\'s own, with the Secret as OGX_<ID>_API_KEY', async () => {
    const r = await render([join(SAMPLES, 'example-with-generated-config.yaml')]);
    expect(r.warnings).toEqual([]);
    const pod = podOf(r.objects);
    // The merge image writes the extraction's scripts: the operator's objects, no ConfigMap of scripts.
    expect(pod.initContainers.map((c: any) => c.name)).toEqual(['write-init-scripts', 'extract-distribution-config', 'merge-config']);
    const args: string[] = pod.initContainers[2].args;
    expect(JSON.parse(args[args.indexOf('--declarative-config') + 1])).toEqual({
      distribution: { name: 'starter' },
      providers: { inference: { remote: { openai: [{ id: 'openai-primary', apiKey: { name: 'openai-creds', key: 'api-key' } }] } } },
      resources: { models: [{ name: 'gpt-4o-mini', provider: 'openai-primary', modelType: 'llm' }] },
      disabledAPIs: ['vector_io'],
    });
    expect(envOf(pod.containers[0]).OGX_OPENAI_PRIMARY_API_KEY).toEqual({ secretKeyRef: { name: 'openai-creds', key: 'api-key' } });
    expect(of(r.objects, 'Secret', 'openai-creds')).toBeDefined();
  });

  test('example-with-monitoring.yaml: on by default (9464), on a custom port with a warning, off', async () => {
    const r = await render([join(SAMPLES, 'example-with-monitoring.yaml')]);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^spec\.monitoring\.enabled: the metrics endpoint is rendered \(port 9090/);
    expect(envOf(serverOf(r.objects, 'ogxserver-monitoring-defaults')).OGX_METRICS_PORT).toBe('9464');
    expect(envOf(serverOf(r.objects, 'ogxserver-monitoring-custom-port')).OGX_METRICS_PORT).toBe('9090');
    const off = serverOf(r.objects, 'ogxserver-monitoring-disabled');
    expect(Object.keys(envOf(off)).filter((n) => n.startsWith('OGX_METRICS'))).toEqual([]);
    expect(off.ports).toEqual([{ name: 'http', containerPort: 8321, protocol: 'TCP' }]);
  });

  test('example-with-network-config.yaml: custom ingress rules translated, an Ingress, no NetworkPolicy when disabled', async () => {
    const r = await render([join(SAMPLES, 'example-with-network-config.yaml')]);
    const peer = (i: number) => `spec.network.policy.ingress[0].from[${i}].namespaceSelector.matchLabels.kubernetes.io/metadata.name`;
    expect(r.warnings).toEqual([
      'spec.network.policy.ingress: the rendered NetworkPolicy also admits the pods of the server\'s own namespace and OpenShift\'s router, which these '
      + 'rules do not list (the construct admits both always; the operator admits exactly the rules given).',
      ...['nsA', 'nsB'].map((ns, i) => `${peer(i)}: "${ns}" is not a namespace name (lower-case letters, digits and '-'): no namespace can match it, `
        + 'so the NetworkPolicy admits nobody from it. Write the namespace\'s name as it is.'),
    ]);
    const sources = [
      { podSelector: {} },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nsA' } } },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nsB' } } },
      { namespaceSelector: { matchExpressions: [{ key: 'myproject/ogx-allowed', operator: 'Exists' }] } },
      { namespaceSelector: { matchExpressions: [{ key: 'team/authorized', operator: 'Exists' }] } },
      { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } },
    ];
    // The metrics rule stays (monitoring is on by default), where the operator's custom rules drop it.
    const metrics = { protocol: 'TCP', port: 9464 };
    expect(of(r.objects, 'NetworkPolicy', 'ogxserver-network-example-network-policy').spec.ingress).toEqual([
      { from: sources, ports: [{ protocol: 'TCP', port: 8321 }] },
      { from: [...sources, { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'monitoring' } } }], ports: [metrics] },
    ]);
    // namespaceSelector: {} is every namespace: exactly the operator's rule.
    const publicRules = readSample('example-with-network-config.yaml')[1].spec.network.policy.ingress;
    expect(of(r.objects, 'NetworkPolicy', 'ogxserver-public-network-policy').spec.ingress).toEqual([...publicRules, { from: [{ namespaceSelector: {} }], ports: [metrics] }]);
    expect(of(r.objects, 'Ingress').spec.rules).toEqual([{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'ogxserver-public-service', port: { number: 8321 } } } }] } }]);
    expect(of(r.objects, 'NetworkPolicy', 'ogxserver-no-networkpolicy-network-policy')).toBeUndefined();
  });

  test('example-withoutconfigmap.yaml: the image\'s own config, a 10Gi claim at /.ogx', async () => {
    const r = await render([join(SAMPLES, 'example-withoutconfigmap.yaml')]);
    expect(r.warnings).toEqual([]);
    expect(of(r.objects, 'PersistentVolumeClaim').spec.resources.requests.storage).toBe('10Gi');
    expect(serverOf(r.objects).volumeMounts).toContainEqual({ name: 'llama-storage', mountPath: '/.ogx' });
    // No workers: the operator's OGX_WORKERS=1 (a config's server.workers does not start several processes).
    expect(envOf(serverOf(r.objects)).OGX_WORKERS).toBe('1');
  });
});

// ---------------------------------------------------------------------------------------------------
// The operator's config-generator cases (cmd/configgen/testdata), through documents.
// ---------------------------------------------------------------------------------------------------

describe('the operator\'s configgen cases, as documents with spec.baseConfig in the same input', () => {
  const cases = readdirSync(CONFIGGEN).filter((n) => !n.includes('.') && n !== 'LICENSE').sort();
  const happy = cases.filter((n) => readdirSync(join(CONFIGGEN, n)).includes('want-config.yaml'));
  /** A distribution named after no ogx image (`test`, `rh`) is given by image: distro_name is then the image. */
  const IMAGE = 'docker.io/ogxai/distribution-starter:1.5.0';

  function input(name: string): { text: string; doc: any } {
    const doc = parse(readFileSync(join(CONFIGGEN, name, 'cr.yaml'), 'utf8'));
    doc.metadata.namespace = 'ai';
    if (doc.spec.distribution.name !== 'starter') doc.spec.distribution = { image: IMAGE };
    doc.spec.baseConfig = { name: `${doc.metadata.name}-base`, key: 'config.yaml' };
    // err-no-declarative and err-override-config have no base.yaml: any base will do.
    const baseFile = join(CONFIGGEN, name, 'base.yaml');
    const baseText = readdirSync(join(CONFIGGEN, name)).includes('base.yaml') ? readFileSync(baseFile, 'utf8') : 'version: 2\n';
    const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${doc.metadata.name}-base`, namespace: 'ai' }, data: { 'config.yaml': baseText } };
    return { text: `${stringify(base)}---\n${stringify(doc)}`, doc };
  }

  test('there are 18 happy cases and 3 error cases', () => {
    expect(happy).toHaveLength(18);
    expect(cases.filter((n) => !happy.includes(n))).toEqual(['err-bad-base-path', 'err-no-declarative', 'err-override-config']);
  });

  /**
   * The cases whose typed provider the operator writes with a type no ogx release registers
   * (inline::batch-reference, inline::rag-runtime, inline::responses): the real ogx 1.5.0 refuses to
   * start with their want-config.yaml (test/pod-startup/ogx-configgen.test.ts), so render refuses them.
   */
  const UNREGISTERED: Record<string, string> = {
    'p1-batches-config': 'inline::batch-reference',
    'p1-filesearch-config': 'inline::rag-runtime',
    'p1-responses-config': 'inline::responses',
  };

  test.each(Object.entries(UNREGISTERED))('%s: refused, naming the type %s the operator writes and ogx refuses', async (name, type) => {
    const r = await renderYaml(input(name).text);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`gets provider_type ${type}, which no ogx release registers`);
    expect(r.stderr).toContain('spec.providers.<api>.inline.custom');
    expect(r.objects).toEqual([]);
  });

  test.each(happy.filter((name) => !(name in UNREGISTERED)))('%s: the rendered config equals want-config.yaml key for key, plus server.insecure: true', async (name) => {
    const { text, doc } = input(name);
    const r = await renderYaml(text);
    const want = parse(readFileSync(join(CONFIGGEN, name, 'want-config.yaml'), 'utf8'));
    // The base's keys the operator drops (want-config.yaml lacks them) are said, and nothing else.
    const dropped = Object.keys(parse(text.split('---\n')[0]).data['config.yaml'] ? parse(parse(text.split('---\n')[0]).data['config.yaml']) : {})
      .filter((key) => !(key in want));
    expect(r.stderr).toBe(dropped.length === 0 ? '' : `warning: <stdin> document 2 (OGXServer "${doc.metadata.name}"): spec: the OGX operator's config generator keeps `
      + `version, apis, providers, registered_resources, vector_stores, server and storage of the base config, and drops ${dropped.join(', ')}, as the operator `
      + 'does. Remove them from the base config, or write the whole config in userConfig without declarativeConfig.\n');
    const configMap = of(r.objects, 'ConfigMap', `${doc.metadata.name}-config`);
    if (doc.spec.distribution.image) want.distro_name = IMAGE;
    expect(parse(configMap.data['config.yaml'])).toEqual({ ...want, server: { ...want.server, insecure: true } });
    // Generated at render time: the pod runs no merge step, and reads the Secrets the config references.
    const pod = podOf(r.objects);
    expect(pod.initContainers).toBeUndefined();
    const secretEnv = pod.containers[0].env.filter((e: any) => e.valueFrom?.secretKeyRef).map((e: any) => e.name);
    const referenced = [...configMap.data['config.yaml'].matchAll(/\$\{env\.(OGX_[A-Z0-9_]+)\}/g)].map((m) => m[1]);
    expect(secretEnv).toEqual([...new Set(referenced)].sort());
    compareWithOperator(doc, r.objects, { baseConfigInInput: true });
  });

  test('err-bad-base-path: the base without version is refused, naming spec.baseConfig and the ConfigMap', async () => {
    const r = await renderYaml(input('err-bad-base-path').text);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('  - spec.baseConfig: ');
    expect(r.stderr).toContain("missing required 'version' field");
    expect(r.stderr).toContain('the ConfigMap ai/test-base, key config.yaml');
  });

  test('err-override-config: overrideConfig with a baseConfig is refused by the CRD\'s rule', async () => {
    const r = await renderYaml(input('err-override-config').text);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('  - spec: overrideConfig and baseConfig are mutually exclusive (the OGXServer CRD).');
  });

  test('err-no-declarative: the operator generates nothing (configgen\'s "nothing to generate"): the image\'s own config, baseConfig warned about', async () => {
    const r = await renderYaml(input('err-no-declarative').text);
    expect(r.code).toBe(0);
    expect(r.warnings).toEqual([expect.stringMatching(/^spec\.baseConfig: the operator generates a config only from spec\.providers/)]);
    expect(envOf(serverOf(r.objects)).OGX_CONFIG).toBeUndefined();
  });

  test('a baseConfig ConfigMap not in the input: generated in the pod, over that ConfigMap', async () => {
    const doc = input('happy-basic').doc;
    const r = await renderYaml(stringify(doc));
    expect(r.code).toBe(0);
    const pod = podOf(r.objects);
    expect(pod.initContainers.map((c: any) => c.name)).toEqual(['merge-config']);
    expect(pod.volumes).toContainEqual({ name: 'user-config', configMap: { name: 'test-base' } });
    compareWithOperator(doc, r.objects);
  });

  test('a baseConfig ConfigMap of the input without the key is refused', async () => {
    const { text } = input('happy-basic');
    const r = await renderYaml(text.replace('key: config.yaml', 'key: run.yaml'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("  - spec.baseConfig.key: the ConfigMap 'test-base' of the input has no key run.yaml (its keys: config.yaml)");
  });
});

// ---------------------------------------------------------------------------------------------------
// The CRD, as the API server checks it.
// ---------------------------------------------------------------------------------------------------

/** Documents the CRD refuses (its schema, its CEL rules), with render's message. */
const CRD_REFUSALS: ReadonlyArray<[string, Record<string, unknown>, string]> = [
  ['a CEL rule', { overrideConfig: { name: 'c', key: 'config.yaml' }, providers: { inference: { remote: { vllm: [{ endpoint: 'http://v' }] } } } },
    'spec: overrideConfig and providers are mutually exclusive (the OGXServer CRD).'],
  ['a CEL rule of a list item', { providers: { inference: { remote: { custom: [{ type: 'acme' }] } } } },
    "spec.providers.inference.remote.custom[0]: type must have a 'remote::' or 'inline::' prefix"],
  ['an unknown field, with the nearest name', { workload: { replica: 2 } },
    "spec.workload.replica: unknown field; did you mean 'replicas'? (the OGXServer CRD has: autoscaling, overrides, podDisruptionBudget, replicas"],
  ['an unknown field deep in a provider', { providers: { inference: { remote: { vllm: [{ endpoint: 'http://v', maxToken: 3 }] } } } },
    "spec.providers.inference.remote.vllm[0].maxToken: unknown field; did you mean 'maxTokens'?"],
  ['a LlamaStackDistribution field', { server: { distribution: { name: 'starter' } } },
    'spec.server: unknown field; (the OGXServer CRD has: baseConfig, disabledAPIs, distribution'],
  ['a wrong type', { workload: { replicas: 'two' } }, 'spec.workload.replicas: must be integer (the OGXServer CRD).'],
  ['an enum', { disabledAPIs: ['safety'] }, 'spec.disabledAPIs[0]: must be one of: "batches", "file_processors"'],
  ['both name and image', { distribution: { name: 'starter', image: 'quay.io/a/b:1.5.0' } }, 'spec.distribution: only one of name or image can be specified'],
  ['a storage size that is not positive', { workload: { storage: { size: '0' } } }, 'spec.workload.storage: size must be a positive quantity (the OGXServer CRD).'],
  ['a redis store without endpoint', { storage: { kv: { type: 'redis' } } }, 'spec.storage.kv: endpoint is required when type is redis'],
];

describe('the document is checked against the OGXServer CRD first', () => {
  test('the vendored CRD is the file crds/SOURCES.md records', () => {
    const text = readFileSync(join(ROOT, 'crds', 'ogx.io_ogxservers.yaml'));
    const sha = createHash('sha256').update(text).digest('hex');
    expect(sha).toBe('b078e788449daae0f22eb077489d34103df5636eae3a78520d9ed480d67f57ae');
    expect(readFileSync(join(ROOT, 'crds', 'SOURCES.md'), 'utf8')).toContain('| ogx.io_ogxservers.yaml |');
    expect(readFileSync(join(ROOT, 'crds', 'SOURCES.md'), 'utf8')).toContain(sha);
  });

  test.each(CRD_REFUSALS)('%s is refused, naming the field (exit 1, nothing written)', async (_, spec, message) => {
    const r = await renderYaml(ogx(spec));
    expect({ code: r.code, objects: r.objects }).toEqual({ code: 1, objects: [] });
    expect(r.stderr).toContain('error: <stdin> document 1 (OGXServer "srv") has ');
    expect(r.stderr).toContain(`  - ${message}`);
  });

  test('the CRD\'s defaults are applied as the API server applies them: network.port 8321, a given store\'s type sqlite', async () => {
    const r = await renderYaml(ogx({ network: { externalAccess: { enabled: true } }, storage: { kv: {}, sql: { type: 'postgres', connectionString: { name: 'pg', key: 'dsn' } } } }));
    expect(r.code).toBe(0);
    const args: string[] = podOf(r.objects).initContainers.find((c: any) => c.name === 'merge-config').args;
    expect(JSON.parse(args[args.indexOf('--declarative-config') + 1])).toEqual({
      distribution: { name: 'starter' },
      storage: { kv: { type: 'sqlite' }, sql: { type: 'postgres', connectionString: { name: 'pg', key: 'dsn' } } },
      network: { port: 8321 },
    });
    expect(envOf(serverOf(r.objects)).OGX_STORAGE_SQL_CONNECTION_STRING).toEqual({ secretKeyRef: { name: 'pg', key: 'dsn' } });
  });

  test('the operator\'s webhook checks: unique provider ids, a model\'s provider among them', async () => {
    const dup = await renderYaml(ogx({ providers: { inference: { remote: { vllm: [{ endpoint: 'http://a' }, { endpoint: 'http://b' }] } } } }));
    expect(dup.stderr).toContain('  - spec.providers: duplicate provider ID "remote-vllm" (the operator\'s webhook refuses it)');
    const unknown = await renderYaml(ogx({
      providers: { inference: { remote: { vllm: [{ id: 'a', endpoint: 'http://a' }] } } }, resources: { models: [{ name: 'm', provider: 'b' }] },
    }));
    expect(unknown.stderr).toContain('  - spec.resources.models[0].provider: "b" references unknown provider ID; available: [a]');
  });

  test('other versions of the kind, and the old refusal, are gone: ogx.io/v1alpha1 is an unsupported document', async () => {
    const r = await renderYaml('apiVersion: ogx.io/v1alpha1\nkind: OGXServer\nmetadata: {name: a}\nspec: {}\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unsupported document: expected kind LlamaStackDistribution with apiVersion llamastack.io/v1alpha1, or kind OGXServer with apiVersion ogx.io/v1beta1');
  });

  test('a document without metadata or spec is refused before anything else', async () => {
    const r = await renderYaml('apiVersion: ogx.io/v1beta1\nkind: OGXServer\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('  - metadata: missing');
    expect(r.stderr).toContain('  - spec: missing');
  });
});

// ---------------------------------------------------------------------------------------------------
// Annotations, distribution, release.
// ---------------------------------------------------------------------------------------------------

describe('metadata and the release', () => {
  test('without annotations: ogx 1.5 (the construct\'s default), its image of the named distribution', async () => {
    const r = await renderYaml(ogx({}));
    expect(r).toMatchObject({ code: 0, warnings: [] });
    expect(serverOf(r.objects).image).toBe('docker.io/ogxai/distribution-starter:1.5.0');
    expect(r.objects.every((o) => o.metadata.namespace === 'ai')).toBe(true);
  });

  test('kube-inference.io/server-version names the ogx release; a llama-stack release is refused with the reason', async () => {
    const on13 = await renderYaml(ogx({}, { name: 'srv', annotations: { 'kube-inference.io/server-version': '1.3' } }));
    expect(serverOf(on13.objects).image).toBe('docker.io/ogxai/distribution-starter:1.3.1');
    const llama = await renderYaml(ogx({}, { name: 'srv', annotations: { 'kube-inference.io/server-version': '0.7' } }));
    expect(llama.code).toBe(1);
    expect(llama.stderr).toContain('  - metadata.annotations.kube-inference.io/server-version: names llama-stack 0.7: an OGXServer describes an ogx server');
    const image = await renderYaml(ogx({ distribution: { image: 'docker.io/llamastack/distribution-starter:0.7.3' } }));
    expect(image.stderr).toContain('  - spec.distribution.image: names llama-stack 0.7: an OGXServer describes an ogx server');
    const old = await renderYaml(ogx({}, { name: 'srv', annotations: { 'kube-inference.io/llama-stack-version': '1.5' } }));
    expect(old.stderr).toContain('  - metadata.annotations.kube-inference.io/llama-stack-version: is the old name of kube-inference.io/server-version');
    const unknown = await renderYaml(ogx({}, { name: 'srv', annotations: { 'kube-inference.io/server-version': '9.9' } }));
    expect(unknown.stderr).toContain("  - metadata.annotations.kube-inference.io/server-version: '9.9' is not a llama-stack or ogx release this construct knows");
  });

  test('an image tagged with its release runs that release; metrics need ogx 1.2, so an older line renders none, with a warning', async () => {
    const r = await renderYaml(ogx({ distribution: { image: 'docker.io/ogxai/distribution-starter:1.1.3' } }));
    expect(r.code).toBe(0);
    expect(r.warnings).toEqual(['spec.monitoring: the metrics endpoint the operator enables by default needs ogx 1.2 or later (OGX_METRICS_*); ogx 1.1 has none, so it is not rendered. Set spec.monitoring.enabled: false to say so.']);
    expect(Object.keys(envOf(serverOf(r.objects))).filter((n) => n.startsWith('OGX_METRICS') || n === 'OGX_WORKERS')).toEqual([]);
    const asked = await renderYaml(ogx({ distribution: { image: 'docker.io/ogxai/distribution-starter:1.1.3' }, monitoring: { enabled: true } }));
    expect(asked.stderr).toContain('  - spec.monitoring.metricsPort: ogx 1.1 has no metrics endpoint');
  });

  test('remote-vllm and meta-reference-gpu, in the operator\'s distributions.json, are no ogx image: refused with the construct\'s reason', async () => {
    for (const name of ['remote-vllm', 'meta-reference-gpu']) {
      const r = await renderYaml(ogx({ distribution: { name } }));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`  - spec.distribution.name: '${name}' is not a distribution ogx 1.5 publishes an image of: expected one of starter, postgres-demo, nvidia, oci, open-benchmark, watsonx`);
    }
  });

  test('kube-inference.io/kubernetes-version and operator-selector are read; labels label every object', async () => {
    const r = await renderYaml(ogx({}, {
      name: 'srv',
      namespace: 'ai',
      labels: { team: 'search' },
      annotations: { 'kube-inference.io/operator-selector': 'true', 'kube-inference.io/kubernetes-version': '1.30' },
    }));
    expect(r.code).toBe(0);
    expect(of(r.objects, 'Deployment').spec.selector.matchLabels).toEqual({ 'app': 'ogx', 'app.kubernetes.io/instance': 'srv' });
    expect(of(r.objects, 'NetworkPolicy').spec.podSelector.matchLabels).toEqual({ 'app': 'ogx', 'app.kubernetes.io/instance': 'srv' });
    expect(r.objects.every((o) => o.metadata.labels.team === 'search')).toBe(true);
    const bad = await renderYaml(ogx({}, { name: 'srv', annotations: { 'kube-inference.io/operator-selector': 'maybe', 'kube-inference.io/kubernetes-version': 'one' } }));
    expect(bad.stderr).toContain('  - metadata.annotations.kube-inference.io/operator-selector: expected "true" or "false", got "maybe".');
    const minor = await renderYaml(ogx({}, { name: 'srv', annotations: { 'kube-inference.io/kubernetes-version': 'one' } }));
    expect(minor.stderr).toContain("  - metadata.annotations.kube-inference.io/kubernetes-version: 'one' is not a Kubernetes version");
    // Annotation values are strings: YAML 1.1's yes is a boolean, which the API server refuses too.
    const yes = await renderYaml('apiVersion: ogx.io/v1beta1\nkind: OGXServer\nmetadata: {name: srv, annotations: {kube-inference.io/operator-selector: yes}}\nspec: {distribution: {name: starter}}\n');
    expect(yes.stderr).toContain('  - metadata.annotations[kube-inference.io/operator-selector]: Invalid value: true: must be a string');
  });
});

// ---------------------------------------------------------------------------------------------------
// spec.network, spec.tls, spec.monitoring, spec.workload.
// ---------------------------------------------------------------------------------------------------

describe('spec.network', () => {
  const policyOf = async (policy: Record<string, unknown>) => renderYaml(ogx({ network: { policy } }));
  const from = (r: Rendered) => of(r.objects, 'NetworkPolicy').spec.ingress[0].from;

  test('the default: the own namespace and OpenShift\'s router on the server\'s port (allowedFrom: {}), OpenShift\'s monitoring besides on the metrics port', async () => {
    const r = await renderYaml(ogx({ network: { port: 9000 } }));
    const sources = [{ podSelector: {} }, { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } }];
    expect(of(r.objects, 'NetworkPolicy').spec.ingress).toEqual([
      { from: sources, ports: [{ protocol: 'TCP', port: 9000 }] },
      { from: [...sources, { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'monitoring' } } }], ports: [{ protocol: 'TCP', port: 9464 }] },
    ]);
    expect(envOf(serverOf(r.objects)).OGX_PORT).toBe('9000');
  });

  test('custom rules: namespaces by name, by label key, every namespace, the own namespace, the router', async () => {
    const r = await policyOf({
      ingress: [
        { from: [{ podSelector: {} }, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } } }], ports: [{ port: 8321 }] },
        { from: [{ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } }, { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } }], ports: [{ port: 8321, protocol: 'TCP' }] },
      ],
    });
    expect(r).toMatchObject({ code: 0, warnings: [] });
    expect(from(r)).toEqual([
      { podSelector: {} },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } } },
      { namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } },
      { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } },
    ]);
    const all = await policyOf({ ingress: [{ from: [{ namespaceSelector: {} }], ports: [{ port: 8321 }] }] });
    expect(from(all)).toEqual([{ namespaceSelector: {} }]);
  });

  test('a rule without ports or from is rendered narrower, with a warning', async () => {
    const r = await policyOf({ ingress: [{}] });
    expect(r.code).toBe(0);
    expect(r.warnings).toEqual([
      'spec.network.policy.ingress[0].ports: none given admits every port of the server\'s pods; the rendered NetworkPolicy admits the server\'s port 8321 only.',
      'spec.network.policy.ingress[0].from: none given admits every source; the rendered NetworkPolicy admits the pods of every namespace (namespaceSelector: {}), not addresses outside the cluster.',
    ]);
    expect(from(r)).toEqual([{ namespaceSelector: {} }]);
  });

  test.each([
    ['an ipBlock', { from: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: 8321 }] }, 'spec.network.policy.ingress[0].from[0]'],
    ['particular pods', { from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 8321 }] }, 'spec.network.policy.ingress[0].from[0]'],
    ['a namespace label with a value', { from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ port: 8321 }] }, 'spec.network.policy.ingress[0].from[0]'],
    ['two expressions (both required)', { from: [{ namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }] } }] }, 'spec.network.policy.ingress[0].from[0]'],
    ['another port', { from: [{ podSelector: {} }], ports: [{ port: 9464 }] }, 'spec.network.policy.ingress[0].ports[0]'],
    ['UDP', { from: [{ podSelector: {} }], ports: [{ port: 8321, protocol: 'UDP' }] }, 'spec.network.policy.ingress[0].ports[0]'],
  ])('%s is refused, naming the field and what is supported', async (_, rule, field) => {
    const r = await policyOf({ ingress: [rule] });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`  - ${field}: `);
    expect(r.stderr).toContain("cannot be rendered: the construct's NetworkPolicy admits sources by namespace only (supported: from peers namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: <namespace>}}");
  });

  test('policy.enabled: false renders no NetworkPolicy; egress and policyTypes are warned about, with the operator\'s reason', async () => {
    const off = await policyOf({ enabled: false });
    expect(of(off.objects, 'NetworkPolicy')).toBeUndefined();
    const egress = [{ to: [{ namespaceSelector: {} }] }];
    const alone = await policyOf({ egress, policyTypes: ['Ingress', 'Egress'] });
    expect(alone.warnings).toEqual([
      'spec.network.policy.policyTypes is not read by the operator v0.14.0 (pkg/deploy/plugins/networkpolicy_transformer.go sets policyTypes itself) and is not rendered: the rendered NetworkPolicy restricts ingress only.',
      'spec.network.policy.egress is not rendered: without custom ingress rules the operator v0.14.0 ignores it too (pkg/deploy/plugins/networkpolicy_transformer.go), and the construct\'s NetworkPolicy restricts ingress only.',
    ]);
    const withIngress = await policyOf({ egress, ingress: [{ from: [{ podSelector: {} }], ports: [{ port: 8321 }] }] });
    expect(withIngress.warnings).toEqual([expect.stringContaining('spec.network.policy.egress is not rendered: with custom ingress rules the operator v0.14.0 also applies these egress rules')]);
  });

  test('externalAccess: the Ingress; its hostname is warned about (the v0.14.0 controller\'s Ingress has no host)', async () => {
    const r = await renderYaml(ogx({ network: { externalAccess: { enabled: true, hostname: 'ogx.example.com' } } }));
    expect(names(r.objects)).toContain('Ingress/srv-ingress');
    expect(of(r.objects, 'Ingress').spec.rules[0].host).toBeUndefined();
    expect(r.warnings).toEqual([
      expect.stringMatching(/^spec\.network\.externalAccess\.hostname is not rendered: the v0\.14\.0 controller's Ingress has no host either \(controllers\/network_resources\.go/),
      // As the operator's own default policy: only OpenShift's router among ingress controllers.
      'spec.network.policy: the NetworkPolicy admits the server\'s own namespace and OpenShift\'s router only, while an Ingress is rendered: '
        + 'no other ingress controller reaches the server through it. Admit the namespace of yours (e.g. ingress-nginx).',
    ]);
  });

  test('tls.secretName: the server\'s own TLS from the Secret (probes, Service and Ingress speak HTTPS)', async () => {
    const r = await renderYaml(ogx({ network: { tls: { secretName: 'srv-tls' }, externalAccess: { enabled: true }, policy: { enabled: false } } }));
    expect(r).toMatchObject({ code: 0, warnings: [] });
    const server = serverOf(r.objects);
    expect(podOf(r.objects).volumes).toContainEqual(expect.objectContaining({ name: 'server-tls', secret: expect.objectContaining({ secretName: 'srv-tls' }) }));
    expect(server.ports[0]).toEqual({ name: 'https', containerPort: 8321, protocol: 'TCP' });
    expect(server.startupProbe.httpGet.scheme).toBe('HTTPS');
    expect(envOf(server).SERVER_INSECURE).toBeUndefined();
    expect(of(r.objects, 'Ingress').metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' });
    const bad = await renderYaml(ogx({ network: { tls: { secretName: 'Bad_Name' } } }));
    expect(bad.stderr).toContain('  - spec.network.tls.secretName: "Bad_Name" is not a Secret name, a DNS-1123 subdomain');
  });
});

describe('spec.tls', () => {
  test('caCertificates of one ConfigMap: its keys, joined at pod start; of several ConfigMaps: refused with the fix', async () => {
    const r = await renderYaml(ogx({ tls: { trust: { caCertificates: [{ name: 'cas', key: 'a.crt' }, { name: 'cas', key: 'b.crt' }] } } }));
    expect(r.code).toBe(0);
    expect(envOf(serverOf(r.objects)).SSL_CERT_FILE).toBe('/etc/ssl/certs/ca-bundle/ca-bundle.crt');
    expect(podOf(r.objects).initContainers.map((c: any) => c.name)).toEqual(['join-ca-bundle']);
    const two = await renderYaml(ogx({ tls: { trust: { caCertificates: [{ name: 'a', key: 'ca.crt' }, { name: 'b', key: 'ca.crt' }] } } }));
    expect(two.code).toBe(1);
    expect(two.stderr).toContain("  - spec.tls.trust.caCertificates: names the ConfigMaps 'a', 'b': the rendered pod mounts the certificates of one ConfigMap");
    expect(two.stderr).toContain('Put every certificate into one ConfigMap, one key each');
  });

  test('identity (client mTLS for outgoing calls) is not rendered, with a warning', async () => {
    const r = await renderYaml(ogx({ tls: { identity: { cert: { name: 'c', key: 'tls.crt' }, key: { name: 's', key: 'tls.key' } } } }));
    expect(r.code).toBe(0);
    expect(r.warnings).toEqual([expect.stringMatching(/^spec\.tls\.identity is not rendered: the client certificate and key/)]);
  });
});

describe('spec.monitoring and workers', () => {
  test('more than one worker with monitoring on (by default or asked for) is refused, naming spec.monitoring and the fix', async () => {
    for (const monitoring of [undefined, { enabled: true }]) {
      const r = await renderYaml(ogx({ workload: { workers: 2 }, ...(monitoring ? { monitoring } : {}) }));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('  - spec.monitoring: ');
      expect(r.stderr).toContain('each of the 2 ogx worker processes (spec.workload.workers) binds that port itself');
      expect(r.stderr).toContain('Set spec.monitoring.enabled: false, or spec.workload.workers: 1.');
    }
    const off = await renderYaml(ogx({ workload: { workers: 2 }, monitoring: { enabled: false } }));
    expect(off.code).toBe(0);
    expect(envOf(serverOf(off.objects)).OGX_WORKERS).toBe('2');
  });

  test('the metrics port must differ from the server\'s', async () => {
    const r = await renderYaml(ogx({ monitoring: { metricsPort: 8321 } }));
    expect(r.stderr).toContain("  - spec.monitoring.metricsPort: 8321 is the server's own port");
  });
});

describe('spec.workload and the rest', () => {
  test('replicas, resources (numbers become quantities), storage, budget, spread, autoscaling, overrides', async () => {
    const r = await renderYaml(ogx({
      registryRefreshIntervalSeconds: 120,
      workload: {
        replicas: 2,
        resources: { requests: { cpu: 2, memory: '4Gi' } },
        storage: { size: 5 },
        podDisruptionBudget: { minAvailable: 1 },
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'srv' } } }],
        overrides: {
          serviceAccountName: 'shared',
          command: ['ogx'],
          args: ['run', '/etc/custom.yaml', '--insecure'],
          env: [{ name: 'A', value: 'b' }],
          volumes: [{ name: 'custom', emptyDir: {} }],
          volumeMounts: [{ name: 'custom', mountPath: '/custom' }],
        },
      },
    }));
    expect(r).toMatchObject({
      code: 0,
      warnings: [
        'spec.workload.storage: a ReadWriteOnce claim is shared by 2 replicas; they can only run on one node. Use storage.existingClaimName with a ReadWriteMany claim, or storage.ephemeral.',
      ],
    });
    expect(names(r.objects)).toEqual(['PersistentVolumeClaim/srv-pvc', 'Deployment/srv', 'Service/srv-service', 'PodDisruptionBudget/srv-pdb', 'NetworkPolicy/srv-network-policy']);
    const pod = podOf(r.objects);
    expect(of(r.objects, 'Deployment').spec.replicas).toBe(2);
    expect(of(r.objects, 'PersistentVolumeClaim').spec.resources.requests.storage).toBe('5');
    expect(pod.serviceAccountName).toBe('shared');
    expect(pod.containers[0]).toMatchObject({ command: ['ogx'], args: ['run', '/etc/custom.yaml', '--insecure'], resources: { requests: { cpu: '2', memory: '4Gi' } } });
    expect(envOf(pod.containers[0])).toMatchObject({ A: 'b', OGX_REGISTRY_REFRESH_INTERVAL_SECONDS: '120', OGX_WORKERS: '1' });
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'custom', mountPath: '/custom' });
    expect(pod.volumes).toContainEqual({ name: 'custom', emptyDir: {} });
    expect(of(r.objects, 'PodDisruptionBudget').spec.minAvailable).toBe(1);
    // A variable the user sets wins over the operator's, as with the operator.
    const own = await renderYaml(ogx({ registryRefreshIntervalSeconds: 120, workload: { overrides: { env: [{ name: 'OGX_REGISTRY_REFRESH_INTERVAL_SECONDS', value: '5' }] } } }));
    expect(envOf(serverOf(own.objects)).OGX_REGISTRY_REFRESH_INTERVAL_SECONDS).toBe('5');
  });

  test('the construct\'s problems name the document\'s fields', async () => {
    const r = await renderYaml(ogx({ workload: { overrides: { env: [{ name: 'OGX_CONFIG', value: '/x' }] }, autoscaling: { minReplicas: 3, maxReplicas: 3 }, replicas: 4 } }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("  - spec.workload.overrides.env[0].name: 'OGX_CONFIG' is set by the construct");
    expect(r.stderr).toContain('  - spec.workload.autoscaling.maxReplicas: 3 is fewer than the autoscaler\'s minimum, 4');
    const long = await renderYaml(ogx({}, { name: 'a'.repeat(60) }));
    expect(long.stderr).toContain('  - metadata.name: ');
  });

  test('resourceClaims, resources.claims and the adoption annotations are warned about, not rendered', async () => {
    const r = await renderYaml(ogx({
      workload: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu' }], resources: { claims: [{ name: 'gpu' }] } },
    }, { name: 'srv', annotations: { 'ogx.io/adopt-storage': 'old', 'ogx.io/adopt-networking': 'old' } }));
    expect(r.code).toBe(0);
    expect(r.warnings).toEqual([
      expect.stringMatching(/^metadata\.annotations\.ogx\.io\/adopt-storage: the operator's adoption/),
      expect.stringMatching(/^metadata\.annotations\.ogx\.io\/adopt-networking: the operator's adoption/),
      'spec.workload.resourceClaims is not rendered: the construct gives the pod no dynamic resource claims (DRA).',
      'spec.workload.resources.claims is not rendered: dynamic resource claims need the pod\'s resourceClaims, which the construct does not render.',
    ]);
    expect(serverOf(r.objects).resources.claims).toBeUndefined();
  });

  test('status is the server\'s to write: accepted and ignored', async () => {
    const r = await renderYaml(ogx({}).replace(/$/, 'status: {phase: Ready, availableReplicas: 1}\n'));
    expect(r).toMatchObject({ code: 0, warnings: [] });
  });
});

describe('spec.externalProviders, this library\'s field', () => {
  test('deploy-time providers as in a LlamaStackDistribution, metadataFile read beside the document; the CRD check does not see them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ogx-'));
    writeFileSync(join(dir, 'custom-vllm.yaml'), readFileSync(join(__dirname, '..', 'fixtures', 'provider-metadata', 'custom-vllm.yaml')));
    writeFileSync(join(dir, 'srv.yaml'), ogx({
      externalProviders: { inference: [{ providerId: 'custom-vllm', image: 'quay.io/acme/vllm-provider:1.2.0', metadataFile: 'custom-vllm.yaml' }] },
    }));
    const r = await render([join(dir, 'srv.yaml')]);
    expect(r.stderr).toBe('');
    expect(podOf(r.objects).initContainers.map((c: any) => c.name)).toContain('install-provider-custom-vllm');
    const bad = await renderYaml(ogx({ externalProviders: { inference: [{ providerId: 'x', image: 'quay.io/a/b:1', metadataFile: '../../etc/passwd' }] } }));
    expect(bad.stderr).toContain("  - spec.externalProviders.inference[0].metadataFile: '../../etc/passwd' is outside the document's directory");
    const badId = await renderYaml(ogx({ externalProviders: { inference: [{ providerId: '__disabled__', image: 'quay.io/a/b:1' }] } }));
    expect(badId.stderr).toContain('  - spec.externalProviders.inference[0].providerId: is not a provider id');
  });
});

// ---------------------------------------------------------------------------------------------------
// render's CRD check, against the real API server with the same CRD installed.
// ---------------------------------------------------------------------------------------------------

describeWithApiServer(NEWEST_TESTED_MINOR, 'render\'s check of an OGXServer agrees with the API server\'s', () => {
  const NAMESPACE = 'ogx-tests';
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await Cluster.start(NEWEST_TESTED_MINOR);
    await cluster.createNamespaces([NAMESPACE]);
  }, 180_000);
  afterAll(async () => cluster?.server.stop());

  /** The server's dry-run create (strict field validation): the object as it would store it, or its refusal. */
  async function create(doc: any): Promise<{ status: number; body: any }> {
    const object = { ...doc, metadata: { ...doc.metadata, namespace: NAMESPACE } };
    const url = `${await cluster.collectionOf(object, NAMESPACE)}?dryRun=All&fieldValidation=Strict&fieldManager=kube-inference-tests`;
    return cluster.server.request('POST', url, object);
  }
  /** render's check: the stored document, or its problems. */
  function check(doc: any): { stored?: any; problems: string[] } {
    const problems = new ProblemCollector();
    const stored = checkAgainstCrd(doc, problems, () => undefined);
    return { stored, problems: problems.problems.map((p) => `${p.field}: ${p.message}`) };
  }

  const samples = SAMPLE_FILES.flatMap((f) => readSample(f)).filter((d) => d.kind === 'OGXServer');
  test.each(samples.map((d) => [d.metadata.name, d]))('sample %s: accepted by both, stored with the same defaults', async (_, doc) => {
    const server = await create(doc);
    expect(server.status).toBe(201);
    const ours = check(doc);
    expect(ours.problems).toEqual([]);
    expect(ours.stored.spec).toEqual(server.body.spec);
  });

  test.each(CRD_REFUSALS)('%s: refused by both', async (_, spec, message) => {
    const doc = parse(ogx(spec));
    const server = await create(doc);
    // 422 Invalid (schema, CEL), 400 BadRequest (strict field validation: unknown field "spec.workload.replica").
    expect([400, 422]).toContain(server.status);
    const unknown = /^(\S+): unknown field/.exec(message);
    if (unknown) expect(server.body.message).toContain(`unknown field "${unknown[1]}"`);
    expect(check(doc).problems.join('\n')).toContain(message.replace(/ \(the OGXServer CRD\)\.$/, ''));
  });

  test('the defaults of the fields render relies on: network.port, policy.enabled, monitoring.enabled, replicas, storage.mountPath, store types', async () => {
    const doc = parse(ogx({
      network: { policy: {}, externalAccess: {} },
      monitoring: {},
      workload: { storage: {} },
      storage: { kv: {}, sql: {} },
      providers: { inference: { remote: { vllm: [{ endpoint: 'http://v' }] } } },
    }));
    const server = await create(doc);
    expect(server.status).toBe(201);
    expect(check(doc).stored.spec).toEqual(server.body.spec);
    expect(server.body.spec).toMatchObject({
      network: { port: 8321, policy: { enabled: true }, externalAccess: { enabled: false } },
      monitoring: { enabled: true },
      workload: { replicas: 1, storage: { mountPath: '/.ogx' } },
      storage: { kv: { type: 'sqlite' }, sql: { type: 'sqlite' } },
    });
  });
});
