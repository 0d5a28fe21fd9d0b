// The API server's name and value syntax checks, with its messages
// (k8s.io/apimachinery/pkg/util/validation/validation.go). Each returns the problems found, none when
// the value is valid.
import { CONFIG_KEY, DNS1035_LABEL, DNS1123_LABEL, DNS1123_SUBDOMAIN, ENV_VAR_NAME, LABEL_NAME, LABEL_VALUE } from '../../name-patterns';

const PERCENT = /^[0-9]+%$/;
const IANA_SVC_NAME = /^[-a-z0-9]+$/;

const maxLength = (value: string, max: number) => (value.length > max ? [`must be no more than ${max} characters`] : []);

export function dns1123Label(value: string): string[] {
  return [
    ...maxLength(value, 63),
    ...(DNS1123_LABEL.test(value) ? [] : ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
  ];
}

export function dns1123Subdomain(value: string): string[] {
  return [
    ...maxLength(value, 253),
    ...(DNS1123_SUBDOMAIN.test(value) ? [] : ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
  ];
}

export function dns1035Label(value: string): string[] {
  return [
    ...maxLength(value, 63),
    ...(DNS1035_LABEL.test(value) ? [] : ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]),
  ];
}

/** Names of objects such as Roles and HorizontalPodAutoscalers: any path segment. */
export function pathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return [...['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`)];
}

/** A label or annotation key: `[DNS-subdomain prefix/]name`. */
export function qualifiedName(value: string): string[] {
  const parts = value.split('/');
  const problems: string[] = [];
  let name = value;
  if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else problems.push(...dns1123Subdomain(prefix).map((p) => `prefix part ${p}`));
  } else if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (name.length > 0 && !LABEL_NAME.test(name)) {
    problems.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  }
  return problems;
}

export function labelValue(value: string): string[] {
  return [
    ...maxLength(value, 63),
    ...(LABEL_VALUE.test(value) ? [] : ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]),
  ];
}

/** A named port: an IANA service name. */
export function ianaServiceName(value: string): string[] {
  const problems = maxLength(value, 15);
  if (!IANA_SVC_NAME.test(value)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (value.includes('--')) problems.push('must not contain consecutive hyphens');
  if (!/[a-z]/.test(value)) problems.push('must contain at least one letter (a-z)');
  if (value.startsWith('-') || value.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems;
}

/**
 * A percent string (`'25%'`), as an int-or-string field of a rollout or a disruption budget takes it;
 * `atMost100` where a share of the pods is meant.
 */
export function percent(value: string, atMost100: boolean): string[] {
  if (!PERCENT.test(value)) return ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"];
  return atMost100 && Number.parseInt(value, 10) > 100 ? ['must not be greater than 100%'] : [];
}

export function portNumber(value: number): string[] {
  return Number.isInteger(value) && value >= 1 && value <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/**
 * An environment variable's name. From Kubernetes 1.32 (RelaxedEnvironmentVariableValidation, beta and
 * on by default; GA in 1.34) any printable ASCII character but '='; before, a C-like identifier.
 */
export function envVarName(value: string, minor: number): string[] {
  if (minor >= 32) {
    return value.length > 0 && /^[\x20-\x7e]+$/.test(value) && !value.includes('=') ? [] : ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
  }
  return ENV_VAR_NAME.test(value) ? [] : ["a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"];
}

/** A key of a ConfigMap's or Secret's data. */
export function configKey(value: string): string[] {
  const problems = maxLength(value, 253);
  if (!CONFIG_KEY.test(value)) problems.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  if (value === '.') problems.push("must not be '.'");
  else if (value === '..') problems.push("must not be '..'");
  else if (value.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}
