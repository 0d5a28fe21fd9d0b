// The shape checks of the pod-level values of pod-spec.ts, shared by both constructs (and their YAML
// documents): what the API server's validation of a container's `env` refuses, said at synth time.
import { joinPath, ShapeChecker } from './checks';
import { ENV_VAR_NAME } from './name-patterns';

const ENV_SOURCES = ['secretKeyRef', 'configMapKeyRef', 'fieldRef', 'resourceFieldRef'] as const;

/** `env`: a list of variables, each named once, each with a value or a source. */
export function checkEnvVars(check: ShapeChecker, value: unknown, field: string): void {
  const env = check.list(value, field);
  if (!env) return;
  const seen = new Set<string>();
  env.forEach((item, index) => {
    const path = `${field}[${index}]`;
    const entry = check.object(item, path, ['name', 'value', 'valueFrom']);
    if (!entry) return;
    if (entry.name === undefined) check.problems.add(joinPath(path, 'name'), 'missing: every environment variable needs a name.');
    const name = check.string(entry.name, joinPath(path, 'name'), { pattern: ENV_VAR_NAME, patternHint: 'a valid environment variable name' });
    if (name !== undefined) {
      if (seen.has(name)) check.problems.add(joinPath(path, 'name'), `duplicate environment variable ${JSON.stringify(name)}`);
      seen.add(name);
    }
    checkEnvValue(check, entry, path);
  });
}

/**
 * `envVariables`: variables by name, each a value or a source, as cdk8s-plus's `EnvValue` holds them
 * (an instance of any cdk8s-plus major has exactly `value` and `valueFrom`).
 */
export function checkEnvValues(check: ShapeChecker, value: unknown, field: string): void {
  const values = check.map(value, field);
  for (const [name, item] of Object.entries(values ?? {})) {
    const path = joinPath(field, name);
    check.string(name, path, { pattern: ENV_VAR_NAME, patternHint: 'a valid environment variable name' });
    const entry = check.object(item, path, ['value', 'valueFrom']);
    if (entry) checkEnvValue(check, entry, path);
  }
}

/** The value of one variable: a literal or exactly one source. */
function checkEnvValue(check: ShapeChecker, entry: Record<string, unknown>, path: string): void {
  check.string(entry.value, joinPath(path, 'value'), { allowEmpty: true });
  if (entry.value !== undefined && entry.valueFrom !== undefined) {
    check.problems.add(path, 'set value or valueFrom, not both');
  }
  const from = check.object(entry.valueFrom, joinPath(path, 'valueFrom'), ENV_SOURCES);
  if (!from) return;
  const sources = ENV_SOURCES.filter((k) => from[k] !== undefined);
  if (sources.length !== 1) {
    check.problems.add(joinPath(path, 'valueFrom'), `set exactly one of ${ENV_SOURCES.join(', ')}`);
  }
  for (const ref of ['secretKeyRef', 'configMapKeyRef'] as const) {
    const selector = check.object(from[ref], joinPath(path, `valueFrom.${ref}`), ['name', 'key', 'optional']);
    if (!selector) continue;
    requiredStrings(check, selector, joinPath(path, `valueFrom.${ref}`), ['name', 'key']);
    check.boolean(selector.optional, joinPath(path, `valueFrom.${ref}.optional`));
  }
  const fieldRef = check.object(from.fieldRef, joinPath(path, 'valueFrom.fieldRef'), ['fieldPath', 'apiVersion']);
  if (fieldRef) {
    requiredStrings(check, fieldRef, joinPath(path, 'valueFrom.fieldRef'), ['fieldPath']);
    check.string(fieldRef.apiVersion, joinPath(path, 'valueFrom.fieldRef.apiVersion'));
  }
  const resourceRef = check.object(from.resourceFieldRef, joinPath(path, 'valueFrom.resourceFieldRef'), ['resource', 'containerName', 'divisor']);
  if (resourceRef) {
    requiredStrings(check, resourceRef, joinPath(path, 'valueFrom.resourceFieldRef'), ['resource']);
    check.string(resourceRef.containerName, joinPath(path, 'valueFrom.resourceFieldRef.containerName'));
    check.string(resourceRef.divisor, joinPath(path, 'valueFrom.resourceFieldRef.divisor'));
  }
}

function requiredStrings(check: ShapeChecker, map: Record<string, unknown>, path: string, fields: readonly string[]): void {
  for (const field of fields) {
    if (map[field] === undefined) check.problems.add(joinPath(path, field), `${field} is required`);
    check.string(map[field], joinPath(path, field));
  }
}
