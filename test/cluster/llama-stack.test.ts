/**
 * LlamaStackWithProviders on the real single-node cluster: what the construct renders is applied with
 * server-side apply into a namespace that enforces Pod Security `restricted`, and the kubelet runs it in
 * the real images (the merge image built from this repository, the sample provider's image from its
 * Containerfile, the real ogx server from PyPI in a distribution image laid out as upstream's). One server
 * with the sample provider three ways: in the server's process, with its service in a native sidecar, and
 * with its service in a Deployment of its own reached by its Service's name (the cluster's DNS). The
 * stories a user meets next: the server's container killed, a change of the server's ConfigMap applied,
 * what `kube-inference render` and `cdk8s synth` write, a provider image that cannot be installed, the
 * service part's pods gone; and a server of llama-stack 0.7.3, the last release before the rename, in its own
 * distribution image.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { clusterSupport, KubeCluster, TaskEvent } from './cluster';
import { request } from './http';
import { clusterImagesSupport, distributionImageOf, loadServerImages, pythonImage, realProviderImage, SAMPLE_PROVIDER_IMAGE } from './images';
import { manifestText, SERVER_CONFIG, serverStack } from './server-stack';
import { ExternalProvider, providerKey } from '../../src';
import { cli } from '../cli/run';
import { LLAMA_STACK, LMEVAL, OGX, PACKAGES_DIR, SHARED_DIR, TRUSTYAI_FMS } from '../pod-startup/helpers';
import { describeWhen, firstUnsupported } from '../sandbox/host';
import { REPO_ROOT, venvBasePython } from '../sandbox/images';
import { llamaStackEnv, providerWheels, testEnvsSupport } from '../sandbox/test-envs';

const NAMESPACE = 'llama-stack';
const ECHO = SAMPLE_PROVIDER_IMAGE;
/** A provider image without the provider's metadata: the Python base alone, as the docs' `no-meta` example. */
const NO_META = 'registry.example.com/acme/no-meta:1';
const HEX = '[0-9a-f]{32}';

/** The manifests of a server `name` of `version` (ogx by default) with `providers`, reading `config` from a ConfigMap of the same chart. */
const stack = (name: string, providers: ExternalProvider[], config?: object, version?: string) =>
  manifestText(serverStack(name, providers, config, version));

const PROVIDERS: ExternalProvider[] = [
  { providerId: 'acme-echo', image: ECHO, config: { prefix: '> ' } },
  { providerId: 'acme-sidecar', image: ECHO, config: { prefix: 'sidecar> ' }, sidecar: {} },
  { providerId: 'acme-service', image: ECHO, config: { prefix: 'service> ' }, service: { replicas: 1 } },
];

/** Real providers from PyPI, in images built here (images.ts `realProviderImage`). */
const FMS_IMAGE = `localhost/kube-inference-tests/trustyai-fms-provider:${TRUSTYAI_FMS.version}`;
const LMEVAL_IMAGE = `localhost/kube-inference-tests/lmeval-provider:${LMEVAL.version}`;

const env = llamaStackEnv(OGX);
const legacyEnv = llamaStackEnv(LLAMA_STACK);
describeWhen(`LlamaStackWithProviders on a real cluster (ogx ${OGX}, llama-stack ${LLAMA_STACK})`,
  firstUnsupported(clusterSupport, clusterImagesSupport,
    () => testEnvsSupport(env, legacyEnv, providerWheels(TRUSTYAI_FMS.name), providerWheels(LMEVAL.name))),
  'the single-node cluster, debootstrap, the ogx and llama-stack test environments and the real providers\' wheels', () => {
    let cluster: KubeCluster;
    let base: string;
    let startEvents: TaskEvent[];

    const serverPods = (name = 'llama-stack') =>
      cluster.get(['pods', '-n', NAMESPACE, '-l', `app.kubernetes.io/instance=${name}`]).items as any[];
    const chat = (model: string, text: string) => request(`${base}/v1/chat/completions`, { model, messages: [{ role: 'user', content: text }] });
    /** `kubectl get pods -o yaml | kube-inference status -o json`, with the providers' Deployments as the docs give them. */
    const status = async (name: string) => {
      const pods = cluster.kubectl(['get', 'pods', '-n', NAMESPACE, '-l', `app.kubernetes.io/instance=${name}`, '-o', 'yaml']);
      const deployments = cluster.kubectl(['get', 'deployments', '-n', NAMESPACE, '-l', `kube-inference.io/server=${name}`, '-o', 'yaml']);
      const r = await cli(['status', '-o', 'json'], { stdin: `${pods}\n---\n${deployments}` });
      if (r.code !== 0) throw new Error(`kube-inference status exited ${r.code}: ${r.stderr}`);
      const statuses = JSON.parse(r.stdout);
      return (Array.isArray(statuses) ? statuses : [statuses]) as any[];
    };
    // The node has 2 CPUs and each server requests 500m: a story that applies a server of its own removes it
    // when done (its Deployment, waiting for the pod to go), also when it failed.
    const ownServers: string[] = [];
    const ownServer = (name: string) => ownServers.push(name);
    afterEach(() => {
      for (const name of ownServers.splice(0)) {
        cluster.kubectl(['delete', 'deployment', name, '-n', NAMESPACE, '--cascade=foreground', '--wait=true', '--timeout=180s', '--ignore-not-found']);
      }
    });

    /** The answer to a chat with `model` through the Service of the server `name`, once it answers. */
    const chatThroughService = (name: string, model: string, text: string) => {
      const service = cluster.get(['service', `${name}-service`, '-n', NAMESPACE]);
      const url = `http://${service.spec.clusterIP}:${service.spec.ports[0].port}/v1/chat/completions`;
      return cluster.waitFor(`${model} of ${name} answering through its Service`, async () => {
        const a = await request(url, { model, messages: [{ role: 'user', content: text }] });
        if (a.status !== 200) throw new Error(`${a.status} ${JSON.stringify(a.body)}`);
        return a.body.choices[0].message.content as string;
      }, 120_000);
    };
    const available = (name: string) => cluster.waitFor(`Deployment ${name} available with its one pod of the newest template`, () => {
      const d = cluster.get(['deployment', name, '-n', NAMESPACE]);
      const s = d.status ?? {};
      const rolledOut = s.observedGeneration === d.metadata.generation && s.updatedReplicas === 1 && s.replicas === 1;
      return rolledOut && s.availableReplicas === 1 ? d : undefined;
    }, 480_000, ['describe', 'pods', '-n', NAMESPACE]);

    // The images in a hook of their own, before the apply's (cold, the Debian base comes from the mirror).
    beforeAll(async () => {
      cluster = await KubeCluster.start();
      loadServerImages(cluster, [{ install: env.value!, version: OGX }, { install: legacyEnv.value!, version: LLAMA_STACK }]);
      cluster.loadImage(pythonImage(venvBasePython(env.value!.venv)), NO_META);
      const legacyPython = venvBasePython(legacyEnv.value!.venv);
      cluster.loadImage(realProviderImage(FMS_IMAGE, TRUSTYAI_FMS, legacyPython));
      cluster.loadImage(realProviderImage(LMEVAL_IMAGE, LMEVAL, legacyPython));
    });

    beforeAll(async () => {
      const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } };
      const events = cluster.recordTaskEvents();
      cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], `${JSON.stringify(namespace)}\n${stack('llama-stack', PROVIDERS)}`);
      await available('llama-stack-acme-service');
      await available('llama-stack');
      startEvents = await events.stop();
      const service = cluster.get(['service', 'llama-stack-service', '-n', NAMESPACE]);
      base = `http://${service.spec.clusterIP}:${service.spec.ports[0].port}`;
      // kube-proxy writes the Service's rules a moment after the endpoint became ready.
      await cluster.waitFor('the server answering through its Service', () => request(`${base}/v1/health`), 120_000,
        ['get', 'endpointslices', '-n', NAMESPACE, '-o', 'yaml']);
    });

    afterAll(async () => {
      await cluster?.stop();
    });

    test('the init containers ran in order in their images, each once, the sidecar beside the server', () => {
      const [pod] = serverPods();
      expect(pod.status.initContainerStatuses.map((c: any) => `${c.name}:${c.state.terminated?.reason ?? Object.keys(c.state)[0]}:${c.restartCount}`)).toEqual([
        'write-init-scripts:Completed:0', 'inspect-distribution:Completed:0',
        'install-provider-acme-echo:Completed:0', 'install-provider-acme-sidecar:Completed:0', 'install-provider-acme-service:Completed:0',
        'merge-config:Completed:0', 'provider-acme-sidecar:running:0',
      ]);
      expect(pod.status.containerStatuses.map((c: any) => `${c.name}:${c.ready}`)).toEqual(['ogx:true']);
      expect(cluster.kubectl(['logs', '-n', NAMESPACE, pod.metadata.name, '-c', 'ogx'])).toContain('Preflight passed: 3 external provider(s) ready');
    });

    test('the native sidecar was started before the server, as the kubelet starts restartable init containers', () => {
      const [pod] = serverPods();
      const idOf = (statuses: any[], name: string) => statuses.find((c) => c.name === name).containerID;
      const started = startEvents.filter((e) => e.event === 'start').map((e) => e.containerID);
      const sidecar = started.indexOf(idOf(pod.status.initContainerStatuses, 'provider-acme-sidecar'));
      expect(sidecar).toBeGreaterThanOrEqual(0);
      expect(started.indexOf(idOf(pod.status.containerStatuses, 'ogx'))).toBeGreaterThan(sidecar);
    });

    test('the server answers through its Service, each provider from its own place; the service part by its Service\'s name', async () => {
      expect(await request(`${base}/v1/health`)).toEqual({ status: 200, body: { status: 'OK' } });
      const providers = (await request(`${base}/v1/providers`)).body.data as any[];
      expect(providers.filter((p) => p.provider_id.startsWith('acme-')).map((p) => `${p.provider_id}:${p.provider_type}`).sort())
        .toEqual(['acme-echo:remote::acme-echo', 'acme-service:remote::acme-echo', 'acme-sidecar:remote::acme-echo']);
      const [pod] = serverPods();
      const servicePod = (cluster.get(['pods', '-n', NAMESPACE, '-l', 'kube-inference.io/server=llama-stack']).items as any[])
        .find((p) => p.metadata.name.startsWith('llama-stack-acme-service-'));

      const inline = await chat('acme-echo/echo', 'hello   cluster');
      expect(inline.status).toBe(200);
      expect(inline.body.choices[0].message).toMatchObject({ role: 'assistant', content: '> hello cluster' });
      expect(inline.body.id).toMatch(new RegExp(`^chatcmpl-${HEX}$`)); // in the server's process
      // A completion's id names the host that answered: the server's pod (its sidecar), the service's pod.
      const sidecar = await chat('acme-sidecar/echo', 'two');
      expect(sidecar.body.choices[0].message.content).toBe('sidecar> two');
      expect(sidecar.body.id).toMatch(new RegExp(`^chatcmpl-${pod.metadata.name}-${HEX}$`));
      const service = await chat('acme-service/echo', 'three');
      expect(service.body.choices[0].message.content).toBe('service> three');
      expect(service.body.id).toMatch(new RegExp(`^chatcmpl-${servicePod.metadata.name}-${HEX}$`));
    });

    test('kube-inference status reads the server Ready, each provider in its mode', async () => {
      const [s] = await status('llama-stack');
      expect(s).toMatchObject({ name: 'llama-stack', namespace: NAMESPACE, phase: 'Ready', restarts: 0 });
      expect(s.providers).toEqual([
        { providerId: 'acme-echo', api: 'inference', image: ECHO, mode: 'inline', phase: 'Ready' },
        { providerId: 'acme-sidecar', api: 'inference', image: ECHO, mode: 'sidecar', phase: 'Ready', sidecar: { container: 'provider-acme-sidecar', ready: true, restarts: 0 } },
        { providerId: 'acme-service', api: 'inference', image: ECHO, mode: 'service', phase: 'Ready', service: { name: 'llama-stack-acme-service', replicas: { desired: 1, available: 1 } } },
      ]);
    });

    test('the service part\'s pods gone, only that provider fails: the server and the others go on', async () => {
      const serviceDeployment = ['deployment', 'llama-stack-acme-service', '-n', NAMESPACE];
      cluster.kubectl(['scale', ...serviceDeployment, '--replicas=0']);
      try {
        await cluster.waitFor('the service\'s pods gone', () => {
          const pods = cluster.get(['pods', '-n', NAMESPACE, '-l', 'kube-inference.io/server=llama-stack']).items as any[];
          return pods.some((p) => p.metadata.name.startsWith('llama-stack-acme-service-')) ? undefined : true;
        }, 120_000);
        // ogx maps a provider's ConnectionError to 502 (ogx/core/exceptions/mapping.py).
        expect(await chat('acme-service/echo', 'four')).toMatchObject({
          status: 502, body: { error: { message: expect.stringContaining('acme-echo: the service at http://llama-stack-acme-service:8080/v1 did not answer: ') } },
        });
        expect((await chat('acme-echo/echo', 'five')).status).toBe(200);
        expect((await chat('acme-sidecar/echo', 'six')).status).toBe(200);
      } finally {
        cluster.kubectl(['scale', ...serviceDeployment, '--replicas=1']);
        await available('llama-stack-acme-service');
      }
      // kube-proxy leads the provider's Service to the new pod a moment after it became ready.
      expect(await chatThroughService('llama-stack', 'acme-service/echo', 'back')).toBe('service> back');
    });

    test('the server killed on the node is restarted alone: no provider is installed again', async () => {
      const [pod] = serverPods();
      expect(cluster.killContainer(pod.status.containerStatuses[0].containerID)).toBeGreaterThan(0);
      const again = await cluster.waitFor('the server restarted and ready', () => {
        const p = cluster.get(['pod', pod.metadata.name, '-n', NAMESPACE]);
        return p.status.containerStatuses[0].restartCount === 1 && p.status.containerStatuses[0].ready ? p : undefined;
      }, 300_000, ['describe', 'pod', pod.metadata.name, '-n', NAMESPACE]);
      expect(again.status.containerStatuses[0].lastState.terminated).toMatchObject({ exitCode: 137 });
      expect(again.status.initContainerStatuses.map((c: any) => c.restartCount)).toEqual([0, 0, 0, 0, 0, 0, 0]);
      await cluster.waitFor('the server answering again', () => request(`${base}/v1/health`), 120_000);
      expect((await chat('acme-sidecar/echo', 'back')).body.choices[0].message.content).toBe('sidecar> back');
    });

    test('a changed server ConfigMap, applied, rolls the pods: the new pod serves the new config; the old server stopped before its sidecar', async () => {
      const [old] = serverPods();
      const hash = (d: any) => d.spec.template.metadata.annotations['kube-inference.io/configmaps-hash'];
      const before = hash(cluster.get(['deployment', 'llama-stack', '-n', NAMESPACE]));
      // A model registered under a name of the user's, served by the inline provider's one model; ogx 1.5
      // prefixes it with the provider's id (ogx/core/routing_tables/models.py, register_model).
      const registered = { ...SERVER_CONFIG, registered_resources: { models: [{ model_id: 'greeter', provider_id: 'acme-echo', provider_model_id: 'echo', model_type: 'llm' }] } };
      const events = cluster.recordTaskEvents();
      cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], stack('llama-stack', PROVIDERS, registered));
      const rolled = await available('llama-stack');
      expect(hash(rolled)).not.toBe(before);
      await cluster.waitFor(`the old pod ${old.metadata.name} gone`, () => (serverPods().some((p) => p.metadata.name === old.metadata.name) ? undefined : true), 300_000);
      const exits = (await events.stop()).filter((e) => e.event === 'exit').map((e) => e.containerID);
      const exitOf = (statuses: any[], name: string) => exits.indexOf(statuses.find((c) => c.name === name).containerID);
      expect(exitOf(old.status.containerStatuses, 'ogx')).toBeGreaterThanOrEqual(0);
      expect(exitOf(old.status.initContainerStatuses, 'provider-acme-sidecar')).toBeGreaterThan(exitOf(old.status.containerStatuses, 'ogx'));

      await cluster.waitFor('the new pod answering through the Service', async () => {
        const answer = await chat('acme-echo/greeter', 'hello again');
        if (answer.status !== 200) throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
        return answer;
      }, 120_000);
      expect((await chat('acme-echo/greeter', 'hello   again')).body.choices[0].message.content).toBe('> hello again');
    });

    test('what `kube-inference render` writes for an OGXServer with an external provider, applied, serves', async () => {
      const input = [
        {
          apiVersion: 'ogx.io/v1beta1',
          kind: 'OGXServer',
          metadata: { name: 'rendered', namespace: NAMESPACE },
          spec: {
            distribution: { image: distributionImageOf(OGX) },
            overrideConfig: { name: 'rendered-config', key: 'config.yaml' },
            externalProviders: { inference: [{ providerId: 'acme-echo', image: ECHO, config: { prefix: 'rendered> ' } }] },
          },
        },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rendered-config', namespace: NAMESPACE }, data: { 'config.yaml': stringify(SERVER_CONFIG) } },
      ];
      ownServer('rendered');
      const rendered = await cli(['render', '-'], { stdin: input.map((d) => stringify(d)).join('---\n') });
      expect(rendered).toMatchObject({ code: 0, stderr: '' });
      cluster.kubectl(['apply', '--server-side', '-f', '-'], rendered.stdout);
      await available('rendered');
      expect(await chatThroughService('rendered', 'acme-echo/echo', 'from   render')).toBe('rendered> from render');
    });

    test('what `cdk8s synth` writes for an app whose config is merged at synth time, applied, serves; the pod runs no merge', async () => {
      ownServer('cdk8s-app');
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-cdk8s-app-'));
      try {
        execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'cdk8s'), ['synth', '--no-check-upgrade', '--output', out], {
          cwd: path.join(__dirname, 'cdk8s-app'), stdio: 'pipe', env: { ...process.env, NAMESPACE, DISTRIBUTION_IMAGE: distributionImageOf(OGX) },
        });
        cluster.kubectl(['apply', '--server-side', '-f', path.join(out, 'cdk8s-app.k8s.yaml')]);
      } finally {
        fs.rmSync(out, { recursive: true, force: true });
      }
      await available('cdk8s-app');
      const [pod] = serverPods('cdk8s-app');
      expect(pod.status.initContainerStatuses.map((c: any) => `${c.name}:${c.state.terminated?.reason}:${c.restartCount}`))
        .toEqual(['inspect-distribution:Completed:0', 'install-provider-acme-echo:Completed:0']);
      expect(await chatThroughService('cdk8s-app', 'acme-echo/echo', 'from   cdk8s')).toBe('cdk8s> from cdk8s');
    });

    test(`llama-stack ${LLAMA_STACK}: a server with the provider in its process, in a native sidecar and in a Deployment of its own rolls out and answers`, async () => {
      ownServer('legacy');
      ownServer('legacy-acme-service');
      cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], stack('legacy', [
        { providerId: 'acme-echo', image: ECHO, config: { prefix: 'legacy> ' } },
        { providerId: 'acme-sidecar', image: ECHO, config: { prefix: 'legacy sidecar> ' }, sidecar: {} },
        { providerId: 'acme-service', image: ECHO, config: { prefix: 'legacy service> ' }, service: { replicas: 1 } },
      ], undefined, LLAMA_STACK));
      await available('legacy-acme-service');
      await available('legacy');
      const [pod] = serverPods('legacy');
      expect(pod.status.containerStatuses.map((c: any) => `${c.name}:${c.ready}`)).toEqual(['llama-stack:true']);
      expect(cluster.kubectl(['logs', '-n', NAMESPACE, pod.metadata.name, '-c', 'llama-stack'])).toContain('Preflight passed: 3 external provider(s) ready');
      expect(await chatThroughService('legacy', 'acme-echo/echo', 'old   friend')).toBe('legacy> old friend');
      expect(await chatThroughService('legacy', 'acme-sidecar/echo', 'old   friend')).toBe('legacy sidecar> old friend');
      expect(await chatThroughService('legacy', 'acme-service/echo', 'old   friend')).toBe('legacy service> old friend');
      const [s] = await status('legacy');
      expect(s).toMatchObject({
        phase: 'Ready',
        providers: [{ providerId: 'acme-echo', phase: 'Ready' }, { providerId: 'acme-sidecar', mode: 'sidecar', phase: 'Ready' }, { providerId: 'acme-service', mode: 'service', phase: 'Ready' }],
      });
    });

    test(`llama-stack ${LLAMA_STACK}: real providers from PyPI, one depending on llama-stack itself, are installed and served, the server's own packages serving what it has`, async () => {
      ownServer('real');
      cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], manifestText(serverStack('real', {
        safety: [{ providerId: 'trustyai_fms', image: FMS_IMAGE, config: {} }],
        eval: [{ providerId: 'trustyai_lmeval', image: LMEVAL_IMAGE, config: {} }],
      }, undefined, LLAMA_STACK)));
      await available('real');
      const [pod] = serverPods('real');
      // Spec order: section order (safety before eval), then list order.
      expect(pod.status.initContainerStatuses.map((c: any) => c.name)).toEqual(['write-init-scripts', 'inspect-distribution',
        `install-provider-${providerKey('trustyai_fms')}`, `install-provider-${providerKey('trustyai_lmeval')}`, 'merge-config']);
      expect(cluster.kubectl(['logs', '-n', NAMESPACE, pod.metadata.name, '-c', 'llama-stack'])).toContain('Preflight passed: 2 external provider(s) ready');
      // lmeval's wheels include llama-stack itself, fastapi, pydantic...: the server has them, so they are
      // not installed, and the server imports its own copies.
      const inServer = (...command: string[]) => cluster.kubectl(['exec', '-n', NAMESPACE, pod.metadata.name, '-c', 'llama-stack', '--', ...command]);
      const manifest = inServer('cat', `${SHARED_DIR}/installed-packages.txt`);
      expect(manifest).toMatch(/^llama_stack==0\.7\.3 provider=trustyai-lmeval-[0-9a-f]{8} image=\S+ served-by=server$/mi);
      expect(manifest).toMatch(/^fastapi==\S+ provider=\S+ image=\S+ served-by=server$/mi);
      expect(manifest).toMatch(/^kubernetes==35\.0\.0 provider=trustyai-lmeval-[0-9a-f]{8} image=\S+$/m);
      const installed = inServer('ls', PACKAGES_DIR).split('\n');
      expect(installed).toContain('llama_stack_provider_lmeval');
      expect(installed.filter((p) => p === 'llama_stack' || p === 'fastapi')).toEqual([]);
      const files = inServer('python3', '-c',
        'import llama_stack, fastapi, pydantic, llama_stack_provider_lmeval as m; print(llama_stack.__file__); print(fastapi.__file__); print(pydantic.__file__); print(m.__file__)').trim().split('\n');
      expect(files.slice(0, 3).every((f) => f.startsWith(`${legacyEnv.value!.venv}/`))).toBe(true);
      expect(files[3]).toBe(`${PACKAGES_DIR}/llama_stack_provider_lmeval/__init__.py`);
      const service = cluster.get(['service', 'real-service', '-n', NAMESPACE]);
      const providers = await request(`http://${service.spec.clusterIP}:${service.spec.ports[0].port}/v1/providers`);
      expect(providers.status).toBe(200);
      expect((providers.body.data as any[]).filter((p) => p.provider_id.startsWith('trustyai_')).map((p) => `${p.api}/${p.provider_id}=${p.provider_type}`).sort())
        .toEqual(['eval/trustyai_lmeval=remote::trustyai_lmeval', 'safety/trustyai_fms=remote::trustyai_fms']);
      const [s] = await status('real');
      expect(s).toMatchObject({ phase: 'Ready' });
    });

    test('a provider image without its metadata fails its install container, as the pod\'s events and kube-inference status say', async () => {
      cluster.kubectl(['apply', '--server-side', '-n', NAMESPACE, '-f', '-'], stack('broken', [
        { providerId: 'acme-echo', image: ECHO },
        { providerId: 'no-meta', image: NO_META },
      ]));
      const failed = await cluster.waitFor('kube-inference status: Failed', async () => {
        const [s] = await status('broken');
        return s?.phase === 'Failed' ? s : undefined;
      }, 300_000, ['describe', 'pods', '-n', NAMESPACE, '-l', 'app.kubernetes.io/instance=broken']);
      expect(failed.message).toMatch(/^init container install-provider-no-meta failed: (CrashLoopBackOff: )?Error \(exit code 1\): /);
      // A line of its own. The message is the log's tail (FallbackToLogsOnError), in which the runtime may put the
      // script's stdout line ('Installing …') before or after this stderr one: the two streams are read apart.
      expect(failed.message.split('\n').map((line: string) => line.replace(/^.*\(exit code 1\): /, '')))
        .toContain('ERROR: Missing /lls-provider/lls-provider-spec.yaml in image registry.example.com/acme/no-meta:1');
      expect(failed.providers.map((p: any) => `${p.providerId}:${p.phase}`)).toEqual(['acme-echo:Ready', 'no-meta:Failed']);
      expect(failed.providers[1].reason).toContain('Resolution: Provider images must contain their metadata file at /lls-provider/lls-provider-spec.yaml.');

      const [pod] = serverPods('broken');
      // `kubectl get pod` names the failing init container's state (between two back-offs the kubelet runs
      // it again, and the column shows the init containers done: `Init:3/5`); `describe` shows the log's end as
      // its message.
      await cluster.waitFor('kubectl get pod showing the init container failed', () => {
        const line = cluster.kubectl(['get', 'pod', '-n', NAMESPACE, pod.metadata.name, '--no-headers']);
        return / Init:(Error|CrashLoopBackOff) /.test(line) ? line : undefined;
      }, 120_000);
      expect(cluster.kubectl(['describe', 'pod', '-n', NAMESPACE, pod.metadata.name])).toContain('ERROR: Missing /lls-provider/lls-provider-spec.yaml in image registry.example.com/acme/no-meta:1');
      await cluster.waitFor('the kubelet\'s back-off event', () => {
        const events = cluster.get(['events', '-n', NAMESPACE, '--field-selector', `involvedObject.name=${pod.metadata.name},reason=BackOff`]).items as any[];
        return events.find((e) => e.message.includes('install-provider-no-meta'));
      }, 120_000);
      // The server never started.
      expect(pod.status.containerStatuses[0].state.waiting).toMatchObject({ reason: 'PodInitializing' });
    });
  });
