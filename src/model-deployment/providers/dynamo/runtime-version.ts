// Dynamo operators since ai-dynamo/dynamo PR #10494 ("add runtimeVersionOverride to DGD
// components") read each component's Dynamo runtime version from its main image tag
// (`vllm-runtime:1.1.0` → 1.1.0) to check the operator/runtime skew, and their admission webhook
// rejects a component whose image tag is not a version unless `runtimeVersionOverride` (core
// semver, `major.minor.patch`) is set on it. The vendored nvidia.com/v1alpha1 schema (Dynamo
// 0.6.1) has no such field, so it cannot be rendered: the user is told what to do instead.
import { imageTag } from '../../../image-reference';

/** A tag the operator can read a version from: `1.0.1`, `v1.0.1`, `1.4.0-efa`. */
const VERSION_TAG = /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-+][0-9A-Za-z.+-]*)?$/;

/** The warning for a user image whose tag newer operators cannot read a Dynamo version from. */
export function runtimeVersionWarning(image: string): string | undefined {
  const tag = imageTag(image);
  if (tag !== undefined && VERSION_TAG.test(tag)) return undefined;
  return `image ${JSON.stringify(image)} has ${tag === undefined ? 'no tag' : `the tag ${JSON.stringify(tag)}, which is not a version`}: `
    + 'Dynamo operators with runtime-version admission (ai-dynamo/dynamo PR #10494) reject such components unless each '
    + 'spec.services.<name>.runtimeVersionOverride names the Dynamo release in the image, a field the nvidia.com/v1alpha1 '
    + 'schema rendered here (Dynamo 0.6.1) does not have. Tag the image with its Dynamo version (for example :1.0.1), or add '
    + 'runtimeVersionOverride to every service after rendering when your operator needs it';
}
