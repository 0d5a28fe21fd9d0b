// The kinds of input document `render` understands, without the code that renders them: the CLI
// loads a renderer only when a document of its kind comes (a Llama Stack document never loads the
// model-deployment providers and their generated CRD classes).
export { MODEL_DEPLOYMENT_API_VERSIONS, MODEL_DEPLOYMENT_KIND } from '../model-deployment/document-kind';

/** The apiVersion of a LlamaStackDistribution document (the llama-stack operator's CRD). */
export const LLSD_API_VERSION = 'llamastack.io/v1alpha1';

/** The apiVersion of an OGXServer document (the OGX operator's CRD, ogx-ai/ogx-k8s-operator v0.14.0). */
export const OGX_SERVER_API_VERSION = 'ogx.io/v1beta1';

/** The kind of an OGXServer document. */
export const OGX_SERVER_KIND = 'OGXServer';
