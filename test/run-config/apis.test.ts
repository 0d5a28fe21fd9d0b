import { EXTERNAL_PROVIDER_SECTIONS } from '../../src/llama-stack/server/release';
import { apiForCrdSection, CRD_SECTION_BY_API, CRD_SECTIONS, isLlamaStackApi, LLAMA_STACK_APIS } from '../../src/run-config/apis';

test('every provider API of a known release, with its section, in processing order', () => {
  // The nine sections of the 0.2-era spec keep their relative order; responses sits beside agents.
  expect(LLAMA_STACK_APIS).toEqual([
    'inference', 'safety', 'agents', 'responses', 'vector_io', 'datasetio', 'scoring', 'eval', 'tool_runtime', 'post_training',
    'files', 'file_processors', 'batches', 'telemetry', 'messages', 'interactions', 'skills', 'container_runtime',
  ]);
  expect(CRD_SECTIONS).toEqual([
    'inference', 'safety', 'agents', 'responses', 'vectorIo', 'datasetIo', 'scoring', 'eval', 'toolRuntime', 'postTraining',
    'files', 'fileProcessors', 'batches', 'telemetry', 'messages', 'interactions', 'skills', 'containerRuntime',
  ]);
});

test('the construct takes the sections of every release it renders (llama-stack 0.2 to ogx 1.5), in the same order', () => {
  expect(EXTERNAL_PROVIDER_SECTIONS).toEqual(CRD_SECTIONS);
});

test('sections and APIs map both ways', () => {
  for (const api of LLAMA_STACK_APIS) {
    expect(apiForCrdSection(CRD_SECTION_BY_API[api])).toBe(api);
  }
  expect(apiForCrdSection('vector_io')).toBeUndefined();
  expect(isLlamaStackApi('responses')).toBe(true);
  expect(isLlamaStackApi('models')).toBe(false);
  expect(isLlamaStackApi(3)).toBe(false);
});
