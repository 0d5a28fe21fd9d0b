/**
 * Shared set-up of the pod start-up scenarios: renders a LlamaStackWithProviders Deployment with the
 * real construct, lays out provider images with real wheels, a distribution image holding the real
 * llama-stack from PyPI (the test set-up's environments) and the merge image, and runs the pod in
 * bubblewrap sandboxes (test/sandbox/pod-runner.ts), the server container serving for real.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Testing } from 'cdk8s';
import { LlamaStackWithProviders, LlamaStackWithProvidersProps } from '../../src';
import { findRelease } from '../../src/run-config/releases';
import { describeWhen, sandboxSupport } from '../sandbox/host';
export { freePort } from '../sandbox/host';
import { distributionImage, DistributionImageContent, mergeImage, providerImage, ProviderImageContent, venvBasePython } from '../sandbox/images';
import type { PodNetwork } from '../sandbox/pod-network';
import { ContainerImage, PodRun, runPod, RunPodOptions } from '../sandbox/pod-runner';
import { LlamaStackEnv, llamaStackEnv, providerWheels, ProviderWheels, testEnvsSupport } from '../sandbox/test-envs';

/** The llama-stack release the pod tests run by default (the newest 0.7.x), and the run.yaml-era one. */
export const LLAMA_STACK = '0.7.3';
export const LLAMA_STACK_RUN_YAML_ERA = '0.3.5';
/** The distribution image reference: its tag names the release, as upstream tags do. */
export const DISTRIBUTION = `registry.test/llama-stack/distribution-starter:${LLAMA_STACK}`;
/** The ogx releases the pod tests run: the newest, and the newest before TLS became required (1.2). */
export const OGX = '1.5.0';
export const OGX_BEFORE_TLS = '1.1.3';
/** An ogx distribution image reference, tagged with its release as upstream tags `ogxai/distribution-<name>`. */
export const ogxDistribution = (version: string): string => `registry.test/ogxai/distribution-starter:${version}`;
/** The server container's name: the construct's default for the release's project (`ogx`, `llama-stack`). */
export const serverContainer = (version: string): string => (version.startsWith('0.') ? 'llama-stack' : 'ogx');
/** The newest release of each line and ogx before TLS became required: the suites that run on each server. */
export const EACH_SERVER = [LLAMA_STACK, OGX, OGX_BEFORE_TLS] as const;
/** The starter distribution image of a release the pod tests run, tagged as upstream tags it. */
export const starterImage = (version: string): string => (findRelease(version)?.project === 'llama-stack'
  ? `registry.test/llama-stack/distribution-starter:${version}` : ogxDistribution(version));
export const MERGE = 'registry.test/kube-inference/merge:test';
export const SCRIPTS_DIR = '/opt/llama-stack/scripts';
export const SHARED_DIR = '/opt/llama-stack/external-providers';
export const PACKAGES_DIR = `${SHARED_DIR}/python-packages`;

/** How long a scenario's pod may take to come up (or fail) before the runner gives up on it. */
export const POD_TIMEOUT_MS = 180_000;

/** Renders the construct in a chart; returns every manifest. */
export function renderStack(props: Partial<LlamaStackWithProvidersProps>): any[] {
  const chart = Testing.chart();
  new LlamaStackWithProviders(chart, 'stack', {
    name: 'stack',
    distribution: { image: DISTRIBUTION },
    mergeImage: MERGE,
    ...props,
  } as LlamaStackWithProvidersProps);
  return Testing.synth(chart);
}

/** The server's Deployment (providers' services have Deployments of their own, labelled with the server). */
export function deploymentOf(manifests: readonly any[]): any {
  const d = manifests.find((m) => m.kind === 'Deployment' && !m.metadata?.labels?.['kube-inference.io/server']);
  if (!d) throw new Error('no Deployment rendered');
  return d;
}

/**
 * Runs each provider service's Deployment of the manifests with `serve`, and gives its Service a
 * ClusterIP on `network` leading to that pod, its named target ports resolved as the Service's are.
 */
export async function serveProviderServices(
  manifests: readonly any[], network: PodNetwork, serve: (deployment: any, manifests: readonly any[]) => Promise<PodRun>,
): Promise<PodRun[]> {
  const started: PodRun[] = [];
  for (const service of manifests.filter((m) => m.kind === 'Service' && m.metadata.labels?.['kube-inference.io/server'])) {
    const deployment = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === service.metadata.name);
    const pod = await serve(deployment, manifests);
    const ports = Object.fromEntries(deployment.spec.template.spec.containers[0].ports.map((p: any) => [p.name, p.containerPort]));
    network.addService(service, pod.ip!, ports);
    started.push(pod);
  }
  return started;
}

/**
 * `describe` for scenarios that run the real llama-stack server (and the real providers named): runs
 * them when bubblewrap and the test set-up's environments are there; otherwise fails in CI
 * (`CI=true`) and skips with the reason locally.
 */
export function describeWithLlamaStack(name: string, needs: { versions?: string[]; providers?: string[] }, fn: () => void): void {
  const sandbox = sandboxSupport();
  const envs = testEnvsSupport(
    ...(needs.versions ?? [LLAMA_STACK]).map((v) => llamaStackEnv(v)),
    ...(needs.providers ?? []).map((p) => providerWheels(p)),
  );
  describeWhen(name, sandbox.ok ? envs : sandbox, sandbox.ok ? 'the llama-stack test environments' : 'bubblewrap', fn);
}

/** The environment of a release; only called inside `describeWithLlamaStack`. */
export function env(version = LLAMA_STACK): LlamaStackEnv {
  const found = llamaStackEnv(version);
  if (!found.value) throw new Error(found.reason);
  return found.value;
}

/** A real out-of-tree provider from PyPI whose wheels the test set-up keeps (envs.json `providerWheels`). */
export interface RealProvider {
  /** Its distribution name, as envs.json names it. */
  readonly name: string;
  readonly version: string;
  readonly packageName: string;
  readonly providerType: string;
  readonly api: string;
}

export const TRUSTYAI_FMS: RealProvider = {
  name: 'llama-stack-provider-trustyai-fms', version: '0.4.0', packageName: 'llama_stack_provider_trustyai_fms', providerType: 'remote::trustyai_fms', api: 'safety',
};
export const LMEVAL: RealProvider = {
  name: 'llama-stack-provider-lmeval', version: '0.5.0', packageName: 'llama_stack_provider_lmeval', providerType: 'remote::trustyai_lmeval', api: 'eval',
};

/** `lls-provider-spec.yaml` of an image of a real provider: the provider wheel and its whole closure. */
export function realProviderMetadata(p: RealProvider): string {
  return [
    'apiVersion: llamastack.io/v1alpha1', 'kind: ProviderPackage',
    'metadata:', `  name: ${p.name}`, `  version: ${p.version}`, '  vendor: trustyai',
    'spec:', `  packageName: ${p.packageName}`, `  providerType: ${p.providerType}`, `  api: ${p.api}`,
    `  wheelPath: /lls-provider/packages/${p.packageName}-${p.version}-py3-none-any.whl`, '',
  ].join('\n');
}

/** The wheels of a real provider; only called inside `describeWithLlamaStack`. */
export function realProviderWheels(name: string): ProviderWheels {
  const found = providerWheels(name);
  if (!found.value) throw new Error(found.reason);
  return found.value;
}

/** A scratch area for one scenario: images, wheels, the pod's volumes. */
export class Scenario {
  public readonly dir: string;
  public readonly images: Record<string, ContainerImage> = {};
  private readonly runs: PodRun[] = [];
  /** How many pods were started: each gets a directory of its own, also when several start at once. */
  private started = 0;

  public constructor(name: string) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `kic-${name}-`));
    this.images[MERGE] = mergeImage().image;
  }

  /** Adds a distribution image of the release's real llama-stack under `ref`. */
  public distribution(content: DistributionImageContent = {}, ref = DISTRIBUTION, version = LLAMA_STACK): this {
    const e = env(version);
    this.images[ref] = distributionImage(path.join(this.dir, 'images', safe(ref)), e, content);
    return this;
  }

  /** Adds a provider image holding a real provider's wheels (its whole closure), on the environments' Python. */
  public realProvider(ref: string, provider: RealProvider, version = LLAMA_STACK): this {
    const wheels = realProviderWheels(provider.name);
    const files = wheels.wheels.map((w) => path.join(wheels.wheelDir, w));
    return this.provider(ref, { metadata: realProviderMetadata(provider), wheels: files, python: venvBasePython(env(version).venv) });
  }

  /** Adds a provider image under `ref`. */
  public provider(ref: string, content: ProviderImageContent): this {
    this.images[ref] = providerImage(path.join(this.dir, 'images', safe(ref)), content);
    return this;
  }

  /** A directory for wheels and other build output. */
  public path(...parts: string[]): string {
    const p = path.join(this.dir, ...parts);
    fs.mkdirSync(p, { recursive: true });
    return p;
  }

  /** Runs the Deployment of `manifests` as rendered (the server's, unless another `workload` of them is given). */
  public async run(manifests: readonly any[], options: Partial<RunPodOptions> = {}, workload = deploymentOf(manifests)): Promise<PodRun> {
    const final = [...manifests];
    const pod = await runPod(workload, {
      images: this.images,
      manifests: final,
      workDir: path.join(this.dir, `pod-${this.started++}`),
      timeoutMs: POD_TIMEOUT_MS,
      ...options,
    });
    this.runs.push(pod);
    return pod;
  }

  public dispose(): void {
    this.runs.forEach((r) => r.dispose()); // ends servers still running
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function safe(ref: string): string {
  return ref.replace(/[^A-Za-z0-9.-]+/g, '_');
}
