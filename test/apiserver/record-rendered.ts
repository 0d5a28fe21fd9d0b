/**
 * Jest set-up (setupFilesAfterEnv): while `npm test` runs, every object this library renders in any
 * test (anything a cdk8s Chart synthesises that carries `app.kubernetes.io/managed-by:
 * kube-inference-constructs`: both constructs, the CLI's render, the Pulumi components) is recorded,
 * with the test that rendered it, to $KIC_RENDERED_DIR/<worker>.ndjson. rendered-by-tests.after.ts
 * then sends each to the real API servers. Without $KIC_RENDERED_DIR (a single test run by hand),
 * nothing is recorded.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Chart } from 'cdk8s';
import { MANAGED_BY } from '../../src/labels';

const dir = process.env.KIC_RENDERED_DIR;
if (dir) {
  const file = path.join(path.resolve(dir), `${process.env.JEST_WORKER_ID ?? '1'}-${process.pid}.ndjson`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const toJson = Chart.prototype.toJson;
  Chart.prototype.toJson = function recordedToJson(this: Chart): any[] {
    const objects = toJson.call(this);
    const ours = objects.filter((o: any) => o?.metadata?.labels?.['app.kubernetes.io/managed-by'] === MANAGED_BY);
    if (ours.length > 0) {
      const state = expect.getState();
      const test = `${path.relative(process.cwd(), state.testPath ?? '')} › ${state.currentTestName ?? '(outside a test)'}`;
      fs.appendFileSync(file, ours.map((object: any) => `${JSON.stringify({ test, object })}\n`).join(''));
    }
    return objects;
  };
}
