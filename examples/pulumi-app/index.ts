// An OGX server (formerly Llama Stack) with deploy-time providers, deployed with Pulumi.
//
//   npm install kube-inference-constructs @pulumi/pulumi @pulumi/kubernetes
//   pulumi stack init dev
//   pulumi up
//
// The component renders exactly what the cdk8s construct of the same name renders, and registers
// each object as a child resource.
import * as k8s from '@pulumi/kubernetes';
import * as pulumi from '@pulumi/pulumi';
import { LlamaStackWithProviders, ModelDeployment } from 'kube-inference-constructs/pulumi';

const config = new pulumi.Config();
const providerTag = config.get('providerTag') ?? '0.3.0';

// Outputs of other resources can be passed where a user would expect to: the namespace here.
const namespace = new k8s.core.v1.Namespace('llama-stack', { metadata: { name: 'llama-stack' } });

// The model the stack serves, served by whichever provider the selection algorithm picks (here:
// Dynamo, for vLLM on a GPU); the reason is an output.
const model = new ModelDeployment('llama-8b', {
  namespace: namespace.metadata.name,
  model: { id: 'meta-llama/Llama-3.1-8B-Instruct', source: 'huggingface' },
  engine: { type: 'vllm', contextLength: 8192 },
  resources: { gpu: { count: 1 }, memory: '32Gi' },
  secrets: { huggingFaceToken: 'hf-token' },
});

const stack = new LlamaStackWithProviders('llama-stack', {
  namespace: namespace.metadata.name,
  distribution: { name: 'starter' },
  mergeImage: 'ghcr.io/kube-inference/merge:0.1.0',
  // The model, in one line: its endpoint (Service, port, model name; the URL an output, as the
  // namespace is) becomes the server's remote::vllm provider and a registered model.
  models: [model.endpoint],
  externalProviders: {
    toolRuntime: [{
      providerId: 'acme-search',
      image: pulumi.interpolate`quay.io/acme/search-provider:${providerTag}`,
      config: { api_key: { secretKeyRef: { name: 'search-credentials', key: 'token' } } },
    }],
  },
});

export const serviceName = stack.serviceName;
export const servicePort = stack.servicePort;
export const configMaps = stack.configMapNames;
export const modelIds = stack.modelIds;
export const modelUrl = model.endpoint.url;
export const modelProvider = model.selectedProvider;
export const modelSelectionReason = model.selectionReason;
