// Container image references (`registry:5000/org/name:tag@sha256:…`), as the container runtimes read them.

/** The tag of an image reference, or undefined when it has none (no tag, or a digest only). */
export function imageTag(image: string): string | undefined {
  const name = image.split('@')[0];
  const colon = name.lastIndexOf(':');
  // A colon before the last '/' belongs to the registry's port, not to a tag.
  return colon > name.lastIndexOf('/') ? name.slice(colon + 1) : undefined;
}

// The grammar of github.com/distribution/reference (regexp.go), which the kubelet's runtimes parse
// image references with: a pod whose image does not match waits in InvalidImageName.
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = new RegExp(`^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?$`);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
/** The longest repository name (domain and path) the grammar allows. */
const NAME_TOTAL_LENGTH_MAX = 255;

/**
 * Why a container runtime would refuse this image reference, or undefined when it parses. The first
 * component is the registry when it holds a `.` or a `:`, or is `localhost` (as the runtimes split
 * it); the repository path is lower-case only.
 */
export function imageReferenceProblem(image: string): string | undefined {
  const at = image.indexOf('@');
  const [nameAndTag, digest] = at >= 0 ? [image.slice(0, at), image.slice(at + 1)] : [image, undefined];
  if (digest !== undefined && !DIGEST.test(digest)) return `the digest '${digest}' is not <algorithm>:<hex>, such as sha256: and 64 hex digits`;
  const slash = nameAndTag.lastIndexOf('/');
  const colon = nameAndTag.lastIndexOf(':');
  const [name, tag] = colon > slash ? [nameAndTag.slice(0, colon), nameAndTag.slice(colon + 1)] : [nameAndTag, undefined];
  if (tag !== undefined && !TAG.test(tag)) return `the tag '${tag}' is not a tag (letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-')`;
  if (name === '') return 'it names no repository';
  if (name.length > NAME_TOTAL_LENGTH_MAX) return `the repository name is longer than ${NAME_TOTAL_LENGTH_MAX} characters`;
  const parts = name.split('/');
  const hasDomain = parts.length > 1 && (/[.:]/.test(parts[0]) || parts[0] === 'localhost');
  if (hasDomain && !DOMAIN.test(parts[0])) return `the registry '${parts[0]}' is not a host name with an optional port`;
  const path = hasDomain ? parts.slice(1) : parts;
  const bad = path.find((p) => !PATH_COMPONENT.test(p));
  if (bad === undefined) return undefined;
  return bad.toLowerCase() !== bad && PATH_COMPONENT.test(bad.toLowerCase())
    ? `the repository path must be lower-case ('${bad}')`
    : `'${bad}' is not a repository path component (lower-case letters and digits, separated by '.', '_', '__' or '-')`;
}
