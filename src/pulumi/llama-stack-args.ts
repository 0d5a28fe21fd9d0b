// The args of the Pulumi LlamaStackWithProviders, alone: the cdk8s props where values may be Pulumi inputs.
import type * as pulumi from '@pulumi/pulumi';
import type * as cdk8s from '../llama-stack';
import type { ConfigValue, PulumiProviderConfigValue } from './provider-config';

/** An external provider whose image may be a Pulumi output (e.g. an image built in the same program). */
export interface PulumiExternalProvider extends Omit<cdk8s.ExternalProvider, 'image' | 'config'> {
  /** The provider image. */
  readonly image: pulumi.Input<string>;
  /**
   * Provider-specific configuration (the provider entry's `config`): plain data, and Secret
   * references ({@link ConfigValue.fromSecret}) whose Secret name may be an output. Other outputs
   * are refused: see {@link PulumiProviderConfigValue}.
   * @default - no config
   */
  readonly config?: { readonly [key: string]: PulumiProviderConfigValue };
}

/** External providers by API, as in the cdk8s construct. */
export type PulumiExternalProviders = { readonly [S in keyof cdk8s.ExternalProviders]?: PulumiExternalProvider[] };

/** The user's config: the construct's, where the ConfigMap may come from the same program. */
export interface PulumiUserConfig extends Omit<cdk8s.UserConfig, 'configMapName'> {
  /**
   * Name of an existing ConfigMap (same namespace) holding the config; may be an output.
   * @default - none; give `configMap` or `config` instead
   */
  readonly configMapName?: pulumi.Input<string>;
  /**
   * A ConfigMap of this program holding the config, in place of `configMapName`: its content is
   * hashed into the pods' template (`kube-inference.io/configmaps-hash`), so that changing it rolls
   * the pods, also when the ConfigMap keeps its name (an explicit `metadata.name`).
   * @default - none
   */
  readonly configMap?: ConfigMapResource;
}

/** What the component reads of a `k8s.core.v1.ConfigMap`. */
export interface ConfigMapResource {
  readonly metadata: pulumi.Output<{ readonly name?: string }>;
  readonly data: pulumi.Output<{ readonly [key: string]: string } | undefined>;
  readonly binaryData: pulumi.Output<{ readonly [key: string]: string } | undefined>;
}

/** A model the server serves: the construct's, where the URL may be an output (a Pulumi `ModelDeployment`'s `endpoint`). */
export interface PulumiStackModel extends Omit<cdk8s.StackModel, 'url' | 'namespace'> {
  /** The OpenAI-compatible base URL, with its `/v1`. */
  readonly url: pulumi.Input<string>;
  /** The Service's namespace (a ModelDeployment endpoint's; not read). */
  readonly namespace?: pulumi.Input<string>;
}

/**
 * Args of the Pulumi {@link LlamaStackWithProviders}: the props of the cdk8s construct, where the
 * values users typically take from other resources may be Pulumi inputs.
 */
export interface LlamaStackWithProvidersArgs extends Omit<cdk8s.LlamaStackWithProvidersProps,
'namespace' | 'distribution' | 'mergeImage' | 'serviceAccountName' | 'userConfig' | 'externalProviders' | 'models' | 'tls' | 'caBundle'
| 'imagePullSecrets' | 'storage'> {
  /**
   * Namespace of every rendered object (e.g. `namespace.metadata.name`).
   * @default - the provider's default namespace
   */
  readonly namespace?: pulumi.Input<string>;
  /**
   * The distribution: a named one, or an image, which may be an output (then give `serverVersion`
   * unless it runs the default release: its tag cannot name the release while rendering).
   */
  readonly distribution: { readonly name?: string; readonly image?: pulumi.Input<string> };
  /**
   * Image of the merge step (may be an output, e.g. of an image build): the image built from this
   * package's release and pushed where the cluster pulls from, until the release publishes it.
   * @default - `ghcr.io/kube-inference/merge:<package version>`
   */
  readonly mergeImage?: pulumi.Input<string>;
  /**
   * An existing service account for the pods (may be an output, e.g. of a `k8s.core.v1.ServiceAccount`).
   * @default - a ServiceAccount `<name>-sa` of their own, rendered with them (as the operator creates one)
   */
  readonly serviceAccountName?: pulumi.Input<string>;
  /**
   * The user's Llama Stack config; `configMapName` may be an output, and `configMap` a ConfigMap of
   * the same program.
   * @default - the distribution's config
   */
  readonly userConfig?: PulumiUserConfig;
  /**
   * External providers by API.
   * @default - none
   */
  readonly externalProviders?: PulumiExternalProviders;
  /**
   * The server's own TLS, as in the cdk8s construct; the Secret's name may be an output (e.g. of a
   * cert-manager `Certificate`'s Secret).
   * @default - plain HTTP
   */
  readonly tls?: Omit<cdk8s.ServerTlsOptions, 'secretName'> & { readonly secretName: pulumi.Input<string> };
  /**
   * Certificate authorities the server trusts, as in the cdk8s construct; the ConfigMap's name may be an output.
   * @default - the image's trust store
   */
  readonly caBundle?: Omit<cdk8s.CaBundleOptions, 'configMapName'> & { readonly configMapName: pulumi.Input<string> };
  /**
   * Secrets to pull the images with; their names may be outputs.
   * @default - none
   */
  readonly imagePullSecrets?: pulumi.Input<string>[];
  /**
   * The server's storage, as in the cdk8s construct; an existing claim's and a storage class's names may be outputs.
   * @default - an emptyDir
   */
  readonly storage?: Omit<cdk8s.StorageOptions, 'existingClaimName' | 'storageClassName'>
  & { readonly existingClaimName?: pulumi.Input<string>; readonly storageClassName?: pulumi.Input<string> };
  /**
   * Models served in the cluster that the server serves through its own API: a `ModelDeployment`'s
   * `endpoint` as it is (`models: [model.endpoint]`), whose URL may be an output.
   * @default - none
   */
  readonly models?: PulumiStackModel[];
}
