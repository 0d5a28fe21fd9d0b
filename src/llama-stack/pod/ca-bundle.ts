import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { nameOf } from '../../object-reference';
import { CaBundleOptions } from '../options';

// The CA bundle of `caBundle`, as the llama-stack operator wires its `tlsConfig.caBundle`
// (llama-stack-k8s-operator before the OGX rename, controllers/resource_helper.go:
// createCABundleVolume, addCABundleVolumeMount; DefaultCABundleKey): one file of PEM certificates at
// /etc/ssl/certs/ca-bundle/, named by SSL_CERT_FILE. The operator reads the keys and writes the
// joined file into a ConfigMap of its own; with no operator, one key is mounted as it is and several
// are joined by an init container when the pod starts.

/** The key the operator reads when none is given. */
export const DEFAULT_CA_BUNDLE_KEY = 'ca-bundle.crt';
/** Where the server finds the bundle (the operator's path). */
export const CA_BUNDLE_DIR = '/etc/ssl/certs/ca-bundle';
/** Where the join step reads the ConfigMap's keys. */
const CA_BUNDLE_SOURCE_DIR = '/etc/ssl/certs/ca-bundle-source';
const VOLUME = 'ca-bundle';
const SOURCE_VOLUME = 'ca-bundle-source';

/** The keys of a bundle. */
export function caBundleKeys(bundle: CaBundleOptions): readonly string[] {
  return bundle.configMapKeys !== undefined && bundle.configMapKeys.length > 0 ? bundle.configMapKeys : [DEFAULT_CA_BUNDLE_KEY];
}

/** The file SSL_CERT_FILE names: the one key as mounted, or the joined file. */
export function caBundleFile(bundle: CaBundleOptions): string {
  const keys = caBundleKeys(bundle);
  return `${CA_BUNDLE_DIR}/${keys.length === 1 ? keys[0] : DEFAULT_CA_BUNDLE_KEY}`;
}

/** The pod's volumes for the bundle. */
export function caBundleVolumes(bundle: CaBundleOptions): IVolume[] {
  const keys = caBundleKeys(bundle);
  const source = { name: nameOf(bundle.configMapName), items: keys.map((key) => ({ key, path: key })) };
  return keys.length === 1
    ? [{ name: VOLUME, configMap: source }]
    : [{ name: SOURCE_VOLUME, configMap: source }, { name: VOLUME, emptyDir: { sizeLimit: '16Mi' } }];
}

/** The server's mount of the bundle. */
export function caBundleMount(): IVolumeMount {
  return { name: VOLUME, mountPath: CA_BUNDLE_DIR, readOnly: true };
}

/**
 * With several keys, the init container joining them into one file, in the server's image: the
 * script is fixed text and the files are its arguments, so a key never becomes shell code. Each
 * file is followed by a line break, as the operator joins them, so that a file without a final
 * newline does not run into the next certificate.
 */
export function caBundleJoinContainer(bundle: CaBundleOptions, image: Pick<IContainer, 'image' | 'imagePullPolicy'>, basics: Partial<IContainer>): IContainer | undefined {
  const keys = caBundleKeys(bundle);
  if (keys.length === 1) return undefined;
  return {
    name: 'join-ca-bundle',
    ...image,
    command: ['/bin/sh', '-c', `set -e; for f; do cat -- "$f"; echo; done > ${CA_BUNDLE_DIR}/${DEFAULT_CA_BUNDLE_KEY}`, 'join-ca-bundle',
      ...keys.map((key) => `${CA_BUNDLE_SOURCE_DIR}/${key}`)],
    volumeMounts: [
      { name: SOURCE_VOLUME, mountPath: CA_BUNDLE_SOURCE_DIR, readOnly: true },
      { name: VOLUME, mountPath: CA_BUNDLE_DIR },
    ],
    ...basics,
  };
}
