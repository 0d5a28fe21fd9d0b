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
 *
 * Loaded by a real llama-stack server (0.3 or 0.7), it is a provider the server accepts: the spec is
 * llama-stack's own RemoteProviderSpec (InlineProviderSpec for `inline::` types), and the adapter has
 * every route method of its API's protocol, with the protocol's signature
 * (`core/resolver.py` check_protocol_compliance), answering none of them; an inference adapter lists
 * no models. Without llama-stack (unit tests) the spec is a plain object with the same fields.
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
        'from ._adapter import Adapter, Config',
        '',
        'async def get_adapter_impl(config, deps):',
        '    return Adapter.for_api(config)',
        '',
        'async def get_provider_impl(config, deps):',
        '    return Adapter.for_api(config)',
        '',
      ].join('\n'),
      [`${mod}/_adapter.py`]: SYNTHETIC_ADAPTER.replace('__API__', JSON.stringify(api)),
      [`${mod}/provider.py`]: [
        options.providerBody ?? '',
        SYNTHETIC_SPEC,
        'def get_provider_spec():',
        `    return make_spec(${JSON.stringify(spec)})`,
        '',
      ].join('\n'),
    },
  };
}

/**
 * `provider.py` of a synthetic provider: the server's own spec class when the server provides it (OGX's
 * `ogx_api` first: OGX refuses a spec of `llama_stack_api` classes, as the sample provider's
 * `llama_stack_types.py` explains).
 */
const SYNTHETIC_SPEC = `
try:  # ogx >= 0.8
    from ogx_api import Api, InlineProviderSpec, RemoteProviderSpec
except ImportError:
    try:  # llama-stack >= 0.4
        from llama_stack_api import Api, InlineProviderSpec, RemoteProviderSpec
    except ImportError:
        try:  # llama-stack 0.2 / 0.3
            from llama_stack.providers.datatypes import Api, InlineProviderSpec, RemoteProviderSpec
        except ImportError:
            Api = InlineProviderSpec = RemoteProviderSpec = None


class Spec:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def make_spec(fields):
    if RemoteProviderSpec is None:
        return Spec(**fields)
    fields = dict(fields, api=Api(fields["api"]), pip_packages=fields.get("pip_packages", []))
    if str(fields["provider_type"]).startswith("inline::"):
        return InlineProviderSpec(**fields)
    return RemoteProviderSpec(adapter_type=str(fields["provider_type"]).split("::", 1)[-1], **fields)
`;

/**
 * `_adapter.py` of a synthetic provider: the config class, and an adapter that has every route method
 * of its API's protocol (with the protocol's own signature, which the server compares) when llama-stack
 * is importable. Each route answers 501-like NotImplementedError; an inference adapter lists no models.
 */
const SYNTHETIC_ADAPTER = `
import inspect

API = __API__


class Config:
    def __init__(self, **config):
        self.config = config


def _protocols():
    """The protocol classes the server checks this API's implementations against."""
    try:  # ogx (ogx/core/resolver.py)
        from ogx.core.resolver import api_protocol_map
        from ogx_api import InferenceProvider
    except ImportError:
        try:
            from llama_stack.core.resolver import api_protocol_map
        except ImportError:
            return []
        try:
            from llama_stack_api import InferenceProvider
        except ImportError:
            from llama_stack.apis.inference import InferenceProvider
    found = [p for a, p in api_protocol_map().items() if a.value == API]
    return found + ([InferenceProvider] if API == "inference" else [])


def _route(name, signature):
    async def route(self, *args, **kwargs):
        raise NotImplementedError("%s is not served by this test provider" % name)
    route.__name__ = name
    route.__signature__ = signature
    return route


class Adapter:
    def __init__(self, config):
        self.config = config

    @classmethod
    def for_api(cls, config):
        routes = {}
        for protocol in _protocols():
            for name, fn in inspect.getmembers(protocol, inspect.isfunction):
                if not name.startswith("_") and not hasattr(cls, name):
                    routes[name] = _route(name, inspect.signature(fn))
        return type("SyntheticAdapter", (cls,), routes)(config) if routes else cls(config)

    async def initialize(self):
        pass

    async def shutdown(self):
        pass

    async def list_models(self):
        return []

    async def should_refresh_models(self):
        return False
`;

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
