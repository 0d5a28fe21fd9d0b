import { readFileSync } from 'fs';
import { join } from 'path';

/** File names of the init-container scripts, as mounted from the scripts ConfigMap. */
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
 * The init-container scripts by file name, read from the files beside this module. They are
 * constant text, rendered into a ConfigMap so a reviewer reads them once; user values reach them
 * only through environment variables.
 */
export function initScripts(): Readonly<Record<string, string>> {
  scripts ??= Object.fromEntries(Object.values(SCRIPT_FILES).map((f) => [f, readFileSync(join(__dirname, f), 'utf8')]));
  return scripts;
}
