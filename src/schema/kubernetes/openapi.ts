// The Kubernetes OpenAPI schemas of each supported minor, vendored in kubernetes-openapi/<minor>.json by
// scripts/import-kubernetes-openapi.mjs from the k8s.io/kubernetes module (api/openapi-spec/v3), and the
// check of an object against them as the API server decodes it with strict field validation: unknown
// and duplicate fields, and values of the wrong type (a number where a string goes), are refused.
import { readFileSync } from 'fs';
import { join } from 'path';
import { FieldErrors } from './field-errors';
import { QUANTITY_FORMAT } from './quantity';
import { INT32_MAX, INT64_SAFE_MAX, isRecord, QUANTITY } from '../../checks';
import { closest } from '../../suggest';

/** The vendored schemas, next to `lib/` and `src/`. */
const SCHEMAS_DIR = join(__dirname, '..', '..', '..', 'kubernetes-openapi');

/** The Kubernetes minors whose schemas are vendored, oldest first (scripts/import-kubernetes-openapi.mjs). */
export const KUBERNETES_MINORS = ['1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35', '1.36', '1.37'] as const;
/** The minor checked when none is asked for: the newest supported. */
export const DEFAULT_KUBERNETES_MINOR = KUBERNETES_MINORS[KUBERNETES_MINORS.length - 1];

interface Schema {
  readonly '$ref'?: string;
  readonly 'type'?: string;
  readonly 'format'?: string;
  readonly 'properties'?: Record<string, Schema>;
  readonly 'additionalProperties'?: Schema | boolean;
  readonly 'items'?: Schema;
  readonly 'required'?: readonly string[];
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
}

interface Spec {
  readonly kinds: Record<string, string>;
  readonly schemas: Record<string, Schema>;
}

/** The schema of every object's metadata. */
export const OBJECT_META_SCHEMA = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const QUANTITY_SCHEMA = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_RANGES: Record<string, [number, number]> = { int32: [-INT32_MAX - 1, INT32_MAX], int64: [Number.MIN_SAFE_INTEGER, INT64_SAFE_MAX] };

/** The schemas read so far, by minor. */
const LOADED = new Map<string, KubernetesOpenApi>();

/** One minor's schemas. */
export class KubernetesOpenApi {
  /** The schemas of a supported minor (`1.37`), read once. */
  public static of(minor: string): KubernetesOpenApi {
    let api = LOADED.get(minor);
    if (!api) {
      api = new KubernetesOpenApi(JSON.parse(readFileSync(join(SCHEMAS_DIR, `${minor}.json`), 'utf8')) as Spec);
      LOADED.set(minor, api);
    }
    return api;
  }

  private groups: Set<string> | undefined;

  private constructor(private readonly spec: Spec) {}

  /** Whether this release serves `apiVersion` `kind` as a built-in kind. */
  public serves(apiVersion: string, kind: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.spec.kinds, `${apiVersion}/${kind}`);
  }

  /** Whether `group` (`` for the core group) is a built-in API group of this release. */
  public servesGroup(group: string): boolean {
    this.groups ??= new Set(Object.keys(this.spec.kinds).map((k) => (k.split('/').length === 3 ? k.split('/')[0] : '')));
    return this.groups.has(group);
  }

  /** The apiVersions in which this release serves a kind, for messages (`apps/v1`, …). */
  public versionsOfKind(kind: string): string[] {
    return Object.keys(this.spec.kinds).filter((k) => k.endsWith(`/${kind}`)).map((k) => k.slice(0, -kind.length - 1));
  }

  /** Checks an object this release serves against its kind's schema. */
  public check(object: Record<string, unknown>, errors: FieldErrors): void {
    const name = this.spec.kinds[`${object.apiVersion}/${object.kind}`];
    this.checkValue(this.spec.schemas[name], object, '', errors);
  }

  /** Checks a value against one of the release's schemas by name (`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`). */
  public checkAs(schemaName: string, value: unknown, path: string, errors: FieldErrors): void {
    this.checkValue({ $ref: schemaName }, value, path, errors);
  }

  private resolve(schema: Schema): Schema {
    let s = schema;
    while (s.$ref !== undefined) s = this.spec.schemas[s.$ref];
    return s;
  }

  private checkValue(schemaOrRef: Schema, value: unknown, path: string, errors: FieldErrors): void {
    // JSON null decodes to the field's zero value: the API server takes it for any field.
    if (value === null || value === undefined) return;
    if (schemaOrRef.$ref === QUANTITY_SCHEMA) {
      if (!(typeof value === 'number' || (typeof value === 'string' && QUANTITY.test(value)))) errors.invalid(path, value, QUANTITY_FORMAT);
      return;
    }
    const schema = this.resolve(schemaOrRef);
    if (schema.format === 'int-or-string') {
      if (!(typeof value === 'string' || Number.isInteger(value))) errors.invalid(path, value, 'must be an integer or a string');
      return;
    }
    switch (schema.type) {
      case 'object':
        if (!isRecord(value)) {
          errors.invalid(path, value, 'must be an object');
        } else {
          this.checkObject(schema, value, path, errors);
        }
        return;
      case 'array':
        if (!Array.isArray(value)) {
          errors.invalid(path, value, 'must be a list');
        } else if (schema.items) {
          value.forEach((item, i) => this.checkValue(schema.items!, item, `${path}[${i}]`, errors));
        }
        return;
      case 'integer': {
        const [min, max] = INT_RANGES[schema.format ?? 'int64'] ?? INT_RANGES.int64;
        if (!Number.isInteger(value)) errors.invalid(path, value, `must be an integer (${schema.format ?? 'int64'})`);
        else if ((value as number) < min || (value as number) > max) errors.invalid(path, value, `must be an ${schema.format} (between ${min} and ${max})`);
        return;
      }
      case undefined:
        return;
      default:
        if (!matchesType(schema.type, value)) {
          // YAML reads `true`, `1.0` or `0755` unquoted as a boolean or a number.
          const hint = schema.type === 'string' && (typeof value === 'number' || typeof value === 'boolean') ? ` (quote it in YAML: "${String(value)}")` : '';
          errors.invalid(path, value, `must be a ${schema.type}${hint}`);
        }
    }
  }

  private checkObject(schema: Schema, value: Record<string, unknown>, path: string, errors: FieldErrors): void {
    const at = (key: string) => (path === '' ? key : `${path}.${key}`);
    if (schema.properties) {
      for (const [key, field] of Object.entries(value)) {
        const fieldSchema = Object.prototype.hasOwnProperty.call(schema.properties, key) ? schema.properties[key] : undefined;
        if (fieldSchema) this.checkValue(fieldSchema, field, at(key), errors);
        else if (!schema['x-kubernetes-preserve-unknown-fields']) errors.unknownField(at(key), closest(key, Object.keys(schema.properties)));
      }
      for (const key of schema.required ?? []) {
        if (value[key] === undefined || value[key] === null) errors.required(at(key));
      }
    } else if (isRecord(schema.additionalProperties)) {
      for (const [key, field] of Object.entries(value)) this.checkValue(schema.additionalProperties, field, `${path}[${key}]`, errors);
    }
    // An object without properties or additionalProperties (RawExtension, FieldsV1) takes anything.
  }
}

function matchesType(type: string | undefined, value: unknown): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'number': return typeof value === 'number';
    case 'integer': return Number.isInteger(value);
    case 'boolean': return typeof value === 'boolean';
    case 'object': return isRecord(value);
    case 'array': return Array.isArray(value);
    default: return true;
  }
}
