import { apiForCrdSection, CRD_SECTION_BY_API, CRD_SECTIONS, isLlamaStackApi, LLAMA_STACK_APIS } from '../../src/run-config/apis';

test('the nine APIs of the spec, with their sections in spec order', () => {
  expect(LLAMA_STACK_APIS).toEqual(['inference', 'safety', 'agents', 'vector_io', 'datasetio', 'scoring', 'eval', 'tool_runtime', 'post_training']);
  expect(CRD_SECTIONS).toEqual(['inference', 'safety', 'agents', 'vectorIo', 'datasetIo', 'scoring', 'eval', 'toolRuntime', 'postTraining']);
});

test('sections and APIs map both ways', () => {
  for (const api of LLAMA_STACK_APIS) {
    expect(apiForCrdSection(CRD_SECTION_BY_API[api])).toBe(api);
  }
  expect(apiForCrdSection('vector_io')).toBeUndefined();
  expect(isLlamaStackApi('responses')).toBe(false);
  expect(isLlamaStackApi(3)).toBe(false);
});
