/** The label and annotation domain of this library (in place of the operators' own domains). */
export const LABEL_DOMAIN = 'kube-inference.io';

/** Value of `app.kubernetes.io/managed-by` on everything this library renders. */
export const MANAGED_BY = 'kube-inference-constructs';

/** Standard `app.kubernetes.io/*` labels for one rendered application instance. */
export function standardLabels(appName: string, instance: string, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': appName,
    'app.kubernetes.io/instance': instance,
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/managed-by': MANAGED_BY,
  };
}
