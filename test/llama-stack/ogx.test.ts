/**
 * The pod for OGX (llama-stack's name from 0.8), the default server line: the ogx command, package and
 * environment, the `/.ogx` state directory, plain HTTP said explicitly (ogx ≥ 1.2 refuses to start
 * without TLS otherwise), the server's own TLS from a Secret, and workers through OGX_WORKERS. The real
 * ogx servers run what is rendered here in test/pod-startup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { errorOf, find, podSpec, render } from './helpers';
import { LlamaStackWithProviders, LlamaStackWithProvidersProps, warningsOf } from '../../src';

const STARTER: LlamaStackWithProvidersProps = { distribution: { name: 'starter' }, serverVersion: '1.5' };
const PROVIDER = { inference: [{ providerId: 'acme-echo', image: 'quay.io/acme/echo:0.1.0' }] };
const TLS = { secretName: 'stack-tls' };
const env = (container: any) => Object.fromEntries(container.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
const byName = (containers: any[], name: string) => containers.find((c: any) => c.name === name);

describe('ogx 1.5, the default release', () => {
  test('a named distribution is upstream\'s ogx image of the newest release, and the defaults follow the ogx operator', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'stack', { name: 'stack', distribution: { name: 'starter' } });
    const manifests = Testing.synth(chart);
    const pod = podSpec(manifests);
    const server = pod.containers[0];
    expect(server.name).toBe('ogx');
    expect(server.image).toBe('docker.io/ogxai/distribution-starter:1.5.0');
    expect(env(server)).toMatchObject({ OGX_PORT: '8321', HOME: '/.ogx', HF_HOME: '/.ogx' });
    // ogx's own directory stays ~/.ogx, on the volume: ogx then moves a llama-stack server's ~/.llama there itself.
    expect(env(server).OGX_CONFIG_DIR).toBeUndefined();
    expect(server.volumeMounts).toContainEqual({ name: 'llama-storage', mountPath: '/.ogx' });
    expect(Object.keys(env(server)).filter((n) => n.startsWith('LLAMA_STACK'))).toEqual([]);
    expect(warningsOf(chart)).toEqual([]);
  });

  test('without a config of its own, the image\'s distribution is started with --insecure: its entrypoint alone would exit without TLS', () => {
    const server = podSpec(render(STARTER)).containers[0];
    expect(server.command).toEqual(['/bin/sh', '-c', expect.stringContaining('launch-server'), 'launch-server']);
    expect(env(server)).toMatchObject({ SERVER_COMMAND: 'ogx run', SERVER_PACKAGE: 'ogx', SERVER_INSECURE: 'true' });
    expect(env(server).OGX_CONFIG).toBeUndefined();
  });

  test('a command of the user\'s on ogx 1.2 and later, over a config nothing merges, is warned that it must say --insecure', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'stack', { ...STARTER, command: ['ogx', 'run', 'starter'] });
    expect(warningsOf(chart)).toEqual(["command replaces how the server starts: ogx 1.5 refuses to serve plain HTTP unless told, and nothing merges server.insecure: true into the config it reads (the image's own): start it with --insecure, or set server.insecure: true in the config."]);
    // A config the construct writes says server.insecure: true itself; a release without the requirement needs nothing; nor does a command saying it.
    for (const props of [{ userConfig: { config: { version: 2 } } }, { serverVersion: '1.1' }, { args: ['--insecure'] }]) {
      const other = Testing.chart();
      new LlamaStackWithProviders(other, 'stack', { ...STARTER, command: ['ogx', 'run', 'starter'], ...props });
      expect(warningsOf(other)).toEqual([]);
    }
  });

  test('LLS_WORKERS is the construct\'s (from workers, with the factory of the release)', () => {
    expect(errorOf({ ...STARTER, env: [{ name: 'LLS_WORKERS', value: '4' }] }))
      .toContain("env[0].name: 'LLS_WORKERS' is set by the construct, from workers, with what starts the worker processes of the release. Remove it and set workers.");
  });

  test('an inline config says server.insecure: true, and the server runs it with OGX_CONFIG', () => {
    const manifests = render({ ...STARTER, userConfig: { config: 'version: 2\ndistro_name: starter\nproviders: {}\n' } });
    expect(find(manifests, 'ConfigMap').data['config.yaml']).toBe('version: 2\ndistro_name: starter\nproviders: {}\nserver:\n  insecure: true\n');
    expect(env(podSpec(manifests).containers[0])).toMatchObject({ OGX_CONFIG: '/etc/llama-stack/config.yaml', SERVER_INSECURE: 'true' });
  });

  test('with providers: the release\'s command and package reach every script, and the merge says plain HTTP', () => {
    const pod = podSpec(render({ ...STARTER, externalProviders: PROVIDER }));
    for (const name of ['inspect-distribution', 'extract-distribution-config']) {
      expect(env(byName(pod.initContainers, name))).toMatchObject({ SERVER_COMMAND: 'ogx run', SERVER_PACKAGE: 'ogx' });
    }
    const merge = byName(pod.initContainers, 'merge-config').args;
    expect(merge.slice(merge.indexOf('--server-version'))).toEqual(['--server-version', '1.5', '--insecure']);
    expect(env(pod.containers[0])).toMatchObject({ OGX_CONFIG: '/opt/llama-stack/config/config.yaml', EXTERNAL_PROVIDERS_DIR: '/opt/llama-stack/external-providers' });
    expect(pod.containers[0].command).toEqual(['/bin/sh', '/opt/llama-stack/scripts/start-server.sh']);
  });

  test('ogx 0.8 starts with ogx stack run, and earlier ogx lines need no --insecure', () => {
    expect(env(podSpec(render({ ...STARTER, serverVersion: '0.8' })).containers[0]).SERVER_COMMAND).toBeUndefined(); // the image's entrypoint
    const on08 = podSpec(render({ ...STARTER, serverVersion: '0.8', userConfig: { configMapName: 'c' } })).containers[0];
    expect(env(on08)).toMatchObject({ SERVER_COMMAND: 'ogx stack run', OGX_CONFIG: '/etc/llama-stack/config.yaml' });
    expect(env(on08).SERVER_INSECURE).toBeUndefined();
    expect(on08.image).toBe('docker.io/ogxai/distribution-starter:0.8.0');
  });

  test('workers: OGX_WORKERS, read by ogx run itself from 1.2 (TLS included); uvicorn with ogx\'s factory before', () => {
    const on15 = podSpec(render({ ...STARTER, workers: 3 })).containers[0];
    expect(env(on15)).toMatchObject({ OGX_WORKERS: '3', SERVER_COMMAND: 'ogx run' });
    expect(env(on15).LLS_WORKERS).toBeUndefined();
    expect(env(on15).SERVER_APP_FACTORY).toBeUndefined();
    const on11 = podSpec(render({ ...STARTER, serverVersion: '1.1', workers: 3 })).containers[0];
    expect(env(on11)).toMatchObject({ LLS_WORKERS: '3', SERVER_APP_FACTORY: 'ogx.core.server.server:create_app' });
    // TLS with workers is refused only where the workers would not read it.
    const tlsConfig = { config: { version: 2, server: { tls_certfile: '/c.pem', tls_keyfile: '/k.pem' } } };
    expect(() => render({ ...STARTER, workers: 2, userConfig: tlsConfig })).not.toThrow();
    expect(errorOf({ ...STARTER, serverVersion: '1.1', workers: 2, userConfig: tlsConfig }))
      .toContain('workers: the ogx 1.1 server started with workers (uvicorn, as the operator starts it) would not read server.tls_certfile');
    expect(errorOf({ ...STARTER, workers: 2, userConfig: { config: { version: 2, server: { workers: 4 } } } }))
      .toContain('the config sets server.workers to 4, but workers (OGX_WORKERS) wins over it in ogx 1.5');
  });

  test('operatorSelector selects as the ogx operator does: app: ogx', () => {
    const deployment = find(render({ ...STARTER, operatorSelector: true }), 'Deployment');
    expect(deployment.spec.selector.matchLabels).toEqual({ 'app': 'ogx', 'app.kubernetes.io/instance': 'stack' });
  });

  test('server.quota and server.cors, which ogx 1.0 removed, are warned about; so is a tcp health check', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'stack', {
      ...STARTER, healthCheck: 'tcp', userConfig: { config: { version: 2, server: { quota: { period: 'day' }, cors: true } } },
    });
    expect(warningsOf(chart)).toEqual([
      'userConfig.config: ogx 1.5 ignores server.quota and server.cors (removed in ogx 1.0): the server starts without a request quota and CORS headers. Remove them, or put a gateway in front of the server for them.',
      "healthCheck: 'tcp' spares the request quota of llama-stack, which ogx 1.5 no longer has: 'http' checks /v1/health, which also tells a server that hangs from one that listens. Remove healthCheck.",
    ]);
    // Without healthCheck, the quota no longer asks for a tcp check.
    const probe = podSpec(render({ ...STARTER, userConfig: { config: { version: 2, server: { quota: {} } } } })).containers[0].startupProbe;
    expect(probe.httpGet).toEqual({ path: '/v1/health', port: 'http' });
  });
});

describe('the server\'s own TLS (tls)', () => {
  test('the Secret is mounted, the config names its files, and probes, Service and port speak HTTPS', () => {
    const manifests = render({ ...STARTER, tls: { ...TLS, clientCaKey: 'ca.crt' }, userConfig: { config: { version: 2, providers: {} } } });
    const pod = podSpec(manifests);
    const server = pod.containers[0];
    expect(pod.volumes).toContainEqual({
      name: 'server-tls',
      secret: {
        secretName: 'stack-tls',
        defaultMode: 0o440,
        items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }, { key: 'ca.crt', path: 'ca.crt' }],
      },
    });
    expect(server.volumeMounts).toContainEqual({ name: 'server-tls', mountPath: '/opt/llama-stack/tls', readOnly: true });
    expect(parse(find(manifests, 'ConfigMap').data['config.yaml']).server).toEqual({
      tls_certfile: '/opt/llama-stack/tls/tls.crt', tls_keyfile: '/opt/llama-stack/tls/tls.key', tls_cafile: '/opt/llama-stack/tls/ca.crt',
    });
    expect(server.ports).toEqual([{ name: 'https', containerPort: 8321, protocol: 'TCP' }]);
    expect(server.startupProbe.httpGet).toEqual({ path: '/v1/health', port: 'https', scheme: 'HTTPS' });
    expect(find(manifests, 'Service').spec.ports).toEqual([{ name: 'https', port: 8321, targetPort: 'https', protocol: 'TCP', appProtocol: 'https' }]);
    expect(env(server).SERVER_INSECURE).toBeUndefined();
  });

  test('a config only the pod sees (a ConfigMap, the image\'s own) gets the files from the merge in the pod', () => {
    const own = podSpec(render({ ...STARTER, tls: TLS }));
    expect(own.initContainers.map((c: any) => c.name)).toEqual(['write-init-scripts', 'extract-distribution-config', 'merge-config']);
    const merge = byName(own.initContainers, 'merge-config');
    expect(merge.args).toEqual([
      'merge-config', '--no-providers', '--base-config', '/opt/llama-stack/base-config/config.yaml', '--output-dir', '/opt/llama-stack/config',
      '--config-file-name', 'config.yaml', '--server-version', '1.5',
      '--tls-certfile', '/opt/llama-stack/tls/tls.crt', '--tls-keyfile', '/opt/llama-stack/tls/tls.key',
    ]);
    expect(merge.volumeMounts.map((m: any) => m.name)).toEqual(['base-config', 'merged-config']);
    expect(own.volumes.map((v: any) => v.name)).toContain('init-scripts');
    expect(env(own.containers[0]).OGX_CONFIG).toBe('/opt/llama-stack/config/config.yaml');
    const configMap = podSpec(render({ ...STARTER, tls: TLS, userConfig: { configMapName: 'cfg' } }));
    expect(configMap.initContainers.map((c: any) => c.name)).toEqual(['merge-config']);
  });

  test('a Route re-encrypts to the pod; an Ingress is told its backend speaks HTTPS', () => {
    const route = find(render({ ...STARTER, tls: { ...TLS, routeDestinationCaCertificate: 'PEM' }, network: { expose: true, exposeAs: 'Route' } }), 'Route');
    expect(route.spec.tls).toEqual({ termination: 'reencrypt', insecureEdgeTerminationPolicy: 'Redirect', destinationCACertificate: 'PEM' });
    expect(route.spec.port).toEqual({ targetPort: 'https' });
    const ingress = find(render({ ...STARTER, tls: TLS, network: { expose: true } }), 'Ingress');
    expect(ingress.metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' });
  });

  test('bad tls settings name the field and the fix', () => {
    expect(errorOf({ ...STARTER, tls: { secretName: 'Bad_Name' } })).toContain('tls.secretName: "Bad_Name" is not a Secret name, a DNS-1123 subdomain');
    expect(errorOf({ ...STARTER, tls: { ...TLS, privateKeyKey: 'tls.crt' } })).toContain('tls: the certificate, the private key and the client CA must be different keys');
    expect(errorOf({ ...STARTER, tls: TLS, healthCheck: 'http' })).toContain("healthCheck: is 'http', but with tls the server speaks HTTPS");
    expect(errorOf({ ...STARTER, tls: {} as any })).toContain('tls.secretName: missing');
    expect(errorOf({ ...STARTER, tls: TLS, userConfig: { config: { server: { tls_certfile: '/mine.pem' } } } }))
      .toContain("userConfig.config: The base config contradicts how the pod serves: The base config's server.tls_certfile is '/mine.pem'");
  });
});

describe('the OGX operator\'s declarative config (declarativeConfig)', () => {
  const fixture = (name: string, file: string) => readFileSync(join(__dirname, '..', 'fixtures', 'ogx-configgen', name, file), 'utf8');
  const spec = (name: string) => parse(fixture(name, 'cr.yaml')).spec;

  test('over an inline base config it is generated at synth, as the operator generates it, with plain HTTP said', () => {
    const manifests = render({ ...STARTER, userConfig: { config: fixture('happy-basic', 'base.yaml') }, declarativeConfig: spec('happy-basic') });
    const config = parse(find(manifests, 'ConfigMap').data['config.yaml']);
    expect(config).toEqual({ ...parse(fixture('happy-basic', 'want-config.yaml')), server: { port: 8321, insecure: true } });
    expect(podSpec(manifests).initContainers).toBeUndefined();
  });

  test('the Secrets it references reach the server as the operator\'s OGX_<ID>_<FIELD> variables', () => {
    const manifests = render({ ...STARTER, userConfig: { config: fixture('p0-inference-base-url', 'base.yaml') }, declarativeConfig: spec('p0-inference-base-url') });
    const secretEnv = podSpec(manifests).containers[0].env.filter((e: any) => e.valueFrom?.secretKeyRef);
    expect(secretEnv.map((e: any) => e.name)).toEqual(['OGX_REMOTE_AZURE_API_KEY', 'OGX_REMOTE_BEDROCK_API_KEY', 'OGX_REMOTE_OPENAI_API_KEY', 'OGX_REMOTE_WATSONX_API_KEY']);
    expect(find(manifests, 'ConfigMap').data['config.yaml']).toContain('api_key: ${env.OGX_REMOTE_OPENAI_API_KEY}');
  });

  test('over a config only the pod sees, the merge step generates it there', () => {
    const declarativeConfig = { providers: { inference: { remote: { vllm: [{ endpoint: 'http://vllm:8000/v1$(HOME)' }] } } } };
    const pod = podSpec(render({ ...STARTER, declarativeConfig }));
    expect(pod.initContainers.map((c: any) => c.name)).toEqual(['write-init-scripts', 'extract-distribution-config', 'merge-config']);
    const args = byName(pod.initContainers, 'merge-config').args;
    // Kubernetes expands $(VAR) in args: the JSON is written so that it reaches the merge as it is.
    expect(args.slice(args.indexOf('--declarative-config'))).toEqual(['--declarative-config',
      '{"providers":{"inference":{"remote":{"vllm":[{"endpoint":"http://vllm:8000/v1$$(HOME)"}]}}}}']);
    expect(env(pod.containers[0]).OGX_CONFIG).toBe('/opt/llama-stack/config/config.yaml');
    const withConfigMap = podSpec(render({ ...STARTER, declarativeConfig, userConfig: { configMapName: 'base' } }));
    expect(withConfigMap.initContainers.map((c: any) => c.name)).toEqual(['merge-config']);
  });

  test('refused for llama-stack releases, and a spec the operator refuses is refused at synth, naming the field', () => {
    expect(errorOf({ ...STARTER, serverVersion: '0.7', declarativeConfig: spec('happy-basic') }))
      .toContain("declarativeConfig: is the OGX operator's config, generated for ogx releases; the server runs llama-stack 0.7.");
    expect(errorOf({ ...STARTER, userConfig: { config: fixture('err-bad-base-path', 'base.yaml') }, declarativeConfig: spec('err-bad-base-path') }))
      .toContain("missing required 'version' field");
    expect(errorOf({ ...STARTER, declarativeConfig: { providers: { inference: { remote: { vllm: 'one' } } } } }))
      .toContain('declarativeConfig.providers.inference.remote.vllm: must be array (the OGXServer CRD).');
    expect(errorOf({ ...STARTER, declarativeConfig: spec('p1-milvus-config'), env: [{ name: 'OGX_REMOTE_MILVUS_TOKEN', value: 'x' }] }))
      .toContain("env[0].name: 'OGX_REMOTE_MILVUS_TOKEN' carries a Secret that declarativeConfig references");
  });

  test('a typed provider the operator writes with a type no ogx release registers is refused, with the custom provider that loads', () => {
    // Generated in the pod (no inline base) or at synth: refused either way, as the real ogx 1.5.0 refuses the config.
    for (const base of [{}, { userConfig: { config: fixture('p1-responses-config', 'base.yaml') } }]) {
      const message = errorOf({ ...STARTER, ...base, declarativeConfig: spec('p1-responses-config') });
      expect(message).toContain("provider 'inline-builtin' gets provider_type inline::responses, which no ogx release registers; "
        + 'ogx serves this provider as inline::builtin (ogx/providers/registry/responses.py)');
      expect(message).toContain('spec.providers.<api>.inline.custom: [{type: <the type named above>, settings: {...}}]');
    }
    // The custom provider of the registered type passes.
    expect(() => render({ ...STARTER, declarativeConfig: { providers: { responses: { inline: { custom: [{ type: 'inline::builtin', settings: { persistence: {} } }] } } } } })).not.toThrow();
  });
});

describe('the server\'s Prometheus metrics (metricsPort)', () => {
  test('enabled on the port, reachable through the Service, as the OGX operator\'s monitoring', () => {
    const manifests = render({ ...STARTER, metricsPort: 9464 });
    const server = podSpec(manifests).containers[0];
    expect(env(server)).toMatchObject({ OGX_METRICS_ENDPOINT_ENABLED: 'true', OGX_METRICS_HOST: '0.0.0.0', OGX_METRICS_PORT: '9464' });
    expect(server.ports).toContainEqual({ name: 'metrics', containerPort: 9464, protocol: 'TCP' });
    expect(find(manifests, 'Service').spec.ports).toContainEqual({ name: 'metrics', port: 9464, targetPort: 'metrics', protocol: 'TCP' });
  });

  test('refused with more than one worker (each binds the port), on releases without it, and on the server\'s own port', () => {
    expect(errorOf({ ...STARTER, metricsPort: 9464, workers: 2 })).toContain('metricsPort: every worker process starts the metrics endpoint on port 9464, and with 2 workers the second fails');
    expect(errorOf({ ...STARTER, metricsPort: 9464, serverVersion: '1.1' })).toContain('metricsPort: ogx 1.1 has no metrics endpoint');
    expect(errorOf({ ...STARTER, metricsPort: 8321 })).toContain("metricsPort: 8321 is the server's own port");
    expect(errorOf({ ...STARTER, metricsPort: 80 })).toContain('metricsPort: 80 is not a port the non-root server can listen on');
  });
});

test('metricsPort: the NetworkPolicy admits the server\'s sources and OpenShift\'s monitoring to it; workers of the config count', () => {
  const manifests = render({ ...STARTER, metricsPort: 9464, network: { allowedFrom: { namespaces: ['monitoring'] } } });
  const sources = [
    { podSelector: {} },
    { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
    { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'ingress' } } },
  ];
  expect(find(manifests, 'NetworkPolicy').spec.ingress).toEqual([
    { from: sources, ports: [{ protocol: 'TCP', port: 8321 }] },
    { from: [...sources, { namespaceSelector: { matchLabels: { 'network.openshift.io/policy-group': 'monitoring' } } }], ports: [{ protocol: 'TCP', port: 9464 }] },
  ]);
  const everywhere = render({ ...STARTER, metricsPort: 9464, network: { allowedFrom: { namespaces: ['*'] } } });
  expect(find(everywhere, 'NetworkPolicy').spec.ingress[1]).toEqual({ from: [{ namespaceSelector: {} }], ports: [{ protocol: 'TCP', port: 9464 }] });
  expect(errorOf({ ...STARTER, metricsPort: 9464, userConfig: { config: { version: 2, server: { workers: 3 } } } }))
    .toContain('metricsPort: every worker process starts the metrics endpoint on port 9464, and with 3 workers');
});

describe('declarativeConfig is checked at synth, also when the pod generates the config', () => {
  test('fields the generator does not read are refused, with the nearest it reads', () => {
    expect(errorOf({ ...STARTER, declarativeConfig: { providerz: {} } }))
      .toContain("declarativeConfig.providerz: is not a field the operator's config generator reads: did you mean 'providers'? expected distribution, providers, resources, storage, disabledAPIs, network");
    expect(errorOf({ ...STARTER, declarativeConfig: { providers: {}, network: { policy: { enabled: false } } } }))
      .toContain("declarativeConfig.network.policy: is not read by the config generator, which reads network.port only: use the construct's network and tls props instead.");
    expect(errorOf({ ...STARTER, declarativeConfig: { network: { port: 8321 } } }))
      .toContain('declarativeConfig: OGXServer has no declarative config');
  });

  test('the CRD\'s shapes, unknown fields included, and what the generator refuses of the spec alone', () => {
    expect(errorOf({ ...STARTER, declarativeConfig: { providers: { inference: { remote: { vllm: [{ endpoint: 'http://v', endpont: 'x' }] } } } } }))
      .toContain('declarativeConfig.providers.inference.remote.vllm[0].endpont: unknown field');
    // A custom provider whose key is both a secret and a setting: the generator cannot expand it.
    const custom = { inference: { remote: { custom: [{ type: 'remote::mine', secretRefs: { token: { name: 's', key: 'k' } }, settings: { token: 'x' } }] } } };
    expect(errorOf({ ...STARTER, declarativeConfig: { providers: custom } })).toContain('declarativeConfig: Cannot expand the OGXServer providers');
  });

  test('network.port must be the server\'s port: the pod\'s OGX_PORT wins over the config\'s', () => {
    expect(errorOf({ ...STARTER, declarativeConfig: { providers: {}, network: { port: 9000 } } }))
      .toContain("declarativeConfig.network.port: is 9000, but the server listens on port 8321 (port, by default), which the pod's OGX_PORT gives and wins over the config's server.port: set port to 9000 too, or remove network from declarativeConfig.");
    const manifests = render({ ...STARTER, port: 9000, userConfig: { config: { version: 2 } }, declarativeConfig: { disabledAPIs: ['files'], network: { port: 9000 } } });
    expect(parse(find(manifests, 'ConfigMap').data['config.yaml']).server).toEqual({ port: 9000, insecure: true });
  });

  test('the base config\'s keys the generator drops are warned about; its problems name userConfig.config', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'stack', { ...STARTER, userConfig: { config: { version: 2, image_name: 'x', logging: {}, apis: [] } }, declarativeConfig: { disabledAPIs: ['files'] } });
    expect(warningsOf(chart)).toEqual(["declarativeConfig: the OGX operator's config generator keeps version, apis, providers, registered_resources, vector_stores, server and storage of the base config, and drops image_name, logging, as the operator does. Remove them from the base config, or write the whole config in userConfig without declarativeConfig."]);
    expect(errorOf({ ...STARTER, userConfig: { config: { apis: [] } }, declarativeConfig: { disabledAPIs: ['files'] } }))
      .toContain('userConfig.config: The OGX base config has no version');
  });

  test('a generated storage section keeps its SQLite files on the storage volume wherever it is mounted', () => {
    const storage = { kv: { type: 'sqlite' }, sql: { type: 'sqlite' } };
    const server = (props: Partial<LlamaStackWithProvidersProps>) =>
      env(podSpec(render({ ...STARTER, declarativeConfig: { storage }, ...props })).containers[0]);
    expect(server({ storage: { mountPath: '/data' } }).SQLITE_STORE_DIR).toBe('/data');
    // At the operator's mount path, the generated ${env.SQLITE_STORE_DIR:=/.ogx} is there already.
    expect(server({}).SQLITE_STORE_DIR).toBeUndefined();
    expect(env(podSpec(render({ ...STARTER, storage: { mountPath: '/data' }, declarativeConfig: { disabledAPIs: ['files'] } })).containers[0]).SQLITE_STORE_DIR).toBeUndefined();
  });
});

describe('how the pod serves, the probes and workers agree', () => {
  const quotaTls = { version: 2, server: { quota: { anonymous_max_requests: 100, period: 'day' }, tls_certfile: '/c.pem', tls_keyfile: '/k.pem' } };

  test('a config with its own TLS and a quota (llama-stack) is left as it is, checked over TCP', () => {
    const manifests = render({ ...STARTER, serverVersion: '0.7', userConfig: { config: quotaTls } });
    expect(parse(find(manifests, 'ConfigMap').data['config.yaml']).server).toEqual(quotaTls.server);
    expect(podSpec(manifests).containers[0].startupProbe.tcpSocket).toEqual({ port: 'http' });
  });

  test('tls with a quota the release reads: TCP checks (HTTPS ones would spend the quota), which tls allows', () => {
    const quota = { version: 2, server: { quota: { anonymous_max_requests: 100, period: 'day' } } };
    const server = podSpec(render({ ...STARTER, serverVersion: '0.7', tls: TLS, userConfig: { config: quota } })).containers[0];
    expect(server.startupProbe.tcpSocket).toEqual({ port: 'https' });
    expect(podSpec(render({ ...STARTER, tls: TLS, healthCheck: 'tcp' })).containers[0].livenessProbe.tcpSocket).toEqual({ port: 'https' });
  });

  test('healthCheck: https without tls needs a config that serves TLS', () => {
    const message = "healthCheck: is 'https' without tls, but the server runs";
    expect(errorOf({ ...STARTER, healthCheck: 'https' })).toContain(`${message} the image's own config, which has no certificate`);
    expect(errorOf({ ...STARTER, healthCheck: 'https', userConfig: { config: { version: 2 } } })).toContain(`${message} userConfig.config, whose server section has no tls_certfile`);
    expect(() => render({ ...STARTER, healthCheck: 'https', userConfig: { configMapName: 'tls-config' } })).not.toThrow();
  });

  test('uvicorn workers (llama-stack 0.3 to ogx 1.1) cannot serve the TLS of tls or of a healthCheck: https config', () => {
    expect(errorOf({ ...STARTER, serverVersion: '1.1', tls: TLS, workers: 2 }))
      .toContain('workers: the ogx 1.1 server started with workers (uvicorn, as the operator starts it) would not read the certificate of tls (server.tls_certfile) and would serve plain HTTP to HTTPS probes');
    expect(errorOf({ ...STARTER, serverVersion: '0.7', healthCheck: 'https', userConfig: { configMapName: 'c' }, workers: 2 }))
      .toContain("would not read the config's TLS (healthCheck: 'https')");
    expect(() => render({ ...STARTER, tls: TLS, workers: 2 })).not.toThrow();
  });

  test('with metricsPort the pod runs one worker (OGX_WORKERS=1), as the OGX operator pins it; sidecars keep off its port', () => {
    expect(env(podSpec(render({ ...STARTER, metricsPort: 9464 })).containers[0]).OGX_WORKERS).toBe('1');
    expect(errorOf({ ...STARTER, metricsPort: 9464, env: [{ name: 'OGX_WORKERS', value: '4' }] }))
      .toContain('env[0]: OGX_WORKERS starts that many worker processes, and with metricsPort each starts the metrics endpoint on port 9464');
    const sidecar = { inference: [{ providerId: 'acme-echo', image: 'quay.io/acme/echo:0.1.0', sidecar: { port: 9464 } }] };
    expect(errorOf({ ...STARTER, metricsPort: 9464, externalProviders: sidecar }))
      .toContain("externalProviders.inference[0].sidecar.port: 9464 is already the metrics endpoint (metricsPort)'s port in this pod");
    // An assigned sidecar port steps over it.
    const assigned = { inference: [{ providerId: 'acme-echo', image: 'quay.io/acme/echo:0.1.0', sidecar: {} }] };
    const pod = podSpec(render({ ...STARTER, metricsPort: 18000, externalProviders: assigned }));
    expect([...(pod.initContainers ?? []), ...pod.containers].find((c: any) => c.name.includes('acme-echo') && c.ports)?.ports[0].containerPort).toBe(18001);
  });
});
