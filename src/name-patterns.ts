// The syntax of Kubernetes names, label keys and values, and data keys: the patterns of
// k8s.io/apimachinery/pkg/util/validation/validation.go. The checks with the API server's messages are in
// schema/kubernetes/names.ts; the props' shape checks use these directly.

/** RFC 1123 subdomain of at most 253 characters (k8s.io/apimachinery IsDNS1123Subdomain): Secret and ConfigMap names. */
export const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** RFC 1123 label: namespaces, container names, provider ids. */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** RFC 1035 label: names that become Service names (must start with a letter). */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** The name part of a label or annotation key (at most 63 characters besides). */
export const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** A key of a ConfigMap's or Secret's data (at most 253 characters besides). */
export const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
/** An environment variable's name as Kubernetes took it before 1.32 (a C-like identifier, '-' and '.' too). */
export const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** A label value (at most 63 characters besides). */
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
