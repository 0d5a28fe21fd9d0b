// The API server's checks of a pod's volumes that their schema cannot express (pkg/apis/core/validation/
// validation.go of k8s.io/kubernetes: validateVolumes, validateVolumeSource and the per-source functions):
// one source per volume and per projected source, file modes, the paths of projected files, hostPath types.
import { FieldErrors, uniqueName } from './field-errors';
import { dns1123Label } from './names';
import { isRecord } from '../../checks';

/** fileModeErrorMsg: a file mode is a permission mask. */
const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';
/** The kinds of a projected volume's source (validateProjectionSources). */
const PROJECTION_KINDS = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate'];
/** hostPath `type` values (core.HostPathType). */
const HOST_PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];

const records = (value: unknown): Array<Record<string, unknown>> => (Array.isArray(value) ? value : []).map((v) => (isRecord(v) ? v : {}));
const present = (value: unknown) => value !== undefined && value !== null;

/** Checks the volumes' names and sources; returns their names. */
export function checkVolumes(volumes: unknown, path: string, errors: FieldErrors): Set<string> {
  const names = new Set<string>();
  records(volumes).forEach((v, i) => {
    const at = `${path}[${i}]`;
    if (!present(v.name) || v.name === '') errors.required(`${at}.name`);
    else if (typeof v.name === 'string') uniqueName(v.name, `${at}.name`, names, dns1123Label, errors);
    const sources = Object.keys(v).filter((k) => k !== 'name' && present(v[k]));
    if (sources.length > 1) errors.forbidden(`${at}.${sources[1]}`, `may not specify more than 1 volume type (${sources.join(', ')})`);
    checkSource(v, at, errors);
  });
  return names;
}

function checkSource(v: Record<string, unknown>, at: string, errors: FieldErrors): void {
  for (const kind of ['configMap', 'secret'] as const) {
    if (!isRecord(v[kind])) continue;
    checkMode(v[kind].defaultMode, `${at}.${kind}.defaultMode`, errors);
    checkKeyToPaths(v[kind].items, `${at}.${kind}.items`, errors);
  }
  if (isRecord(v.downwardAPI)) {
    checkMode(v.downwardAPI.defaultMode, `${at}.downwardAPI.defaultMode`, errors);
    checkDownwardApiFiles(v.downwardAPI.items, `${at}.downwardAPI`, errors);
  }
  if (isRecord(v.projected)) {
    checkMode(v.projected.defaultMode, `${at}.projected.defaultMode`, errors);
    records(v.projected.sources).forEach((s, i) => checkProjection(s, `${at}.projected.sources[${i}]`, errors));
  }
  if (isRecord(v.hostPath)) {
    const { path, type } = v.hostPath;
    if (!present(path) || path === '') errors.required(`${at}.hostPath.path`);
    else if (typeof path === 'string') checkNoBacksteps(path, `${at}.hostPath.path`, errors);
    if (present(type) && !HOST_PATH_TYPES.includes(type as string)) errors.notSupported(`${at}.hostPath.type`, type, HOST_PATH_TYPES);
  }
}

/** One projected source: exactly one kind, its files' keys, paths and modes. */
function checkProjection(source: Record<string, unknown>, at: string, errors: FieldErrors): void {
  const kinds = PROJECTION_KINDS.filter((k) => present(source[k]));
  if (kinds.length > 1) errors.forbidden(at, 'may not specify more than 1 volume type per source');
  for (const kind of ['configMap', 'secret'] as const) {
    if (isRecord(source[kind])) checkKeyToPaths(source[kind].items, `${at}.${kind}.items`, errors);
  }
  if (isRecord(source.downwardAPI)) checkDownwardApiFiles(source.downwardAPI.items, `${at}.downwardAPI`, errors);
}

/** validateKeyToPath: a key, a relative path inside the volume, a mode. */
function checkKeyToPaths(items: unknown, at: string, errors: FieldErrors): void {
  records(items).forEach((item, i) => {
    const path = `${at}[${i}]`;
    if (!present(item.key) || item.key === '') errors.required(`${path}.key`);
    checkFilePath(item.path, `${path}.path`, errors);
    checkMode(item.mode, `${path}.mode`, errors);
  });
}

/**
 * validateDownwardAPIVolumeFile: the files of a downwardAPI volume or projection. The API server names the
 * source's `path` and `mode`, not the item's (it passes the source's field path to each file's check).
 */
function checkDownwardApiFiles(items: unknown, at: string, errors: FieldErrors): void {
  for (const item of records(items)) {
    checkFilePath(item.path, `${at}.path`, errors);
    checkMode(item.mode, `${at}.mode`, errors);
  }
}

/** validateLocalNonReservedPath: relative, without a `..` segment, not starting with `..`. */
function checkFilePath(path: unknown, at: string, errors: FieldErrors): void {
  if (!present(path) || path === '') {
    errors.required(at);
    return;
  }
  if (typeof path !== 'string') return;
  if (path.startsWith('/')) errors.invalid(at, path, 'must be a relative path');
  checkNoBacksteps(path, at, errors);
  // The `..` segment check above already speaks for "../x".
  if (path.startsWith('..') && !path.startsWith('../')) errors.invalid(at, path, "must not start with '..'");
}

/** validatePathNoBacksteps: one error however many `..` segments. */
function checkNoBacksteps(path: string, at: string, errors: FieldErrors): void {
  if (path.split('/').includes('..')) errors.invalid(at, path, "must not contain '..'");
}

function checkMode(mode: unknown, at: string, errors: FieldErrors): void {
  if (typeof mode === 'number' && (mode < 0 || mode > 0o777)) errors.invalid(at, mode, FILE_MODE);
}
