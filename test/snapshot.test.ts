// synthForSnapshot: a user's snapshot of a user-sized chart holds the user's settings, not the library's scripts.
import { App, Chart, Testing } from 'cdk8s';
import { stringify } from 'yaml';
import { LlamaStackWithProviders, ModelDeployment, synthForSnapshot } from '../src';
import { initScripts } from '../src/llama-stack/scripts';

/** Two teams' charts, as a user's app has them: a model each, a server with providers serving it. */
function userApp(providerTag: string): Chart[] {
  const app = new App({ outdir: '/nonexistent' });
  return ['team-a', 'team-b'].map((team) => {
    const chart = new Chart(app, team, { namespace: team });
    const model = new ModelDeployment(chart, 'model', {
      metadata: { name: 'llama-8b' }, model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } },
    });
    new LlamaStackWithProviders(chart, 'server', {
      name: 'assistant',
      distribution: { name: 'starter' },
      mergeImage: 'registry.example.com/kube-inference/merge:0.1.0',
      models: [model.endpoint],
      externalProviders: {
        toolRuntime: [{ providerId: 'acme-search', image: `quay.io/acme/search-provider:${providerTag}` }],
        inference: [{ providerId: 'acme-echo', image: 'quay.io/acme/acme-echo-provider:0.1.0', config: { prefix: `${team}> ` } }],
      },
    });
    return chart;
  });
}

const lines = (manifests: any[]) => manifests.map((m) => stringify(m)).join('---\n').split('\n').length;

describe('synthForSnapshot', () => {
  test('the library\'s scripts are named, not inlined; everything else is as Testing.synth renders it', () => {
    const [chart] = userApp('0.3.0');
    const full = Testing.synth(chart);
    const snapshot = synthForSnapshot(chart);
    const scripts = snapshot.find((m) => m.metadata.name === 'assistant-init-scripts');
    expect(scripts.data).toEqual(Object.fromEntries(Object.keys(initScripts()).map((f) => [f, `<kube-inference-constructs script ${f}>`])));
    const template = snapshot.find((m) => m.kind === 'Deployment').spec.template;
    expect(template.metadata.annotations['kube-inference.io/init-scripts-hash']).toBe('<hash of the kube-inference-constructs scripts>');
    // The rest is untouched: the two differ only where the scripts and their hash were.
    const stripped = (manifests: any[]) => JSON.stringify(manifests.filter((m) => m.metadata.name !== 'assistant-init-scripts'))
      .replace(/"kube-inference.io\/init-scripts-hash":"[^"]*"/, '');
    expect(stripped(snapshot)).toBe(stripped(full));
    expect(JSON.stringify(snapshot)).not.toContain(initScripts()['preflight.py'].slice(0, 200));
  });

  test('a user-sized app of two charts: the snapshot is a fraction of the full synth, and changes with the user\'s settings', () => {
    const charts = userApp('0.3.0');
    const full = charts.reduce((n, c) => n + lines(Testing.synth(c)), 0);
    const small = charts.reduce((n, c) => n + lines(synthForSnapshot(c)), 0);
    expect(small * 4).toBeLessThan(full);
    process.stdout.write(`snapshot of two charts: ${full} lines with Testing.synth, ${small} with synthForSnapshot\n`);
    const changed = userApp('0.4.0');
    expect(synthForSnapshot(changed[0])).not.toEqual(synthForSnapshot(charts[0]));
  });
});
