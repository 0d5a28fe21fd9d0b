/**
 * How the server container starts the real llama-stack 0.7.3 server in a sandbox: `workers` start
 * uvicorn worker processes as the llama-stack operator does, and `OTEL_*` variables run the server
 * through `opentelemetry-instrument`, as upstream's image entrypoint does (both through
 * launch-server.sh; test/llama-stack/launch-server.test.ts checks its choices with stand-ins), which
 * also runs the OpenTelemetry entry points of provider wheels, as preflight warns.
 */
import * as fs from 'node:fs';
import { describeWithLlamaStack, env, freePort, renderStack, Scenario } from './helpers';
import { buildSyntheticWheel, providerMetadata, providerPackage } from '../sandbox/wheels';

describeWithLlamaStack('Starting the server (llama-stack 0.7.3)', {}, () => {
  let s: Scenario;
  beforeAll(() => {
    s = new Scenario('server-start');
    s.distribution();
  });
  afterAll(() => s.dispose());

  const config = () => fs.readFileSync(env().starterConfig, 'utf8');

  test('workers: uvicorn starts that many server processes, each serving the config', async () => {
    const port = await freePort();
    const manifests = renderStack({ port, workers: 2, userConfig: { config: config() } });
    const pod = await s.run(manifests, { serve: {} });
    if (pod.phase !== 'Running') throw new Error(`the server did not come up:\n${pod.describe()}`);
    for (let i = 0; i < 4; i++) expect((await pod.server!.request('GET', '/v1/health')).body).toEqual({ status: 'OK' });
    // The first worker up answers the health check; on a loaded machine the second may still be starting.
    const workers = () => pod.server!.logs().match(/Started server process \[\d+\]/g)?.length ?? 0;
    for (const deadline = Date.now() + 60_000; workers() < 2 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 200));
    await pod.stop();
    const logs = pod.container('llama-stack').logs;
    // uvicorn's supervisor, then one "Started server process" per worker.
    expect(logs).toContain('Started parent process');
    expect(logs.match(/Started server process \[\d+\]/g)).toHaveLength(2);
  });

  test('OTEL_* set: the server runs under opentelemetry-instrument, which reads the variables', async () => {
    const port = await freePort();
    // An exporter no package provides: opentelemetry-instrument's configurator names it in its error
    // (and the server starts regardless), which shows the variables reached the real wrapper.
    const manifests = renderStack({
      port,
      userConfig: { config: config() },
      env: [{ name: 'OTEL_SERVICE_NAME', value: 'kic-llama-stack' }, { name: 'OTEL_TRACES_EXPORTER', value: 'kic_probe_exporter' }],
    });
    const pod = await s.run(manifests, { serve: {} });
    if (pod.phase !== 'Running') throw new Error(`the server did not come up:\n${pod.describe()}`);
    expect((await pod.server!.request('GET', '/v1/models')).status).toBe(200);
    await pod.stop();
    expect(pod.container('llama-stack').logs).toContain('kic_probe_exporter');
  });

  test('OTEL_* set: a provider wheel\'s OpenTelemetry instrumentor runs inside the server; preflight warns and does not block', async () => {
    const entryPoints = `${s.dir}/acme-otel-entry-points.txt`;
    fs.writeFileSync(entryPoints, '[opentelemetry_instrumentor]\nacme = acme_otel_hooks:Instrumentor\n');
    const pkg = providerPackage({ name: 'acme-otel', extraFiles: { 'acme_otel-1.0.0.dist-info/entry_points.txt': entryPoints } });
    const hooks = 'print("ACME OTEL HOOK LOADED", flush=True)\nclass Instrumentor:\n    def instrument(self, **kwargs):\n        pass\n';
    const wheel = buildSyntheticWheel({ ...pkg, files: { ...pkg.files, 'acme_otel_hooks/__init__.py': hooks } }, s.dir, s.path('wheels', 'acme-otel'));
    const ref = 'registry.test/acme/otel:1';
    s.provider(ref, { metadata: providerMetadata({ name: 'acme-otel', wheels: [wheel] }), wheels: [wheel] });
    const exporters = ['OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER'].map((name) => ({ name, value: 'none' }));
    const pod = await s.run(renderStack({
      port: await freePort(),
      externalProviders: { inference: [{ providerId: 'acme-otel', image: ref }] },
      env: [{ name: 'OTEL_SERVICE_NAME', value: 'kic-llama-stack' }, ...exporters],
    }), { serve: {} });
    if (pod.phase !== 'Running') throw new Error(`the server did not come up:\n${pod.describe()}`);
    await pod.stop();
    const logs = pod.container('llama-stack').logs;
    expect(logs).toContain(`WARNING: Provider package declares OpenTelemetry entry points (non-blocking)\n\nProvider: acme-otel\nImage: ${ref}\n`
      + "Package: 'acme-otel 1.0.0'\n\nEntry points:\n"
      + "  - group 'opentelemetry_instrumentor', name 'acme': 'acme_otel_hooks:Instrumentor' (loaded at every start)\n");
    expect(logs).toContain('This container sets OTEL_LOGS_EXPORTER, OTEL_METRICS_EXPORTER, OTEL_SERVICE_NAME, OTEL_TRACES_EXPORTER: it runs at this start.');
    // What the warning says: opentelemetry-instrument loaded the wheel's code in the server, after preflight.
    expect(logs.indexOf('ACME OTEL HOOK LOADED')).toBeGreaterThan(logs.indexOf('Preflight passed'));
  });

  test('without OTEL_* the server starts plainly', async () => {
    const pod = await s.run(renderStack({ port: await freePort(), userConfig: { config: config() }, env: [{ name: 'OTEL', value: 'x' }] }), { serve: {} });
    if (pod.phase !== 'Running') throw new Error(`the server did not come up:\n${pod.describe()}`);
    await pod.stop();
    expect(pod.container('llama-stack').logs).not.toContain('opentelemetry');
  });
});
