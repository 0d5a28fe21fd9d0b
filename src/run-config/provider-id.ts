import { createHash } from 'node:crypto';
import { DNS1123_LABEL } from '../name-patterns';
import { clip } from './fields';

/**
 * Longest provider key: `install-provider-<key>` must stay a 63-character container name.
 */
export const MAX_PROVIDER_KEY_LENGTH = 63 - 'install-provider-'.length;

// llama-stack's `${env.NAME}` / `${env.NAME:=default}` / `${env.NAME:+value}` substitution, which it
// applies to every string of the config, provider_id included (core/stack.py replace_env_vars, 0.7.3).
const ENV_SUBSTITUTION = /\$\{env\.[A-Z0-9_]+(?::[=+][^}]*)?\}/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Why llama-stack would not run a provider under this `provider_id`, or undefined when it would.
 *
 * llama-stack's `Provider.provider_id` is any string (core/datatypes.py, 0.2 to 0.7): ids with
 * underscores such as `trustyai_fms` are what real distributions use. Three kinds of ids it does
 * treat specially, and one kind our logs could not show, are refused here:
 * an empty id and `__disabled__` mark a disabled provider (core/resolver.py skips them), an id holding
 * `${env.…}` is rewritten by the environment substitution, and a control character (a line break)
 * would split the id across log lines.
 */
export function providerIdProblem(id: string): string | undefined {
  if (id === '' || id === '__disabled__') {
    return `${id === '' ? 'an empty id' : "'__disabled__'"} marks a disabled provider in llama-stack, which would skip it`;
  }
  if (ENV_SUBSTITUTION.test(id)) {
    return `'${clip(id)}' holds a \${env.…} reference, which llama-stack replaces with an environment value`;
  }
  if (CONTROL.test(id)) {
    return `'${clip(id)}' holds a control character (such as a line break); a provider id is one line of text`;
  }
  return undefined;
}

/**
 * The name every Kubernetes object and file of a provider is derived from: its install init
 * container (`install-provider-<key>`), its directory on the shared volume (`metadata/<key>/`),
 * and any other per-provider name. A DNS-1123 label of at most {@link MAX_PROVIDER_KEY_LENGTH}
 * characters: the id itself when it is one, otherwise the id lower-cased with every run of other
 * characters turned into `-`, shortened, and suffixed with 8 hex digits of the id's SHA-256, so
 * that ids differing only in case or punctuation (`trustyai_fms`, `trustyai-fms`) keep apart.
 */
export function providerKey(id: string): string {
  if (DNS1123_LABEL.test(id) && id.length <= MAX_PROVIDER_KEY_LENGTH) {
    return id;
  }
  const hash = createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 8);
  const readable = id.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+/, '')
    .slice(0, MAX_PROVIDER_KEY_LENGTH - hash.length - 1).replace(/-+$/, '');
  return readable === '' ? hash : `${readable}-${hash}`;
}
