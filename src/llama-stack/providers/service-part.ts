// What a provider's service part takes, in a sidecar or in pods of its own, and
// where its adapter finds it: the merge (in the pod, or at synth time) writes the address into the
// adapter's config, at the key the user names, else the one the provider's metadata names, else `url`.
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { ProviderServicePart } from './options';
import type { Probe } from '../../pod-spec';
import { configKeyProblem, DEFAULT_ADDRESS_KEY, pathProblem, ServiceAddress, ServicePartMode } from '../../run-config/service-address';

/** A port a service part's container can listen on: it runs without privileges, so from 1024. */
export function isUnprivilegedPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1024 && port <= 65535;
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
}

/**
 * The service part's address as planned (`base`, with the key and path the options name), for the merge
 * to write into the adapter's config. `mode` is the options' field (`externalProviders.inference[0].sidecar`);
 * an unusable key or path is reported.
 */
export function serviceAddressOf(
  field: string,
  mode: ServicePartMode,
  options: ProviderServicePart,
  base: string,
  report: (field: string, message: string) => void,
): ServiceAddress {
  const { configKey, path } = options;
  const keyProblem = configKey === undefined ? undefined : configKeyProblem(configKey);
  if (keyProblem) report(`${field}.${mode}.configKey`, `${keyProblem}; it names the key that receives the ${mode}'s address (default: the provider metadata's, else '${DEFAULT_ADDRESS_KEY}').`);
  const badPath = path === undefined ? undefined : pathProblem(path);
  if (badPath) report(`${field}.${mode}.path`, `${badPath}; it is appended to ${base}.`);
  return { mode, base, ...(configKey !== undefined ? { configKey } : {}), ...(path !== undefined ? { path } : {}) };
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
  readonly options: ProviderServicePart & { readonly startupProbe?: Probe };
  readonly securityContext: IContainer['securityContext'];
  /** The startup probe unless one is given. */
  readonly defaultStartupProbe?: Probe;
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
    env: [{ name: 'PROVIDER_PORT', value: String(c.port) }, ...o.env ?? []],
    ports: [{ name: c.portName, containerPort: c.port, protocol: 'TCP' }],
    resources: o.resources,
    securityContext: c.securityContext,
    startupProbe: o.startupProbe ?? c.defaultStartupProbe,
    readinessProbe: c.withoutReadiness ? undefined : o.readinessProbe ?? { ...tcp, periodSeconds: 10 },
    livenessProbe: o.livenessProbe ?? { ...tcp, periodSeconds: 10, failureThreshold: 3 },
  };
}
