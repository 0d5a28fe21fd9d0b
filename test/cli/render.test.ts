import { execFileSync } from 'child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'fs';
import { join } from 'path';
import { parseAllDocuments } from 'yaml';
import { runBuiltCli } from './built-cli';
import { cli } from './run';
import { LAUNCH_SERVER } from '../llama-stack/helpers';
import { tempDir } from '../temp-dir';

const FIXTURE = join(__dirname, '..', 'fixtures', 'llsd', 'two-stacks.yaml');
const kinds = (yaml: string) => parseAllDocuments(yaml).map((d) => `${d.get('kind')}/${(d.get('metadata') as any)?.get?.('name')}`);
const tmp = () => tempDir('render-');

describe('kube-inference render', () => {
  test('renders every LlamaStackDistribution through the construct, named and namespaced from metadata', async () => {
    const r = await cli(['render', FIXTURE]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(kinds(r.stdout)).toEqual([
      'ServiceAccount/team-a-sa',
      'Deployment/team-a',
      'Service/team-a-service',
      // Two replicas: the operator's default disruption budget.
      'PodDisruptionBudget/team-a-pdb',
      'PersistentVolumeClaim/team-b-pvc',
      'ServiceAccount/team-b-sa',
      'Deployment/team-b',
      'Service/team-b-service',
    ]);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS());
    expect(docs.every((d) => d.metadata.namespace === 'ai')).toBe(true);
    const a = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'team-a');
    expect(a.spec.replicas).toBe(2);
    expect(a.spec.template.spec.initContainers.map((c: any) => c.name)).toEqual([
      'write-init-scripts', 'inspect-distribution', 'install-provider-custom-vllm', 'install-provider-trustyai-fms', 'extract-distribution-config', 'merge-config',
    ]);
    // YAML numbers in quantities become Kubernetes quantity strings.
    expect(a.spec.template.spec.containers[0].resources).toEqual({ requests: { cpu: '1', memory: '2Gi' } });
    const b = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'team-b');
    expect(b.spec.template.spec.containers[0].command).toEqual(LAUNCH_SERVER);
    expect(b.spec.template.spec.containers[0].env).toContainEqual({ name: 'LLAMA_STACK_CONFIG', value: '/etc/llama-stack/config.yaml' });
  });

  test('reads standard input with - and renders the same bytes as from the file', async () => {
    const fromFile = await cli(['render', FIXTURE]);
    const fromStdin = await cli(['render', '-'], { stdin: readFileSync(FIXTURE, 'utf8') });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
  });

  test('renders identical bytes every time', async () => {
    expect((await cli(['render', FIXTURE])).stdout).toBe((await cli(['render', FIXTURE])).stdout);
  });

  test('-o writes one file per input document', async () => {
    const dir = tmp();
    const r = await cli(['render', FIXTURE, '-o', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir).sort()).toEqual(['.kube-inference-render', 'ai.team-a.k8s.yaml', 'ai.team-b.k8s.yaml']);
    expect(kinds(readFileSync(join(dir, 'ai.team-b.k8s.yaml'), 'utf8'))).toEqual(['PersistentVolumeClaim/team-b-pvc', 'ServiceAccount/team-b-sa', 'Deployment/team-b', 'Service/team-b-service']);
  });

  test('invalid input: exit 1, nothing on stdout or in the output directory, stderr names document, field and fix', async () => {
    const bad = readFileSync(FIXTURE, 'utf8').replace('providerId: trustyai-fms', 'providerId: __disabled__');
    const dir = tmp();
    const r = await cli(['render', '-', '-o', dir], { stdin: bad });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
    expect(r.stderr).toContain('error: <stdin> document 1 (LlamaStackDistribution "team-a") has 1 invalid setting:');
    expect(r.stderr).toContain("spec.server.externalProviders.safety[0].providerId: is not a provider id llama-stack can use (image quay.io/trustyai/fms-provider:0.4.0): '__disabled__' marks a disabled provider");
    expect(r.stderr).toContain("Rename it, e.g. 'my-provider'");
  });

  test('spec.server.models: a model served in the cluster, served through the server (the construct\'s models); a typo named', async () => {
    const doc = `apiVersion: llamastack.io/v1alpha1
kind: LlamaStackDistribution
metadata: {name: team-a, namespace: ai}
spec:
  server:
    distribution: {name: starter}
    models: [{url: "http://llama-8b-frontend.models.svc.cluster.local:8000/v1", model: meta-llama/Llama-3.1-8B-Instruct, providerId: llama-8b}]
`;
    const r = await cli(['render', '-'], { stdin: doc });
    expect(r.code).toBe(0);
    const merge = parseAllDocuments(r.stdout).map((d) => d.toJS()).find((d) => d.kind === 'Deployment').spec.template.spec.initContainers
      .find((c: any) => c.name === 'merge-config');
    expect(JSON.parse(merge.args[merge.args.indexOf('--served-models') + 1])).toEqual([
      { providerId: 'llama-8b', url: 'http://llama-8b-frontend.models.svc.cluster.local:8000/v1', model: 'meta-llama/Llama-3.1-8B-Instruct' },
    ]);
    const saved = doc.replace('metadata: {name: team-a, namespace: ai}', 'metadata: {name: team-a, namespace: ai, uid: 0b6c0d3e, finalizers: [x]}');
    const savedRun = await cli(['render', '-'], { stdin: saved });
    expect(savedRun.code).toBe(0);
    expect(savedRun.stderr).toContain('metadata.finalizers describes the LlamaStackDistribution itself; the objects render writes do not carry it, and it is ignored.');
    expect(savedRun.stderr).not.toContain('metadata.uid');
    const metadataTypo = await cli(['render', '-'], { stdin: saved.replace('uid:', 'lables: {team: a}, uid:') });
    expect(metadataTypo.stderr).toContain("  - metadata.lables: unknown field; did you mean 'labels'?");
    const typo = await cli(['render', '-'], { stdin: doc.replace('model: meta', 'modle: meta') });
    expect(typo.stderr).toContain("  - spec.server.models[0].modle: unknown field; did you mean 'model'? (expected one of: url, model, providerId)");
    const bad = await cli(['render', '-'], { stdin: doc.replace('http://llama', 'ftp://llama') });
    expect(bad.stderr).toContain('  - spec.server.models[0].url: "ftp://llama-8b-frontend.models.svc.cluster.local:8000/v1" is not an http:// or https:// URL');
  });

  test('the merge image: the annotation kube-inference.io/merge-image, checked as the construct\'s mergeImage', async () => {
    const withImage = (image: string) => readFileSync(FIXTURE, 'utf8').replace('    kube-inference.io/server-version: "0.7"', `    kube-inference.io/server-version: "0.7"\n    kube-inference.io/merge-image: ${JSON.stringify(image)}`);
    const r = await cli(['render', '-'], { stdin: withImage('registry.example.com/kube-inference/merge:0.1.0') });
    expect(r.code).toBe(0);
    const pod = parseAllDocuments(r.stdout).map((d) => d.toJS()).find((d) => d.kind === 'Deployment' && d.metadata.name === 'team-a').spec.template.spec;
    expect(pod.initContainers.find((c: any) => c.name === 'merge-config').image).toBe('registry.example.com/kube-inference/merge:0.1.0');
    const bad = await cli(['render', '-'], { stdin: withImage('registry.example.com/merge image') });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('  - metadata.annotations.kube-inference.io/merge-image: ');
  });

  test('the server release: the annotation, else the image tag, else llama-stack 0.7 with a warning when providers depend on it', async () => {
    const text = readFileSync(FIXTURE, 'utf8');
    const args = (doc: any) => parseAllDocuments(doc).map((d) => d.toJS())
      .find((d) => d.kind === 'Deployment' && d.metadata.name === 'team-a').spec.template.spec.initContainers.find((c: any) => c.name === 'merge-config').args;
    const release = (doc: any) => args(doc)[args(doc).indexOf('--server-version') + 1];
    const noAnnotation = text.replace(/ {2}annotations:\n.*\n.*\n/, '');
    const tagged = await cli(['render', '-'], { stdin: noAnnotation.replace('      name: starter', '      image: docker.io/llamastack/distribution-starter:0.6.1') });
    expect(tagged.stderr).toBe('');
    expect(release(tagged.stdout)).toBe('0.6');

    // A named distribution of the llama-stack operator's document is llama-stack's, of the last line.
    const named = await cli(['render', '-'], { stdin: noAnnotation });
    expect(named.stderr).toBe('');
    expect(release(named.stdout)).toBe('0.7');
    expect(named.stdout).toContain('image: docker.io/llamastack/distribution-starter:0.7.3');

    const unknown = await cli(['render', '-'], { stdin: noAnnotation.replace('      name: starter', '      image: quay.io/acme/llama-stack:prod') });
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toBe('warning: <stdin> document 1 (LlamaStackDistribution "team-a"): spec.server.distribution: the tag of '
      + 'quay.io/acme/llama-stack:prod does not say which server release it runs; the pod is rendered for llama-stack 0.7 and the external '
      + 'providers are checked against it. Name the release with the annotation kube-inference.io/server-version (e.g. "0.6", or "1.5" for ogx), '
      + 'or use an image tagged with its version.\n');

    const bad = await cli(['render', '-'], { stdin: text.replace('server-version: "0.7"', 'server-version: "0.9"') });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("metadata.annotations.kube-inference.io/server-version: '0.9' is not a llama-stack or ogx release this construct knows");
    const agents = await cli(['render', '-'], { stdin: text.replace('      safety:', '      agents:') });
    expect(agents.stderr).toContain('spec.server.externalProviders.agents[0]: provider \'trustyai-fms\' (image quay.io/trustyai/fms-provider:0.4.0): llama-stack 0.7 has no agents API');

    // The annotation's old name still works, with a warning; both with different values are refused.
    const old = await cli(['render', '-'], { stdin: text.replace('kube-inference.io/server-version: "0.7"', 'kube-inference.io/llama-stack-version: "0.6"') });
    expect(old.code).toBe(0);
    expect(release(old.stdout)).toBe('0.6');
    expect(old.stderr).toContain('metadata.annotations.kube-inference.io/llama-stack-version is deprecated: llama-stack was renamed OGX, and '
      + 'kube-inference.io/server-version names a release of either. Rename the annotation to kube-inference.io/server-version.');
    const both = await cli(['render', '-'], { stdin: text.replace('kube-inference.io/server-version: "0.7"', 'kube-inference.io/server-version: "0.7"\n    kube-inference.io/llama-stack-version: "0.6"') });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('metadata.annotations.kube-inference.io/llama-stack-version: is "0.6" while kube-inference.io/server-version is "0.7"');
  });

  test('YAML syntax errors give the line and column', async () => {
    const r = await cli(['render', '-'], { stdin: 'apiVersion: llamastack.io/v1alpha1\nkind: [LlamaStackDistribution\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/<stdin>: document 1: YAML parse error at line \d+, column \d+/);
  });

  test('alias bombs are refused, not expanded', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    }
    const r = await cli(['render', '-'], { stdin: bomb.join('\n') + '\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/alias/i);
  });

  test('documents that are not objects, or look like ours mistyped, are reported per document', async () => {
    const r = await cli(['render', '-'], {
      stdin: [
        'apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\nspec: {server: {distribution: {name: starter}}}\n',
        'apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistributon\nmetadata: {name: a}\n',
        'apiVersion: llamastack.io/v1alpha2\nkind: LlamaStackDistribution\nmetadata: {name: b}\n',
        'apiVersion: ogx.io/v1beta1\nkind: OGXServer\nmetadata: {name: c}\n',
        'apiVersion: airunway.ai/v1alpha1\nkind: ModelDeploymnt\nmetadata: {name: d}\n',
        'kind: ConfigMap\nmetadata: {name: e}\n',
        'just: a map\n',
      ].join('---\n'),
    });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toContain('<stdin> document 1 (LlamaStackDistribution) has 2 invalid settings:');
    expect(r.stderr).toContain('metadata: missing: expected a mapping.');
    expect(r.stderr).toContain('<stdin> document 2 (LlamaStackDistributon "a"): unsupported document: expected kind LlamaStackDistribution with apiVersion llamastack.io/v1alpha1');
    expect(r.stderr).toContain('(did you mean kind LlamaStackDistribution?)');
    expect(r.stderr).toContain('<stdin> document 3 (LlamaStackDistribution "b"): unsupported document: llamastack.io/v1alpha2 exists only in pull request #253 of the llama-stack operator');
    // An OGXServer renders (docs/ogx-operator.md); this one lacks its spec.
    expect(r.stderr).toContain('<stdin> document 4 (OGXServer "c") has 1 invalid setting:');
    expect(r.stderr).toContain('spec: missing');
    expect(r.stderr).toContain('<stdin> document 5 (ModelDeploymnt "d"): unsupported document:');
    expect(r.stderr).toContain('(did you mean kind ModelDeployment?)');
    expect(r.stderr).toContain('<stdin> document 6 (ConfigMap "e"): not a Kubernetes object:');
    expect(r.stderr).toContain('<stdin> document 7 (unknown kind): not a Kubernetes object:');
  });

  describe('other objects in the input', () => {
    const configMap = (data: string, namespace = '') =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stack-config${namespace ? `, namespace: ${namespace}` : ''}}\ndata: {config.yaml: "${data}"}\n`;
    const stack = 'apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\nmetadata: {name: stack, namespace: ai}\n'
      + 'spec: {server: {distribution: {name: starter}, userConfig: {configMapName: stack-config}}}\n';
    const hashOf = (out: string) => parseAllDocuments(out).map((d) => d.toJS()).find((o) => o.kind === 'Deployment')
      .spec.template.metadata.annotations?.['kube-inference.io/configmaps-hash'];

    test('pass through unchanged, in input order, and a ConfigMap the pods read is hashed into their template', async () => {
      const r = await cli(['render', '-'], { stdin: `${configMap('version: 2')}---\n${stack}` });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(kinds(r.stdout)).toEqual(['ConfigMap/stack-config', 'ServiceAccount/stack-sa', 'Deployment/stack', 'Service/stack-service']);
      expect(r.stdout.startsWith('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stack-config\ndata:\n  config.yaml: "version: 2"\n---\n')).toBe(true);
      const a = hashOf(r.stdout);
      expect(a).toMatch(/^[0-9a-f]{64}$/);
      // Changed content: another hash, so applying it rolls the pods. Same content: the same bytes.
      expect(hashOf((await cli(['render', '-'], { stdin: `${configMap('version: 3')}---\n${stack}` })).stdout)).not.toBe(a);
      expect((await cli(['render', '-'], { stdin: `${stack}---\n${configMap('version: 2')}` })).stdout).toContain(`kube-inference.io/configmaps-hash: ${a}`);
      // A ConfigMap of another namespace is not the one the pods read; without one, no hash.
      expect(hashOf((await cli(['render', '-'], { stdin: `${configMap('version: 2', 'other')}---\n${stack}` })).stdout)).toBeUndefined();
      expect(hashOf((await cli(['render', '-'], { stdin: stack })).stdout)).toBeUndefined();
    });

    test('with -o, each passed-through object gets a file named with its kind; an object rendered twice is refused', async () => {
      const dir = tmp();
      const r = await cli(['render', '-', '-o', dir], { stdin: `${configMap('version: 2')}---\n${stack}` });
      expect(r.code).toBe(0);
      expect(readdirSync(dir).sort()).toEqual(['.kube-inference-render', 'ai.stack.k8s.yaml', 'stack-config.configmap.k8s.yaml']);
      const clash = await cli(['render', '-'], { stdin: `${stack}---\napiVersion: v1\nkind: Service\nmetadata: {name: stack-service, namespace: ai}\n` });
      expect(clash.code).toBe(1);
      expect(clash.stderr).toContain('both render Service ai/stack-service');
    });
  });

  test('operator fields it cannot translate are warnings on stderr, not silent drops', async () => {
    const text = readFileSync(FIXTURE, 'utf8').replace('    userConfig:', '    envFromExternalConfigMaps: [{name: a, namespace: ai}]\n    userConfig:');
    const r = await cli(['render', '-'], { stdin: text });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('warning: <stdin> document 2 (LlamaStackDistribution "team-b"): spec.server.envFromExternalConfigMaps exists only in pull request #166 of the llama-stack operator, which was not merged; it is not rendered and is ignored.\n');
  });

  // Every key of a document is the operator's (rendered, or warned about), one render adds, or refused.
  describe('every field is accounted for', () => {
    const doc = (spec: string, metadata = '{name: a, namespace: ai}') =>
      `apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\nmetadata: ${metadata}\nspec:\n${spec}\n`;
    const starter = '  server:\n    distribution: {name: starter}\n';

    test.each([
      ['  replicaz: 3\n' + starter, 'spec.replicaz: unknown field; did you mean \'replicas\'? (expected one of: replicas, server, network)'],
      ['  server:\n    distribution: {name: starter}\n    containerSpec: {portt: 8321}', 'spec.server.containerSpec.portt: unknown field; did you mean \'port\'?'],
      ['  server:\n    distribution: {name: starter}\n    externalProvider: {}', 'spec.server.externalProvider: unknown field; did you mean \'externalProviders\'?'],
      ['  server:\n    distribution: {name: starter}\n    network: {exposeRoute: true}', 'spec.server.network: unknown field here: network belongs at spec.network'],
      ['  server:\n    distribution: {name: starter}\n    containerSpec: {env: [{name: A, valu: b}]}', 'spec.server.containerSpec.env[0].valu: unknown field; did you mean \'value\'?'],
      ['  server:\n    distribution: {name: starter, tag: x}', 'spec.server.distribution.tag: unknown field; expected one of: name, image'],
    ])('refused: %j', async (spec, message) => {
      const r = await cli(['render', '-'], { stdin: doc(spec) });
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(r.stderr).toContain(`  - ${message}`);
    });

    test('operator fields it does not translate are each named in a warning; the rest is rendered', async () => {
      const r = await cli(['render', '-'], {
        stdin: doc([
          '  server:',
          '    distribution: {name: starter}',
          '    workers: 2',
          '    envFromExternalConfigMaps: [{name: a, namespace: ai}]',
          '    containerSpec: {name: server, command: [my-server], args: [--verbose], envFrom: [], resources: {requests: {cpu: 1}, claims: [{name: gpu}]}}',
          '    podOverrides: {serviceAccountName: sa, terminationGracePeriodSeconds: 30, volumes: [{name: certs, emptyDir: {}}], volumeMounts: [{name: certs, mountPath: /certs}]}',
        ].join('\n')),
      });
      expect(r.code).toBe(0);
      const warned = r.stderr.split('\n').filter(Boolean).map((l) => l.replace('warning: <stdin> document 1 (LlamaStackDistribution "a"): ', ''));
      expect(warned).toEqual([
        'spec.server.envFromExternalConfigMaps exists only in pull request #166 of the llama-stack operator, which was not merged; it is not rendered and is ignored.',
        'spec.server.containerSpec.envFrom exists only in pull request #151 of the llama-stack operator, which was not merged; it is not rendered and is ignored.',
        'spec.server.containerSpec.resources.claims is not supported by this renderer and is ignored (dynamic resource claims need the pod\'s resourceClaims).',
      ]);
      expect(r.stdout).toContain('serviceAccountName: sa');
      const pod = parseAllDocuments(r.stdout).map((d) => d.toJS()).find((o) => o.kind === 'Deployment').spec.template.spec;
      expect(pod.terminationGracePeriodSeconds).toBe(30);
      expect(pod.containers[0]).toMatchObject({ name: 'server', command: ['my-server'], args: ['--verbose'] });
      expect(pod.containers[0].env).toContainEqual({ name: 'LLS_WORKERS', value: '2' });
      // The operator's resource defaults with workers: the CPU given, 1Gi memory, limits equal to the requests.
      expect(pod.containers[0].resources).toEqual({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } });
      expect(pod.volumes).toContainEqual({ name: 'certs', emptyDir: {} });
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'certs', mountPath: '/certs' });
    });

    test('spec.server.podSecurity: idsFromPlatform leaves the ids to OpenShift\'s restricted-v2', async () => {
      const r = await cli(['render', '-'], { stdin: doc('  server:\n    distribution: {name: starter}\n    podSecurity: {idsFromPlatform: true}') });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      const pod = parseAllDocuments(r.stdout).map((d) => d.toJS()).find((o) => o.kind === 'Deployment').spec.template.spec;
      expect(pod.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      const bad = await cli(['render', '-'], { stdin: doc('  server:\n    distribution: {name: starter}\n    podSecurity: {idsFromPlatform: true, fsGroup: 1001}') });
      expect(bad.stderr).toContain('spec.server.podSecurity.fsGroup: is assigned by the platform with idsFromPlatform');
    });

    test('spec.network: exposeRoute renders the Ingress, allowedFrom the NetworkPolicy, and mistakes name the document\'s fields', async () => {
      const r = await cli(['render', '-'], { stdin: doc(`  network: {exposeRoute: true, allowedFrom: {namespaces: [web], labels: [team]}}\n${starter}`) });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(kinds(r.stdout)).toEqual(['ServiceAccount/a-sa', 'Deployment/a', 'Service/a-service', 'Ingress/a-ingress', 'NetworkPolicy/a-network-policy']);
      const bad = await cli(['render', '-'], { stdin: doc(`  network: {exposeRoute: yes-please, allowedFrom: {labels: [team=frontend]}}\n${starter}`) });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('  - spec.network.exposeRoute: ');
      expect(bad.stderr).toContain('  - spec.network.allowedFrom.labels[0]: "team=frontend" is not a label key');
    });

    test('the operator-selector annotation keeps the operator\'s pod selector; other values are refused', async () => {
      const r = await cli(['render', '-'], { stdin: doc(starter, '{name: a, namespace: ai, annotations: {kube-inference.io/operator-selector: "true"}}') });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      const deployment = parseAllDocuments(r.stdout).map((d) => d.toJS()).find((o) => o.kind === 'Deployment');
      expect(deployment.spec.selector.matchLabels).toEqual({ 'app': 'llama-stack', 'app.kubernetes.io/instance': 'a' });
      const bad = await cli(['render', '-'], { stdin: doc(starter, '{name: a, namespace: ai, annotations: {kube-inference.io/operator-selector: "yes"}}') });
      expect(bad.stderr).toContain('  - metadata.annotations.kube-inference.io/operator-selector: expected "true" or "false", got "yes".');
    });

    test('spec.server.tlsConfig.caBundle is the CA bundle; a ConfigMap of another namespace is refused', async () => {
      const r = await cli(['render', '-'], { stdin: doc(`${starter}    tlsConfig: {caBundle: {configMapName: corporate-ca, configMapNamespace: ai}}`) });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      const pod = parseAllDocuments(r.stdout).map((d) => d.toJS()).find((o) => o.kind === 'Deployment').spec.template.spec;
      expect(pod.containers[0].env).toContainEqual({ name: 'SSL_CERT_FILE', value: '/etc/ssl/certs/ca-bundle/ca-bundle.crt' });
      const other = await cli(['render', '-'], { stdin: doc(`${starter}    tlsConfig: {caBundle: {configMapName: corporate-ca, configMapNamespace: kube-system, configMapKeys: [x.crt]}}`) });
      expect(other.code).toBe(1);
      expect(other.stderr).toContain("  - spec.server.tlsConfig.caBundle.configMapNamespace: 'kube-system' differs from the document's namespace");
    });

    test('spec.server autoscaling, podDisruptionBudget and topologySpreadConstraints are rendered', async () => {
      const r = await cli(['render', '-'], {
        stdin: doc([
          '  replicas: 2',
          starter + '    autoscaling: {maxReplicas: 4, targetCPUUtilizationPercentage: 70}',
          '    podDisruptionBudget: {minAvailable: 1}',
          '    topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: llama-stack}}}]',
        ].join('\n')),
      });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(kinds(r.stdout)).toEqual(['ServiceAccount/a-sa', 'Deployment/a', 'Service/a-service', 'HorizontalPodAutoscaler/a-hpa', 'PodDisruptionBudget/a-pdb']);
      const objects = parseAllDocuments(r.stdout).map((d) => d.toJS());
      const byKind = (kind: string) => objects.find((o) => o.kind === kind);
      expect(byKind('Deployment').spec.template.spec.topologySpreadConstraints).toEqual([{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'llama-stack' } } }]);
      expect(byKind('HorizontalPodAutoscaler').spec).toMatchObject({ minReplicas: 2, maxReplicas: 4 });
      expect(byKind('PodDisruptionBudget').spec.minAvailable).toBe(1);
      const bad = await cli(['render', '-'], { stdin: doc(`${starter}    autoscaling: {minReplicas: 3}`) });
      expect(bad.stderr).toContain('  - spec.server.autoscaling.maxReplicas: missing');
    });

    test('a spread constraint with no labelSelector is rendered as given, with a warning: it spreads nothing', async () => {
      const r = await cli(['render', '-'], { stdin: doc(`${starter}    topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}]`) });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('spec.server.topologySpreadConstraints[0]: no labelSelector: the constraint counts no pods, so it spreads nothing (the API server warns "a null labelSelector results in matching no pod"). Add labelSelector: {matchLabels: {app.kubernetes.io/instance: a}}');
    });

    test('what the construct takes beyond the operator\'s shape is rendered: labels, an inline config, storage options, pull secrets, health check', async () => {
      const r = await cli(['render', '-'], {
        stdin: doc([
          '  server:',
          '    distribution: {name: starter}',
          '    imagePullSecrets: [{name: registry}]',
          '    healthCheck: tcp',
          '    storage: {size: 5Gi, storageClassName: fast, mountPath: /data}',
          '    userConfig: {config: {version: 2, image_name: starter, apis: [inference], providers: {inference: []}}}',
        ].join('\n'), '{name: a, namespace: ai, labels: {team: search}}'),
      });
      expect(r).toMatchObject({ code: 0, stderr: '' });
      const objects = parseAllDocuments(r.stdout).map((d) => d.toJS());
      expect(objects.map((o) => `${o.kind}/${o.metadata.labels.team}`)).toEqual(['ConfigMap/search', 'PersistentVolumeClaim/search', 'ServiceAccount/search', 'Deployment/search', 'Service/search']);
      const configMap = objects.find((o) => o.kind === 'ConfigMap');
      expect(configMap.data['config.yaml']).toContain('image_name: starter');
      const pvc = objects.find((o) => o.kind === 'PersistentVolumeClaim');
      expect(pvc.spec).toMatchObject({ storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } });
      expect(objects.find((o) => o.kind === 'Deployment').spec.template.spec.imagePullSecrets).toEqual([{ name: 'registry' }]);
      expect(objects.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].readinessProbe.tcpSocket).toEqual({ port: 'http' });
    });
  });

  test('a missing file is a clear error', async () => {
    const r = await cli(['render', 'nope.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: nope.yaml does not exist.\n');
  });

  test('unknown flags are usage errors (exit 2)', async () => {
    const r = await cli(['render', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: kube-inference render');
  });
});

describe('the built kube-inference binary', () => {
  test('renders from a pipe and exits 0', () => {
    const r = runBuiltCli(['render', '-'], { input: readFileSync(FIXTURE, 'utf8') });
    expect(r).toMatchObject({ code: 0 });
    expect(kinds(r.stdout)).toContain('Deployment/team-a');
  });

  test('exits 1 on invalid input without a stack trace', () => {
    const dir = tmp();
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, readFileSync(FIXTURE, 'utf8').replace('name: starter', 'name: nope'));
    const r = runBuiltCli(['render', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("spec.server.distribution.name: 'nope' is not a distribution llama-stack 0.7 publishes an image of");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('provider metadata in documents', () => {
  test('metadataFile is read relative to the document\'s file, and the config is merged at synth', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'custom-vllm.yaml'), readFileSync(join(__dirname, '..', 'fixtures', 'provider-metadata', 'custom-vllm.yaml')));
    writeFileSync(join(dir, 'stack.yaml'), [
      'apiVersion: llamastack.io/v1alpha1',
      'kind: LlamaStackDistribution',
      'metadata: {name: merged, namespace: ai, annotations: {kube-inference.io/server-version: "0.7"}}',
      'spec:',
      '  server:',
      '    distribution: {name: starter}',
      '    externalProviders:',
      '      inference:',
      '        - providerId: custom-vllm',
      '          image: quay.io/acme/vllm-provider:1.2.0',
      '          metadataFile: custom-vllm.yaml',
      '',
    ].join('\n'));
    const r = await cli(['render', join(dir, 'stack.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // No config known at synth (the distribution's): metadata validated, merge in the pod.
    expect(r.stdout).toContain('name: merge-config');
  });

  describe('a metadataFile is read only inside the document\'s directory, as a regular file, never quoted', () => {
    const stack = (metadataFile: string) => [
      'apiVersion: llamastack.io/v1alpha1', 'kind: LlamaStackDistribution', 'metadata: {name: a}', 'spec:', '  server:',
      '    distribution: {name: starter}', '    externalProviders:', '      inference:',
      `        - {providerId: p, image: quay.io/acme/p:1, metadataFile: ${JSON.stringify(metadataFile)}}`, '',
    ].join('\n');
    const renderIn = async (dir: string, metadataFile: string) => {
      writeFileSync(join(dir, 'stack.yaml'), stack(metadataFile));
      return cli(['render', join(dir, 'stack.yaml')]);
    };
    const field = 'spec.server.externalProviders.inference[0].metadataFile';

    test('paths out of the directory, also through a symlink, are refused', async () => {
      const dir = tmp();
      const outside = join(tmp(), 'secret.yaml');
      writeFileSync(outside, 'TOPSECRET: 1\n');
      symlinkSync(outside, join(dir, 'link.yaml'));
      for (const given of ['../secret.yaml', outside, 'link.yaml']) {
        const r = await renderIn(dir, given);
        expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
        expect(r.stderr).toContain(`  - ${field}: '${given}' is outside the document's directory`);
      }
    });

    test('a FIFO is refused without waiting on it, a large file is not read past the limit', async () => {
      const dir = tmp();
      execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
      expect((await renderIn(dir, 'pipe.yaml')).stderr).toContain(`  - ${field}: 'pipe.yaml' is a FIFO (named pipe), not a regular file: give the path of a file.`);
      writeFileSync(join(dir, 'big.yaml'), `a: "${'x'.repeat(70 * 1024)}"\n`);
      expect((await renderIn(dir, 'big.yaml')).stderr).toContain(`  - ${field}: 'big.yaml' is larger than the limit of 65536 bytes for provider metadata`);
    });

    test('content that is not valid metadata is not repeated in the message', async () => {
      const dir = tmp();
      writeFileSync(join(dir, 'passwd.yaml'), 'root:x:0:0:TOPSECRET:/root:/bin/bash\n');
      writeFileSync(join(dir, 'broken.yaml'), 'spec: {packageName: TOPSECRET\n');
      for (const file of ['passwd.yaml', 'broken.yaml']) {
        const r = await renderIn(dir, file);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`  - ${field}: '${file}' is not a provider metadata file the construct accepts`);
        expect(r.stderr).not.toContain('TOPSECRET');
      }
    });

    test('metadata and metadataFile together are refused, not one dropped', async () => {
      const dir = tmp();
      writeFileSync(join(dir, 'p.yaml'), readFileSync(join(__dirname, '..', 'fixtures', 'provider-metadata', 'custom-vllm.yaml')));
      writeFileSync(join(dir, 'stack.yaml'), stack('p.yaml').replace('metadataFile: "p.yaml"', 'metadataFile: "p.yaml", metadata: "spec: {}"'));
      const r = await cli(['render', join(dir, 'stack.yaml')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('  - spec.server.externalProviders.inference[0].metadata: provider \'p\' (image quay.io/acme/p:1) gives both metadata and metadataFile: give one of them.');
    });

    test('from standard input, paths are relative to the working directory', async () => {
      const dir = tmp();
      writeFileSync(join(dir, 'p.yaml'), readFileSync(join(__dirname, '..', 'fixtures', 'provider-metadata', 'custom-vllm.yaml')));
      const r = await cli(['render', '-'], { stdin: stack('p.yaml'), cwd: dir });
      expect(r.stderr).not.toContain('metadataFile');
    });
  });
});

describe('hostile input', () => {
  test('a map with very many keys is read (duplicate keys are checked in linear time) and reported', async () => {
    // With the YAML library's own quadratic duplicate-key check this input took minutes.
    const wide = Array.from({ length: 200_000 }, (_, i) => `k${i}: v`).join('\n');
    const r = await cli(['render', '-'], { stdin: wide });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not a Kubernetes object');
  });

  test('a document with very many unknown fields lists the first 20 and counts the rest', async () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `    k${i}: v`).join('\n');
    const r = await cli(['render', '-'], { stdin: `apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\nmetadata: {name: a}\nspec:\n  server:\n${keys}\n    distribution: {name: starter}\n` });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('  - ')).length).toBe(21);
    expect(r.stderr).toContain('  - spec.server.k20: and 49980 more unknown fields (the first 20 are listed)');
  });

  test('deep nesting is refused before parsing', async () => {
    const r = await cli(['render', '-'], { stdin: `a: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Collections are nested more than 64 levels deep.');
  });

  test('duplicate keys are refused', async () => {
    const r = await cli(['render', '-'], { stdin: 'apiVersion: v1\nkind: A\nkind: B\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/<stdin>: document 1: .*kind/);
  });
});

describe('ModelDeployment documents', () => {
  const doc = (extra = '') => [
    'apiVersion: kubeairunway.ai/v1alpha1',
    'kind: ModelDeployment',
    'metadata: {name: llama-8b, namespace: models}',
    'spec:',
    '  model: {id: meta-llama/Llama-3.1-8B-Instruct, source: huggingface}',
    '  engine: {type: vllm, contextLength: 8192}',
    `  resources: {gpu: {count: 1}, memory: 32Gi}${extra}`,
    '',
  ].join('\n');

  test('render the provider\'s resource, with the selection recorded, mixed with Llama Stack documents', async () => {
    const stacks = readFileSync(FIXTURE, 'utf8');
    const r = await cli(['render', '-'], { stdin: `${doc()}---\n${stacks}` });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const objects = parseAllDocuments(r.stdout).map((d) => d.toJS());
    const dgd = objects.find((o) => o.kind === 'DynamoGraphDeployment');
    expect(dgd.metadata).toMatchObject({ name: 'llama-8b', namespace: 'models', annotations: { 'kube-inference.io/provider': 'dynamo' } });
    expect(objects.map((o) => o.kind)).toContain('Deployment');
    const validated = await cli(['validate', '--strict', '-'], { stdin: r.stdout });
    expect(validated.code).toBe(0);
  });

  test('invalid specs: exit 1, spec.* fields named', async () => {
    const r = await cli(['render', '-'], { stdin: doc().replace('type: vllm', 'type: tgi') });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('spec.engine.type');
  });
});

describe('manifests are read as kubectl reads them', () => {
  test('timestamps and base-60 numbers stay strings; yes is a boolean', async () => {
    const r = await cli(['validate', '-'], {
      stdin: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {release: 2024-01-01, time: 1:20}\nimmutable: yes\n',
    });
    expect(r.stderr).toBe('1 object(s): 1 valid, 0 invalid, 0 without a schema (Kubernetes 1.37)\n');
    const env = await cli(['render', '-'], {
      stdin: readFileSync(FIXTURE, 'utf8').replace('value: meta-llama/Llama-3.2-3B-Instruct', 'value: 2024-01-01'),
    });
    expect(env.code).toBe(0);
    expect(env.stdout).toContain('value: "2024-01-01"');
  });

  test('numbers as goyaml.v2 parses them: Go\'s base prefixes in either case, every `_` dropped', async () => {
    const r = await cli(['render', '-'], {
      stdin: 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: x}\nspec: {a: 0O17, b: 0_x1F, c: 1__0, d: 09, e: .5e3, f: ._5, g: -0, h: 0o8}\n',
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('spec:\n  a: 15\n  b: 31\n  c: 10\n  d: 9\n  e: 500\n  f: "._5"\n  g: 0\n  h: 0o8\n');
  });
});

describe('numbers a JavaScript number cannot hold', () => {
  test('an object passed through keeps the integers kubectl keeps (64 bits); a decimal beyond them is a float, as to kubectl', async () => {
    const r = await cli(['render', '-'], {
      stdin: 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: x}\nspec: {a: 9007199254740993, b: -9223372036854775808, c: 18446744073709551615, '
        + 'd: 0x1_0000_0000_0000_0000, e: 123456789012345678901234567890}\n',
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('spec:\n  a: 9007199254740993\n  b: -9223372036854775808\n  c: 18446744073709551615\n  d: 18446744073709551616\n'
      + '  e: 1.2345678901234568e+29\n');
  });

  test('a provider\'s config keeps every digit and the float of a whole value, in crd-config.yaml and in the config merged at synth', async () => {
    const config = '{big: 9007199254740993, huge: 12345678901234567890, f: 1.0, e: 3.0e+0, fl: 2.5e+15, z: -0, nz: -0.0, x: 1.5}';
    const r = await cli(['render', '-'], {
      stdin: [
        'apiVersion: llamastack.io/v1alpha1', 'kind: LlamaStackDistribution',
        'metadata: {name: a, namespace: ai, annotations: {kube-inference.io/server-version: "0.7"}}', 'spec:', '  server:',
        '    distribution: {name: starter}', '    externalProviders:', '      inference:',
        '        - {providerId: p, image: quay.io/acme/p:1, metadata: "apiVersion: llamastack.io/v1alpha1\\nkind: ProviderPackage\\nmetadata: {name: p, version: 1.0.0, vendor: tests}\\n'
          + 'spec: {packageName: acme_p, providerType: remote::p, api: inference, wheelPath: /lls-provider/p.whl}\\n",',
        `           config: ${config}}`,
        '    userConfig:', '      config: {version: 2, distro_name: starter, apis: [inference], providers: {inference: []}}', '',
      ].join('\n'),
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('"config":{"big":9007199254740993,"huge":12345678901234567890,"f":1.0,"e":3.0,"fl":2500000000000000.0,"z":0,"nz":-0.0,"x":1.5}');
    expect(r.stdout).toContain('config:\n          big: 9007199254740993\n          huge: 12345678901234567890\n          f: 1.0\n          e: 3.0\n'
      + '          fl: 2500000000000000.0\n          z: 0\n          nz: -0.0\n          x: 1.5\n');
  });
});

describe('kube-inference render: objects valid as a whole', () => {
  const doc = (server: string, namespace = 'ai') =>
    `apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\nmetadata: {name: a, namespace: ${namespace}}\nspec:\n  server:\n    distribution: {name: starter}\n${server}\n`;

  test.each([
    ['a storage.mountPath where the config is mounted', doc('    storage: {mountPath: /etc/llama-stack}\n    userConfig: {configMapName: c}'),
      'spec.server.storage.mountPath: \'/etc/llama-stack\' is where the server container mounts the config already: choose another path.'],
    ['a storage.mountPath where the CA bundle is mounted', doc('    storage: {mountPath: /etc/ssl/certs/ca-bundle}\n    tlsConfig: {caBundle: {configMapName: ca}}'),
      'spec.server.storage.mountPath: \'/etc/ssl/certs/ca-bundle\' is where the server container mounts the volume'],
    ['resources given as a string', doc('    containerSpec: {resources: {requests: "1"}}'),
      'spec.server.containerSpec.resources.requests: expected a map of strings, got string "1"'],
    ['resources given as a list', doc('    containerSpec: {resources: [cpu]}'),
      'spec.server.containerSpec.resources: expected'],
    ['a namespace over 63 characters', doc('', 'n'.repeat(64)),
      `metadata.namespace: "${'n'.repeat(64)}" is 64 characters; a namespace name has at most 63`],
  ])('%s fails, naming the field', async (_, stdin, message) => {
    const r = await cli(['render', '-'], { stdin });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toContain(`  - ${message}`);
  });
});

describe('kube-inference render: an OpenShift Route where asked', () => {
  const doc = (network: string, server = '') =>
    `apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\nmetadata: {name: a, namespace: ai}\nspec:\n  network: ${network}\n  server:\n    distribution: {name: starter}\n${server}`;
  const route = (out: string) => parseAllDocuments(out).map((d) => d.toJS()).find((o) => o.kind === 'Route');

  test('exposeAs: Route renders a Route instead of the Ingress, accepted by openshift/api\'s Route CRD', async () => {
    const r = await cli(['render', '-'], { stdin: doc('{exposeRoute: true, exposeAs: Route}') });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(kinds(r.stdout)).toEqual(['ServiceAccount/a-sa', 'Deployment/a', 'Service/a-service', 'Route/a-route']);
    expect(route(r.stdout)).toMatchObject({
      apiVersion: 'route.openshift.io/v1',
      spec: { to: { kind: 'Service', name: 'a-service', weight: 100 }, port: { targetPort: 'http' }, tls: { termination: 'edge', insecureEdgeTerminationPolicy: 'Redirect' } },
    });
    const dir = tmp();
    writeFileSync(join(dir, 'a.yaml'), r.stdout);
    expect(await cli(['validate', '--strict', join(dir, 'a.yaml')])).toMatchObject({ code: 0 });
  });

  test('a server serving TLS gets a passthrough Route; the CRD\'s own rules refuse what OpenShift refuses', async () => {
    const r = await cli(['render', '-'], { stdin: doc('{exposeRoute: true, exposeAs: Route}', '    healthCheck: https\n    userConfig: {configMapName: tls-config}\n') });
    expect(route(r.stdout).spec.tls).toEqual({ termination: 'passthrough', insecureEdgeTerminationPolicy: 'Redirect' });
    // The CRD's CEL rule, as the API server would run it: passthrough cannot allow plain HTTP.
    const dir = tmp();
    writeFileSync(join(dir, 'a.yaml'), r.stdout.replace('insecureEdgeTerminationPolicy: Redirect', 'insecureEdgeTerminationPolicy: Allow'));
    const v = await cli(['validate', join(dir, 'a.yaml')]);
    expect(v.code).toBe(1);
    expect(v.stdout + v.stderr).toContain('cannot have both spec.tls.termination: passthrough and spec.tls.insecureEdgeTerminationPolicy: Allow');
  });

  test('mistakes name the document\'s fields', async () => {
    const r = await cli(['render', '-'], { stdin: doc('{exposeRoute: true, exposeAs: Rout, ingressClassName: nginx}') });
    expect(r.stderr).toContain('  - spec.network.exposeAs: expected one of Ingress, Route, got string "Rout"');
    const both = await cli(['render', '-'], { stdin: doc('{exposeRoute: true, exposeAs: Route, ingressClassName: nginx}') });
    expect(both.stderr).toContain('  - spec.network.ingressClassName: is the Ingress\'s: a Route is served by the OpenShift router.');
    const alone = await cli(['render', '-'], { stdin: doc('{exposeAs: Route}') });
    expect(alone.stderr).toContain('  - spec.network.exposeAs: says what network.expose renders: set network.expose to true, or remove exposeAs.');
  });
});

describe('kube-inference render -o: the directory is render\'s own list of files (GitOps pruning)', () => {
  const stacks = readFileSync(FIXTURE, 'utf8');
  const teamAOnly = parseAllDocuments(stacks).filter((d) => (d.get('metadata') as any).get('name') === 'team-a').map((d) => d.toString()).join('---\n');

  test('a document removed from the input has its file removed; files render never wrote stay', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: []\n');
    writeFileSync(join(dir, 'hand-written.k8s.yaml'), 'kind: ConfigMap\n');
    expect((await cli(['render', FIXTURE, '-o', dir])).code).toBe(0);
    expect(readFileSync(join(dir, '.kube-inference-render'), 'utf8')).toBe('# Written by `kube-inference render -o`: the files it wrote into this directory, one per line.\n'
      + '# The next render into this directory removes those it no longer writes, and no other file.\n# Commit it with the manifests.\n'
      + 'ai.team-a.k8s.yaml\nai.team-b.k8s.yaml\n');
    const r = await cli(['render', '-', '-o', dir], { stdin: teamAOnly });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(dir).sort()).toEqual(['.kube-inference-render', 'ai.team-a.k8s.yaml', 'hand-written.k8s.yaml', 'kustomization.yaml']);
    expect(readFileSync(join(dir, '.kube-inference-render'), 'utf8')).toMatch(/Commit it with the manifests.\nai.team-a.k8s.yaml\n$/);
  });

  test('a failed render removes nothing and keeps the list', async () => {
    const dir = tmp();
    expect((await cli(['render', FIXTURE, '-o', dir])).code).toBe(0);
    const before = readFileSync(join(dir, '.kube-inference-render'), 'utf8');
    const r = await cli(['render', '-', '-o', dir], { stdin: teamAOnly.replace('replicas: 2', 'replicas: two') });
    expect(r.code).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['.kube-inference-render', 'ai.team-a.k8s.yaml', 'ai.team-b.k8s.yaml']);
    expect(readFileSync(join(dir, '.kube-inference-render'), 'utf8')).toBe(before);
  });

  test('a list edited to name another path is refused before anything is written or removed', async () => {
    const dir = tmp();
    const outside = join(tmp(), 'precious.k8s.yaml');
    writeFileSync(outside, 'keep\n');
    writeFileSync(join(dir, '.kube-inference-render'), `ai.team-a.k8s.yaml\n../${outside.split('/').slice(-2).join('/')}\n`);
    const r = await cli(['render', '-', '-o', dir], { stdin: teamAOnly });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${join(dir, '.kube-inference-render')} line 2: "../`);
    expect(r.stderr).toContain('is not a file name render writes (<name>.k8s.yaml, no \'/\')');
    expect(r.stderr).toContain('restore it from version control, or delete it');
    expect(readFileSync(outside, 'utf8')).toBe('keep\n');
    expect(readdirSync(dir)).toEqual(['.kube-inference-render']);
  });

  test('a stale name that is now a directory is left, with a warning; a symlink is removed, never its target', async () => {
    const dir = tmp();
    const target = join(tmp(), 'target.k8s.yaml');
    writeFileSync(target, 'keep\n');
    symlinkSync(target, join(dir, 'old.k8s.yaml'));
    mkdirSync(join(dir, 'gone.k8s.yaml'));
    writeFileSync(join(dir, '.kube-inference-render'), 'gone.k8s.yaml\nold.k8s.yaml\nmissing.k8s.yaml\n');
    const r = await cli(['render', '-', '-o', dir], { stdin: teamAOnly });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`warning: ${join(dir, 'gone.k8s.yaml')} was written by an earlier render and is no longer rendered, but it is not a file now: left in place.\n`);
    expect(readdirSync(dir).sort()).toEqual(['.kube-inference-render', 'ai.team-a.k8s.yaml', 'gone.k8s.yaml']);
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
  });

  test('--help names the files as they are written', async () => {
    const r = await cli(['help', 'render']);
    expect(r.stdout).toContain('<namespace>.<name>.k8s.yaml (<name>.k8s.yaml without a namespace)');
    expect(r.stdout).toContain('DIR/.kube-inference-render');
  });
});

describe('kube-inference render: hostile objects passed through', () => {
  test.each([
    ['a kind with a path in it', 'apiVersion: v1\nkind: ../../x\nmetadata: {name: a}\n', 'kind "../../x" is not a Kubernetes kind'],
    ['a name with a path in it', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ../../etc/x}\n', 'metadata.name "../../etc/x" is not a name the API server takes'],
    ['a name of ..', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ..}\n', 'metadata.name ".." is not a name the API server takes'],
    ['a namespace with a path in it', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ../b}\n', 'metadata.namespace "../b" is not a namespace name'],
    ['a built-in kind\'s name in upper case', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Upper}\n',
      'metadata.name "Upper" is not a name the API server takes for a ConfigMap: a lowercase RFC 1123 subdomain must consist of'],
    ['a Role name with a newline', 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: "a\\nb"}\n',
      'metadata.name "a\\nb" holds control characters, which no file written with -o may carry in its name: rename the object.'],
    ['a custom resource name with an escape sequence', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: "a\\u001b[2J"}\n',
      'metadata.name "a\\u001b[2J" holds control characters'],
  ])('%s is refused, and nothing is written', async (_, stdin, message) => {
    const dir = tmp();
    const r = await cli(['render', '-', '-o', join(dir, 'out')], { stdin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(readdirSync(dir)).toEqual([]);
  });
});
