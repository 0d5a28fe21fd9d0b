// Jest's node environment, and at the end of each test file the sandboxed processes it left running
// ended (test/sandbox/left-running.ts registers them): after the file's own afterAll hooks, so only
// what a test lost track of (a pod still starting when its test timed out) is ended here, and named.
const { TestEnvironment } = require('jest-environment-node');

const KEY = Symbol.for('kube-inference-constructs.left-running');

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
    await super.teardown();
  }
}

module.exports = SandboxCleaningEnvironment;
