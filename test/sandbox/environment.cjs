// Jest's node environment, and at the end of each test file the sandboxed processes it left running
// ended (test/sandbox/left-running.ts registers them): after the file's own afterAll hooks, so only
// what a test lost track of (a pod still starting when its test timed out) is ended here, and named.
// Also removed then: the output directories cdk8s's Testing.app() makes in the temporary directory for
// every chart a test builds (cdk8s.outdir.*) and never removes, thousands a run.
const fs = require('fs');
const path = require('path');
const { TestEnvironment } = require('jest-environment-node');

const KEY = Symbol.for('kube-inference-constructs.left-running');

/** The cdk8s output directories made in this worker since its current test file started. */
const outdirs = new Set();
// Core modules are shared by a worker's test files: cdk8s's `fs` is this one. A worker runs one file at a time.
if (!fs.mkdtempSync.recordsOutdirs) {
  const mkdtempSync = fs.mkdtempSync;
  fs.mkdtempSync = Object.assign(function recordingMkdtempSync(...args) {
    const made = mkdtempSync.apply(this, args);
    if (typeof made === 'string' && path.basename(made).startsWith('cdk8s.outdir.')) outdirs.add(made);
    return made;
  }, { recordsOutdirs: true });
}

class SandboxCleaningEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.registry = { testPath: context.testPath, running: new Map(), closed: false };
    this.global[KEY] = this.registry;
  }

  async teardown() {
    const { running, testPath } = this.registry;
    this.registry.closed = true;
    if (running.size > 0) {
      const names = [...running.keys()];
      process.stderr.write(`${testPath}: ended ${names.length} sandboxed process(es) its tests left running:\n${names.map((n) => `  - ${n}\n`).join('')}`);
      for (const kill of running.values()) kill();
      running.clear();
    }
    for (const dir of outdirs) fs.rmSync(dir, { recursive: true, force: true });
    outdirs.clear();
    await super.teardown();
  }
}

module.exports = SandboxCleaningEnvironment;
