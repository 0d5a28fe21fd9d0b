import { isRecord } from '../../checks';
import { ProblemCollector } from '../../errors';
import { CONFIG_LIMITS, readUntrustedYaml } from '../../io';
import { releaseName, ServerRelease } from '../../run-config/releases';
import type { ResourceRequirements } from '../options';

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
  const config = readUntrustedYaml(configText, CONFIG_LIMITS, { source: 'the server config', resolution: '' });
  return isRecord(config) && isRecord(config.server) ? config.server : {};
}

/** True when a config's `server` section has the server speak HTTPS (`tls_certfile`). */
export function servesTls(server: Record<string, unknown>): boolean {
  return typeof server.tls_certfile === 'string' && server.tls_certfile !== '';
}

/** Why the server speaks HTTPS: the construct's `tls`, the config's own TLS, or `healthCheck: 'https'` saying so. */
export type HttpsSource = 'tls' | 'config' | 'healthCheck';

const HTTPS_SOURCES: Record<HttpsSource, string> = {
  tls: 'the certificate of tls (server.tls_certfile)',
  config: 'server.tls_certfile of the config',
  healthCheck: 'the config\'s TLS (healthCheck: \'https\')',
};

/**
 * Checks `workers` against the release and the inline config's `server` section (when the config is
 * known at synth time). Before ogx 1.2 the worker processes start as the llama-stack operator starts
 * them: uvicorn's `--factory` with the release's `create_app`, which reads the config from the
 * environment (from llama-stack 0.3: earlier servers have no factory). That start reads neither the
 * config's TLS settings nor its own `server.workers`, which the run command applies. From ogx 1.2 the run
 * command itself reads `OGX_WORKERS` (`ogx/cli/stack/run.py`), TLS included, and it wins over `server.workers`.
 */
export function checkWorkers(
  workers: number | undefined, release: ServerRelease | undefined, server: Record<string, unknown> | undefined, https: HttpsSource | undefined,
  problems: ProblemCollector,
): void {
  if (workers === undefined) return;
  if (!Number.isInteger(workers) || workers < 1) {
    problems.add('workers', `${workers} is not a worker count: expected a whole number ≥ 1.`);
    return;
  }
  if (release?.workers === 'none') {
    problems.add('workers', `${releaseName(release)} cannot start uvicorn workers (its server has no create_app factory before 0.3): remove workers, or run llama-stack 0.3 or later.`);
  }
  if (release === undefined) return;
  const tls = https ?? (server !== undefined && servesTls(server) ? 'config' : undefined);
  if (release.workers === 'uvicorn' && tls !== undefined) {
    problems.add('workers', `the ${releaseName(release)} server started with workers (uvicorn, as the operator starts it) would not read ${HTTPS_SOURCES[tls]} and would serve plain HTTP to HTTPS probes: remove workers and set server.workers in the config instead; the run command starts that many workers with TLS (or run ogx 1.2 or later, whose run command reads workers too).`);
  }
  if (server === undefined) return;
  if (server.workers !== undefined && server.workers !== workers) {
    const why = release.workers === 'env'
      ? `but workers (${release.env.workers}) wins over it in ${releaseName(release)}`
      : 'which the server started with workers does not read';
    problems.add('workers', `the config sets server.workers to ${JSON.stringify(server.workers)}, ${why}: give the count once, in workers or in the config's server.workers.`);
  }
}
