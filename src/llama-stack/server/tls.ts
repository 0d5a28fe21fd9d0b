import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { servesTls } from './process';
import { ProblemCollector } from '../../errors';
import { CONFIG_KEY } from '../../name-patterns';
import { nameOf } from '../../object-reference';
import type { ServerRelease } from '../../run-config/releases';
import { ServerTransport, TlsFiles } from '../../run-config/server-transport';
import { HealthCheck, ServerTlsOptions } from '../options';
import { TLS_DIR } from '../pod/paths';

/** The volume of the server's certificate Secret. */
export const TLS_VOLUME = 'server-tls';

// The Secret's keys are mounted under fixed file names, so that the config names the same paths whatever the keys.
const FILES = { certificate: 'tls.crt', privateKey: 'tls.key', clientCa: 'ca.crt' } as const;

/**
 * How the pod serves: TLS from the mounted Secret with `tls`; the config's own TLS when the inline
 * config serves it or the user says the server speaks HTTPS (`healthCheck: https`) without giving the
 * construct a certificate (the config is then left as it is); plain HTTP otherwise, which the config
 * says explicitly (`server.insecure: true`: ogx 1.2 and later refuse to start without it, earlier
 * releases ignore it).
 */
export function serverTransport(
  tls: ServerTlsOptions | undefined, healthCheck: HealthCheck, inlineServer: Record<string, unknown> | undefined,
): ServerTransport | undefined {
  if (tls !== undefined) return tlsFiles(tls);
  return healthCheck === 'https' || (inlineServer !== undefined && servesTls(inlineServer)) ? undefined : 'insecure';
}

/**
 * True when the server must be started with `--insecure` to serve plain HTTP: the release refuses to
 * start without TLS otherwise (ogx ≥ 1.2), and the pod serves plain HTTP. The flag is what
 * `server.insecure: true` in the config says (`ogx/cli/stack/run.py` sets it so); it is given on the
 * command line too because the server may run a config nobody merged (the user's ConfigMap, the image's own).
 */
export function needsInsecureFlag(plan: { readonly release: ServerRelease; readonly transport?: ServerTransport }): boolean {
  return plan.release.tls === 'required' && plan.transport === 'insecure';
}

/** The paths of the mounted certificate files. */
function tlsFiles(tls: ServerTlsOptions): TlsFiles {
  return {
    certFile: `${TLS_DIR}/${FILES.certificate}`,
    keyFile: `${TLS_DIR}/${FILES.privateKey}`,
    ...(tls.clientCaKey !== undefined ? { caFile: `${TLS_DIR}/${FILES.clientCa}` } : {}),
  };
}

/** The Secret as a volume: only its keys the server reads, readable by the pod's group (its fsGroup). */
export function tlsVolume(tls: ServerTlsOptions): IVolume {
  return {
    name: TLS_VOLUME,
    secret: {
      secretName: nameOf(tls.secretName),
      defaultMode: 0o440,
      items: [
        { key: tls.certificateKey ?? 'tls.crt', path: FILES.certificate },
        { key: tls.privateKeyKey ?? 'tls.key', path: FILES.privateKey },
        ...(tls.clientCaKey !== undefined ? [{ key: tls.clientCaKey, path: FILES.clientCa }] : []),
      ],
    },
  };
}

/** The server container's mount of the Secret. */
export function tlsMount(): IVolumeMount {
  return { name: TLS_VOLUME, mountPath: TLS_DIR, readOnly: true };
}

/** Problems of `tls`: names Kubernetes refuses, two keys for one file, a health check that cannot speak to a TLS server. */
export function checkTls(tls: ServerTlsOptions | undefined, healthCheck: HealthCheck | undefined, problems: ProblemCollector): void {
  if (tls === undefined) return;
  // The Secret's name is checked with the props' shapes (checkReference).
  const keys = { certificateKey: tls.certificateKey, privateKeyKey: tls.privateKeyKey, clientCaKey: tls.clientCaKey };
  for (const [field, key] of Object.entries(keys)) {
    if (key !== undefined && !CONFIG_KEY.test(key)) {
      problems.add(`tls.${field}`, `'${key}' is not a Secret key: expected letters, digits, '-', '_' or '.', such as 'tls.crt'.`);
    }
  }
  const used = [tls.certificateKey ?? 'tls.crt', tls.privateKeyKey ?? 'tls.key', ...(tls.clientCaKey !== undefined ? [tls.clientCaKey] : [])];
  if (new Set(used).size < used.length) {
    problems.add('tls', `the certificate, the private key and the client CA must be different keys of the Secret; found ${used.join(', ')}.`);
  }
  if (healthCheck === 'http') {
    problems.add('healthCheck', 'is \'http\', but with tls the server speaks HTTPS: remove healthCheck (tls checks over HTTPS), set it to \'tcp\' '
      + '(a connection only), or remove tls.');
  }
}
