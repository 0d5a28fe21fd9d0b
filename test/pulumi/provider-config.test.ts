// Provider `config` in the Pulumi component: plain data, and Secret references whose Secret may be
// created in the same program; any other Pulumi output is refused, by type and when constructed. A
// user's literal is never taken for one of the component's placeholders.
import * as path from 'path';
import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import * as ts from 'typescript';
import { mockPulumi, settled } from './mocks';
import { ConfigValue, LlamaStackWithProviders } from '../../src/pulumi';

const registered = mockPulumi();
const deploymentOf = (prefix: string) => registered.find((r) => r.name.startsWith(`${prefix}-`) && r.type === 'kubernetes:apps/v1:Deployment')!.inputs;

test('a Secret created in the same program can be referenced with ConfigValue.fromSecret', async () => {
  const secret = new k8s.core.v1.Secret('vllm-token', { metadata: { name: 'vllm-token-4f2a' }, stringData: { token: 's3cr3t' } });
  const component = new LlamaStackWithProviders('with-secret', {
    distribution: { name: 'starter' },
    externalProviders: { inference: [{ providerId: 'custom-vllm', image: 'quay.io/acme/vllm-provider:1.2.0', config: { url: 'http://vllm:8000/v1', api_token: ConfigValue.fromSecret(secret.metadata.name, 'token') } }] },
  });
  await settled(component.resources);
  const server = deploymentOf('with-secret').spec.template.spec.containers[0];
  expect(server.env.find((e: any) => e.name === 'LLS_PROVIDER_CUSTOM_VLLM_API_TOKEN')).toEqual({
    name: 'LLS_PROVIDER_CUSTOM_VLLM_API_TOKEN', valueFrom: { secretKeyRef: { name: 'vllm-token-4f2a', key: 'token' } },
  });
  expect(JSON.stringify(registered.filter((r) => r.name.startsWith('with-secret-')).map((r) => r.inputs))).not.toContain('s3cr3t');
});

test('any other output in a provider config fails at construction, naming the field and the fix', () => {
  const url = pulumi.output('http://vllm:8000/v1');
  expect(() => new LlamaStackWithProviders('with-output', {
    distribution: { name: 'starter' },
    externalProviders: { safety: [{ providerId: 'fms', image: 'quay.io/acme/fms:1.0', config: { nested: [{ url } as any] } }] },
  })).toThrow('externalProviders.safety[0].config.nested[0].url: a Pulumi output cannot go into a provider config: the config is written as text when the component renders, before outputs are known. Give a plain value, or store the value in a Secret and use ConfigValue.fromSecret(secret.metadata.name, key) from kube-inference-constructs/pulumi.');
  expect(registered.filter((r) => r.name.startsWith('with-output-'))).toEqual([]);
});

test('a literal that looks like a placeholder is never rewritten', async () => {
  const namespace = new k8s.core.v1.Namespace('literal-ns', { metadata: { name: 'models' } });
  const literals = ['pulumi-deferred-0-x', 'deferred-0000000000000000-0', 'pulumi-deferred-0-x.invalid/deferred:input'];
  const component = new LlamaStackWithProviders('literal', {
    namespace: namespace.metadata.name,
    distribution: { name: 'starter' },
    env: literals.map((value, i) => ({ name: `LITERAL_${i}`, value })),
    externalProviders: { inference: [{ providerId: 'custom-vllm', image: 'quay.io/acme/vllm-provider:1.2.0', config: { a: literals[0], b: literals[1] } }] },
  });
  await settled(component.resources);
  const deployment = deploymentOf('literal');
  expect(deployment.metadata.namespace).toBe('models');
  const server = deployment.spec.template.spec.containers[0];
  expect(literals.map((_, i) => server.env.find((e: any) => e.name === `LITERAL_${i}`).value)).toEqual(literals);
  const install = deployment.spec.template.spec.initContainers.find((c: any) => c.name === 'install-provider-custom-vllm');
  expect(JSON.parse(install.env.find((e: any) => e.name === 'PROVIDER_CRD_CONFIG').value).config).toEqual({ a: literals[0], b: literals[1] });
});

test('the types say so: an output in a provider config does not compile, a Secret name output does', () => {
  const diagnostics = (source: string) => {
    const file = path.join(__dirname, '..', '..', 'src', 'pulumi', '__type_check__.ts');
    const host = ts.createCompilerHost({});
    const read = host.readFile;
    host.readFile = (f) => (path.resolve(f) === file ? source : read(f));
    host.fileExists = ((exists) => (f: string) => path.resolve(f) === file || exists(f))(host.fileExists);
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      target: ts.ScriptTarget.ES2022,
    };
    const program = ts.createProgram([file], options, host);
    return ts.getPreEmitDiagnostics(program).filter((d) => d.file && path.resolve(d.file.fileName) === file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  };
  const program = (config: string) => `import * as pulumi from '@pulumi/pulumi';
import { ConfigValue, LlamaStackWithProviders } from './index';
const name = pulumi.output('n');
void ConfigValue;
new LlamaStackWithProviders('x', { distribution: { name: 'starter' }, externalProviders: { inference: [{ providerId: 'p', image: 'i:1', config: ${config} }] } });
`;
  expect(diagnostics(program("{ url: 'http://x', n: 1, list: [true, null], token: ConfigValue.fromSecret(name, 'token') }"))).toEqual([]);
  const refused = diagnostics(program('{ url: name }'));
  expect(refused.length).toBe(1);
  expect(refused[0]).toMatch(/Output<string>/);
});
