// The TypeScript types of `provider.overrides` (KaitoOverrides, DynamoOverrides, KubeRayOverrides) say
// what the providers' override schemas say, key for key and value for value: one full sample of each
// type (every key, at every depth, required by the compiler) is compared with the schema the provider
// checks at synth, and passes that check without a warning.
import {
  checkOverrides, DynamoOverrides, DynamoProvider, KaitoOverrides, KaitoProvider, KubeRayOverrides, KubeRayProvider, OverrideSchema,
} from '../../src/model-deployment';

/** Every key required, at every depth, down to the string maps (whose keys are the user's). */
type Full<T> = { [K in keyof T]-?: NonNullable<T[K]> extends { [key: string]: string } ? NonNullable<T[K]> : Full<NonNullable<T[K]>> };

const KAITO: Full<KaitoOverrides> = { nodeProvisioning: 'auto', instanceType: 'Standard_NC6s_v3', ggufFile: 'm.gguf' };
const ROLE = { args: { 'max-num-seqs': '8' }, engineConfig: { 'kv_cache_config.free_gpu_memory_fraction': '0.8' } };
const DYNAMO: Full<DynamoOverrides> = { routerMode: 'kv', frontend: { replicas: 2, resources: { cpu: '1', memory: '2Gi' } }, prefill: ROLE, decode: ROLE, runtimeVersionOverride: '1.0.1' };
const KUBERAY: Full<KubeRayOverrides> = { head: { resources: { cpu: '2', memory: '8Gi' }, rayStartParams: { 'num-cpus': '0' } } };

// The values of each enumeration, as the types have them (a missing or extra one is a compile error).
const NODE_PROVISIONING: Record<NonNullable<KaitoOverrides['nodeProvisioning']>, true> = { 'auto': true, 'bring-your-own': true };
const ROUTER_MODES: Record<NonNullable<DynamoOverrides['routerMode']>, true> = { 'kv': true, 'round-robin': true, 'random': true, 'none': true };

/** The dotted paths of a schema's keys, with each enumeration's values. */
function schemaPaths(schema: OverrideSchema, prefix = ''): string[] {
  return Object.entries(schema).flatMap(([key, field]) => [
    `${prefix}${key}${field.enum ? ` = ${[...field.enum].sort().join('|')}` : ''}`,
    ...(field.type === 'object' ? schemaPaths(field.properties ?? {}, `${prefix}${key}.`) : []),
  ]);
}

/** The dotted paths of a sample's keys, into its objects as the schema has them. */
function samplePaths(sample: object, schema: OverrideSchema, enums: Record<string, object>, prefix = ''): string[] {
  return Object.entries(sample).flatMap(([key, value]) => [
    `${prefix}${key}${enums[key] ? ` = ${Object.keys(enums[key]).sort().join('|')}` : ''}`,
    ...(schema[key]?.type === 'object' ? samplePaths(value, schema[key].properties ?? {}, enums, `${prefix}${key}.`) : []),
  ]);
}

describe.each([
  ['kaito', new KaitoProvider().overrides, KAITO, { nodeProvisioning: NODE_PROVISIONING }],
  ['dynamo', new DynamoProvider().overrides, DYNAMO, { routerMode: ROUTER_MODES }],
  ['kuberay', new KubeRayProvider().overrides, KUBERAY, {}],
] as const)('%s', (provider, schema, sample, enums) => {
  test('the type has exactly the keys and values of the schema', () => {
    expect(samplePaths(sample, schema, enums).sort()).toEqual(schemaPaths(schema).sort());
  });

  test('a full sample of the type passes the synth-time check without a warning', () => {
    expect(checkOverrides(provider, schema, sample)).toEqual({ problems: [], warnings: [] });
  });
});
