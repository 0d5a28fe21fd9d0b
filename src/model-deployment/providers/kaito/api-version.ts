// The KAITO API versions, which the Workspace and the InferenceSet translations share.

/** The API versions this translation produces (Workspace and InferenceSet alike). */
export type KaitoApiVersion = 'kaito.sh/v1beta1' | 'kaito.sh/v1alpha1';
