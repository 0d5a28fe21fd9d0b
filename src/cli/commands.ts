/* eslint-disable @typescript-eslint/no-require-imports */
import { Command } from './io';

/** A subcommand as `--help` lists it; its module is loaded only when it runs. */
export interface CommandEntry {
  readonly name: string;
  /** One line for `kube-inference --help`. */
  readonly summary: string;
  /** Loads the command's module. */
  readonly load: () => Command;
}

// Loading lazily keeps each command's start-up to its own dependencies: the merge init container
// runs `merge-config` on every pod start and need not load cdk8s, ajv or the CRD schemas.
/** Every subcommand of `kube-inference`, in the order `--help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'render',
    summary: 'Render LlamaStackDistribution and ModelDeployment documents into manifests',
    load: () => (require('./render-command') as typeof import('./render-command')).renderCommand,
  },
  {
    name: 'validate',
    summary: 'Validate manifests against the Kubernetes and CRD schemas',
    load: () => (require('./validate-command') as typeof import('./validate-command')).validateCommand,
  },
  {
    name: 'merge-config',
    summary: 'Merge external providers into the server config (run by the merge init container)',
    load: () => (require('./merge-config-command') as typeof import('./merge-config-command')).mergeConfigCommand,
  },
  {
    name: 'write-init-scripts',
    summary: 'Write the init scripts into the pod\'s scripts volume (run by the merge image\'s first init container)',
    load: () => (require('./write-init-scripts-command') as typeof import('./write-init-scripts-command')).writeInitScriptsCommand,
  },
  {
    name: 'status',
    summary: 'Print the unified status of saved Workspace/DynamoGraphDeployment/RayService resources',
    load: () => (require('./status-command') as typeof import('./status-command')).statusCommand,
  },
];
