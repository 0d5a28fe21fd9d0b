// Generic I/O for every command: bounded, atomic file access and untrusted YAML, read as kubectl and PyYAML read it.
export * from './files';
export * from './safe-yaml';
export { asKubectlReads } from './goyaml-schema';
export { asPyYamlReads } from './pyyaml-schema';
