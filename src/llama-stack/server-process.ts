import type { ResourceRequirements } from './pod';
import { isRecord } from '../checks';
import { ProblemCollector } from '../errors';
import { CONFIG_LIMITS, parseUntrustedYaml } from '../run-config/safe-yaml';

/** The server container's resources without `resources` and without `workers`. */
const DEFAULT_SERVER_RESOURCES: ResourceRequirements = { requests: { cpu: '500m', memory: '1Gi' } };

/**
 * The server container's resources. With `workers`, as the llama-stack operator resolves them
 * (llama-stack-k8s-operator controllers/resource_helper.go, `resolveContainerResources`): a CPU request
 * of one core per worker and a memory request of 1Gi unless given, and limits equal to the requests
 * unless given, so that uvicorn's processes get the CPU they are counted on.
 */
export function serverResources(given: ResourceRequirements | undefined, workers: number | undefined): ResourceRequirements {
  if (workers === undefined) {
    return given ?? DEFAULT_SERVER_RESOURCES;
  }
  const requests = { cpu: String(workers), memory: '1Gi', ...given?.requests };
  return { requests, limits: { cpu: requests.cpu, memory: requests.memory, ...given?.limits } };
}

/**
 * The `server` section of a config known at synth time (given inline), `{}` when it has none;
 * undefined when the config is not known (a ConfigMap of the cluster, the image's own).
 */
export function serverSectionOf(configText: string | undefined): Record<string, unknown> | undefined {
  if (configText === undefined) return undefined;
  const config = parseUntrustedYaml(configText, CONFIG_LIMITS, { source: 'the server config', resolution: '' }).value;
  return isRecord(config) && isRecord(config.server) ? config.server : {};
}

/** True when a config's `server` section has the server speak HTTPS (`tls_certfile`). */
export function servesTls(server: Record<string, unknown>): boolean {
  return typeof server.tls_certfile === 'string' && server.tls_certfile !== '';
}

/**
 * Checks `workers` against the release and the inline config's `server` section (when the config is
 * known at synth time). The worker processes start as the operator
 * starts them: uvicorn's `--factory` with llama-stack's `create_app`, which reads `LLAMA_STACK_CONFIG`,
 * from 0.3 (the operator's startup script starts earlier releases with one process). That start reads
 * neither the config's TLS settings nor its own `server.workers`, which `llama stack run` applies.
 */
export function checkWorkers(
  workers: number | undefined, release: string | undefined, server: Record<string, unknown> | undefined, problems: ProblemCollector,
): void {
  if (workers === undefined) return;
  if (!Number.isInteger(workers) || workers < 1) {
    problems.add('workers', `${workers} is not a worker count: expected a whole number ≥ 1.`);
    return;
  }
  const [major, minor] = (release ?? '0.7').split('.').map(Number);
  if (major === 0 && minor < 3) {
    problems.add('workers', `llama-stack ${release} cannot start uvicorn workers (its server has no create_app factory before 0.3): remove workers, or run llama-stack 0.3 or later.`);
  }
  if (server === undefined) return;
  if (servesTls(server)) {
    problems.add('workers', 'the server started with workers (uvicorn, as the operator starts it) would not read server.tls_certfile of the config and would serve plain HTTP: remove workers and set server.workers in the config instead; llama stack run starts that many workers with TLS.');
  }
  if (server.workers !== undefined && server.workers !== workers) {
    problems.add('workers', `the config sets server.workers to ${JSON.stringify(server.workers)}, which the server started with workers does not read: give the count once, in workers or in the config's server.workers.`);
  }
}
