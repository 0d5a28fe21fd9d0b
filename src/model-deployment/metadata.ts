// Labels and annotations on rendered objects (seed 003 §4.12, with our label domain in place of
// the seed's `kubefoundry.ai`), plus the standard `app.kubernetes.io/*` labels.
import { LABEL_DOMAIN, MANAGED_BY, standardLabels } from '../labels';
import { ResolvedModelDeployment } from './resolved-spec';

/** `app.kubernetes.io/name` of everything a ModelDeployment renders. */
export const APP_NAME = 'model-deployment';
/** Label: always `kube-inference-constructs` (kubeairunway's operator writes its own `managed-by` label). */
export const MANAGED_BY_LABEL = `${LABEL_DOMAIN}/managed-by`;
/** Label on the upstream resource and the pods: the ModelDeployment's name. */
export const MODEL_DEPLOYMENT_LABEL = `${LABEL_DOMAIN}/model-deployment`;
/** Label and annotation: the provider that rendered the resource. */
export const PROVIDER_LABEL = `${LABEL_DOMAIN}/provider`;
/** Annotation: the provider (same value as the label, for readers of annotations). */
export const PROVIDER_ANNOTATION = `${LABEL_DOMAIN}/provider`;
/** Annotation: why the provider was chosen. */
export const SELECTION_REASON_ANNOTATION = `${LABEL_DOMAIN}/selection-reason`;
/** Label: the engine type. */
export const ENGINE_TYPE_LABEL = `${LABEL_DOMAIN}/engine-type`;
/** Label: the model source. */
export const MODEL_SOURCE_LABEL = `${LABEL_DOMAIN}/model-source`;

/** Labels of the upstream resource: standard ones, ours, then the user's propagated ones. */
export function resourceLabels(
  deployment: ResolvedModelDeployment, provider: string, propagated: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    ...standardLabels(APP_NAME, deployment.name, 'inference'),
    ...propagated,
    [MANAGED_BY_LABEL]: MANAGED_BY,
    [MODEL_DEPLOYMENT_LABEL]: deployment.name,
    [PROVIDER_LABEL]: provider,
    [ENGINE_TYPE_LABEL]: deployment.engine.type,
    [MODEL_SOURCE_LABEL]: deployment.model.source,
  };
}

/** Labels of secondary objects (e.g. KAITO's inference ConfigMap). */
export function commonLabels(deployment: ResolvedModelDeployment, provider: string): Record<string, string> {
  return {
    ...standardLabels(APP_NAME, deployment.name, 'inference'),
    [MANAGED_BY_LABEL]: MANAGED_BY,
    [MODEL_DEPLOYMENT_LABEL]: deployment.name,
    [PROVIDER_LABEL]: provider,
  };
}

/**
 * Splits the ModelDeployment's own labels: only those in our domain are copied to the provider
 * resource, so they cannot clash with labels the provider's operator manages.
 */
export function propagatedLabels(labels: Readonly<Record<string, string>>): { kept: Record<string, string>; dropped: string[] } {
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith(`${LABEL_DOMAIN}/`)) kept[key] = value;
    else dropped.push(key);
  }
  return { kept, dropped: dropped.sort() };
}

/** Labels every pod gets: the user's `podTemplate.metadata.labels` and the deployment label. */
export function podLabels(deployment: ResolvedModelDeployment): Record<string, string> {
  return { ...deployment.podMetadata.labels, [MODEL_DEPLOYMENT_LABEL]: deployment.name };
}
