// A Llama Stack server with three deploy-time providers across two APIs, rendered with cdk8s.
//
//   cdk8s synth          # writes dist/llama-stack.k8s.yaml
//
import { App, Chart } from 'cdk8s';
import { ConfigValue, LlamaStackWithProviders } from 'kube-inference-constructs';

const app = new App();
const chart = new Chart(app, 'llama-stack', { namespace: 'llama-stack' });

new LlamaStackWithProviders(chart, 'server', {
  name: 'llama-stack',
  distribution: { name: 'starter' },
  // Pin the merge image instead of following the package version.
  mergeImage: 'ghcr.io/kube-inference/merge:0.1.0',
  env: [{ name: 'INFERENCE_MODEL', value: 'meta-llama/Llama-3.2-3B-Instruct' }],
  storage: { size: '20Gi' },
  externalProviders: {
    inference: [
      {
        providerId: 'custom-vllm',
        image: 'quay.io/acme/vllm-provider:1.2.0',
        config: {
          url: 'http://vllm.models.svc:8000/v1',
          // Read from a Secret at run time; the token never appears in the manifests.
          api_token: ConfigValue.fromSecret('vllm-credentials', 'token'),
        },
      },
    ],
    safety: [
      {
        providerId: 'trustyai-fms',
        image: 'quay.io/trustyai/llama-stack-provider-trustyai-fms:0.4.0',
        config: { orchestrator_url: 'http://fms-orchestrator.safety.svc:8032' },
      },
      { providerId: 'lmeval-guard', image: 'quay.io/acme/lmeval-guard:0.2.1', imagePullPolicy: 'Always' },
    ],
  },
});

app.synth();
