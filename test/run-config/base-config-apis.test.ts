import { parse } from 'yaml';
import { readFixture, REFERENCE_CONFIGS, REFERENCE_RELEASES, runConfigError } from './helpers';
import { checkBaseConfigApis } from '../../src/run-config/base-config-apis';
import { findRelease } from '../../src/run-config/releases';

const check = (config: unknown, version: string) => () => checkBaseConfigApis(config, findRelease(version)!, 'config.yaml');

test.each(REFERENCE_CONFIGS)('the reference config %s passes for its own release', (file) => {
  expect(check(parse(readFixture(file)), REFERENCE_RELEASES[file])).not.toThrow();
});

test('a 0.7 config checked as 0.6 names every API 0.6 lacks and the releases that have them', () => {
  const error = runConfigError(check(parse(readFixture('odh-distribution-config.yaml')), '0.6'));
  expect(error.message).toBe(`ERROR: The base config names APIs llama-stack 0.6 does not have

File: config.yaml
  - providers.responses: llama-stack 0.6 has no responses API (responses is the llama-stack 0.7 name of agents).
  - apis[0]: llama-stack 0.6 has no responses API (responses is the llama-stack 0.7 name of agents).
llama-stack 0.6 takes providers for: inference, safety, agents, vector_io, datasetio, scoring, eval, tool_runtime, post_training, files, file_processors, batches.

Resolution: The base config is written for another server release, or misnames an API. Set serverVersion to the release the distribution runs (0.7 or newer), or fix the base config — the user config (its ConfigMap, or userConfig.config in the props) or the config file of the distribution image — and redeploy.`);
});

test('a 0.2 config checked as 0.7 names the renamed and the removed APIs', () => {
  const message = runConfigError(check(parse(readFixture('starter-run-v0.2.23.yaml')), '0.7')).message;
  expect(message).toContain('  - providers.agents: llama-stack 0.7 has no agents API (agents was renamed responses in llama-stack 0.7).');
  expect(message).toContain('  - providers.post_training: llama-stack 0.7 has no post_training API (llama-stack 0.7 removed the post_training API).');
  expect(message).toContain('  - providers.telemetry: llama-stack 0.7 has no telemetry API (llama-stack 0.3 removed the telemetry API).');
  expect(message).toContain('(0.6 or older; 0.2 or older)');
});

test('routing tables and unknown names are refused; names of the enum are fine in apis', () => {
  const message = runConfigError(check({ apis: ['models', 'inference', 'vector_dbs', 3], providers: { models: [], inference: [], nope: [] } }, '0.7')).message;
  expect(message).toContain('  - providers.models: llama-stack 0.7 provides models itself; a config cannot list providers for it.');
  expect(message).toContain('  - providers.nope: llama-stack 0.7 has no nope API.');
  expect(message).toContain('  - apis[2]: llama-stack 0.7 has no vector_dbs API.');
  expect(message).toContain('  - apis[3]: found a number (3); expected an API name.');
  expect(message).not.toContain('apis[0]');
  expect(message).toContain('Set serverVersion to the release the distribution runs, or fix the base config');
});

test('a config with external APIs, or without apis and providers, is not checked', () => {
  expect(check({ external_apis_dir: '/apis', providers: { weather: [] } }, '0.7')).not.toThrow();
  expect(check({ version: 2 }, '0.7')).not.toThrow();
  expect(check(null, '0.7')).not.toThrow();
});
