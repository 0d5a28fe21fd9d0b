// Warnings reach a `cdk8s synth` user on standard error once each, however many charts the app has:
// cdk8s validates the whole app once per chart it synthesises and once more for the app.
import { App, Chart } from 'cdk8s';
import { ModelDeployment } from '../../src/model-deployment';
import { tempDir } from '../temp-dir';

test('each warning is printed once, with its construct path', () => {
  const app = new App({ outdir: tempDir('warnings-') });
  for (const name of ['one', 'two', 'three']) {
    const chart = new Chart(app, name);
    // KAITO presets have no pod template: imagePullSecrets is reported and ignored.
    new ModelDeployment(chart, 'md', {
      metadata: { name },
      model: { id: 'microsoft/Phi-4-mini-instruct' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
      imagePullSecrets: ['pull'],
      provider: { name: 'kaito', overrides: { instanceType: 'Standard_NC24ads_A100_v4' } },
    });
  }
  const written: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
    written.push(String(chunk));
    return true;
  });
  try {
    app.synth();
  } finally {
    spy.mockRestore();
  }
  const lines = written.join('').split('\n').filter((l) => l.startsWith('WARNING: '));
  expect(lines.length).toBe(3);
  expect(new Set(lines).size).toBe(3);
  expect(lines.map((l) => l.split(':')[1].trim())).toEqual(['one/md', 'two/md', 'three/md']);
  for (const line of lines) expect(line).toContain('imagePullSecrets');
});
