// A provider's install init container: from the provider's image, it installs the provider's packages for the server.
import type { IContainer } from 'kubernetes-models/v1/Container';
import { PROVIDER_SERVICE_ENV } from './service';
import type { ValidatedProvider } from './validated-provider';
import { providerKey } from '../../run-config/provider-id';
import { renderJson } from '../../run-config/render';
import type { ImagePullPolicy } from '../options';
import { initContainerBasics } from '../pod/container-settings';
import { literalEnvValue } from '../pod/env';
import { EXTERNAL_PROVIDERS_DIR, SCRIPTS_DIR } from '../pod/paths';
import { PodPlan, VOLUMES } from '../pod/plan';
import { SCRIPT_FILES } from '../scripts';

/** The provider's install init container: from its image, it installs its packages and metadata into the shared volume. */
export function installContainer(plan: PodPlan, p: ValidatedProvider): IContainer {
  const key = providerKey(p.provider.providerId);
  const name = `install-provider-${key}`;
  const crdConfig = {
    providerId: p.provider.providerId,
    api: p.api,
    crdSection: p.section,
    image: p.provider.image,
    order: p.order,
    ...(p.config !== undefined ? { config: p.config } : {}),
    ...(p.serviceAddress !== undefined ? { serviceAddress: p.serviceAddress } : {}),
  };
  return {
    name,
    image: p.provider.image,
    imagePullPolicy: p.provider.imagePullPolicy ?? ('IfNotPresent' satisfies ImagePullPolicy),
    command: ['/bin/sh', `${SCRIPTS_DIR}/${SCRIPT_FILES.installProvider}`],
    env: [
      { name: 'PROVIDER_ID', value: literalEnvValue(p.provider.providerId) },
      { name: 'PROVIDER_KEY', value: key },
      { name: 'PROVIDER_IMAGE', value: p.provider.image },
      { name: 'PROVIDER_API', value: p.api },
      { name: 'PROVIDER_CRD_SECTION', value: p.section },
      { name: 'INIT_CONTAINER_NAME', value: name },
      { name: 'PROVIDER_CRD_CONFIG', value: literalEnvValue(renderJson(crdConfig)) },
      { name: 'EXTERNAL_PROVIDERS_DIR', value: EXTERNAL_PROVIDERS_DIR },
      // pip needs a writable home; the image's may not be writable for our uid.
      { name: 'HOME', value: '/tmp' },
      // Not read by the install: `kube-inference status` finds the provider's service by it.
      ...(p.service ? [{ name: PROVIDER_SERVICE_ENV, value: p.service.name }] : []),
    ],
    volumeMounts: [
      { name: VOLUMES.scripts, mountPath: SCRIPTS_DIR, readOnly: true },
      { name: VOLUMES.externalProviders, mountPath: EXTERNAL_PROVIDERS_DIR },
    ],
    ...initContainerBasics(plan),
  };
}
