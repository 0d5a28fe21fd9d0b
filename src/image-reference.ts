// Container image references (`registry:5000/org/name:tag@sha256:…`), as the container runtimes read them.

/** The tag of an image reference, or undefined when it has none (no tag, or a digest only). */
export function imageTag(image: string): string | undefined {
  const name = image.split('@')[0];
  const colon = name.lastIndexOf(':');
  // A colon before the last '/' belongs to the registry's port, not to a tag.
  return colon > name.lastIndexOf('/') ? name.slice(colon + 1) : undefined;
}
