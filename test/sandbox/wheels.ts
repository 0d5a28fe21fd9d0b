/**
 * Builds real wheels for the sandboxed pods with test/sandbox/python/build_wheel.py (standard
 * library only: no PyPI, no `wheel` package here). pip installs them like any published wheel.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, run } from './images';

const BUILDER = path.join(__dirname, 'python', 'build_wheel.py');

/** The sample provider of examples/sample-provider and its dependency. */
export const SAMPLE_PROVIDER_DIR = path.join(REPO_ROOT, 'examples', 'sample-provider');

/** Builds the wheel of a project directory holding a pyproject.toml; returns the wheel's path. */
export function buildProjectWheel(projectDir: string, outDir: string): string {
  return run('python3', [BUILDER, '--project', projectDir, '--out', outDir]).trim();
}

/** A package made up on the spot. */
export interface SyntheticPackage {
  /** Distribution name, e.g. `acme-dep-3`. */
  readonly name: string;
  readonly version: string;
  /** Files of the package by path relative to the wheel root, e.g. `{ 'acme_dep_3/__init__.py': '...' }`. */
  readonly files: Readonly<Record<string, string>>;
  /** Requires-Dist entries. */
  readonly requires?: readonly string[];
  /** Wheel tag. @default 'py3-none-any' */
  readonly tag?: string;
  readonly requiresPython?: string;
  /** Files added as they are (archive path → host file), e.g. a prebuilt `.so`. */
  readonly extraFiles?: Readonly<Record<string, string>>;
}

/** Builds a wheel from files given in memory; returns the wheel's path. */
export function buildSyntheticWheel(pkg: SyntheticPackage, workDir: string, outDir: string): string {
  const src = path.join(workDir, `${pkg.name}-${pkg.version}-src`);
  fs.rmSync(src, { recursive: true, force: true });
  for (const [file, text] of Object.entries(pkg.files)) {
    fs.mkdirSync(path.dirname(path.join(src, file)), { recursive: true });
    fs.writeFileSync(path.join(src, file), text);
  }
  const args = [BUILDER, '--name', pkg.name, '--version', pkg.version, '--package-dir', src, '--out', outDir,
    '--tag', pkg.tag ?? 'py3-none-any'];
  for (const r of pkg.requires ?? []) args.push('--requires', r);
  if (pkg.requiresPython) args.push('--requires-python', pkg.requiresPython);
  for (const [archivePath, file] of Object.entries(pkg.extraFiles ?? {})) args.push('--extra-file', `${archivePath}=${file}`);
  return run('python3', args).trim();
}

/** The sample provider's wheels: the provider and its dependency, built from examples/sample-provider. */
export function sampleProviderWheels(outDir: string): string[] {
  return [
    buildProjectWheel(SAMPLE_PROVIDER_DIR, outDir),
    buildProjectWheel(path.join(SAMPLE_PROVIDER_DIR, 'deps', 'acme-text-utils'), outDir),
  ];
}

/** Python import name of a distribution name: `acme-dep-3` → `acme_dep_3`. */
export function importName(distName: string): string {
  return distName.replace(/[-.]+/g, '_').toLowerCase();
}

/**
 * A minimal provider package (the contract of the sample provider, parameterised): `<module>/provider.py`
 * with get_provider_spec() and `<module>/__init__.py` with get_adapter_impl(). `body` adds code to
 * `__init__.py` (e.g. imports of dependencies), `spec` overrides the runtime spec's fields.
 */
export function providerPackage(options: {
  readonly name: string;
  readonly version?: string;
  readonly api?: string;
  readonly providerType?: string;
  readonly requires?: readonly string[];
  readonly initBody?: string;
  readonly providerBody?: string;
  readonly spec?: Readonly<Record<string, string>>;
  readonly tag?: string;
  readonly extraFiles?: Readonly<Record<string, string>>;
}): SyntheticPackage {
  const mod = importName(options.name);
  const api = options.api ?? 'inference';
  const providerType = options.providerType ?? `remote::${options.name}`;
  const spec = { api, provider_type: providerType, module: mod, config_class: `${mod}.Config`, ...(options.spec ?? {}) };
  return {
    name: options.name,
    version: options.version ?? '1.0.0',
    requires: options.requires,
    tag: options.tag,
    extraFiles: options.extraFiles,
    files: {
      [`${mod}/__init__.py`]: [
        `"""Test provider ${options.name}."""`,
        options.initBody ?? '',
        'class Config:',
        '    def __init__(self, **config):',
        '        self.config = config',
        '',
        'class Adapter:',
        '    def __init__(self, config):',
        '        self.config = config',
        '',
        'async def get_adapter_impl(config, deps):',
        '    return Adapter(config)',
        '',
        'async def get_provider_impl(config, deps):',
        '    return Adapter(config)',
        '',
      ].join('\n'),
      [`${mod}/provider.py`]: [
        options.providerBody ?? '',
        'class Spec:',
        '    def __init__(self, **fields):',
        '        self.__dict__.update(fields)',
        '',
        'def get_provider_spec():',
        `    return Spec(**${JSON.stringify(spec)})`,
        '',
      ].join('\n'),
    },
  };
}

/** `lls-provider-spec.yaml` text for a provider package. */
export function providerMetadata(options: {
  readonly name: string;
  readonly version?: string;
  readonly api?: string;
  readonly providerType?: string;
  readonly packageName?: string;
  readonly wheels?: readonly string[];
}): string {
  const version = options.version ?? '1.0.0';
  const wheels = (options.wheels ?? []).map((w) => `/lls-provider/packages/${path.basename(w)}`);
  return [
    'apiVersion: llamastack.io/v1alpha1',
    'kind: ProviderPackage',
    'metadata:',
    `  name: ${options.name}`,
    `  version: ${version}`,
    '  vendor: tests',
    'spec:',
    `  packageName: ${options.packageName ?? importName(options.name)}`,
    `  providerType: ${options.providerType ?? `remote::${options.name}`}`,
    `  api: ${options.api ?? 'inference'}`,
    `  wheelPath: ${wheels[0] ?? `/lls-provider/packages/${importName(options.name)}-${version}-py3-none-any.whl`}`,
    ...(wheels.length > 1 ? ['  dependencyWheels:', ...wheels.slice(1).map((w) => `    - ${w}`)] : []),
    '',
  ].join('\n');
}
