// The API server's checks of workloads beyond their schema (pkg/apis/apps/validation and
// pkg/apis/batch/validation of k8s.io/kubernetes): replicas, the selector against the template's labels,
// the rollout strategy, and the pod template.
import { FieldErrors } from './field-errors';
import { percent } from './names';
import { checkLabels, checkLabelSelector, selects } from './object-meta';
import { checkPodSpec, RESTART_POLICIES } from './pod-spec';
import { isRecord } from '../../checks';

/** The kinds whose pods (or pod templates) checkWorkload checks. */
export const WORKLOAD_KINDS = ['Pod', 'PodTemplate', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'] as const;

/** Checks a Pod, a PodTemplate or a workload's spec; `minor` is the Kubernetes minor. */
export function checkWorkload(kind: string, object: Record<string, unknown>, minor: number, errors: FieldErrors): void {
  const spec = isRecord(object.spec) ? object.spec : undefined;
  switch (kind) {
    case 'Pod':
      checkPodSpec(spec, 'spec', { minor, restartPolicies: RESTART_POLICIES }, errors);
      return;
    case 'PodTemplate':
      if (isRecord(object.template)) checkTemplate(object.template, 'template', RESTART_POLICIES, minor, errors);
      return;
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet':
      if (spec) checkReplicated(kind, spec, minor, errors);
      return;
    case 'Job':
      if (spec) checkJob(spec, 'spec', minor, errors);
      return;
    case 'CronJob':
      if (spec && isRecord(spec.jobTemplate) && isRecord(spec.jobTemplate.spec)) checkJob(spec.jobTemplate.spec, 'spec.jobTemplate.spec', minor, errors);
      return;
  }
}

function checkTemplate(
  template: Record<string, unknown>, path: string, restartPolicies: readonly string[], minor: number, errors: FieldErrors,
  ownerVolumes: string[] = [],
): void {
  if (isRecord(template.metadata)) checkLabels(template.metadata.labels, `${path}.metadata.labels`, errors);
  checkPodSpec(template.spec, `${path}.spec`, { minor, restartPolicies, ownerVolumes }, errors);
}

function checkReplicated(kind: string, spec: Record<string, unknown>, minor: number, errors: FieldErrors): void {
  for (const field of ['replicas', 'minReadySeconds', 'revisionHistoryLimit']) {
    const v = spec[field];
    if (typeof v === 'number' && v < 0) errors.invalid(`spec.${field}`, v, 'must be greater than or equal to 0');
  }
  const template = isRecord(spec.template) ? spec.template : undefined;
  const labels = template && isRecord(template.metadata) && isRecord(template.metadata.labels) ? template.metadata.labels : {};
  if (isRecord(spec.selector)) {
    checkLabelSelector(spec.selector, 'spec.selector', errors);
    const { matchLabels, matchExpressions } = spec.selector;
    const noLabels = Object.keys(isRecord(matchLabels) ? matchLabels : {}).length === 0;
    const empty = noLabels && !(Array.isArray(matchExpressions) && matchExpressions.length > 0);
    if (empty) errors.invalid('spec.selector', spec.selector, `empty selector is invalid for ${kind.toLowerCase()}`);
    else if (template && !selects(spec.selector, labels)) errors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`');
  }
  // A StatefulSet's claim templates become volumes of its pods, which their containers mount by name.
  const claims = (Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [])
    .map((c) => (isRecord(c) && isRecord(c.metadata) ? c.metadata.name : undefined));
  if (template) checkTemplate(template, 'spec.template', ['Always'], minor, errors, claims.filter((n): n is string => typeof n === 'string'));
  if (kind === 'Deployment') {
    checkDeploymentStrategy(spec.strategy, errors);
    const { progressDeadlineSeconds: deadline, minReadySeconds } = spec;
    if (typeof deadline === 'number' && typeof minReadySeconds === 'number' && deadline <= minReadySeconds) {
      errors.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds');
    }
  }
}

function checkDeploymentStrategy(strategy: unknown, errors: FieldErrors): void {
  if (!isRecord(strategy)) return;
  const types = ['Recreate', 'RollingUpdate'];
  if (strategy.type !== undefined && !types.includes(strategy.type as string)) errors.notSupported('spec.strategy.type', strategy.type, types);
  const rolling = strategy.rollingUpdate;
  if (!isRecord(rolling)) return;
  if (strategy.type === 'Recreate') {
    errors.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'");
    return;
  }
  const amounts: Record<string, number | undefined> = {};
  for (const field of ['maxUnavailable', 'maxSurge']) {
    const v = rolling[field];
    const at = `spec.strategy.rollingUpdate.${field}`;
    if (typeof v === 'number') {
      if (v < 0) errors.invalid(at, v, 'must be greater than or equal to 0');
      amounts[field] = v;
    } else if (typeof v === 'string') {
      errors.invalidEach(at, v, percent(v, field === 'maxUnavailable'));
      amounts[field] = Number.parseInt(v, 10);
    }
  }
  if (amounts.maxUnavailable === 0 && amounts.maxSurge === 0) {
    errors.invalid('spec.strategy.rollingUpdate.maxUnavailable', rolling.maxUnavailable, 'may not be 0 when `maxSurge` is 0');
  }
}

function checkJob(spec: Record<string, unknown>, path: string, minor: number, errors: FieldErrors): void {
  for (const field of ['parallelism', 'completions', 'backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished']) {
    const v = spec[field];
    if (typeof v === 'number' && v < 0) errors.invalid(`${path}.${field}`, v, 'must be greater than or equal to 0');
  }
  if (isRecord(spec.template)) checkTemplate(spec.template, `${path}.template`, ['OnFailure', 'Never'], minor, errors);
}
