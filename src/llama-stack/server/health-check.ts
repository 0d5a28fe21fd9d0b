import type { IProbe } from 'kubernetes-models/v1/Probe';
import { servesTls } from './process';
import type { ServerRelease } from '../../run-config/releases';
import type { HealthCheck } from '../options';

/** Every {@link HealthCheck}, each once (the record makes the compiler hold the list to the type). */
export const HEALTH_CHECKS = Object.keys({ http: 0, https: 0, tcp: 0 } satisfies Record<HealthCheck, 0>) as readonly HealthCheck[];

/**
 * The check a config's `server` section asks for: `tcp` with a quota the release reads (llama-stack,
 * ogx 0.8; a TCP check works for a TLS server too), `https` with TLS (the config's own, or the
 * construct's `tls`), else `http`. Undefined when the config is not known at synth time (a ConfigMap
 * of the cluster) and the construct serves no TLS.
 */
export function healthCheckOf(server: Record<string, unknown> | undefined, release?: ServerRelease, tls = false): HealthCheck | undefined {
  if (server === undefined) return tls ? 'https' : undefined;
  if (server.quota !== undefined && server.quota !== null && !release?.removedServerKeys.includes('quota')) return 'tcp';
  return tls || servesTls(server) ? 'https' : 'http';
}

/** A probe of the server port (by its name) by that check. */
export function serverProbe(check: HealthCheck, port: string, periodSeconds: number, failureThreshold: number): IProbe {
  const action: IProbe = check === 'tcp'
    ? { tcpSocket: { port } }
    : { httpGet: { path: '/v1/health', port, ...(check === 'https' ? { scheme: 'HTTPS' } : {}) } };
  return { ...action, periodSeconds, failureThreshold, timeoutSeconds: 5 };
}
