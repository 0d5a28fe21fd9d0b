// synthForSnapshot: a user's snapshot of a user-sized chart holds the user's settings, not the library's scripts.
import { join } from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { stringify } from 'yaml';
import { LlamaStackWithProviders, ModelDeployment, synthForSnapshot } from '../src';
import { initScripts, initScriptsDigest } from '../src/llama-stack/scripts';

const METADATA_FILE = join(__dirname, 'fixtures', 'provider-metadata', 'custom-vllm.yaml');
const NAMED_DIGEST = '<hash of the kube-inference-constructs scripts>';

/**
 * Two teams' charts, as a user's app has them: a model each, a server with providers serving it. With
 * `mergedAtSynth` the providers' metadata and the config are given, so the config is merged at synth
 * time and no merge image runs: the scripts are the stack's ConfigMap.
 */
function userApp(providerTag: string, mergedAtSynth = false): Chart[] {
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
      ...(mergedAtSynth
        ? { userConfig: { config: 'version: 2\napis: [inference]\nproviders: {}\n' } }
        : { models: [model.endpoint] }),
      externalProviders: {
        inference: [{
          providerId: 'acme-vllm',
          image: `quay.io/acme/vllm-provider:${providerTag}`,
          config: { url: `http://${team}-vllm:8000/v1` },
          ...(mergedAtSynth ? { metadataFile: METADATA_FILE } : {}),
        }],
      },
    });
    return chart;
  });
}

const lines = (manifests: any[]) => manifests.map((m) => stringify(m)).join('---\n').split('\n').length;
const appLines = (charts: Chart[], synth: (c: Chart) => any[]) => charts.reduce((n, c) => n + lines(synth(c)), 0);
const podTemplate = (manifests: any[]) => manifests.find((m) => m.kind === 'Deployment').spec.template;

describe('synthForSnapshot', () => {
  test('merged in the pod: the merge image writes the scripts, and their digest is named, not written out', () => {
    const [chart] = userApp('0.3.0');
    const full = Testing.synth(chart);
    expect(JSON.stringify(full)).not.toContain(initScripts()['preflight.py'].slice(0, 200));
    const snapshot = synthForSnapshot(chart);
    const template = podTemplate(snapshot);
    expect(template.metadata.annotations['kube-inference.io/init-scripts-hash']).toBe(NAMED_DIGEST);
    expect(template.spec.initContainers[0].args).toEqual(['write-init-scripts', '--sha256', NAMED_DIGEST, '--dir', '/opt/llama-stack/scripts']);
    expect(JSON.stringify(snapshot)).not.toContain(initScriptsDigest());
    // The rest is untouched: the two differ only where the digest was.
    expect(JSON.stringify(snapshot)).toBe(JSON.stringify(full).split(initScriptsDigest()).join(NAMED_DIGEST));
  });

  test('merged at synth time: the scripts ConfigMap names each script', () => {
    const [chart] = userApp('0.3.0', true);
    const snapshot = synthForSnapshot(chart);
    const scripts = snapshot.find((m) => m.metadata.name === 'assistant-init-scripts');
    expect(scripts.data).toEqual(Object.fromEntries(Object.keys(initScripts()).map((f) => [f, `<kube-inference-constructs script ${f}>`])));
    expect(podTemplate(snapshot).metadata.annotations['kube-inference.io/init-scripts-hash']).toBe(NAMED_DIGEST);
    expect(JSON.stringify(snapshot)).not.toContain(initScripts()['preflight.py'].slice(0, 200));
    const others = (manifests: any[]) => JSON.stringify(manifests.filter((m) => m.metadata.name !== 'assistant-init-scripts'));
    expect(others(snapshot)).toBe(others(Testing.synth(chart)).split(initScriptsDigest()).join(NAMED_DIGEST));
  });

  test('a user-sized app of two charts: the snapshot holds the user\'s settings, and changes with them', () => {
    const inPod = userApp('0.3.0');
    const atSynth = userApp('0.3.0', true);
    const sizes = {
      inPod: { full: appLines(inPod, (c) => Testing.synth(c)), snapshot: appLines(inPod, synthForSnapshot) },
      atSynth: { full: appLines(atSynth, (c) => Testing.synth(c)), snapshot: appLines(atSynth, synthForSnapshot) },
    };
    // Merged in the pod the manifests hold no script at all; merged at synth time only the helper keeps them out.
    expect(sizes.inPod.full).toBe(sizes.inPod.snapshot);
    expect(sizes.atSynth.snapshot * 4).toBeLessThan(sizes.atSynth.full);
    process.stdout.write(`snapshot of two charts: merged in the pod ${sizes.inPod.full} lines with Testing.synth; `
      + `merged at synth time ${sizes.atSynth.full} lines with Testing.synth, ${sizes.atSynth.snapshot} with synthForSnapshot\n`);
    for (const mergedAtSynth of [false, true]) {
      const before = userApp('0.3.0', mergedAtSynth)[0];
      expect(synthForSnapshot(userApp('0.4.0', mergedAtSynth)[0])).not.toEqual(synthForSnapshot(before));
    }
  });
});
