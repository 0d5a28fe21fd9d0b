import { isRecord } from '../checks';
import { RunConfigError } from './errors';
import { describe } from './fields';

/** The certificate files of a server that serves TLS, as mounted in the pod. */
export interface TlsFiles {
  /** The certificate (chain), PEM: `server.tls_certfile`. */
  readonly certFile: string;
  /** Its private key, PEM: `server.tls_keyfile`. */
  readonly keyFile: string;
  /** CAs whose client certificates the server accepts (mutual TLS): `server.tls_cafile`. */
  readonly caFile?: string;
}

/**
 * How the pod serves, as the construct decided it: `insecure`, plain HTTP inside the cluster (the
 * config then says `server.insecure: true`, which ogx ≥ 1.2 needs to start without TLS and earlier
 * releases ignore), or TLS from certificate files the construct mounts.
 */
export type ServerTransport = 'insecure' | TlsFiles;

/** The `server` keys the transport writes, in the order written. */
function transportSettings(transport: ServerTransport): Record<string, unknown> {
  if (transport === 'insecure') return { insecure: true };
  return {
    tls_certfile: transport.certFile,
    tls_keyfile: transport.keyFile,
    ...(transport.caFile !== undefined ? { tls_cafile: transport.caFile } : {}),
  };
}

const TLS_KEYS = ['tls_certfile', 'tls_keyfile', 'tls_cafile'] as const;

/**
 * The `server` keys to add to the base config for the transport: those it lacks. A base config that
 * says something else already is refused, naming the key: the pod's probes, Service and Route were
 * rendered for the transport, and a server speaking the other protocol would never become ready.
 *
 * @throws RunConfigError when the base config's `server` section contradicts the transport
 */
export function serverSettingsToAdd(base: unknown, transport: ServerTransport, source: string): Record<string, unknown> {
  const server = isRecord(base) && isRecord(base.server) ? base.server : {};
  const wanted = transportSettings(transport);
  const problems: string[] = [];
  if (transport === 'insecure') {
    const tls = TLS_KEYS.filter((k) => typeof server[k] === 'string' && server[k] !== '');
    if (tls.length > 0) {
      problems.push(`The base config serves TLS (server.${tls.join(', server.')}), but the pod was rendered for plain HTTP: its probes and `
        + 'Service would speak HTTP to an HTTPS server.');
    }
    if (server.insecure !== undefined && server.insecure !== true) {
      problems.push(`The base config's server.insecure is ${describe(server.insecure)}, but the pod serves plain HTTP inside the cluster `
        + '(ogx 1.2 and later refuse to start without TLS unless server.insecure is true).');
    }
  } else {
    for (const key of TLS_KEYS) {
      if (server[key] !== undefined && server[key] !== wanted[key]) {
        problems.push(`The base config's server.${key} is ${describe(server[key])}, while the pod mounts the server's certificate `
          + `for ${key} at ${String(wanted[key] ?? '(none: no client CA was given)')}.`);
      }
    }
  }
  if (problems.length > 0) {
    throw new RunConfigError([{
      title: 'The base config contradicts how the pod serves',
      source,
      details: problems,
      resolution: transport === 'insecure'
        ? 'To serve TLS, give the construct tls (a Secret with the certificate and key) and remove the server.tls_* keys and '
          + 'server.insecure from the config (or set healthCheck: https for a config that brings its own certificate); '
          + 'to serve plain HTTP, remove them from the config.'
        : 'Remove the server.tls_* keys from the config: the construct sets them to the certificate it mounts.',
    }]);
  }
  return Object.fromEntries(Object.entries(wanted).filter(([k]) => server[k] === undefined));
}
