// A cdk8s app as a user writes one, synthesised by the real `cdk8s synth` and applied to the single-node
// cluster in test/cluster/llama-stack.test.ts. The config and the provider's metadata are known here, so
// the config is merged at synth time: the ConfigMap holds the final config.yaml and the pod runs only the
// provider's installer before the server (docs/llama-stack-operator.md). The test gives the namespace and
// the distribution image built for the cluster (test/cluster/images.ts) through the environment.
import { App, Chart } from 'cdk8s';
import { LlamaStackWithProviders } from 'kube-inference-constructs';

const app = new App();
const chart = new Chart(app, 'cdk8s-app', { namespace: process.env.NAMESPACE });

new LlamaStackWithProviders(chart, 'server', {
  name: 'cdk8s-app',
  distribution: { image: process.env.DISTRIBUTION_IMAGE! },
  userConfig: {
    config: { version: 2, distro_name: 'starter', apis: ['inference'], providers: { inference: [] }, server: { port: 8321 } },
  },
  externalProviders: {
    inference: [{
      providerId: 'acme-echo',
      image: 'quay.io/acme/acme-echo-provider:0.1.0',
      config: { prefix: 'cdk8s> ' },
      // The sample provider's metadata, as its image carries it.
      metadataFile: '../../../examples/sample-provider/lls-provider-spec.yaml',
    }],
  },
});

app.synth();
