// What identifies a ModelDeployment document, in a module of its own so that `kube-inference render`
// can recognise one without loading the providers (it loads them when such a document comes).

/**
 * The apiVersions a ModelDeployment document may have: kubeairunway's current group
 * (`airunway.ai`, its `api/v1alpha1/groupversion_info.go`) and the two it had before.
 */
export const MODEL_DEPLOYMENT_API_VERSIONS: readonly string[] = ['airunway.ai/v1alpha1', 'kubeairunway.ai/v1alpha1', 'kubefoundry.ai/v1alpha1'];

/** The kind of a ModelDeployment document. */
export const MODEL_DEPLOYMENT_KIND = 'ModelDeployment';
