/**
 * Shared set-up of the pod start-up scenarios: renders a LlamaStackWithProviders Deployment with the
 * real construct, lays out provider images with real wheels, a stand-in distribution image and the
 * merge image, and runs the pod in bubblewrap sandboxes (test/sandbox/pod-runner.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Testing } from 'cdk8s';
import { LlamaStackWithProviders, LlamaStackWithProvidersProps } from '../../src';
import { distributionImage, DistributionImageContent, mergeImage, providerImage, ProviderImageContent, REPO_ROOT } from '../sandbox/images';
import { ContainerImage, PodRun, runPod, RunPodOptions } from '../sandbox/pod-runner';

export const DISTRIBUTION = 'registry.test/llama-stack/distribution-starter:0.7.1';
export const MERGE = 'registry.test/kube-inference/merge:test';
export const SCRIPTS_DIR = '/opt/llama-stack/scripts';
export const SHARED_DIR = '/opt/llama-stack/external-providers';
export const PACKAGES_DIR = `${SHARED_DIR}/python-packages`;

/** The reference configs of real distributions (unmodified upstream copies in test/fixtures/provider-images/configs). */
export function referenceConfig(name: string): string {
  return fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'provider-images', 'configs', name), 'utf8');
}

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

export function deploymentOf(manifests: readonly any[]): any {
  const d = manifests.find((m) => m.kind === 'Deployment');
  if (!d) throw new Error('no Deployment rendered');
  return d;
}

/** The stand-in server's report (the `LLAMA_STACK_STAND_IN_RESULT` line of `llama stack run`). */
export interface StandInResult {
  readonly config: string;
  readonly distro_name?: string;
  readonly external: Array<{
    api: string;
    provider_id: string;
    provider_type: string;
    runtime_provider_type: string;
    module: string;
    module_file: string;
    impl: string;
  }>;
  readonly builtin: Array<{ api: string; provider_id: string; provider_type: string }>;
  readonly errors: Array<{ provider_id: string; error: string }>;
}

export function standInResult(logs: string): StandInResult | undefined {
  const line = logs.split('\n').find((l) => l.startsWith('LLAMA_STACK_STAND_IN_RESULT '));
  return line ? JSON.parse(line.slice('LLAMA_STACK_STAND_IN_RESULT '.length)) : undefined;
}

/** A scratch area for one scenario: images, wheels, the pod's volumes. */
export class Scenario {
  public readonly dir: string;
  public readonly images: Record<string, ContainerImage> = {};
  private readonly runs: PodRun[] = [];

  public constructor(name: string) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `kic-${name}-`));
    this.images[MERGE] = mergeImage().image;
  }

  /** Adds the stand-in distribution image (with the given built-in configs) under `ref`. */
  public distribution(content: DistributionImageContent, ref = DISTRIBUTION): this {
    this.images[ref] = distributionImage(path.join(this.dir, 'images', safe(ref)), content);
    return this;
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

  /** Runs the Deployment of `manifests` as rendered. */
  public async run(manifests: readonly any[], options: Partial<RunPodOptions> = {}): Promise<PodRun> {
    const final = [...manifests];
    const pod = await runPod(deploymentOf(final), {
      images: this.images,
      manifests: final,
      workDir: path.join(this.dir, `pod-${this.runs.length}`),
      timeoutMs: 90_000,
      ...options,
    });
    this.runs.push(pod);
    return pod;
  }

  public dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

function safe(ref: string): string {
  return ref.replace(/[^A-Za-z0-9.-]+/g, '_');
}
