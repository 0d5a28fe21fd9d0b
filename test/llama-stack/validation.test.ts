import { Testing } from 'cdk8s';
import { errorOf, find, podSpec, render, THREE_PROVIDERS } from './helpers';
import { ConfigValue, LlamaStackWithProviders, providerKey, ValidationError, warningsOf } from '../../src';
import { initScripts } from '../../src/llama-stack/scripts';
import { expandRefs } from '../sandbox/pod-runner';

const withProviders = (inference: any[], extra: any = {}) => ({ distribution: { name: 'starter' }, externalProviders: { inference, ...extra } });
/** The first provider's install container. */
const installer = (pod: any) => pod.initContainers.find((c: any) => c.name.startsWith('install-provider-'));

describe('validation at synth time', () => {
  test('a provider id llama-stack would disable or rewrite names the field, the image, the reason and a fix', () => {
    const message = errorOf(withProviders([{ providerId: '__disabled__', image: 'quay.io/acme/p:1' }]));
    expect(message).toContain("externalProviders.inference[0].providerId: is not a provider id llama-stack can use (image quay.io/acme/p:1): '__disabled__' marks a disabled provider in llama-stack, which would skip it. Rename it, e.g. 'my-provider'.");
    expect(errorOf(withProviders([{ providerId: '${env.X:+p}', image: 'quay.io/acme/p:1' }]))).toContain('holds a ${env.…} reference');
  });

  test('provider ids are what llama-stack accepts; Kubernetes names are derived from them', () => {
    const ids = ['Custom_VLLM', 'a'.repeat(80), 'acme/guard $(x)'];
    const spec = podSpec(render(withProviders(ids.map((providerId) => ({ providerId, image: 'quay.io/acme/p:1' })))));
    const installs = spec.initContainers.filter((c: any) => c.name.startsWith('install-provider-'));
    expect(installs.map((c: any) => c.name)).toEqual(ids.map((id) => `install-provider-${providerKey(id)}`));
    const env = (i: number) => Object.fromEntries(installs[i].env.map((e: any) => [e.name, e.value]));
    expect(env(0).PROVIDER_KEY).toMatch(/^custom-vllm-[0-9a-f]{8}$/);
    // The id reaches the script unchanged once Kubernetes expanded the env value, even with a variable x set.
    expect(expandRefs(env(2).PROVIDER_ID, new Map([['x', 'INJECTED']]))).toBe('acme/guard $(x)');
  });

  test('two ids deriving the same Kubernetes name are rejected', () => {
    const twin = providerKey('trustyai_fms');
    const message = errorOf(withProviders([{ providerId: 'trustyai_fms', image: 'quay.io/acme/one:1' }, { providerId: twin, image: 'quay.io/acme/two:1' }]));
    expect(message).toContain(`externalProviders.inference[1].providerId: provider ids 'trustyai_fms' (externalProviders.inference[0]) and '${twin}' both derive the Kubernetes name '${twin}' (init container install-provider-${twin}); rename one of them.`);
  });

  test('duplicate ids anywhere in externalProviders list both images', () => {
    const message = errorOf(withProviders([{ providerId: 'shared', image: 'quay.io/acme/one:1' }], { safety: [{ providerId: 'shared', image: 'quay.io/acme/two:2' }] }));
    expect(message).toContain("duplicate provider id 'shared'");
    expect(message).toContain('externalProviders.inference[0] (image quay.io/acme/one:1)');
    expect(message).toContain('externalProviders.safety[0] (image quay.io/acme/two:2)');
  });

  test('an empty image is rejected', () => {
    expect(errorOf(withProviders([{ providerId: 'p', image: '  ' }]))).toContain("externalProviders.inference[0].image: provider 'p' (image   ) has an empty image");
  });

  test('an image reference with shell characters is rejected', () => {
    expect(errorOf(withProviders([{ providerId: 'p', image: 'quay.io/x:1;rm -rf /' }]))).toContain('is not a valid image reference');
  });

  test('an unknown pull policy lists the accepted ones', () => {
    expect(errorOf(withProviders([{ providerId: 'p', image: 'quay.io/acme/p:1', imagePullPolicy: 'Sometimes' }])))
      .toContain("'Sometimes' is not a pull policy (provider 'p' (image quay.io/acme/p:1)): expected one of Always, IfNotPresent, Never");
  });

  test('an unknown section lists the accepted ones', () => {
    expect(errorOf({ distribution: { name: 'starter' }, externalProviders: { vectorIO: [] } as any }))
      .toContain('externalProviders.vectorIO: unknown field; expected one of: inference, safety, agents, responses, vectorIo, datasetIo, scoring, eval, '
        + 'toolRuntime, postTraining, files, fileProcessors, batches, telemetry, messages, interactions, skills, containerRuntime');
  });

  test('a section the release does not have names the field, the release, its sections and the fix', () => {
    const agents = { agents: [{ providerId: 'my-agent', image: 'quay.io/acme/agent:1' }] };
    expect(errorOf({ ...withProviders([], agents), serverVersion: '0.7' })).toContain(
      "externalProviders.agents[0]: provider 'my-agent' (image quay.io/acme/agent:1): llama-stack 0.7 has no agents API (its sections: inference, "
      + 'safety, responses, vectorIo, datasetIo, scoring, eval, toolRuntime, files, fileProcessors, batches); agents was renamed responses in '
      + 'llama-stack 0.7: move the provider to externalProviders.responses (with an image whose metadata declares api: responses), or set '
      + 'serverVersion to 0.6 or older.');
    expect(() => render({ ...withProviders([], agents), serverVersion: '0.6' })).not.toThrow();
    expect(errorOf(withProviders([], { postTraining: [{ providerId: 't', image: 'quay.io/acme/t:1' }] })))
      .toContain('llama-stack 0.7 removed the post_training API: set serverVersion to 0.6 or older, or remove the provider.');
    expect(errorOf({ ...withProviders([], { fileProcessors: [{ providerId: 'f', image: 'quay.io/acme/f:1' }] }), serverVersion: '0.3.5' }))
      .toContain('file_processors is an API of llama-stack 0.4 and newer');
    // The newest line, the default, has no safety API.
    expect(errorOf({ ...withProviders([], { safety: [{ providerId: 's', image: 'quay.io/acme/s:1' }] }), serverVersion: '1.5' }))
      .toContain("externalProviders.safety[0]: provider 's' (image quay.io/acme/s:1): ogx 1.5 has no safety API (its sections: inference, responses, "
        + 'vectorIo, toolRuntime, files, fileProcessors, batches, messages, interactions, skills, containerRuntime); ogx 1.0 removed the safety API: '
        + 'set serverVersion to 0.8 or older, or remove the provider.');
  });

  test('serverVersion: a known release, defaulting to the image tag, then the newest ogx line', () => {
    const release = (props: any) => {
      const args: string[] = podSpec(render(props)).initContainers.find((c: any) => c.name === 'merge-config').args;
      return args[args.indexOf('--server-version') + 1];
    };
    const providers = withProviders([{ providerId: 'p', image: 'quay.io/acme/p:1' }]);
    expect(release(providers)).toBe('0.7'); // the helper's llama-stack default
    expect(release({ ...providers, serverVersion: undefined, distribution: { name: 'starter' } })).toBe('0.7');
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'x', { distribution: { name: 'starter' }, mergeImage: 'm/m:1', externalProviders: providers.externalProviders });
    const merge = podSpec(Testing.synth(chart)).initContainers.find((c: any) => c.name === 'merge-config').args;
    expect(merge[merge.indexOf('--server-version') + 1]).toBe('1.5');
    expect(release({ ...providers, serverVersion: '0.5.4' })).toBe('0.5');
    expect(release({ ...providers, serverVersion: '1.1.3' })).toBe('1.1');
    expect(release({ ...providers, serverVersion: undefined, distribution: { image: 'docker.io/llamastack/distribution-starter:0.4.7' } })).toBe('0.4');
    expect(release({ ...providers, serverVersion: undefined, distribution: { image: 'docker.io/ogxai/distribution-starter:1.2.5' } })).toBe('1.2');
    expect(errorOf({ ...providers, serverVersion: '0.9' }))
      .toContain("serverVersion: '0.9' is not a llama-stack or ogx release this construct knows: expected one of 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, "
        + "1.1, 1.2, 1.3, 1.4, 1.5 (a full version such as '1.5.0' names its line).");
  });

  test('llamaStackVersion, the old name of serverVersion, still works, with a warning; two different values are refused', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'x', { distribution: { name: 'starter' }, llamaStackVersion: '0.6' });
    expect(warningsOf(chart)).toEqual(['llamaStackVersion is deprecated: llama-stack was renamed OGX, and the field serverVersion names a release of either. Rename llamaStackVersion to serverVersion.']);
    expect(podSpec(Testing.synth(chart)).containers[0].image).toBe('docker.io/llamastack/distribution-starter:0.6.1');
    expect(errorOf({ distribution: { name: 'starter' }, llamaStackVersion: '0.6', serverVersion: '1.5' }))
      .toContain("llamaStackVersion: is '0.6' while serverVersion is '1.5': llamaStackVersion is the old name of serverVersion. Remove llamaStackVersion.");
    expect(errorOf({ distribution: { name: 'starter' }, llamaStackVersion: '0.9' })).toContain("llamaStackVersion: '0.9' is not a llama-stack or ogx release");
  });

  test('a release that contradicts the image tag is a warning', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'x', { distribution: { image: 'docker.io/llamastack/distribution-starter:0.6.1' }, serverVersion: '0.7' });
    expect(warningsOf(chart)).toContain('serverVersion is 0.7, but the tag of the distribution image docker.io/llamastack/distribution-starter:0.6.1 names llama-stack 0.6: '
      + 'the pod is rendered for llama-stack 0.7. Make the two agree.');
  });

  test('an image whose tag names no release, without serverVersion, is a warning naming the release rendered for (as render warns)', () => {
    const warned = (props: any) => {
      const chart = Testing.chart();
      new LlamaStackWithProviders(chart, 'x', props);
      return warningsOf(chart);
    };
    expect(warned({ distribution: { image: 'quay.io/acme/stack:latest' } })).toEqual(['distribution.image: the tag of quay.io/acme/stack:latest does not say '
      + 'which server release it runs; the pod is rendered for ogx 1.5, the default (its command, environment and APIs). Set serverVersion to the '
      + "release the image runs (e.g. '1.5', or '0.7' for llama-stack), or use an image tagged with its version."]);
    expect(warned({ distribution: { image: 'quay.io/acme/stack@sha256:'.padEnd(91, '0') } })).toHaveLength(1);
    expect(warned({ distribution: { image: 'quay.io/acme/stack:latest' }, serverVersion: '1.5' })).toEqual([]);
    expect(warned({ distribution: { image: 'quay.io/acme/stack:1.4.1' } })).toEqual([]);
  });

  test('the config file name follows the release', () => {
    const key = (props: any) => find(render({ ...props, userConfig: { configMapName: 'cfg' } }), 'Deployment').spec.template.spec.containers[0].env
      .find((e: any) => e.name.endsWith('_CONFIG')).value.replace('/etc/llama-stack/', '');
    expect(key({ distribution: { name: 'starter' } })).toBe('config.yaml');
    expect(key({ distribution: { name: 'starter' }, serverVersion: '1.5' })).toBe('config.yaml');
    expect(key({ distribution: { name: 'starter' }, serverVersion: '0.3' })).toBe('run.yaml');
    expect(key({ distribution: { image: 'docker.io/llamastack/distribution-starter:0.2.23' } })).toBe('run.yaml');
    expect(key({ distribution: { name: 'starter' }, serverVersion: '0.3', configFileName: 'config.yaml' })).toBe('config.yaml');
  });

  test('distribution: unknown name, both name and image, or neither', () => {
    expect(errorOf({ distribution: { name: 'ollama' } })).toContain("distribution.name: 'ollama' is not a distribution llama-stack 0.7 publishes an image of: expected one of starter, remote-vllm, meta-reference-gpu, postgres-demo, or give distribution.image instead.");
    expect(errorOf({ distribution: { name: 'remote-vllm' }, serverVersion: '1.5' }))
      .toContain("distribution.name: 'remote-vllm' is not a distribution ogx 1.5 publishes an image of: expected one of starter, postgres-demo, nvidia, oci, open-benchmark, watsonx, or give distribution.image instead.");
    expect(errorOf({ distribution: { name: 'starter', image: 'x/y:1' } })).toContain('expected exactly one');
    expect(errorOf({ distribution: {} })).toContain('no distribution given');
  });

  test('every problem is reported at once', () => {
    const message = errorOf({ ...withProviders([{ providerId: '__disabled__', image: '' }]), distribution: { name: 'nope' }, port: 70000, replicas: -1 } as any);
    expect(message).toMatch(/has \d+ invalid settings/);
    for (const field of ['distribution.name', 'externalProviders.inference[0].providerId', 'externalProviders.inference[0].image']) {
      expect(message).toContain(`  - ${field}:`);
    }
  });

  test('the error is a ValidationError without a stack trace', () => {
    const chart = Testing.chart();
    let error: unknown;
    try {
      new LlamaStackWithProviders(chart, 'x', withProviders([{ providerId: '__disabled__', image: 'quay.io/a:1' }]));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).stack).not.toMatch(/\n\s+at /);
    expect((error as ValidationError).problems.map((p) => p.field)).toEqual(['externalProviders.inference[0].providerId']);
  });

  test('user config: exactly one source, valid YAML with the line', () => {
    expect(errorOf({ distribution: { name: 'starter' }, userConfig: {} })).toContain('expected exactly one of configMapName');
    expect(errorOf({ distribution: { name: 'starter' }, userConfig: { config: 'version: 2\nproviders: [\n' } })).toMatch(/userConfig\.config: is not valid YAML: YAML parse error at line \d+, column \d+/);
    expect(errorOf({ distribution: { name: 'starter' }, userConfig: { config: '- a\n- b\n' } })).toContain('is not a YAML mapping');
  });

  test('reserved environment variables are refused', () => {
    expect(errorOf({ distribution: { name: 'starter' }, env: [{ name: 'LLAMA_STACK_CONFIG', value: '/x' }] })).toContain("env[0].name: 'LLAMA_STACK_CONFIG' is set by the construct");
  });

  test('root under the restricted profile is refused', () => {
    expect(errorOf({ distribution: { name: 'starter' }, podSecurity: { runAsUser: 0 } })).toContain('contradicts the restricted profile');
  });

  test('autoscaling needs maxReplicas, not below the replicas asked for; a disruption budget takes one of its two fields', () => {
    expect(errorOf({ distribution: { name: 'starter' }, autoscaling: {} as any })).toContain('autoscaling.maxReplicas: missing');
    expect(errorOf({ distribution: { name: 'starter' }, replicas: 3, autoscaling: { maxReplicas: 2 } }))
      .toContain("autoscaling.maxReplicas: 2 is fewer than the autoscaler's minimum, 3");
    expect(errorOf({ distribution: { name: 'starter' }, autoscaling: { maxReplicas: 2, targetCPUUtilizationPercentage: 0 } }))
      .toContain('autoscaling.targetCPUUtilizationPercentage: must be at least 1, got 0');
    expect(errorOf({ distribution: { name: 'starter' }, podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 } }))
      .toContain('podDisruptionBudget: expected exactly one of minAvailable and maxUnavailable');
    expect(errorOf({ distribution: { name: 'starter' }, podDisruptionBudget: { maxUnavailable: 'half' } }))
      .toContain('podDisruptionBudget.maxUnavailable: "half" is not a number of pods or a percentage');
  });

  test('volumes and mounts: no second volume of a name, no mount of a missing volume, no second mount at a path', () => {
    const message = errorOf({
      ...THREE_PROVIDERS,
      volumes: [{ name: 'init-scripts', emptyDir: {} }, { name: 'certs', emptyDir: {} }, { name: 'certs', emptyDir: {} }],
      volumeMounts: [{ name: 'missing', mountPath: '/x' }, { name: 'certs', mountPath: '/opt/llama-stack/external-providers' }, { name: 'user-config', mountPath: '/cfg' }],
    });
    expect(message).toContain("volumes[0].name: 'init-scripts' is already a volume of the pod (the construct's own)");
    expect(message).toContain("volumes[2].name: 'certs' is already a volume of the pod: give it another name.");
    expect(message).toContain("volumeMounts[0].name: 'missing' is not a volume of the pod");
    expect(message).toContain("volumeMounts[1].mountPath: '/opt/llama-stack/external-providers' is where the server container mounts the volume external-providers already");
    // THREE_PROVIDERS has no user config: the merged one is mounted, not user-config.
    expect(message).toContain("volumeMounts[2].name: 'user-config' is not a volume of the pod");
  });

  test('mount paths compare as the runtime mounts them; a subPath stays within its volume', () => {
    const message = errorOf({
      ...THREE_PROVIDERS,
      volumes: [{ name: 'certs', emptyDir: {} }],
      volumeMounts: [
        { name: 'certs', mountPath: '/opt//llama-stack/external-providers/' },
        { name: 'certs', mountPath: '/data/../.llama' },
        { name: 'certs', mountPath: '/a', subPath: '../x' },
        { name: 'certs', mountPath: '/b', subPath: '/etc' },
      ],
    });
    expect(message).toContain("volumeMounts[0].mountPath: '/opt//llama-stack/external-providers/' is where the server container mounts the volume external-providers already");
    expect(message).toContain("volumeMounts[1].mountPath: '/data/../.llama' is where the server container mounts the volume llama-storage already");
    expect(message).toContain("volumeMounts[2].subPath: '../x' must be a relative path within the volume, without '..' (the API server refuses it)");
    expect(message).toContain("volumeMounts[3].subPath: '/etc' must be a relative path within the volume");
    expect(errorOf({ ...THREE_PROVIDERS, storage: { mountPath: '/data/../opt//llama-stack/config/' } }))
      .toContain("storage.mountPath: '/data/../opt//llama-stack/config/' is where the server container mounts the config already");
  });

  test('network: namespaces are namespace names or *, labels are label keys, an IngressClass needs expose', () => {
    const message = errorOf({
      distribution: { name: 'starter' },
      network: { ingressClassName: 'nginx', allowedFrom: { namespaces: ['web', 'bad ns', '*'], labels: ['team=frontend', 'example.com/clients'] } },
    });
    expect(message).toContain('network.allowedFrom.namespaces[1]: "bad ns" is not a namespace name, or * for every namespace');
    expect(message).toContain('network.allowedFrom.labels[0]: "team=frontend" is not a label key');
    expect(message).not.toContain('namespaces[2]');
    expect(message).not.toContain('labels[1]');
    expect(errorOf({ distribution: { name: 'starter' }, network: { ingressClassName: 'nginx' } }))
      .toContain('network.ingressClassName: is only used by the Ingress of network.expose');
  });

  test('network: a namespace name no namespace can have (the operator sample\'s nsA) is a warning: the API server takes it', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'stack', { distribution: { name: 'starter' }, network: { allowedFrom: { namespaces: ['nsA', 'web'] } } });
    expect(warningsOf(chart)).toEqual([
      'network.allowedFrom.namespaces[0]: "nsA" is not a namespace name (lower-case letters, digits and \'-\'): no namespace can match it, so the NetworkPolicy admits nobody from it. Write the namespace\'s name as it is.',
    ]);
  });
});

describe('secret references in provider config', () => {
  const props = withProviders([{
    providerId: 'custom-vllm',
    image: 'quay.io/acme/p:1',
    config: { url: 'http://vllm:8000', api_token: ConfigValue.fromSecret('vllm-credentials', 'token'), headers: [{ value: { secretKeyRef: { name: 'hdr', key: 'h' } } }] },
  }]);
  const pod = podSpec(render(props));

  test('the config carries ${env.NAME} and the server reads NAME from the Secret', () => {
    const install = installer(pod);
    const crd = JSON.parse(expandRefs(install.env.find((e: any) => e.name === 'PROVIDER_CRD_CONFIG').value, new Map()));
    expect(crd.config).toEqual({
      url: 'http://vllm:8000',
      api_token: '${env.LLS_PROVIDER_CUSTOM_VLLM_API_TOKEN}',
      headers: [{ value: '${env.LLS_PROVIDER_CUSTOM_VLLM_HEADERS_0_VALUE}' }],
    });
    expect(pod.containers[0].env).toContainEqual({ name: 'LLS_PROVIDER_CUSTOM_VLLM_API_TOKEN', valueFrom: { secretKeyRef: { name: 'vllm-credentials', key: 'token' } } });
    expect(pod.containers[0].env).toContainEqual({ name: 'LLS_PROVIDER_CUSTOM_VLLM_HEADERS_0_VALUE', valueFrom: { secretKeyRef: { name: 'hdr', key: 'h' } } });
  });

  test('a malformed reference is an error naming its path', () => {
    expect(errorOf(withProviders([{ providerId: 'p', image: 'quay.io/a:1', config: { key: { secretKeyRef: { name: 'x' } } } }])))
      .toContain('externalProviders.inference[0].config.key: a secret reference must be exactly');
  });

  test('a literal credential is a warning, not an error', () => {
    const chart = Testing.chart();
    new LlamaStackWithProviders(chart, 'x', withProviders([{ providerId: 'p', image: 'quay.io/a:1', config: { api_key: 'sk-123' } }]));
    expect(warningsOf(chart)).toEqual([expect.stringContaining('externalProviders.inference[0].config.api_key of provider \'p\' looks like a credential given as a literal')]);
  });
});

describe('no injection', () => {
  const hostile = "$(touch /tmp/pwned)`id`'\"; rm -rf / #";
  test('hostile config values only reach the installer as data; the commands and scripts never change', () => {
    const plainManifests = render(THREE_PROVIDERS);
    const evilManifests = render(withProviders([{ providerId: 'custom-vllm', image: 'quay.io/acme/vllm-provider:1.2.0', config: { url: hostile } }]));
    const plain = installer(podSpec(plainManifests));
    const evil = installer(podSpec(evilManifests));
    expect(evil.command).toEqual(plain.command);
    // The scripts the merge image writes are the same: so is the container writing them, their digest included.
    const writer = (m: any[]) => podSpec(m).initContainers.find((c: any) => c.name === 'write-init-scripts');
    expect(writer(evilManifests)).toEqual(writer(plainManifests));
    // As the kubelet expands env values: the config arrives exactly as written.
    const value = expandRefs(evil.env.find((e: any) => e.name === 'PROVIDER_CRD_CONFIG').value, new Map([['PROVIDER_ID', 'x']]));
    expect(JSON.parse(value).config.url).toBe(hostile);
  });

  test('"$" in provider config survives Kubernetes env expansion ($$ and $(NAME) are escaped)', () => {
    const config = { password: 'pa$$word', url: 'http://$(PROVIDER_ID):8000' };
    const install = installer(podSpec(render(withProviders([{ providerId: 'p', image: 'quay.io/a/p:1', config }]))));
    const raw = install.env.find((e: any) => e.name === 'PROVIDER_CRD_CONFIG').value;
    const env = new Map<string, string>(install.env.map((e: any) => [e.name, e.value]));
    expect(JSON.parse(expandRefs(raw, env)).config).toEqual(config);
  });

  test('the sh scripts expand user-supplied variables only inside double quotes', () => {
    const scripts = initScripts();
    for (const name of ['install-provider.sh', 'extract-distribution-config.sh', 'start-server.sh']) {
      const text: string = scripts[name];
      expect(text).not.toMatch(/\beval\b/);
      for (const line of text.split('\n').filter((l) => !l.trim().startsWith('#'))) {
        for (const m of line.matchAll(/\$(PROVIDER_\w+|INIT_CONTAINER_NAME|DISTRIBUTION_IMAGE|BASE_CONFIG_FILE|LLAMA_STACK_CONFIG)\b/g)) {
          const before = line.slice(0, m.index);
          const quotes = (before.match(/"/g) ?? []).length;
          expect({ line, quoted: quotes % 2 === 1 }).toEqual({ line, quoted: true });
        }
      }
    }
  });
});

describe('untyped input (YAML, JavaScript) gets clear errors, never a crash', () => {
  const cases: Array<[string, any, string]> = [
    ['imagePullSecrets not a list', { imagePullSecrets: 'regcred' }, 'imagePullSecrets: expected a list, got string "regcred"'],
    ['env not a list', { env: 'A=1' }, 'env: expected a list, got string "A=1"'],
    ['env entry null', { env: [null] }, 'env[0]: expected a map, got null'],
    ['env entry without a name', { env: [{ value: 'x' }] }, 'env[0].name: missing: every environment variable needs a name.'],
    ['storage not a map', { storage: 5 }, 'storage: expected a map, got number 5'],
    ['storage.mountPath a number', { storage: { mountPath: 5 } }, 'storage.mountPath: expected a string, got number 5'],
    ['distribution.image a number', { distribution: { image: 5 } }, 'distribution.image: expected a string, got number 5'],
    ['configMapName a number', { userConfig: { configMapName: 123 } }, 'userConfig.configMapName: expected a string, got number 123'],
    ['a namespace that is not a DNS label', { namespace: 'Bad NS' }, 'namespace: "Bad NS" is not a namespace name (a DNS-1123 label)'],
    ['a service account that is not a name', { serviceAccountName: 'Bad SA' }, 'serviceAccountName: "Bad SA" is not a ServiceAccount name, a DNS-1123 subdomain'],
    ['labels with invalid values', { labels: { team: 'a b' } }, 'labels.team: "a b" is not a valid label value'],
    ['a provider without an image', { externalProviders: { inference: [{ providerId: 'p' }] } }, "externalProviders.inference[0].image: missing: provider 'p' needs its image."],
    ['an unknown prop', { replica: 2 }, 'replica: unknown field; expected one of: name, namespace'],
  ];
  test.each(cases)('%s', (_, extra, expected) => {
    expect(errorOf({ distribution: { name: 'starter' }, ...extra })).toContain(expected);
  });

  test('a distribution name that is a property of every object is unknown, not found', () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      expect(errorOf({ distribution: { name } })).toContain(`distribution.name: '${name}' is not a distribution llama-stack 0.7 publishes an image of`);
    }
  });

  test('two config keys of one provider that map to the same secret variable are refused', () => {
    const config = { 'api-key': { secretKeyRef: { name: 'a', key: 'k' } }, 'api_key': { secretKeyRef: { name: 'b', key: 'k' } } };
    expect(errorOf(withProviders([{ providerId: 'p', image: 'quay.io/a/p:1', config }])))
      .toContain('maps to environment variable LLS_PROVIDER_P_API_KEY, as externalProviders.inference[0].config.api-key of provider \'p\' does');
  });
});

describe('names of referred objects: DNS-1123 subdomains of at most 253 characters, as the API server checks them', () => {
  const longest = `${'a'.repeat(61)}.`.repeat(4).concat('a'.repeat(5)); // 253 characters, labels of 61
  const tooLong = `${longest}b`;
  test.each([
    ['userConfig.configMapName', { userConfig: { configMapName: tooLong } }],
    ['tls.secretName', { tls: { secretName: tooLong } }],
    ['storage.existingClaimName', { storage: { existingClaimName: tooLong } }],
    ['imagePullSecrets[0]', { imagePullSecrets: [tooLong] }],
  ])('%s of 254 characters is refused once, naming the field and the bound', (field, props) => {
    expect(longest).toHaveLength(253);
    const message = errorOf({ distribution: { name: 'starter' }, ...props });
    expect(message).toContain(`${field}: "${tooLong}" is not a`);
    expect(message).toContain('a DNS-1123 subdomain (at most 253 lower-case letters, digits, "-" and ".")');
    expect(message.split(tooLong)).toHaveLength(2);
    expect(() => render({ distribution: { name: 'starter' }, ...JSON.parse(JSON.stringify(props).split(tooLong).join(longest)) })).not.toThrow();
  });
});
