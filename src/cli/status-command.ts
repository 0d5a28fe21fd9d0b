import { readInputs } from './inputs';
import { Command, parseCommandArgs, terminalSafe, UsageError } from './io';
import { stringifyYaml } from './yaml-output';
import { isKubernetesApiVersion, isRecord } from '../checks';
import { LlamaStackStatus, llamaStackPodStatus } from '../llama-stack/pod';
import { SERVER_LABEL } from '../llama-stack/providers';
import { ModelDeploymentStatus } from '../model-deployment/status';
import { translateStatus } from '../model-deployment/translate-status';

const USAGE = `Usage: kube-inference status [FILE ...] [-f FILE] [-o yaml|json]

Prints the unified status of model deployments (phase, message, replicas, endpoint, provider)
from their upstream resources as saved with \`kubectl get -o yaml\`: KAITO Workspaces, Dynamo
DynamoGraphDeployments and KubeRay RayServices, one resource or a List of them. For a pod of a
LlamaStackWithProviders server, the server's phase (Pending, Initializing, Ready, Failed,
Terminating, as the llama-stack operator's status) and each external provider's (Pending,
Installing, Ready, Degraded, Failed) and mode (inline, sidecar, service), with the reason from its
init container, its sidecar, or the server's preflight; the Deployments of providers' services given
beside the pod report their availability.

  FILE                 the saved resources; '-' (or no FILE) reads standard input
  -f, --filename FILE  the same, as kubectl spells it (repeatable)
  -o, --output FORMAT  yaml (default: one document per resource) or json (an object for one
                       resource, an array for several)

Examples:
  kubectl get dynamographdeployment llama-8b -o yaml | kube-inference status
  kubectl get pods -l app.kubernetes.io/instance=my-stack -o yaml | kube-inference status
  { kubectl get pods -l app.kubernetes.io/instance=my-stack -o yaml; echo ---;
    kubectl get deployments -l kube-inference.io/server=my-stack -o yaml; } | kube-inference status

Kubernetes' own objects beside them (a synth output's ConfigMaps, Services, Deployments) are
skipped, with a note on standard error naming them. Exit code 1, with nothing on standard output,
when an input cannot be read, holds a resource no provider understands, or holds nothing to report.
`;

/** `kube-inference status`: the unified status of saved upstream resources. */
export const statusCommand: Command = {
  name: 'status',
  usage: USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs({
      args,
      allowPositionals: true,
      options: { filename: { type: 'string', short: 'f', multiple: true }, output: { type: 'string', short: 'o', default: 'yaml' } },
    });
    const files = [...(parsed.values.filename ?? []), ...parsed.positionals];
    const format = parsed.values.output;
    if (format !== 'yaml' && format !== 'json') throw new UsageError(`unknown output format '${format}': use yaml or json`);

    const inputs = await readInputs(files, io);
    if (!inputs.ok) {
      io.stderr(inputs.errors.map((e) => `error: ${e}\n`).join(''));
      return 1;
    }
    const statuses: Array<ModelDeploymentStatus | LlamaStackStatus> = [];
    const errors: string[] = [];
    // `kubectl get` prints several resources as a List.
    const resources = inputs.documents.flatMap((input) => {
      const items: unknown[] = isRecord(input.value) && Array.isArray(input.value.items) ? input.value.items : [input.value];
      return items.map((item, i) => ({ item, where: `${input.source} document ${input.index + 1}${items.length > 1 || item !== input.value ? ` item ${i + 1}` : ''}` }));
    });
    // The Deployments of providers' services are read into their servers' statuses, not on their own.
    const services = new Map(resources.map(({ item }) => item).filter(isProviderServiceDeployment).map((d) => [d.metadata.name as string, d]));
    // Kubernetes' own objects beside them (a synth output's ConfigMaps, Services, Deployments) have no
    // unified status: skipped, and named, so that a whole manifest set can be given.
    const skipped = resources.filter((r) => isKubernetesObject(r.item) && r.item.kind !== 'Pod' && !isProviderServiceDeployment(r.item));
    for (const { item, where } of resources.filter((r) => !isProviderServiceDeployment(r.item) && !skipped.includes(r))) {
      try {
        statuses.push(isRecord(item) && item.kind === 'Pod' ? llamaStackPodStatus(item, services) : translateStatus(item));
      } catch (e) {
        errors.push(`${where}: ${(e as Error).message}`);
      }
    }
    if (skipped.length > 0) {
      const names = skipped.map(({ item }) => `${(item as { kind: string }).kind}/${(item as { metadata?: { name?: string } }).metadata?.name}`);
      io.stderr(`note: skipped ${skipped.length} Kubernetes object(s) with no model or server status: ${names.slice(0, 10).join(', ')}`
        + `${names.length > 10 ? `, and ${names.length - 10} more` : ''}\n`);
    }
    if (statuses.length === 0 && errors.length === 0) errors.push('no model deployment (Workspace, InferenceSet, DynamoGraphDeployment, RayService) or server pod in the input');
    if (errors.length > 0) {
      io.stderr(errors.map((e) => `error: ${e}\n`).join(''));
      return 1;
    }
    const plain = statuses.map(withoutUndefined);
    // Statuses carry text from the cluster (Ray's and the kubelet's messages, termination messages):
    // written so that a terminal shows its controls instead of obeying them.
    if (format === 'json') {
      io.stdout(`${terminalSafe(JSON.stringify(plain.length === 1 ? plain[0] : plain, undefined, 2))}\n`);
    } else {
      io.stdout(stringifyYaml(plain));
    }
    return 0;
  },
};

/**
 * An object of Kubernetes' own API groups (`v1`, `apps/v1`, `*.k8s.io`), as opposed to a custom
 * resource; only its Pods carry a status `status` reads (a server's).
 */
function isKubernetesObject(item: unknown): item is { kind: string; metadata?: { name?: string } } {
  return isRecord(item) && typeof item.apiVersion === 'string' && typeof item.kind === 'string' && isKubernetesApiVersion(item.apiVersion);
}

/** A Deployment of a provider's service (it carries its server's name in `kube-inference.io/server`). */
function isProviderServiceDeployment(item: unknown): item is Record<string, any> {
  return isRecord(item) && item.kind === 'Deployment' && isRecord(item.metadata) && typeof item.metadata.name === 'string'
    && isRecord(item.metadata.labels) && typeof item.metadata.labels[SERVER_LABEL] === 'string';
}

function withoutUndefined<T>(status: T): T {
  return JSON.parse(JSON.stringify(status)) as T;
}
