// A KAITO InferenceSet: `spec.replicas` Workspaces from one template (kaito:
// pkg/inferenceset/inferenceset_controller.go). The controller names each Workspace
// `<name>-<random>` and creates no Service for the set, so we render one: `<name>`, port 80, in
// front of the pods of every Workspace of the set.
import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { KaitoApiVersion } from './api-version';
import { KAITO_INFERENCE_PORT, KaitoInference, kaitoMatchLabels } from './inference';
import { KaitoSettings } from './overrides';
import { KAITO_SERVICE_PORT } from './status';
import type { InferenceSetProps, InferenceSetSpecTemplateInference, InferenceSetV1Beta1Props } from '../../../imports/kaito-inference-set.generated';
import { defineObject, defineCustomResource } from '../../../kubernetes-objects';
import { MODEL_DEPLOYMENT_LABEL } from '../../metadata';
import { RenderContext } from '../../provider';

/**
 * The label KAITO puts on every Workspace of an InferenceSet and, for presets, on their pods
 * (the StatefulSet selector; kaito: pkg/utils/consts `WorkspaceCreatedByInferenceSetLabel`).
 */
export const INFERENCE_SET_LABEL = 'inferenceset.kaito.sh/created-by';

/** Renders the InferenceSet and the Service in front of its pods. */
export function renderInferenceSet(context: RenderContext, apiVersion: KaitoApiVersion, settings: KaitoSettings,
  metadata: ApiObjectMetadata, inference: KaitoInference): ApiObject {
  const d = context.deployment;
  const spec = {
    replicas: d.replicas,
    labelSelector: { matchLabels: kaitoMatchLabels(d) },
    template: {
      // Copied onto each Workspace of the set (and, for presets, seen by its pods).
      metadata: { labels: metadata.labels, annotations: metadata.annotations },
      resource: settings.instanceType !== undefined ? { instanceType: settings.instanceType } : undefined,
      inference,
    },
  };
  const type = { apiVersion, kind: 'InferenceSet' };
  const resource = apiVersion === 'kaito.sh/v1alpha1'
    ? defineCustomResource<InferenceSetProps>(context.scope, 'Resource', type, { metadata, spec: { ...spec, template: { ...spec.template, inference: inference as InferenceSetSpecTemplateInference } } })
    : defineCustomResource<InferenceSetV1Beta1Props>(context.scope, 'Resource', type, { metadata, spec });
  // Preset pods carry KAITO's created-by label; template pods carry our pod labels.
  defineObject(context.scope, 'Service', 'Service', {
    metadata: { name: d.name, namespace: d.namespace, labels: { ...context.commonLabels, 'app.kubernetes.io/component': 'inference' } },
    spec: {
      type: 'ClusterIP',
      externalIPs: [],
      ports: [{ name: 'http', port: KAITO_SERVICE_PORT, targetPort: KAITO_INFERENCE_PORT }],
      selector: { [d.engine.type === 'vllm' ? INFERENCE_SET_LABEL : MODEL_DEPLOYMENT_LABEL]: d.name },
    },
  });
  return resource;
}
