import * as path from 'node:path';
import { Command, parseCommandArgs, UsageError } from './io';
import { BASE_CONFIG_DIR, MERGED_CONFIG_DIR, METADATA_DIR } from '../llama-stack/paths';
import { RunConfigError } from '../run-config/errors';
import { EXTRA_PROVIDERS_FILE } from '../run-config/external-providers';
import { describeFsError, readTextCapped, writeFilesAtomically } from '../run-config/files';
import { mergeRunConfig } from '../run-config/merge';
import { formatMergeLog, MERGE_LOG_FILE } from '../run-config/merge-log';
import { readExternalProviders } from '../run-config/metadata-dir';
import { DEFAULT_LLAMA_STACK_VERSION, findRelease, knownReleasesText } from '../run-config/releases';
import { CONFIG_LIMITS } from '../run-config/safe-yaml';

/** Pod paths of the merge init container; the construct mounts the volumes there. */
export const MERGE_CONFIG_DEFAULTS = {
  metadataDir: METADATA_DIR,
  baseConfigDir: BASE_CONFIG_DIR,
  outputDir: MERGED_CONFIG_DIR,
  /** The release line the distribution runs; the construct passes its `llamaStackVersion`. */
  llamaStackVersion: DEFAULT_LLAMA_STACK_VERSION,
} as const;

const USAGE = `Usage: kube-inference merge-config [--metadata-dir DIR] [--base-config FILE]
                                   [--output-dir DIR] [--config-file-name NAME]
                                   [--llama-stack-version VERSION]

Assembles the Llama Stack config in the merge init container: reads each external provider's
lls-provider-spec.yaml and crd-config.yaml from DIR/<providerId>/, merges the providers into the
base config (external providers replace base entries with the same provider_id, with a warning),
and writes NAME, ${EXTRA_PROVIDERS_FILE} and ${MERGE_LOG_FILE} into the output directory.

  --metadata-dir DIR       default ${MERGE_CONFIG_DEFAULTS.metadataDir}
  --base-config FILE       default ${MERGE_CONFIG_DEFAULTS.baseConfigDir}/<config-file-name>
  --output-dir DIR         default ${MERGE_CONFIG_DEFAULTS.outputDir}
  --config-file-name NAME  name of the merged config; default that of the release: config.yaml
                           (llama-stack >= 0.4) or run.yaml (older distributions)
  --llama-stack-version VERSION
                           the llama-stack release the distribution runs (${knownReleasesText()},
                           or a full version such as 0.7.3), default ${MERGE_CONFIG_DEFAULTS.llamaStackVersion}: the APIs
                           the providers and the base config may name

Exit status: 0 when the outputs were written; 1 on any error, reported on standard error with the
provider id, image, cause and fix, and nothing written; 2 on bad usage.
`;

interface MergeConfigOptions {
  readonly metadataDir: string;
  readonly baseConfig: string;
  readonly outputDir: string;
  readonly configFileName: string;
  readonly llamaStackVersion: string;
}

/** File names the command writes besides the config; the config may not take one of them. */
const RESERVED_NAMES: readonly string[] = [EXTRA_PROVIDERS_FILE, MERGE_LOG_FILE];

export const mergeConfigCommand: Command = {
  name: 'merge-config',
  usage: USAGE,
  run: async (args, io) => {
    const options = parseOptions(args, io.cwd);
    try {
      const providers = readExternalProviders(options.metadataDir);
      const baseText = readBaseConfig(options.baseConfig, options.configFileName);
      const result = mergeRunConfig(baseText, providers, { baseConfigSource: options.baseConfig, llamaStackVersion: options.llamaStackVersion });
      const names = [options.configFileName, EXTRA_PROVIDERS_FILE, MERGE_LOG_FILE];
      const log = formatMergeLog(result, {
        baseConfig: options.baseConfig,
        metadataDir: options.metadataDir,
        outputs: names.map((n) => path.join(options.outputDir, n)),
      });
      writeOutputs(options.outputDir, [
        { name: options.configFileName, text: result.configText },
        { name: EXTRA_PROVIDERS_FILE, text: result.extraProvidersText },
        { name: MERGE_LOG_FILE, text: log },
      ]);
      io.stdout(log);
      return 0;
    } catch (e) {
      if (e instanceof RunConfigError) {
        io.stderr(`${e.message}\n`);
        return 1;
      }
      // A bug, not bad input; still exit 1 (the contract of the init container) with the whole story.
      const detail = e instanceof Error ? e.stack ?? e.message : String(e);
      io.stderr(`ERROR: kube-inference merge-config failed unexpectedly; nothing was written. Please report this.\n${detail}\n`);
      return 1;
    }
  },
};

function parseOptions(args: string[], cwd: string): MergeConfigOptions {
  const { values, positionals } = parseCommandArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      'metadata-dir': { type: 'string' },
      'base-config': { type: 'string' },
      'output-dir': { type: 'string' },
      'config-file-name': { type: 'string' },
      'llama-stack-version': { type: 'string' },
    },
  });
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument '${positionals[0]}': merge-config takes options only`);
  }
  for (const [flag, value] of Object.entries(values)) {
    if (value === '') throw new UsageError(`--${flag} needs a non-empty value`);
  }
  const llamaStackVersion = values['llama-stack-version'] ?? MERGE_CONFIG_DEFAULTS.llamaStackVersion;
  const release = findRelease(llamaStackVersion);
  if (release === undefined) {
    throw new UsageError(`--llama-stack-version must name a llama-stack release: ${knownReleasesText()} `
      + `(or a full version such as 0.7.3); found '${llamaStackVersion}'`);
  }
  const configFileName = values['config-file-name'] ?? release.configFileName;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(configFileName) || RESERVED_NAMES.includes(configFileName)) {
    throw new UsageError('--config-file-name must be a plain file name such as config.yaml or run.yaml, '
      + `other than ${RESERVED_NAMES.join(' and ')}; found '${configFileName}'`);
  }
  return {
    metadataDir: path.resolve(cwd, values['metadata-dir'] ?? MERGE_CONFIG_DEFAULTS.metadataDir),
    baseConfig: path.resolve(cwd, values['base-config'] ?? path.posix.join(MERGE_CONFIG_DEFAULTS.baseConfigDir, configFileName)),
    outputDir: path.resolve(cwd, values['output-dir'] ?? MERGE_CONFIG_DEFAULTS.outputDir),
    configFileName,
    llamaStackVersion: release.version,
  };
}

function readBaseConfig(file: string, configFileName: string): string {
  try {
    return readTextCapped(file, CONFIG_LIMITS.maxBytes);
  } catch (e) {
    throw new RunConfigError([{
      title: 'Cannot read the base config',
      source: file,
      details: [describeFsError(e)],
      resolution: `Give a user config (a ConfigMap with key ${configFileName}) or let the config-extraction init container `
        + 'copy the distribution\'s config to this path; distributions older than llama-stack 0.4 name it run.yaml '
        + '(--config-file-name run.yaml).',
    }]);
  }
}

function writeOutputs(dir: string, files: Parameters<typeof writeFilesAtomically>[1]): void {
  try {
    writeFilesAtomically(dir, files);
  } catch (e) {
    throw new RunConfigError([{
      title: 'Cannot write the merged config',
      source: dir,
      details: [describeFsError(e), 'No output file was left half-written.'],
      resolution: 'Mount the config volume read-write in the merge init container, with room for the outputs.',
    }]);
  }
}
