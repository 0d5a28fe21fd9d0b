// What the DynamoGraphDeployment transformers share: the interface each schema version implements, the
// pod-level settings they place, and the ConfigMap volume of a component.
import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import { DynamoComponent, DynamoPlan } from './plan';
import { Toleration } from '../../../pod-spec';
import { KubePodIdentity, nonEmpty } from '../common';

/** Pod-level settings shared by every component. */
export interface DynamoPodSettings {
  /** Pod labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** Pod annotations. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Node selector. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Tolerations. */
  readonly tolerations: readonly Toleration[];
  /** ServiceAccount and image pull Secrets. */
  readonly identity: KubePodIdentity;
}

/** Turns a version-independent plan into one DynamoGraphDeployment schema version. */
export interface DynamoTransformer {
  /** The schema version it writes. */
  readonly apiVersion: string;
  /** Creates the DynamoGraphDeployment in `scope`. */
  render(scope: Construct, metadata: ApiObjectMetadata, plan: DynamoPlan, pods: DynamoPodSettings): ApiObject;
}

/** The pod metadata of every component, or undefined when there is none. */
export function podMetadata(pods: DynamoPodSettings): { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined {
  return nonEmpty(pods.labels) || nonEmpty(pods.annotations) ? { labels: nonEmpty(pods.labels), annotations: nonEmpty(pods.annotations) } : undefined;
}

/** The pod-level settings of every component (pod spec fields), and the component's ConfigMap volume. */
export function podSpecFields(pods: DynamoPodSettings, c: DynamoComponent) {
  return {
    serviceAccountName: pods.identity.serviceAccountName,
    imagePullSecrets: pods.identity.imagePullSecrets?.map((s) => ({ ...s })),
    nodeSelector: nonEmpty(pods.nodeSelector),
    tolerations: pods.tolerations.length > 0 ? pods.tolerations.map((t) => ({ ...t })) : undefined,
    volumes: configVolumes(c),
  };
}

/** The pod volume a component's ConfigMap is mounted from. */
const CONFIG_VOLUME = 'engine-config';

/** The volume of a component's ConfigMap, if it mounts one. */
function configVolumes(c: DynamoComponent): Array<{ name: string; configMap: { name: string } }> | undefined {
  return c.configMount ? [{ name: CONFIG_VOLUME, configMap: { name: c.configMount.configMap } }] : undefined;
}

/** The mount of a component's ConfigMap (read-only, whole), if it mounts one. */
export function configVolumeMounts(c: DynamoComponent): Array<{ name: string; mountPath: string; readOnly: boolean }> | undefined {
  return c.configMount ? [{ name: CONFIG_VOLUME, mountPath: c.configMount.mountPath, readOnly: true }] : undefined;
}
