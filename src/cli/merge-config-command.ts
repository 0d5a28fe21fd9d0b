import * as path from 'node:path';
import { Command, parseCommandArgs, UsageError } from './io';
import { isRecord } from '../checks';
import { describeFsError, readTextCapped, writeFilesAtomically, CONFIG_LIMITS } from '../io';
import { BASE_CONFIG_DIR, MERGED_CONFIG_DIR, METADATA_DIR } from '../llama-stack/pod/paths';
import { RunConfigError } from '../run-config/errors';
import { EXTRA_PROVIDERS_FILE } from '../run-config/external-providers';
import { mergeRunConfig } from '../run-config/merge';
import { formatMergeLog, MERGE_LOG_FILE } from '../run-config/merge-log';
import { readExternalProviders } from '../run-config/metadata-dir';
import { droppedKeysWarning, generateOgxConfig } from '../run-config/ogx-configgen';
import { DEFAULT_SERVER_VERSION, findRelease, knownReleasesText } from '../run-config/releases';
import { renderYaml } from '../run-config/render';
import { parseServedModels, ServedModel } from '../run-config/served-models';
import { ServerTransport } from '../run-config/server-transport';

/** Pod paths of the merge init container; the construct mounts the volumes there. */
export const MERGE_CONFIG_DEFAULTS = {
  metadataDir: METADATA_DIR,
  baseConfigDir: BASE_CONFIG_DIR,
  outputDir: MERGED_CONFIG_DIR,
  /** The release line the distribution runs; the construct passes its `serverVersion`. */
  serverVersion: DEFAULT_SERVER_VERSION,
} as const;

const USAGE = `Usage: kube-inference merge-config [--metadata-dir DIR | --no-providers] [--base-config FILE]
                                   [--output-dir DIR] [--config-file-name NAME]
                                   [--server-version VERSION]
                                   [--insecure | --tls-certfile FILE --tls-keyfile FILE [--tls-cafile FILE]]
                                   [--declarative-config JSON] [--served-models JSON]

Assembles the server's config (OGX, formerly Llama Stack) in the merge init container: reads each external provider's
lls-provider-spec.yaml and crd-config.yaml from DIR/<providerId>/, merges the providers into the
base config (external providers replace base entries with the same provider_id, with a warning),
and writes NAME, ${EXTRA_PROVIDERS_FILE} and ${MERGE_LOG_FILE} into the output directory.

  --metadata-dir DIR       default ${MERGE_CONFIG_DEFAULTS.metadataDir}
  --no-providers           the pod has no external providers: no metadata directory is read, only the
                           server settings below are merged
  --base-config FILE       default ${MERGE_CONFIG_DEFAULTS.baseConfigDir}/<config-file-name>
  --output-dir DIR         default ${MERGE_CONFIG_DEFAULTS.outputDir}
  --config-file-name NAME  name of the merged config; default that of the release: config.yaml
                           (llama-stack >= 0.4) or run.yaml (older distributions)
  --server-version VERSION the ogx or llama-stack release the distribution runs (${knownReleasesText()},
                           or a full version such as 1.5.0), default ${MERGE_CONFIG_DEFAULTS.serverVersion}: the APIs
                           the providers and the base config may name (--llama-stack-version is its old name)
  --insecure               the pod serves plain HTTP: write server.insecure: true (ogx 1.2 and later refuse to start
                           without TLS otherwise; earlier releases ignore the key); refused when the base config sets TLS
  --tls-certfile FILE, --tls-keyfile FILE, --tls-cafile FILE
                           the pod serves TLS with these files: write server.tls_certfile, tls_keyfile (and tls_cafile,
                           for client certificates); refused when the base config names other files
  --declarative-config JSON
                           the declarative fields of an OGXServer spec (providers, resources, storage, disabledAPIs,
                           network.port): first generate the config from them over the base config, as the OGX
                           operator's config generator does (ogx releases only)
  --served-models JSON     models served in the cluster over an OpenAI-compatible API, a list of
                           {"providerId", "url", "model"}: each becomes a remote::vllm provider of
                           providers.inference and a model registered for it, as <providerId>/<model>

Exit status: 0 when the outputs were written; 1 on any error, reported on standard error with the
provider id, image, cause and fix, and nothing written; 2 on bad usage.
`;

interface MergeConfigOptions {
  /** Undefined with --no-providers. */
  readonly metadataDir?: string;
  readonly baseConfig: string;
  readonly outputDir: string;
  readonly configFileName: string;
  readonly serverVersion: string;
  readonly transport?: ServerTransport;
  /** The OGXServer spec whose declarative config is generated over the base config first. */
  readonly declarativeConfig?: Record<string, unknown>;
  /** Models served in the cluster, registered through remote::vllm providers. */
  readonly servedModels?: readonly ServedModel[];
  /** Warnings about the command line itself (a deprecated flag). */
  readonly usageWarnings: readonly string[];
}

/** File names the command writes besides the config; the config may not take one of them. */
const RESERVED_NAMES: readonly string[] = [EXTRA_PROVIDERS_FILE, MERGE_LOG_FILE];

export const mergeConfigCommand: Command = {
  name: 'merge-config',
  usage: USAGE,
  run: async (args, io) => {
    const options = parseOptions(args, io.cwd);
    options.usageWarnings.forEach((w) => io.stderr(`warning: ${w}\n`));
    try {
      const providers = options.metadataDir === undefined ? [] : readExternalProviders(options.metadataDir);
      const read = readBaseConfig(options.baseConfig, options.configFileName);
      const generated = options.declarativeConfig === undefined ? undefined
        : generateOgxConfig(options.declarativeConfig, read, { baseConfigSource: options.baseConfig, forServer: true });
      if (generated !== undefined && generated.droppedBaseKeys.length > 0) io.stderr(`warning: ${droppedKeysWarning(generated.droppedBaseKeys)}\n`);
      const baseText = generated === undefined ? read : renderYaml(generated.config);
      const result = mergeRunConfig(baseText, providers, {
        baseConfigSource: options.baseConfig, serverVersion: options.serverVersion, transport: options.transport, servedModels: options.servedModels,
      });
      const names = [options.configFileName, EXTRA_PROVIDERS_FILE, MERGE_LOG_FILE];
      const log = formatMergeLog(result, {
        baseConfig: generated === undefined ? options.baseConfig
          : `${options.baseConfig}, with the OGXServer's declarative config generated over it (${generated.providerCount} providers, ${generated.resourceCount} models)`,
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
      'no-providers': { type: 'boolean' },
      'base-config': { type: 'string' },
      'output-dir': { type: 'string' },
      'config-file-name': { type: 'string' },
      'server-version': { type: 'string' },
      'llama-stack-version': { type: 'string' },
      'insecure': { type: 'boolean' },
      'tls-certfile': { type: 'string' },
      'tls-keyfile': { type: 'string' },
      'tls-cafile': { type: 'string' },
      'declarative-config': { type: 'string' },
      'served-models': { type: 'string' },
    },
  });
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument '${positionals[0]}': merge-config takes options only`);
  }
  for (const [flag, value] of Object.entries(values)) {
    if (value === '') throw new UsageError(`--${flag} needs a non-empty value`);
  }
  if (values['no-providers'] && values['metadata-dir'] !== undefined) {
    throw new UsageError('--no-providers and --metadata-dir contradict each other: give one of them');
  }
  const usageWarnings: string[] = [];
  const oldFlag = values['llama-stack-version'];
  if (oldFlag !== undefined && values['server-version'] !== undefined && oldFlag !== values['server-version']) {
    throw new UsageError(`--llama-stack-version is the old name of --server-version; give one of them, not '${oldFlag}' and '${values['server-version']}'`);
  }
  if (oldFlag !== undefined) usageWarnings.push('--llama-stack-version is deprecated: llama-stack was renamed OGX; use --server-version');
  const flag = values['server-version'] !== undefined || oldFlag === undefined ? '--server-version' : '--llama-stack-version';
  const serverVersion = values['server-version'] ?? oldFlag ?? MERGE_CONFIG_DEFAULTS.serverVersion;
  const release = findRelease(serverVersion);
  if (release === undefined) {
    throw new UsageError(`${flag} must name an ogx or llama-stack release: ${knownReleasesText()} `
      + `(or a full version such as 1.5.0); found '${serverVersion}'`);
  }
  const configFileName = values['config-file-name'] ?? release.configFileName;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(configFileName) || RESERVED_NAMES.includes(configFileName)) {
    throw new UsageError('--config-file-name must be a plain file name such as config.yaml or run.yaml, '
      + `other than ${RESERVED_NAMES.join(' and ')}; found '${configFileName}'`);
  }
  return {
    metadataDir: values['no-providers'] ? undefined : path.resolve(cwd, values['metadata-dir'] ?? MERGE_CONFIG_DEFAULTS.metadataDir),
    baseConfig: path.resolve(cwd, values['base-config'] ?? path.posix.join(MERGE_CONFIG_DEFAULTS.baseConfigDir, configFileName)),
    outputDir: path.resolve(cwd, values['output-dir'] ?? MERGE_CONFIG_DEFAULTS.outputDir),
    configFileName,
    serverVersion: release.version,
    transport: transportOf(values),
    declarativeConfig: declarativeConfigOf(values['declarative-config'], release.project),
    servedModels: servedModelsOf(values['served-models']),
    usageWarnings,
  };
}

/** The OGXServer spec of --declarative-config: a JSON object, for an ogx release. */
function declarativeConfigOf(json: string | undefined, project: string): Record<string, unknown> | undefined {
  if (json === undefined) return undefined;
  if (project !== 'ogx') throw new UsageError('--declarative-config generates the OGX operator\'s config, for ogx releases: give --server-version an ogx release');
  let spec: unknown;
  try {
    spec = JSON.parse(json);
  } catch (e) {
    throw new UsageError(`--declarative-config must be the OGXServer spec as JSON: ${(e as Error).message}`);
  }
  if (!isRecord(spec)) throw new UsageError('--declarative-config must be a JSON object: the OGXServer spec\'s declarative fields');
  return spec;
}

/** The served models of --served-models, checked as the construct checks them. */
function servedModelsOf(json: string | undefined): ServedModel[] | undefined {
  if (json === undefined) return undefined;
  try {
    return parseServedModels(json);
  } catch (e) {
    if (!(e instanceof RunConfigError)) throw e;
    throw new UsageError(`--served-models: ${e.issues.flatMap((i) => i.details).join('; ')}`);
  }
}

/** The transport the flags name: `--insecure`, or the TLS files (certificate and key both). */
function transportOf(values: Record<string, string | boolean | undefined>): ServerTransport | undefined {
  const [cert, key, ca] = (['tls-certfile', 'tls-keyfile', 'tls-cafile'] as const).map((f) => values[f] as string | undefined);
  if (values.insecure) {
    if (cert ?? key ?? ca) throw new UsageError('--insecure (plain HTTP) and --tls-* (TLS) contradict each other: give one of them');
    return 'insecure';
  }
  if (cert === undefined && key === undefined) {
    if (ca !== undefined) throw new UsageError('--tls-cafile needs --tls-certfile and --tls-keyfile: client certificates need a server certificate');
    return undefined;
  }
  if (cert === undefined || key === undefined) throw new UsageError('--tls-certfile and --tls-keyfile go together: give both');
  // The server reads them in the pod: absolute paths, as written.
  for (const [flag, file] of [['--tls-certfile', cert], ['--tls-keyfile', key], ['--tls-cafile', ca]] as const) {
    if (file !== undefined && !path.isAbsolute(file)) throw new UsageError(`${flag} must be an absolute path in the server container; found '${file}'`);
  }
  return { certFile: cert, keyFile: key, ...(ca !== undefined ? { caFile: ca } : {}) };
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
