import type { ScalarTag, Tags } from 'yaml';

/**
 * The scalar tag `name` of the `yaml` library's schema `tags` (the first that `predicate` takes): the
 * tag another reader's is made from, with that reader's pattern and resolution.
 */
export function scalarTag(tags: Tags, name: string, predicate: (t: ScalarTag) => boolean = () => true): ScalarTag {
  const found = tags.find((t): t is ScalarTag => typeof t === 'object' && !('collection' in t && t.collection) && t.tag === name && predicate(t));
  if (!found) throw new Error(`internal error: the yaml library's YAML 1.1 schema has no ${name} tag`);
  return found;
}
