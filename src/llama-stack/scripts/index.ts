import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import { join } from 'path';
import { compareStrings } from '../../checks';

/** File names of the init-container scripts, as the pod's scripts volume holds them. */
export const SCRIPT_FILES = {
  inspectDistribution: 'inspect-distribution.sh',
  inspectDistributionPython: 'inspect-distribution.py',
  findServerPython: 'find-server-python.sh',
  installProvider: 'install-provider.sh',
  installProviderPython: 'install-provider.py',
  providerPackages: 'provider_packages.py',
  extractDistributionConfig: 'extract-distribution-config.sh',
  extractDistributionConfigPython: 'extract-distribution-config.py',
  startServer: 'start-server.sh',
  launchServer: 'launch-server.sh',
  preflight: 'preflight.py',
  providerLoader: 'provider_loader.py',
} as const;

let scripts: Record<string, string> | undefined;

/**
 * The init-container scripts by file name, read from the files beside this module (in the merge
 * image, beside the bundled CLI). They are constant text, rendered into a ConfigMap or written into the
 * pod by the merge image (`write-init-scripts`); user values reach them only through environment
 * variables.
 */
export function initScripts(): Readonly<Record<string, string>> {
  scripts ??= Object.fromEntries(Object.values(SCRIPT_FILES).map((f) => [f, readFileSync(join(__dirname, f), 'utf8')]));
  return scripts;
}

let digest: string | undefined;

/**
 * The SHA-256 of the scripts, names and texts: rendered into the manifests (the pods' annotation, the
 * argument of `write-init-scripts`), so that a library upgrade that changes the scripts rolls the pods
 * and a merge image of another version refuses to write its own.
 */
export function initScriptsDigest(): string {
  if (digest === undefined) {
    const hash = createHash('sha256');
    for (const [file, text] of Object.entries(initScripts()).sort(([a], [b]) => compareStrings(a, b))) hash.update(`${file}\0${text}\0`);
    digest = hash.digest('hex');
  }
  return digest;
}
