import { readFileSync } from 'fs';
import type Ajv from 'ajv';
import type { AnySchema, ErrorObject, ValidateFunction } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { compareStrings, isRecord as isMapping } from '../checks';
import { CelCostBudget, CelCostLimitError, CelEvaluationError, CelExpression, CelSyntaxError } from './cel';
import { FieldErrors } from './kubernetes/field-errors';
import { dns1123Subdomain } from './kubernetes/names';
import { checkObjectMeta } from './kubernetes/object-meta';
import { DEFAULT_KUBERNETES_MINOR, KubernetesOpenApi, OBJECT_META_SCHEMA } from './kubernetes/openapi';
import { compileRe2, re2RegExpEngine, Re2SyntaxError } from './re2';
import type { SchemaViolation } from './schema-violation';

/** The outcome of validating one object. */
export interface CrdValidationResult {
  /** True when there are no violations. */
  readonly valid: boolean;
  /** Every violation found (ajv runs with `allErrors`). */
  readonly violations: readonly SchemaViolation[];
  /**
   * Checks that could not be made, e.g. an `x-kubernetes-validations` rule using a Kubernetes-only
   * CEL function. They are not violations, but they are not proof of validity either.
   */
  readonly notes: readonly string[];
}

/** The `group/version` and kind a CRD version serves. */
export interface CrdType {
  /** e.g. `kaito.sh/v1beta1`. */
  readonly apiVersion: string;
  /** e.g. `Workspace`. */
  readonly kind: string;
}

interface CelRule {
  readonly rule: string;
  readonly message?: string;
}

interface VersionEntry {
  readonly type: CrdType;
  readonly schema: Record<string, unknown>;
  validate?: ValidateFunction;
}

/**
 * Validates custom resources against the `openAPIV3Schema` of their CustomResourceDefinition, the
 * way the Kubernetes API server would where that can be done offline:
 *
 * - the structural schema, compiled with ajv (`allErrors`);
 * - unknown fields are violations (the API server would silently prune them, which hides mistakes),
 *   except under `x-kubernetes-preserve-unknown-fields`;
 * - `x-kubernetes-validations` CEL rules, except transition rules (those use `oldSelf`, which only
 *   exists on update);
 * - `metadata.name`, `metadata.namespace`, label and annotation syntax.
 *
 * It is generic: give it any CRD files; it validates any object whose apiVersion and kind one of
 * them serves.
 */
export class CrdValidator {
  /** Reads CRDs from YAML files (each may hold several documents). */
  public static fromFiles(paths: readonly string[]): CrdValidator {
    return new CrdValidator(paths.flatMap((path) => parseCrdYaml(readFileSync(path, 'utf8'), path)));
  }

  /** Reads CRDs from YAML text (one or more documents). */
  public static fromYaml(text: string, source = '<yaml>'): CrdValidator {
    return new CrdValidator(parseCrdYaml(text, source));
  }

  private readonly versions = new Map<string, VersionEntry>();
  private ajvInstance: Ajv | undefined;

  /** @param crds CustomResourceDefinition objects (`apiextensions.k8s.io/v1`) */
  public constructor(crds: readonly unknown[]) {
    this.add(crds, true);
  }

  /** Adds CRDs (`apiextensions.k8s.io/v1` objects); an apiVersion/kind already known keeps its CRD. */
  public addFallbacks(crds: readonly unknown[]): void {
    this.add(crds, false);
  }

  /** The schema compiler, loaded when the first custom resource is validated (core kinds never need it). */
  private ajv(): Ajv {
    if (!this.ajvInstance) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const AjvClass = (require('ajv') as typeof import('ajv')).default;
      // Without ajv's code optimisation passes: they cost more than they save for a schema compiled
      // once per run (a DynamoGraphDeployment's schema: about 150 ms of a 220-object validate).
      // Patterns are Go's regular expressions, as the API server runs them (./re2).
      const code = { optimize: false, regExp: re2RegExpEngine };
      this.ajvInstance = new AjvClass({ allErrors: true, strict: false, logger: false, formats: KUBERNETES_FORMATS, code });
    }
    return this.ajvInstance;
  }

  private add(crds: readonly unknown[], override: boolean): void {
    for (const crd of crds) {
      for (const entry of versionsOf(crd)) {
        const id = key(entry.type.apiVersion, entry.type.kind);
        if (override || !this.versions.has(id)) this.versions.set(id, entry);
      }
    }
  }

  /** Every apiVersion/kind this validator knows, sorted. */
  public get types(): CrdType[] {
    return [...this.versions.values()].map((v) => v.type)
      .sort((a, b) => compareStrings(key(a.apiVersion, a.kind), key(b.apiVersion, b.kind)));
  }

  /** Whether a CRD for this apiVersion and kind was loaded. */
  public supports(apiVersion: string, kind: string): boolean {
    return this.versions.has(key(apiVersion, kind));
  }

  /**
   * Validates one object; an apiVersion/kind no loaded CRD serves is a violation. Its metadata is checked
   * as ObjectMeta of `kubernetesMinor` (`1.37`), the minor the rest of the manifests are checked against.
   */
  public validate(object: unknown, kubernetesMinor: string = DEFAULT_KUBERNETES_MINOR): CrdValidationResult {
    if (!isRecord(object)) {
      return result([{ path: '', message: 'must be an object' }], []);
    }
    const apiVersion = object.apiVersion;
    const kind = object.kind;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
      return result([{ path: '', message: 'apiVersion and kind must be strings' }], []);
    }
    const entry = this.versions.get(key(apiVersion, kind));
    if (!entry) {
      const known = this.types.map((t) => `${t.apiVersion} ${t.kind}`).join(', ');
      return result([{ path: 'apiVersion', message: `no CRD loaded for ${apiVersion} ${kind} (loaded: ${known})` }], []);
    }
    if (!entry.validate) {
      // Every custom resource has apiVersion, kind and metadata, declared in its schema or not.
      const root = { ...entry.schema, properties: { ...IMPLICIT_ROOT_PROPERTIES, ...(entry.schema.properties as object | undefined) } };
      entry.validate = this.ajv().compile(closeObjects(root) as AnySchema);
    }
    const violations: SchemaViolation[] = [];
    const notes: string[] = [];
    if (!entry.validate(object)) {
      for (const error of entry.validate.errors ?? []) {
        violations.push(describeAjvError(error));
      }
    }
    // Metadata is every object's ObjectMeta, and custom resources' names are DNS-1123 subdomains,
    // whatever their kind.
    const metadata = new FieldErrors();
    KubernetesOpenApi.of(kubernetesMinor).checkAs(OBJECT_META_SCHEMA, object.metadata, 'metadata', metadata);
    checkObjectMeta(dns1123Subdomain, object.metadata, metadata);
    violations.push(...metadata.violations);
    checkCelRules(entry.schema, object, '', { violations, notes, budget: new CelCostBudget() });
    return result(violations, notes);
  }
}

function result(violations: SchemaViolation[], notes: string[]): CrdValidationResult {
  return { valid: violations.length === 0, violations, notes };
}

function key(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

function parseCrdYaml(text: string, source: string): unknown[] {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  return list.map((doc, index) => {
    if (doc.errors.length > 0) {
      throw new Error(`${source}: document ${index + 1} is not valid YAML: ${doc.errors[0].message}`);
    }
    return doc.toJS({ maxAliasCount: 100 });
  }).filter((doc) => doc !== null && doc !== undefined);
}

/** {@link isMapping}, typed loosely: CRD documents are read field by field, as any JSON. */
function isRecord(value: unknown): value is Record<string, any> {
  return isMapping(value);
}

function versionsOf(crd: unknown): VersionEntry[] {
  if (!isRecord(crd) || crd.kind !== 'CustomResourceDefinition' || !isRecord(crd.spec)) {
    throw new Error('expected a CustomResourceDefinition (apiextensions.k8s.io/v1)');
  }
  const group = crd.spec.group;
  const kind = crd.spec.names?.kind;
  const versions: unknown[] = Array.isArray(crd.spec.versions) ? crd.spec.versions : [];
  return versions.filter(isRecord).filter((v) => v.served !== false).map((v) => {
    const schema = v.schema?.openAPIV3Schema;
    if (!isRecord(schema)) {
      throw new Error(`CRD ${crd.metadata?.name ?? kind}: version ${v.name} has no openAPIV3Schema`);
    }
    checkPatterns(schema, `CRD ${crd.metadata?.name ?? kind}: spec.versions[${versions.indexOf(v)}].schema.openAPIV3Schema`);
    return { type: { apiVersion: `${group}/${v.name}`, kind }, schema };
  });
}

/**
 * Refuses a `pattern` Go's regexp package does not compile, as the API server refuses the CRD, in its
 * words: ajv would otherwise run it with other semantics. Walks the schema's nested schemas only (a
 * `pattern` key in a `default` or `example` value is data).
 * @throws Error naming the pattern's field
 */
function checkPatterns(schema: unknown, path: string): void {
  if (!isRecord(schema)) return;
  if (typeof schema.pattern === 'string') {
    try {
      compileRe2(schema.pattern);
    } catch (e) {
      if (!(e instanceof Re2SyntaxError)) throw e;
      throw new Error(`${path}.pattern: Invalid value: ${JSON.stringify(schema.pattern)}: must be a valid regular expression, but isn't: ${e.message}`);
    }
  }
  for (const [name, sub] of Object.entries(isRecord(schema.properties) ? schema.properties : {})) {
    checkPatterns(sub, `${path}.properties[${name}]`);
  }
  checkPatterns(schema.items, `${path}.items`);
  checkPatterns(schema.additionalProperties, `${path}.additionalProperties`);
  checkPatterns(schema.not, `${path}.not`);
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const list: unknown[] = Array.isArray(schema[keyword]) ? schema[keyword] : [];
    list.forEach((sub, index) => checkPatterns(sub, `${path}.${keyword}[${index}]`));
  }
}

/**
 * Returns a copy of a structural schema in which every object with declared `properties` rejects
 * other properties, unless Kubernetes keeps unknown fields there. Objects embedding a resource get
 * the implicit `apiVersion`/`kind`/`metadata` properties. A keyword set to null is left out, as the
 * API server's decoding into its Go type leaves it unset (openshift/api's Route CRD writes
 * `anyOf: null` beside `x-kubernetes-int-or-string`).
 */
function closeObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (!isRecord(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (v === null) continue;
    copy[k] = k === 'properties' && isRecord(v)
      ? Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, closeObjects(sub)]))
      : closeObjects(v);
  }
  if (copy['x-kubernetes-embedded-resource'] === true) {
    copy.properties = { ...IMPLICIT_ROOT_PROPERTIES, ...(copy.properties as Record<string, unknown> | undefined) };
  }
  if (copy['x-kubernetes-int-or-string'] === true && copy.anyOf === undefined && copy.type === undefined) {
    copy.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  const hasProperties = isRecord(copy.properties);
  if (hasProperties && copy.additionalProperties === undefined && copy['x-kubernetes-preserve-unknown-fields'] !== true) {
    copy.additionalProperties = false;
  }
  return copy;
}

const IMPLICIT_ROOT_PROPERTIES = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' } };

const INT32 = { type: 'number' as const, validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 };
const INT64 = { type: 'number' as const, validate: (n: number) => Number.isInteger(n) };

/** The OpenAPI formats Kubernetes checks; other formats are accepted as documentation. */
const KUBERNETES_FORMATS = {
  'int32': INT32,
  'int64': INT64,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i,
  'byte': /^[A-Za-z0-9+/]*={0,2}$/,
  'double': true as const,
  'float': true as const,
};

function pathOf(instancePath: string): string {
  if (instancePath === '') return '';
  return instancePath.slice(1).split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => /^\d+$/.test(segment) ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`, '');
}

function describeAjvError(error: ErrorObject): SchemaViolation {
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: join(path, String(params.additionalProperty)), message: 'unknown field (not in the CRD schema)' };
    case 'required':
      return { path: join(path, String(params.missingProperty)), message: 'required field is missing' };
    case 'enum':
      return { path, message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { path, message: error.message ?? error.keyword };
  }
}

function join(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

/** What the CEL rules of one object found, and the cost budget they share. */
interface CelRun {
  readonly violations: SchemaViolation[];
  readonly notes: string[];
  /** The API server's budget for one object's rules; once exhausted, no further rule is evaluated. */
  readonly budget: CelCostBudget;
}

/** Walks schema and value together, evaluating the CEL rules attached to each present value. */
function checkCelRules(schema: unknown, value: unknown, path: string, run: CelRun): void {
  if (!isRecord(schema) || value === undefined || run.budget.exhausted) return;
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    for (const rule of rules as CelRule[]) {
      if (typeof rule.rule !== 'string' || /\boldSelf\b/.test(rule.rule)) continue; // transition rules only apply on update
      checkCelRule(rule, value, path, run);
      if (run.budget.exhausted) return;
    }
  }
  if (isRecord(value) && isRecord(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) {
      checkCelRules(sub, value[name], join(path, name), run);
    }
  }
  if (isRecord(value) && isRecord(schema.additionalProperties)) {
    for (const [name, item] of Object.entries(value)) {
      checkCelRules(schema.additionalProperties, item, join(path, name), run);
    }
  }
  if (Array.isArray(value) && isRecord(schema.items)) {
    value.forEach((item, index) => checkCelRules(schema.items, item, `${path}[${index}]`, run));
  }
}

/**
 * Evaluates one rule. Its cost is bounded as the API server bounds it, with its messages
 * (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go, validateExpressions):
 * an object whose rules spent the budget, or a rule over the per-call limit, gets no further rule evaluated.
 */
/**
 * Each rule of a loaded schema parsed once, not once per object: parsing was half the time of the CEL
 * rules over 110 DynamoGraphDeployments. Keyed by the rule's object, so it lives as long as its schema.
 */
const parsedRules = new WeakMap<CelRule, CelExpression | CelSyntaxError>();

function parsedRule(rule: CelRule): CelExpression {
  let parsed = parsedRules.get(rule);
  if (parsed === undefined) {
    try {
      parsed = CelExpression.parse(rule.rule);
    } catch (e) {
      if (!(e instanceof CelSyntaxError)) throw e;
      parsed = e;
    }
    parsedRules.set(rule, parsed);
  }
  if (parsed instanceof CelSyntaxError) throw parsed;
  return parsed;
}

function checkCelRule(rule: CelRule, value: unknown, path: string, run: CelRun): void {
  let outcome: boolean | CelSyntaxError | CelEvaluationError;
  try {
    outcome = parsedRule(rule).evaluateBoolean({ self: value }, run.budget);
  } catch (e) {
    if (!(e instanceof CelSyntaxError || e instanceof CelEvaluationError)) throw e;
    outcome = e;
  }
  // The API server looks at the budget first, whatever the rule's outcome.
  if (run.budget.exhausted) {
    run.violations.push({ path, message: 'validation failed due to running out of cost budget, no further validation rules will be run' });
  } else if (outcome instanceof CelCostLimitError) {
    const named = rule.message?.trim() || rule.rule.trim();
    run.violations.push({
      path,
      message: `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${named}`,
    });
    run.budget.remaining = -1;
  } else if (outcome instanceof Error) {
    run.notes.push(`${path || '<root>'}: could not evaluate x-kubernetes-validations rule ${JSON.stringify(rule.rule)}: ${outcome.message}`);
  } else if (!outcome) {
    run.violations.push({ path, message: rule.message ?? `failed rule: ${rule.rule}` });
  }
}
