import { argsToFlags, CONTEXT_LENGTH_FLAG, engineFlags, engineOptionWarnings, typedArgValue } from '../../src/model-deployment';

describe('engine flags', () => {
  test.each([
    ['vllm', ['--max-model-len', '8192', '--trust-remote-code']],
    ['sglang', ['--context-length', '8192', '--trust-remote-code']],
    // Dynamo's TensorRT-LLM worker takes the context length at runtime (dynamo/trtllm/backend_args.py).
    ['trtllm', ['--max-seq-len', '8192']],
    ['llamacpp', ['--context-size', '8192']],
  ] as const)('%s: context length and trust-remote-code', (engine, flags) => {
    expect(engineFlags(engine, { contextLength: 8192, trustRemoteCode: true })).toEqual(flags);
  });

  test('the context length flag per engine', () => {
    expect(CONTEXT_LENGTH_FLAG).toEqual({ vllm: 'max-model-len', sglang: 'context-length', trtllm: 'max-seq-len', llamacpp: 'context-size' });
  });

  test('engine.args are emitted in sorted order; an empty value is a bare flag', () => {
    expect(argsToFlags({ 'quantization': 'awq', 'enforce-eager': '', 'gpu-memory-utilization': '0.9' }))
      .toEqual(['--enforce-eager', '--gpu-memory-utilization', '0.9', '--quantization', 'awq']);
    expect(engineFlags('vllm', { args: { b: '2', a: '1' }, contextLength: 10 })).toEqual(['--max-model-len', '10', '--a', '1', '--b', '2']);
  });

  test('options an engine cannot take are warnings, not flags', () => {
    expect(engineOptionWarnings('trtllm', { contextLength: 4096, trustRemoteCode: true })).toEqual([
      'engine.trustRemoteCode is ignored for trtllm: remote code is resolved when the TensorRT-LLM engine is built',
    ]);
    expect(engineOptionWarnings('vllm', { contextLength: 4096, trustRemoteCode: true })).toEqual([]);
    expect(engineOptionWarnings('llamacpp', { trustRemoteCode: false })).toEqual([]);
  });

  test('typed values for configuration files', () => {
    expect(['', 'true', 'false', '0.9', '8192', '-1', '1e3', 'awq', '0x10', '08', '1.2.3'].map(typedArgValue))
      .toEqual([true, true, false, 0.9, 8192, -1, 1000, 'awq', '0x10', '08', '1.2.3']);
  });
});
