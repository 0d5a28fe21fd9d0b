import { readFileSync } from 'fs';
import { join } from 'path';
import { Testing } from 'cdk8s';
import { LlamaStackWithProviders, LlamaStackWithProvidersProps } from '../../src';

/**
 * The release these suites render for unless a case names one: llama-stack 0.7, whose APIs (safety,
 * eval, …) their providers use. The ogx line, the default, has suites of its own (ogx.test.ts).
 */
export const LLAMA_STACK_LINE = '0.7';

/** Props for llama-stack 0.7, unless they name a release or an image whose tag does. */
export function onLlamaStack(props: LlamaStackWithProvidersProps): LlamaStackWithProvidersProps {
  const named = props.serverVersion !== undefined || props.llamaStackVersion !== undefined || props.distribution?.image !== undefined;
  return named ? props : { ...props, serverVersion: LLAMA_STACK_LINE };
}

/** Renders the construct alone in a chart (for llama-stack 0.7 unless the props say otherwise) and returns the manifests. */
export function render(props: LlamaStackWithProvidersProps): any[] {
  const chart = Testing.chart();
  new LlamaStackWithProviders(chart, 'stack', { name: 'stack', ...onLlamaStack(props) });
  return Testing.synth(chart);
}

/**
 * The server container's command when the construct starts the server without providers' preflight:
 * launch-server.sh's text run by /bin/sh (the config comes from LLAMA_STACK_CONFIG).
 */
export const LAUNCH_SERVER = ['/bin/sh', '-c', readFileSync(join(__dirname, '..', '..', 'src', 'llama-stack', 'scripts', 'launch-server.sh'), 'utf8'), 'launch-server'];

/** The first manifest of a kind. */
export function find(manifests: any[], kind: string): any {
  const m = manifests.find((o) => o.kind === kind);
  if (!m) {
    throw new Error(`no ${kind} in ${manifests.map((o) => o.kind).join(', ')}`);
  }
  return m;
}

/** The pod spec of the rendered Deployment. */
export function podSpec(manifests: any[]): any {
  return find(manifests, 'Deployment').spec.template.spec;
}

/** The message of the error the construct throws for these props. */
export function errorOf(props: LlamaStackWithProvidersProps): string {
  try {
    render(props);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected the props to be rejected');
}

export const THREE_PROVIDERS: LlamaStackWithProvidersProps = {
  distribution: { name: 'starter' },
  serverVersion: LLAMA_STACK_LINE,
  externalProviders: {
    safety: [{ providerId: 'trustyai-fms', image: 'quay.io/trustyai/fms-provider:0.4.0' }],
    inference: [
      { providerId: 'custom-vllm', image: 'quay.io/acme/vllm-provider:1.2.0', config: { url: 'http://vllm:8000/v1' } },
      { providerId: 'ollama', image: 'quay.io/acme/ollama-provider:2.0.1', imagePullPolicy: 'Always' },
    ],
  },
};
