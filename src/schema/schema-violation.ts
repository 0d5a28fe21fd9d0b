// What a schema check reports: shared by the CRD validator and the Kubernetes field checks it runs.

/** One way an object does not conform to its CRD schema. */
export interface SchemaViolation {
  /** Dotted path of the offending field, e.g. `spec.services.Frontend.replicas`; `` for the root. */
  readonly path: string;
  /** What is wrong, in the schema's terms. */
  readonly message: string;
}
