// The API server's checks of ConfigMaps and Secrets beyond their schema (ValidateConfigMap and
// ValidateSecret in pkg/apis/core/validation/validation.go of k8s.io/kubernetes): key syntax, a key in
// both maps, the size limit, and the keys a Secret's type requires.
import { FieldErrors } from './field-errors';
import { configKey } from './names';
import { isRecord } from '../../checks';

const MAX_BYTES = 1024 * 1024;
/** Standard base64 with padding, as Go's encoding/json decodes []byte. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The keys a Secret of each built-in type must have. */
const SECRET_TYPE_KEYS: Record<string, string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/basic-auth': [],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

export function checkConfigData(kind: 'ConfigMap' | 'Secret', object: Record<string, unknown>, errors: FieldErrors): void {
  const maps = kind === 'ConfigMap' ? ['data', 'binaryData'] : ['data', 'stringData'];
  const seen = new Map<string, string>();
  let bytes = 0;
  for (const field of maps) {
    const map = object[field];
    if (!isRecord(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      errors.invalidEach(`${field}[${key}]`, key, configKey(key));
      // A Secret's stringData is merged into data on write: the same key in both is allowed there.
      if (kind === 'ConfigMap' && seen.has(key)) errors.invalid(`${seen.get(key)}[${key}]`, key, `duplicate of key present in ${field}`);
      seen.set(key, field);
      const base64 = (kind === 'Secret' && field === 'data') || field === 'binaryData';
      if (base64 && typeof value === 'string' && !BASE64.test(value)) errors.invalid(`${field}[${key}]`, '<value>', 'must be base64-encoded (put plain text in `stringData`)');
      if (typeof value === 'string') bytes += field === 'data' && kind === 'Secret' ? Math.floor((value.length * 3) / 4) : Buffer.byteLength(value);
    }
  }
  if (bytes > MAX_BYTES) errors.tooLong(kind === 'ConfigMap' ? '' : 'data', MAX_BYTES);
  if (kind === 'Secret') {
    const type = typeof object.type === 'string' ? object.type : 'Opaque';
    for (const key of SECRET_TYPE_KEYS[type] ?? []) {
      if (!seen.has(key)) errors.required(`data[${key}]`);
    }
  }
}
