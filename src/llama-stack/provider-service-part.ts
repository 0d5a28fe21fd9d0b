// What a provider's service part takes, in a sidecar or in pods of its own, and
// where its adapter finds it: the address is written into the adapter's config, at the key the user
// names (`url` by default), for both the in-pod and the synth-time merge.
import type * as k8s from 'cdk8s-plus-28/lib/imports/k8s';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { ResourceRequirements } from './pod';

/** The options of a provider's service, in a sidecar or in pods of its own. */
export interface ProviderServicePart {
  /**
   * The service's command.
   * @default - the image's entrypoint
   */
  readonly command?: string[];
  /**
   * Arguments to the command.
   * @default - the image's
   */
  readonly args?: string[];
  /**
   * More environment variables of the service (`PROVIDER_PORT` is the construct's).
   * @default - none
   */
  readonly env?: k8s.EnvVar[];
  /**
   * The service's resource requests and limits (of each of its containers).
   * @default - none
   */
  readonly resources?: ResourceRequirements;
  /**
   * The key of the provider's `config` that receives the service's address.
   * @default 'url'
   */
  readonly configKey?: string;
  /**
   * Appended to the address, e.g. `/v1`.
   * @default - nothing
   */
  readonly path?: string;
  /**
   * When the service is ready to take calls.
   * @default - a TCP connection to the port, every 10 seconds
   */
  readonly readinessProbe?: k8s.Probe;
  /**
   * When the kubelet restarts the service.
   * @default - a TCP connection to the port, every 10 seconds, three failures
   */
  readonly livenessProbe?: k8s.Probe;
}

/** A provider asking for a service part, as validation sees it. */
export interface ServicePartRequest<Options extends ProviderServicePart> {
  /** Its field in the props, e.g. `externalProviders.inference[0]`. */
  readonly field: string;
  /** Its key (`providerKey`). */
  readonly key: string;
  readonly image: string;
  readonly imagePullPolicy?: string;
  readonly options: Options;
  /** Its config, secrets resolved. */
  readonly config?: { [key: string]: unknown };
}

/**
 * The provider's config with its service's address (`base` + the options' path) at the options' key.
 * `option` is the field of the options (`externalProviders.inference[0].sidecar`); a key the config sets
 * already, an empty key or a path without its leading slash is reported.
 */
export function configWithAddress(
  field: string,
  option: string,
  config: { [key: string]: unknown } | undefined,
  options: ProviderServicePart,
  base: string,
  report: (field: string, message: string) => void,
): { [key: string]: unknown } {
  const key = options.configKey ?? 'url';
  const at = `${field}.${option}`;
  if (key === '') report(`${at}.configKey`, 'is empty: name the key of the provider\'s config that receives the service\'s address (default \'url\').');
  if (options.path !== undefined && !options.path.startsWith('/')) {
    report(`${at}.path`, `'${options.path}' must start with '/': it is appended to ${base}.`);
  }
  const address = `${base}${options.path ?? ''}`;
  if (config !== undefined && Object.prototype.hasOwnProperty.call(config, key)) {
    report(`${field}.config.${key}`, `is set, and the ${option}'s address (${address}) goes there: remove it, or name another key with ${option}.configKey.`);
  }
  return { ...config, [key]: address };
}

/** How a service part's container is made: the rest comes from its options. */
export interface ServicePartContainer {
  readonly name: string;
  readonly image: string;
  readonly imagePullPolicy: string;
  /** Its port, given to it as PROVIDER_PORT. */
  readonly port: number;
  /** The name of its port (an IANA service name). */
  readonly portName: string;
  readonly options: ProviderServicePart & { readonly startupProbe?: k8s.Probe };
  readonly securityContext: IContainer['securityContext'];
  /** The startup probe unless one is given. */
  readonly defaultStartupProbe?: IProbe;
  /** Without a readiness probe (the pod stays Ready while it is not). */
  readonly withoutReadiness?: boolean;
}

/**
 * A service part's container: the provider's image, PROVIDER_PORT and the user's env, its port, the
 * restricted security context, and probes (by default a TCP connection to the port: readiness every
 * 10 seconds, liveness after three failures).
 */
export function servicePartContainer(c: ServicePartContainer): IContainer {
  const tcp = { tcpSocket: { port: c.portName } };
  const o = c.options;
  return {
    name: c.name,
    image: c.image,
    imagePullPolicy: c.imagePullPolicy as IContainer['imagePullPolicy'],
    command: o.command,
    args: o.args,
    env: [{ name: 'PROVIDER_PORT', value: String(c.port) }, ...((o.env ?? []) as IContainer['env'] & object)],
    ports: [{ name: c.portName, containerPort: c.port, protocol: 'TCP' }],
    resources: o.resources,
    securityContext: c.securityContext,
    startupProbe: (o.startupProbe as IProbe | undefined) ?? c.defaultStartupProbe,
    readinessProbe: c.withoutReadiness ? undefined : (o.readinessProbe as IProbe | undefined) ?? { ...tcp, periodSeconds: 10 },
    livenessProbe: (o.livenessProbe as IProbe | undefined) ?? { ...tcp, periodSeconds: 10, failureThreshold: 3 },
  };
}
