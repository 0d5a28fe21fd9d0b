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
const providerTag = config.get('providerTag') ?? '1.2.0';

// Outputs of other resources can be passed where a user would expect to: the namespace here.
const namespace = new k8s.core.v1.Namespace('llama-stack', { metadata: { name: 'llama-stack' } });

// The model the stack's inference provider talks to, served by whichever provider the selection
// algorithm picks (here: Dynamo, for vLLM on a GPU); the reason is an output.
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
  externalProviders: {
    inference: [{
      providerId: 'custom-vllm',
      image: pulumi.interpolate`quay.io/acme/vllm-provider:${providerTag}`,
      config: { url: 'http://vllm.models.svc:8000/v1', api_token: { secretKeyRef: { name: 'vllm-credentials', key: 'token' } } },
    }],
    toolRuntime: [{ providerId: 'acme-search', image: 'quay.io/acme/search-provider:0.3.0' }],
  },
});

export const serviceName = stack.serviceName;
export const servicePort = stack.servicePort;
export const configMaps = stack.configMapNames;
export const modelProvider = model.selectedProvider;
export const modelSelectionReason = model.selectionReason;
