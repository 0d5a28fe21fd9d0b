// The package's public surface: what `kube-inference-constructs` and `kube-inference-constructs/pulumi`
// export at run time (types are erased; API.md, generated from src/index.ts, lists them). A change
// here is a change of the published API: make it on purpose, with a CHANGELOG entry.
import * as root from '../src';
import * as pulumiEntry from '../src/pulumi';

test('the root entry point exports the public API only', () => {
  expect(Object.keys(root).sort()).toEqual([
    'COLLECT_WARNINGS_CONTEXT', 'CRD_SECTION_BY_API', 'ConfigValue', 'DEFAULT_DISTRIBUTION_CONFIG_PATHS', 'DEFAULT_DYNAMO_VERSION', 'DEFAULT_LLAMA_STACK_VERSION',
    'DEFAULT_RAY_VERSION', 'DEFAULT_SERVER_VERSION', 'DISTRIBUTION_IMAGES', 'DynamoProvider', 'ENGINE_TYPES', 'KaitoProvider', 'KubeRayProvider', 'LABEL_DOMAIN',
    'LLAMA_STACK_APIS', 'LLAMA_STACK_RELEASES', 'LlamaStackWithProviders', 'MAX_PROVIDER_KEY_LENGTH', 'MERGE_IMAGE_REPOSITORY', 'MODEL_DEPLOYMENT_API_VERSIONS',
    'MODEL_DEPLOYMENT_KIND', 'MODEL_DEPLOYMENT_LABEL', 'MODEL_SOURCES', 'ModelDeployment', 'OPENAI_BASE_PATH', 'PROVIDER_ANNOTATION',
    'PROVIDER_LABEL', 'ProviderRegistry', 'RunConfigError', 'SELECTION_REASON_ANNOTATION', 'SERVER_RELEASES', 'SERVING_MODES', 'UnwritableValueError',
    'ValidationError', 'defaultMergeImage', 'distributionImage', 'mergeRunConfig', 'parseProviderMetadata', 'providerKey', 'renderModelDeploymentDocument', 'synthForSnapshot', 'translateStatus',
    'warningsOf',
  ]);
});

test('the Pulumi entry point exports the components and their ConfigValue', () => {
  expect(Object.keys(pulumiEntry).sort()).toEqual(['ConfigValue', 'LlamaStackWithProviders', 'ModelDeployment']);
});
