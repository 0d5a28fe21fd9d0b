import type { ProviderService } from './provider-service';
import type { ProviderSidecar } from './provider-sidecar';
import { EXTERNAL_PROVIDER_SECTIONS } from './release';
import { apiForCrdSection, LlamaStackApi } from '../run-config/apis';

/** Image pull policies a container accepts. */
export type ImagePullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** The pull policies, for validation of untyped input. */
export const IMAGE_PULL_POLICIES: readonly ImagePullPolicy[] = ['Always', 'IfNotPresent', 'Never'];

/**
 * A reference to one key of a Kubernetes Secret, usable as a value anywhere inside a provider's
 * `config`. The secret never appears in a manifest: the config carries Llama Stack's `${env.NAME}`
 * substitution and the server container gets `NAME` from the Secret.
 */
export interface SecretKeyReference {
  /** The Secret and key to read. */
  readonly secretKeyRef: {
    /** Name of the Secret, in the same namespace. */
    readonly name: string;
    /** Key within the Secret. */
    readonly key: string;
  };
}

/** Helpers for values inside a provider's `config`. */
export class ConfigValue {
  /**
   * A value read from a Secret at run time: `{ secretKeyRef: { name, key } }`.
   * In YAML input write that object directly.
   */
  public static fromSecret(name: string, key: string): SecretKeyReference {
    return { secretKeyRef: { name, key } };
  }

  private constructor() {}
}

/** One external provider: a provider image blended into the pod at start-up. */
export interface ExternalProvider {
  /**
   * Unique instance id (`provider_id` in the Llama Stack config), written to the config unchanged.
   * Any one-line text llama-stack accepts as a provider id, such as `trustyai_fms`; not `__disabled__`
   * and no `${env.…}` (llama-stack would disable or rewrite it). Kubernetes names are derived from
   * it with `providerKey`: the init container is `install-provider-<providerKey(providerId)>`.
   */
  readonly providerId: string;
  /** The provider image (with `/lls-provider/lls-provider-spec.yaml` and `/lls-provider/packages/*.whl`). */
  readonly image: string;
  /**
   * When to pull the provider image.
   * @default 'IfNotPresent'
   */
  readonly imagePullPolicy?: ImagePullPolicy;
  /**
   * Provider-specific configuration (the provider entry's `config`). Any value may be a
   * {@link SecretKeyReference} (see {@link ConfigValue.fromSecret}).
   * @default - no config
   */
  readonly config?: { [key: string]: any };
  /**
   * The provider image's metadata (its `lls-provider-spec.yaml`), as an object or YAML text. With it
   * the metadata and the provider's API placement are checked at synth time, and when every
   * provider's metadata and the config (`userConfig.config`) are known, the config is merged at
   * synth time: the pod then needs neither the extraction nor the merge step.
   * @default - the metadata is read from the image in the pod
   */
  readonly metadata?: { [key: string]: any } | string;
  /**
   * Like `metadata`, read from this file (relative to the directory synth runs in).
   * @default - the metadata is read from the image in the pod
   */
  readonly metadataFile?: string;
  /**
   * Runs the provider's service as a sidecar of the server's pod, from the same image: the install
   * init container still puts the in-process adapter into the server, the
   * service runs beside it on a port of its own (`PROVIDER_PORT`), and the adapter's config receives
   * its address (`config.url: http://localhost:<port>` by default).
   * @default - no sidecar: the provider runs in the server's process only
   */
  readonly sidecar?: ProviderSidecar;
  /**
   * Runs the provider's service in pods of its own, from the same image: a Deployment and a Service `<name>-<provider key>`, reachable only from the server's pods (a
   * NetworkPolicy); the adapter's config receives the Service's address
   * (`config.url: http://<name>-<provider key>:<port>` by default).
   * @default - no service of its own
   */
  readonly service?: ProviderService;
}

/**
 * External providers organised by the API they serve. Which sections a distribution accepts depends
 * on its server release (`serverVersion`); a provider in a section the release does not have
 * fails synth. Providers are installed and merged in section order (as listed here), then list order.
 */
export interface ExternalProviders {
  /** Inference providers (every release). */
  readonly inference?: ExternalProvider[];
  /** Safety providers (every release). */
  readonly safety?: ExternalProvider[];
  /** Agents providers (llama-stack 0.6 and older; 0.7 renamed the API `responses`). */
  readonly agents?: ExternalProvider[];
  /** Responses providers (llama-stack 0.7 and newer; the former `agents`). */
  readonly responses?: ExternalProvider[];
  /** Vector IO providers (`vector_io`, every release). */
  readonly vectorIo?: ExternalProvider[];
  /** Dataset IO providers (`datasetio`, llama-stack 0.7 and older). */
  readonly datasetIo?: ExternalProvider[];
  /** Scoring providers (llama-stack 0.7 and older). */
  readonly scoring?: ExternalProvider[];
  /** Eval providers (llama-stack 0.7 and older). */
  readonly eval?: ExternalProvider[];
  /** Tool runtime providers (`tool_runtime`, every release). */
  readonly toolRuntime?: ExternalProvider[];
  /** Post-training providers (`post_training`, llama-stack 0.6 and older). */
  readonly postTraining?: ExternalProvider[];
  /** Files providers (every release). */
  readonly files?: ExternalProvider[];
  /** File processors providers (`file_processors`, llama-stack 0.4 and newer). */
  readonly fileProcessors?: ExternalProvider[];
  /** Batches providers (llama-stack 0.2.18 and newer). */
  readonly batches?: ExternalProvider[];
  /** Telemetry providers (llama-stack 0.2 only; 0.3 made telemetry internal). */
  readonly telemetry?: ExternalProvider[];
}

/** An external provider with its place in the spec. */
export interface PlacedProvider {
  readonly provider: ExternalProvider;
  /** The camelCase section it is placed under, e.g. `vectorIo`. */
  readonly section: string;
  /** The Llama Stack API of that section, e.g. `vector_io`. */
  readonly api: LlamaStackApi;
  /** Its 0-based position in spec order (section order, then list order). */
  readonly order: number;
  /** Its field path in the props, e.g. `externalProviders.vectorIo[1]`. */
  readonly field: string;
}

/** Every provider in spec order: section order (as {@link ExternalProviders} lists them), then list order. */
export function providersInSpecOrder(providers: ExternalProviders | undefined): PlacedProvider[] {
  const placed: PlacedProvider[] = [];
  for (const section of EXTERNAL_PROVIDER_SECTIONS) {
    const list = (providers as Record<string, unknown> | undefined)?.[section];
    (Array.isArray(list) ? (list as ExternalProvider[]) : []).forEach((provider, index) => {
      placed.push({
        provider,
        section,
        api: apiForCrdSection(section)!,
        order: placed.length,
        field: `externalProviders.${section}[${index}]`,
      });
    });
  }
  return placed;
}
