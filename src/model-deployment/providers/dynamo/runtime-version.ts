// Dynamo operators from v1.5.0 (ai-dynamo/dynamo PR #10494) read each component's Dynamo runtime version
// from the tag of its `main` image (`vllm-runtime:1.1.0` → 1.1.0), and their admission webhook refuses a
// component whose tag is not a semantic version unless `runtimeVersionOverride` names the release
// (deploy/operator/internal/webhook/validation: validateDynamoComponentDeploymentSharedSpec,
// runtimeVersionOverrideRequired; internal/runtimeversion/runtimeversion.go: ParseImageVersion). Older
// operators have neither the rule nor the field.
import { imageTag } from '../../../image-reference';

/** The first Dynamo operator release with the rule and the field. */
export const RUNTIME_VERSION_ADMISSION_SINCE = '1.5';

/**
 * A tag the operator reads a version from (runtimeversion.go's pattern, with an optional `v` or `V`;
 * `semver.StrictNewVersion` accepts what it accepts): `1.0.1`, `v1.0.1`, `1.4.0-efa`.
 */
const SEMVER_TAG = /^[vV]?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** `runtimeVersionOverride` as the CRD takes it: a core version, `major.minor.patch`. */
export const RUNTIME_VERSION_OVERRIDE = /^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$/;

/** Why the operator cannot read a runtime version from `image`, or undefined when it can. */
export function unreadableRuntimeVersion(image: string): string | undefined {
  const tag = imageTag(image.trim());
  if (tag === undefined) return `image ${JSON.stringify(image)} has no tag`;
  return SEMVER_TAG.test(tag.trim()) ? undefined : `the tag ${JSON.stringify(tag)} of image ${JSON.stringify(image)} is not a semantic version such as "1.1.0"`;
}
