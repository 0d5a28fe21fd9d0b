/**
 * What the cluster's stories and its benchmark apply: a LlamaStackWithProviders server of a
 * distribution image built for the cluster (images.ts), its config the user's, in a ConfigMap of the
 * same chart; and the same image's server started alone, as the floor a server with providers is
 * measured against.
 */
import { ApiObject, Testing } from 'cdk8s';
import { stringify } from 'yaml';
import { distributionImageOf } from './images';
import { ExternalProvider, ExternalProviders, LlamaStackWithProviders } from '../../src';
import { OGX } from '../pod-startup/helpers';

/**
 * The user's config: the inference API only. The distribution's own config serves sentence-transformers,
 * which needs torch, left out of the cluster's image (images.ts).
 */
export const SERVER_CONFIG = { version: 2, distro_name: 'starter', apis: ['inference'], providers: { inference: [] }, server: { port: 8321 } };

/**
 * The objects of a server `name` of release `version` (ogx 1.5.0 by default) with `providers` (inference
 * providers, or the providers of each API), reading `config` from the ConfigMap `<name>-user-config`.
 */
export function serverStack(name: string, providers: ExternalProvider[] | ExternalProviders, config: object = SERVER_CONFIG, version = OGX): any[] {
  const chart = Testing.chart();
  const userConfig = new ApiObject(chart, 'user-config', {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-user-config` }, data: { 'config.yaml': stringify(config) },
  });
  new LlamaStackWithProviders(chart, name, {
    name,
    distribution: { image: distributionImageOf(version) },
    serverVersion: version,
    userConfig: { configMapName: userConfig },
    externalProviders: !Array.isArray(providers) ? providers : providers.length > 0 ? { inference: [...providers] } : undefined,
  });
  return Testing.synth(chart);
}

/**
 * The same image's server alone: the objects of `serverStack(name, [])` with the server started by the
 * image's own entrypoint (upstream's `ogx-entrypoint.sh`: `ogx stack run "$RUN_CONFIG_PATH"`) instead of
 * the construct's launch script; the same config, probes, resources and security context.
 */
export function serverAlone(name: string): any[] {
  return serverStack(name, []).map((o) => {
    if (o.kind !== 'Deployment') return o;
    const [server] = o.spec.template.spec.containers;
    const env = (server.env as any[]).filter((e) => !['OGX_CONFIG', 'SERVER_COMMAND', 'SERVER_PACKAGE', 'SERVER_INSECURE'].includes(e.name));
    const { command: _launchScript, ...alone } = server;
    // Plain HTTP needs --insecure from ogx 1.2 on (the construct passes it too: SERVER_INSECURE).
    const started = { ...alone, env: [...env, { name: 'RUN_CONFIG_PATH', value: '/etc/llama-stack/config.yaml' }], args: ['--insecure'] };
    return { ...o, spec: { ...o.spec, template: { ...o.spec.template, spec: { ...o.spec.template.spec, containers: [started] } } } };
  });
}

/** Objects as `kubectl apply -f -` reads them. */
export function manifestText(objects: readonly object[]): string {
  return objects.map((o) => JSON.stringify(o)).join('\n');
}
