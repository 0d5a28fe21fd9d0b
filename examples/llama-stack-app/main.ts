// OGX servers (formerly Llama Stack) with deploy-time providers, rendered with cdk8s.
//
//   cdk8s synth          # writes dist/llama-stack.k8s.yaml
//
// Without serverVersion the construct renders for the newest OGX release (1.5): upstream's image
// docker.io/ogxai/distribution-starter:1.5.0, started with `ogx run`, serving plain HTTP inside the
// cluster (the config says server.insecure: true) unless `tls` names a certificate.
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
    toolRuntime: [
      { providerId: 'acme-search', image: 'quay.io/acme/search-provider:0.3.0', imagePullPolicy: 'Always' },
    ],
  },
});

// The same construct for a server of the llama-stack line (0.2 to 0.7), as the llama-stack operator ran
// them: the release decides the command (`llama stack run`), the environment (LLAMA_STACK_*), the image
// and which externalProviders sections exist (0.7 has safety; ogx 1.0 removed it).
new LlamaStackWithProviders(chart, 'classic', {
  name: 'llama-stack-07',
  distribution: { name: 'starter' },
  serverVersion: '0.7',
  mergeImage: 'ghcr.io/kube-inference/merge:0.1.0',
  externalProviders: {
    safety: [{
      providerId: 'trustyai-fms',
      image: 'quay.io/trustyai/llama-stack-provider-trustyai-fms:0.4.0',
      config: { orchestrator_url: 'http://fms-orchestrator.safety.svc:8032' },
    }],
  },
});

// The server's own TLS: a Secret with its certificate and key (cert-manager writes one for a
// Certificate), mounted and named in the config; probes, Service and Route speak HTTPS.
new LlamaStackWithProviders(chart, 'secure', {
  name: 'llama-stack-tls',
  distribution: { name: 'starter' },
  tls: { secretName: 'llama-stack-tls' },
  userConfig: { config: { version: 2, distro_name: 'starter', providers: {} } },
  network: { expose: true, exposeAs: 'Route' },
});

// When the config and every provider's metadata are known at synth time, the config is merged now:
// the ConfigMap holds the final config.yaml (plus extra-providers.yaml and merge-log.txt for review)
// and the pod runs only the installers before the server.
new LlamaStackWithProviders(chart, 'prerendered', {
  name: 'llama-stack-prerendered',
  distribution: { name: 'starter' },
  userConfig: {
    config: {
      version: 2,
      distro_name: 'starter',
      apis: ['inference'],
      providers: { inference: [{ provider_id: 'ollama', provider_type: 'remote::ollama', config: { url: 'http://ollama:11434' } }] },
      server: { port: 8321 },
    },
  },
  externalProviders: {
    inference: [{
      providerId: 'acme-echo',
      image: 'quay.io/acme/acme-echo-provider:0.1.0',
      // The sample provider's metadata (examples/sample-provider), as its image carries it.
      metadataFile: '../sample-provider/lls-provider-spec.yaml',
    }],
  },
});

// Providers with a service part (examples/sample-provider: its image runs that part by default and
// its adapter calls it at config.url). The same image three ways: in the server's process, as a
// sidecar of the server's pod, and in pods of its own behind a Service that only the server may call.
new LlamaStackWithProviders(chart, 'services', {
  name: 'llama-stack-services',
  distribution: { name: 'starter' },
  mergeImage: 'ghcr.io/kube-inference/merge:0.1.0',
  // The oldest Kubernetes release the cluster runs: from 1.29 sidecars are native sidecars, which
  // start (and pass their startup probe) before the server.
  kubernetesVersion: '1.31',
  externalProviders: {
    inference: [
      { providerId: 'echo-inline', image: 'quay.io/acme/acme-echo-provider:0.1.0' },
      {
        providerId: 'echo-sidecar',
        image: 'quay.io/acme/acme-echo-provider:0.1.0',
        // PROVIDER_PORT 18000; the merge writes http://localhost:18000/v1 to config.url (the key and
        // path the image's lls-provider-spec.yaml names in spec.serviceAddress).
        sidecar: { resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } } },
      },
      {
        providerId: 'echo-service',
        image: 'quay.io/acme/acme-echo-provider:0.1.0',
        // Deployment, Service, ServiceAccount and NetworkPolicy llama-stack-services-echo-service;
        // config.url becomes http://llama-stack-services-echo-service:8080/v1.
        service: { replicas: 2, resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '256Mi' } } },
      },
    ],
  },
});

app.synth();
