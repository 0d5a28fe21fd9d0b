/**
 * preflight.py and start-server.sh run directly with the host's Python and /bin/sh against a shared
 * directory laid out as the install init containers leave it (python-packages/, metadata/<id>/,
 * installed-packages.txt). Fast and exhaustive; test/pod-startup/preflight-pod.test.ts runs the same
 * scripts in the sandboxed pod.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { elfHeader, FOREIGN_ELF_MACHINE } from './native';
import { hostPython } from '../sandbox/host';
import { REPO_ROOT } from '../sandbox/images';

const PREFLIGHT = path.join(REPO_ROOT, 'src', 'llama-stack', 'scripts', 'preflight.py');
const START_SERVER = path.join(REPO_ROOT, 'src', 'llama-stack', 'scripts', 'start-server.sh');

interface FakeDist {
  readonly name: string;
  readonly version?: string;
  readonly files: Record<string, string | Buffer>;
  readonly tags?: string[];
  /** The text of its dist-info's entry_points.txt. */
  readonly entryPoints?: string;
}

/** A shared directory as the install containers leave it, built without pip (so any wheel tag can be faked). */
class Shared {
  public readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-preflight-'));
  public readonly packages = path.join(this.dir, 'python-packages');
  private manifest = '';
  private order = 0;

  public constructor() {
    fs.mkdirSync(this.packages, { recursive: true });
  }

  /** Installs a distribution's files and its dist-info into python-packages/, owned by `owner` in installed-packages.txt. */
  public install(owner: string, image: string, dist: FakeDist): this {
    const version = dist.version ?? '1.0.0';
    const info = `${dist.name.replace(/-/g, '_')}-${version}.dist-info`;
    const record: string[] = [];
    for (const [file, content] of Object.entries(dist.files)) {
      fs.mkdirSync(path.dirname(path.join(this.packages, file)), { recursive: true });
      fs.writeFileSync(path.join(this.packages, file), content);
      record.push(`${file},,`);
    }
    fs.mkdirSync(path.join(this.packages, info));
    fs.writeFileSync(path.join(this.packages, info, 'METADATA'), `Metadata-Version: 2.1\nName: ${dist.name}\nVersion: ${version}\n`);
    fs.writeFileSync(path.join(this.packages, info, 'WHEEL'), `Wheel-Version: 1.0\nRoot-Is-Purelib: true\n${(dist.tags ?? ['py3-none-any']).map((t) => `Tag: ${t}\n`).join('')}`);
    fs.writeFileSync(path.join(this.packages, info, 'RECORD'), [...record, `${info}/RECORD,,`].join('\n') + '\n');
    if (dist.entryPoints !== undefined) fs.writeFileSync(path.join(this.packages, info, 'entry_points.txt'), dist.entryPoints);
    this.manifest += `${dist.name}==${version} provider=${owner} image=${image}\n`;
    fs.writeFileSync(path.join(this.dir, 'installed-packages.txt'), this.manifest);
    return this;
  }

  /** Writes metadata/<key>/ as an install container does. */
  public provider(id: string, image: string, meta: { packageName: string; providerType: string; api: string }, crdApi = meta.api, key = id): this {
    const dir = path.join(this.dir, 'metadata', key);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'lls-provider-spec.yaml'), [
      'apiVersion: llamastack.io/v1alpha1', 'kind: ProviderPackage', 'metadata:', `  name: ${id}`, '  version: 1.0.0', '  vendor: tests',
      'spec:', `  packageName: ${meta.packageName}`, `  providerType: ${meta.providerType}`, `  api: ${meta.api}`,
      `  wheelPath: /lls-provider/packages/${id}.whl`, '',
    ].join('\n'));
    fs.writeFileSync(path.join(dir, 'crd-config.yaml'), JSON.stringify({ providerId: id, api: crdApi, crdSection: crdApi, image, order: this.order++ }) + '\n');
    return this;
  }

  public preflight(env: Record<string, string> = {}): { status: number; stdout: string; stderr: string } {
    const r = spawnSync(hostPython().executable, [PREFLIGHT], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, EXTERNAL_PROVIDERS_DIR: this.dir, PYTHONPATH: this.packages, PYTHONDONTWRITEBYTECODE: '1', SERVER_PACKAGE: 'llama_stack', ...env },
    });
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  public dispose(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A provider package: `<mod>/__init__.py` with the factory, `<mod>/provider.py` with get_provider_spec().
 * `spec` is a Python dict (or list of dicts) of the spec's fields, returned as objects with those attributes.
 */
function providerFiles(mod: string, opts: { spec?: string; init?: string; provider?: string } = {}): Record<string, string> {
  const spec = opts.spec ?? `{"api": "inference", "provider_type": "remote::${mod}", "module": "${mod}", "config_class": "${mod}.Config"}`;
  return {
    [`${mod}/__init__.py`]: `${opts.init ?? ''}\nclass Config:\n    def __init__(self, **c):\n        self.c = c\n\nasync def get_adapter_impl(config, deps):\n    return object()\n`,
    [`${mod}/provider.py`]: opts.provider ?? [
      'class Spec:', '    def __init__(self, **fields):', '        self.__dict__.update(fields)', '',
      'def get_provider_spec():', `    spec = ${spec}`, '    return [Spec(**s) for s in spec] if isinstance(spec, list) else Spec(**spec)', '',
    ].join('\n'),
  };
}

const IMG = 'registry.test/acme/p:1';

describe('preflight.py', () => {
  const made: Shared[] = [];
  const shared = () => {
    const s = new Shared();
    made.push(s);
    return s;
  };
  afterAll(() => made.forEach((s) => s.dispose()));

  test('passes a good provider, with an optional dependency missing (try/except import)', () => {
    const s = shared()
      .install('good', IMG, { name: 'good-pkg', files: providerFiles('good_pkg', { init: 'try:\n    import acme_fast_json\nexcept ImportError:\n    acme_fast_json = None\n' }) })
      .provider('good', IMG, { packageName: 'good_pkg==1.0.0', providerType: 'remote::good_pkg', api: 'inference' });
    const r = s.preflight();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Preflight: provider 'good' (remote::good_pkg, api inference) OK: good_pkg from ${s.packages}/good_pkg/__init__.py`);
    expect(r.stdout).toContain('Preflight passed: 1 external provider(s) ready (0 warning(s)).');
  });

  test('prints the seed\'s non-blocking warning when api or provider_type differ, and passes', () => {
    const s = shared()
      .install('custom-vllm', IMG, { name: 'custom-vllm', files: providerFiles('custom_vllm', { spec: '{"api": "inference", "provider_type": "remote::vllm-v2", "module": "custom_vllm", "config_class": "custom_vllm.Config"}' }) })
      .provider('custom-vllm', IMG, { packageName: 'custom_vllm', providerType: 'remote::custom-vllm', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain([
      'WARNING: Provider metadata mismatch (non-blocking)',
      '',
      'Provider: custom-vllm',
      `Image: ${IMG}`,
      '',
      'Field: provider_type',
      '  Metadata (lls-provider-spec.yaml): remote::custom-vllm',
      '  Runtime (get_provider_spec()): remote::vllm-v2',
      '  Using: remote::custom-vllm (the config entry\'s value: the server registers the provider under it)',
      '',
      'Field: api',
      '  Metadata (lls-provider-spec.yaml): inference',
      '  Runtime (get_provider_spec()): inference',
      '  Match \u2713',
    ].join('\n'));
    expect(r.stdout).toContain('Preflight passed: 1 external provider(s) ready (1 warning(s)).');
  });

  test('warns, without blocking the start, of OpenTelemetry entry points in a provider\'s packages, quoting the wheel\'s text', () => {
    const s = shared()
      .install('otel', IMG, {
        name: 'otel-p',
        files: { ...providerFiles('otel_p'), 'otel_p/hooks.py': 'class Instrumentor: pass\nclass Configurator: pass\n' },
        entryPoints: '[console_scripts]\notel-p = otel_p:main\n\n[opentelemetry_instrumentor]\nacme = otel_p.hooks:Instrumentor\n\n'
          + '[opentelemetry_configurator]\nacme = otel_p.hooks:Configurator\n',
      })
      .install('otel', IMG, { name: 'otel-dep', files: { 'otel_dep/__init__.py': '' }, entryPoints: '[opentelemetry_propagator]\ntracecontext = otel_dep:\u001b[2JP\n' })
      .install('otel', IMG, { name: 'garbled', files: { 'garbled/__init__.py': '' }, entryPoints: '[opentelemetry_instrumentor]\nno equals sign\n' })
      .provider('otel', IMG, { packageName: 'otel_p', providerType: 'remote::otel_p', api: 'inference' });
    const on = s.preflight({ OTEL_SERVICE_NAME: 'stack', OTEL_TRACES_EXPORTER: 'console' });
    expect(on.stderr).toBe('');
    expect(on.status).toBe(0);
    expect(on.stdout).toContain([
      'WARNING: Provider package declares OpenTelemetry entry points (non-blocking)',
      '',
      'Provider: otel',
      `Image: ${IMG}`,
      "Package: 'otel-p 1.0.0'",
      '',
      'Entry points:',
      "  - group 'opentelemetry_instrumentor', name 'acme': 'otel_p.hooks:Instrumentor' (loaded at every start)",
      "  - group 'opentelemetry_configurator', name 'acme': 'otel_p.hooks:Configurator' (loaded at every start)",
      '',
      'This is code of the provider image that OpenTelemetry runs inside the server process, before and outside the provider\'s own '
        + 'import: with an OTEL_* variable set, the server starts through opentelemetry-instrument, which loads these entry points at start.',
      'This container sets OTEL_SERVICE_NAME, OTEL_TRACES_EXPORTER: it runs at this start.',
      '',
      'Resolution: Set OTEL_* variables only with provider images you trust as much as the server itself; otherwise unset the server\'s '
        + 'OTEL_* variables, or use a provider wheel without these entry points.',
    ].join('\n'));
    expect(on.stdout).not.toContain('console_scripts');
    // A same-named propagator would be found before the server's own; the escape sequence is shown, not sent to the terminal.
    expect(on.stdout).toContain("  - group 'opentelemetry_propagator', name 'tracecontext': 'otel_dep:\\x1b[2JP' (loaded when an OTEL_* "
      + "setting or its default selects 'tracecontext', ahead of the server's own of that name)");
    expect(on.stdout).not.toContain('\u001b');
    expect(on.stdout).toMatch(/Package: 'garbled 1\.0\.0'\n\nEntry points:\n {2}- entry_points\.txt cannot be read here \(["']\w+: .*\): it may declare any of them\n/);
    expect(on.stdout).toContain("Preflight: provider 'otel' (remote::otel_p, api inference) OK");
    expect(on.stdout).toContain('Preflight passed: 1 external provider(s) ready (3 warning(s)).');

    const off = s.preflight();
    expect(off.status).toBe(0);
    expect(off.stdout).toContain("otel_p.hooks:Instrumentor' (loaded at every start)\n");
    expect(off.stdout).toContain('This container sets no OTEL_* variable: auto-instrumentation is off at this start.');
  });

  test('an Api enum in the runtime spec compares by value', () => {
    const s = shared()
      .install('enum', IMG, { name: 'enum-p', files: providerFiles('enum_p', { provider: 'import enum\nclass Api(enum.Enum):\n    inference = "inference"\nclass S:\n    api = Api.inference\n    provider_type = "remote::enum"\n    module = "enum_p"\n    config_class = "enum_p.Config"\ndef get_provider_spec():\n    return S()\n' }) })
      .provider('enum', IMG, { packageName: 'enum_p', providerType: 'remote::enum', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('mismatch');
  });

  test('detects a native extension for another architecture before importing anything', () => {
    const s = shared();
    const marker = path.join(s.dir, 'imported');
    s.install('native', IMG, {
      name: 'native-p',
      files: {
        ...providerFiles('native_p', { init: `open(${JSON.stringify(marker)}, "w").close()\n` }),
        'native_p/_speedups.cpython-311-x86_64-linux-gnu.so': elfHeader(FOREIGN_ELF_MACHINE),
      },
    }).provider('native', IMG, { packageName: 'native_p', providerType: 'remote::native_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("ERROR: Preflight check failed for external provider 'native'");
    expect(r.stderr).toContain(`Provider: native\nImage: ${IMG}\nModule: native_p\nCheck: architecture`);
    expect(r.stderr).toMatch(/native-p 1\.0\.0: native_p\/_speedups\.cpython-311-x86_64-linux-gnu\.so is built for (AArch64 \(arm64\)|x86-64), 64-bit, little-endian; this server runs on /);
    expect(r.stderr).toMatch(/Resolution: Rebuild the provider image with wheels for/);
    expect(r.stderr).toContain("Preflight failed: 1 of 1 external provider(s) cannot be loaded ('native')");
    expect(fs.existsSync(marker)).toBe(false);
  });

  test('a provider\'s packages are its own by its key, which installed-packages.txt records: a dependency is checked as the provider\'s', () => {
    const s = shared()
      .install('acme-dep', IMG, { name: 'acme-dep-p', files: providerFiles('acme_dep_p') })
      .install('acme-dep', IMG, { name: 'helper-lib', files: { 'helper_lib/__init__.py': '', 'helper_lib/_x.cpython-311-x86_64-linux-gnu.so': elfHeader(FOREIGN_ELF_MACHINE) } })
      .provider('acme_dep', IMG, { packageName: 'acme_dep_p', providerType: 'remote::acme_dep_p', api: 'inference' }, 'inference', 'acme-dep');
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`Provider: acme_dep\nImage: ${IMG}\nModule: acme_dep_p\nCheck: architecture`);
    expect(r.stderr).toContain("Preflight failed: 1 of 1 external provider(s) cannot be loaded ('acme_dep')");
  });

  test('packages no provider owns are checked as one, named the same in every message', () => {
    const unowned = '(packages without an owner in installed-packages.txt)';
    const s = shared()
      .install('good', IMG, { name: 'good-p', files: providerFiles('good_p') })
      .install('nobody', IMG, {
        name: 'stray-lib',
        files: { 'stray_lib/__init__.py': '', 'stray_lib/_x.cpython-311-x86_64-linux-gnu.so': elfHeader(FOREIGN_ELF_MACHINE) },
        entryPoints: '[opentelemetry_instrumentor]\nstray = stray_lib:Instrumentor\n',
      })
      .provider('good', IMG, { packageName: 'good_p', providerType: 'remote::good_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`WARNING: Provider package declares OpenTelemetry entry points (non-blocking)\n\nProvider: ${unowned}\n`);
    expect(r.stderr).toContain(`ERROR: Preflight check failed for external provider '${unowned}'`);
    expect(r.stderr).toContain(`Provider: ${unowned}\n`);
    expect(r.stderr).toContain('Module: -\nCheck: architecture');
    expect(r.stderr).toContain(`Preflight failed: 1 of 2 external provider(s) cannot be loaded ('${unowned}')`);
    // Without the foreign binary the same package only warns, and is no provider of the count.
    fs.rmSync(path.join(s.packages, 'stray_lib', '_x.cpython-311-x86_64-linux-gnu.so'));
    const ok = s.preflight();
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain(`Provider: ${unowned}\n`);
    expect(ok.stdout).toContain('Preflight passed: 1 external provider(s) ready (1 warning(s)).');
  });

  test('detects wheels and extensions built for another CPython, and non-Linux binaries', () => {
    const py = hostPython().version.replace('.', '');
    const other = `3${Number(py.slice(1)) + 1}`;
    const ownSo = fs.readdirSync(path.join(hostPython().prefix, 'lib', `python${hostPython().version}`, 'lib-dynload')).find((f) => f.startsWith('_json.'))!;
    const realSo = fs.readFileSync(path.join(hostPython().prefix, 'lib', `python${hostPython().version}`, 'lib-dynload', ownSo));
    const s = shared()
      .install('abi', IMG, {
        name: 'abi-p',
        tags: [`cp${other}-cp${other}-manylinux_2_17_${process.arch === 'x64' ? 'x86_64' : 'aarch64'}`],
        files: { ...providerFiles('abi_p'), [`abi_p/_ext.cpython-${other}-x86_64-linux-gnu.so`]: realSo },
      })
      .provider('abi', IMG, { packageName: 'abi_p', providerType: 'remote::abi_p', api: 'inference' })
      .install('mac', 'registry.test/acme/mac:1', { name: 'mac-p', files: { ...providerFiles('mac_p'), 'mac_p/_ext.abi3.so': Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]) } })
      .provider('mac', 'registry.test/acme/mac:1', { packageName: 'mac_p', providerType: 'remote::mac_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`abi-p 1\\.0\\.0: wheel tag cp${other}-cp${other}-\\S+: built for CPython 3\\.${Number(py.slice(1)) + 1} \\(ABI cp${other}\\), this server runs cpython ${hostPython().version}`));
    expect(r.stderr).toContain(`abi_p/_ext.cpython-${other}-x86_64-linux-gnu.so is an extension for CPython 3.${Number(py.slice(1)) + 1}`);
    expect(r.stderr).toContain('mac-p 1.0.0: mac_p/_ext.abi3.so is a macOS Mach-O binary');
    expect(r.stderr).toContain("('abi', 'mac')");
  });

  test('an import that fails names the missing module, the provider and the image', () => {
    const s = shared()
      .install('needy', IMG, { name: 'needy-p', files: providerFiles('needy_p', { init: 'import acme_not_shipped\n' }) })
      .provider('needy', IMG, { packageName: 'needy_p', providerType: 'remote::needy_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`Provider: needy\nImage: ${IMG}\nModule: needy_p\nCheck: import`);
    expect(r.stderr).toContain("Importing 'needy_p' failed: it needs module 'acme_not_shipped', which is not installed.");
    expect(r.stderr).toContain("Resolution: Add a wheel providing 'acme_not_shipped' to /lls-provider/packages/");
  });

  test('a packageName that is not importable lists what is on PYTHONPATH', () => {
    const s = shared()
      .install('typo', IMG, { name: 'real-name', files: providerFiles('real_name') })
      .provider('typo', IMG, { packageName: 'real-nam', providerType: 'remote::x', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Module 'real-nam' is not importable: it is not on PYTHONPATH.");
    expect(r.stderr).toContain('Top-level entries in');
    expect(r.stderr).toContain('real_name');
  });

  test('an exception at import time or in get_provider_spec() is reported with its traceback', () => {
    const s = shared()
      .install('boom', IMG, { name: 'boom-p', files: providerFiles('boom_p', { provider: 'def get_provider_spec():\n    raise RuntimeError("no spec today")\n' }) })
      .provider('boom', IMG, { packageName: 'boom_p', providerType: 'remote::boom_p', api: 'inference' })
      .install('nospec', IMG, { name: 'nospec-p', files: providerFiles('nospec_p', { provider: 'X = 1\n' }) })
      .provider('nospec', IMG, { packageName: 'nospec_p', providerType: 'remote::nospec_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Importing 'boom_p.provider' failed with RuntimeError: no spec today");
    expect(r.stderr).toContain('Traceback (most recent call last):');
    expect(r.stderr).toContain('nospec_p.provider has no get_provider_spec().');
  });

  test('checks the spec: a list is filtered by provider_type; the factory and config_class must exist', () => {
    const listSpec = '[{"api": "inference", "provider_type": "inline::other", "module": "multi_p", "config_class": "multi_p.Config"}, '
      + '{"api": "inference", "provider_type": "remote::multi", "module": "multi_p", "config_class": "multi_p.Config"}]';
    const s = shared()
      .install('multi', IMG, { name: 'multi-p', files: providerFiles('multi_p', { spec: listSpec }) })
      .provider('multi', IMG, { packageName: 'multi_p', providerType: 'remote::multi', api: 'inference' })
      .install('nolist', IMG, { name: 'nolist-p', files: providerFiles('nolist_p', { spec: listSpec.replace(/multi_p/g, 'nolist_p') }) })
      .provider('nolist', IMG, { packageName: 'nolist_p', providerType: 'remote::nolist', api: 'inference' })
      .install('nofactory', IMG, { name: 'nofactory-p', files: { ...providerFiles('nofactory_p', { spec: '{"api": "safety", "provider_type": "inline::nofactory", "module": "nofactory_p", "config_class": "nofactory_p.Config"}' }) } })
      .provider('nofactory', IMG, { packageName: 'nofactory_p', providerType: 'inline::nofactory', api: 'safety' })
      .install('noconfig', IMG, { name: 'noconfig-p', files: { ...providerFiles('noconfig_p', { spec: '{"api": "inference", "provider_type": "remote::noconfig", "module": "noconfig_p", "config_class": "noconfig_p.Missing"}' }) } })
      .provider('noconfig', IMG, { packageName: 'noconfig_p', providerType: 'remote::noconfig', api: 'inference' });
    const r = s.preflight();
    expect(r.stdout).toContain("Preflight: provider 'multi' (remote::multi, api inference) OK");
    expect(r.stderr).toContain("get_provider_spec() returned a list of 2 spec(s) with provider types inline::other, remote::multi; none has provider_type 'remote::nolist'");
    expect(r.stderr).toContain("The provider spec names module 'nofactory_p', which has no get_provider_impl()");
    expect(r.stderr).toContain("The provider spec's config_class 'noconfig_p.Missing' cannot be loaded: AttributeError");
    expect(r.stderr).toContain("('nolist', 'nofactory', 'noconfig')");
    expect(r.status).toBe(1);
  });

  test('refuses what the server refuses: no <module>.provider, a dict for a spec, a deprecated spec, a config the class rejects', () => {
    const deprecated = '{"api": "inference", "provider_type": "remote::old_p", "module": "old_p", "config_class": "old_p.Config", "deprecation_error": "use new-p"}';
    const s = shared()
      .install('flat', IMG, { name: 'flat-p', files: { 'flat_p/__init__.py': 'def get_provider_spec():\n    return None\nasync def get_adapter_impl(c, d):\n    return None\n' } })
      .provider('flat', IMG, { packageName: 'flat_p', providerType: 'remote::flat', api: 'inference' })
      .install('dict', IMG, { name: 'dict-p', files: providerFiles('dict_p', { provider: 'def get_provider_spec():\n    return [{"provider_type": "remote::dict_p"}]\n' }) })
      .provider('dict', IMG, { packageName: 'dict_p', providerType: 'remote::dict_p', api: 'inference' })
      .install('old', IMG, { name: 'old-p', files: providerFiles('old_p', { spec: deprecated }) })
      .provider('old', IMG, { packageName: 'old_p', providerType: 'remote::old_p', api: 'inference' })
      .install('strict', IMG, { name: 'strict-p', files: providerFiles('strict_p', { init: 'class Strict:\n    def __init__(self, url):\n        self.url = url\n', spec: '{"api": "inference", "provider_type": "remote::strict_p", "module": "strict_p", "config_class": "strict_p.Strict"}' }) })
      .provider('strict', IMG, { packageName: 'strict_p', providerType: 'remote::strict_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Module 'flat_p' has no 'provider' submodule. The server imports 'flat_p.provider' and calls its get_provider_spec()");
    expect(r.stderr).toContain("get_provider_spec() returned a list holding {'provider_type': 'remote::dict_p'}, which has no provider_type.");
    expect(r.stderr).toContain('The provider spec is deprecated and refused: use new-p');
    expect(r.stderr).toContain("The provider's config does not build its config class strict_p.Strict: TypeError");
    expect(r.stderr).toContain("('flat', 'dict', 'old', 'strict')");
  });

  test('the spec\'s pip_packages must be met by what the server can import (its own packages and the provider packages)', () => {
    const spec = '{"api": "inference", "provider_type": "remote::deps_p", "module": "deps_p", "config_class": "deps_p.Config", '
      + '"pip_packages": ["PyYAML>=5", "acme-absent>=1", "PyYAML<5", "deps-p==1.0.0", "acme-never; python_version < \'3\'"]}';
    const s = shared()
      .install('deps', IMG, { name: 'deps-p', files: providerFiles('deps_p', { spec }) })
      .provider('deps', IMG, { packageName: 'deps_p', providerType: 'remote::deps_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    const pyyaml = spawnSync(hostPython().executable, ['-c', 'import importlib.metadata as m; print(m.version("PyYAML"))'], { encoding: 'utf8' }).stdout.trim();
    expect(r.stderr).toContain([
      'Check: dependencies', '',
      "The provider spec's pip_packages are not all installed:",
      '  - acme-absent>=1: no installed distribution provides acme-absent',
      `  - PyYAML<5: PyYAML ${pyyaml} is installed`,
    ].join('\n'));
    expect(r.stderr).toContain('Resolution: Add wheels for them to /lls-provider/packages/ in the provider image');
  });

  test('a llama_stack that fails to import (a provider package shadowing the server\'s) fails every provider', () => {
    const s = shared()
      .install('shadow', IMG, { name: 'shadow-p', files: { ...providerFiles('shadow_p'), 'llama_stack/__init__.py': 'raise ImportError("shadowed by a provider")\n' } })
      .provider('shadow', IMG, { packageName: 'shadow_p', providerType: 'remote::shadow_p', api: 'inference' });
    const r = s.preflight();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("The server's own llama_stack fails to import with this PYTHONPATH: ImportError: shadowed by a provider");
  });

  test('fails when PYTHONPATH does not reach the installed packages, and cross-checks the server config', () => {
    const s = shared()
      .install('good', IMG, { name: 'good-pkg', files: providerFiles('good_pkg') })
      .provider('good', IMG, { packageName: 'good_pkg', providerType: 'remote::good_pkg', api: 'inference' });
    const noPath = s.preflight({ PYTHONPATH: '/nowhere' });
    expect(noPath.status).toBe(1);
    expect(noPath.stderr).toContain('python-packages is not on this Python\'s path (PYTHONPATH=/nowhere)');
    expect(noPath.stderr).toContain('Resolution: Prepend');

    const config = path.join(s.dir, 'config.yaml');
    fs.writeFileSync(config, 'providers:\n  inference:\n  - provider_id: other\n    provider_type: remote::x\n');
    const missing = s.preflight({ LLAMA_STACK_CONFIG: config });
    expect(missing.status).toBe(0);
    expect(missing.stdout).toContain(`WARNING: Provider 'good' (image ${IMG}) is installed but ${config} has no provider with provider_id 'good' and a module under providers.inference`);
  });

  test('every Python script is Python 3.8 grammar (the oldest Python a distribution or provider image may have)', () => {
    const scripts = fs.readdirSync(path.dirname(PREFLIGHT)).filter((f) => f.endsWith('.py')).map((f) => path.join(path.dirname(PREFLIGHT), f));
    expect(scripts.length).toBeGreaterThanOrEqual(5);
    const r = spawnSync(hostPython().executable, ['-c', 'import ast, sys\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f, feature_version=(3, 8))', ...scripts], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  test('nothing to check without providers', () => {
    const r = shared().preflight();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('no external providers installed');
  });

  test('without the server\'s package named (SERVER_PACKAGE), it stops and says so rather than guess llama_stack', () => {
    const r = shared().preflight({ SERVER_PACKAGE: '' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ERROR: SERVER_PACKAGE is not set');
  });
});

describe('start-server.sh', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-start-server-'));
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.copyFileSync(START_SERVER, path.join(dir, 'scripts', 'start-server.sh'));
    for (const script of ['find-server-python.sh', 'launch-server.sh']) {
      fs.copyFileSync(path.join(path.dirname(START_SERVER), script), path.join(dir, 'scripts', script));
    }
    // A preflight that reports which interpreter ran it, and fails on demand.
    fs.writeFileSync(path.join(dir, 'scripts', 'preflight.py'), 'import os, sys\nprint("preflight by", sys.executable)\nsys.exit(int(os.environ.get("FAIL", "0")))\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const start = (llamaShebang: string, env: Record<string, string>, args: string[] = []) => {
    fs.writeFileSync(path.join(dir, 'bin', 'llama'), `${llamaShebang}\nimport sys\nprint("llama", *sys.argv[1:])\n`, { mode: 0o755 });
    return spawnSync('/bin/sh', [path.join(dir, 'scripts', 'start-server.sh'), ...args], {
      encoding: 'utf8', env: { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, SERVER_COMMAND: 'llama stack run', ...env },
    });
  };

  test('runs preflight with the llama command\'s own interpreter, then execs llama stack run with the config', () => {
    const abs = start(`#!${hostPython().executable}`, { LLAMA_STACK_CONFIG: '/opt/llama-stack/config/config.yaml' });
    expect(abs.status).toBe(0);
    expect(abs.stdout).toBe(`preflight by ${hostPython().executable}\nllama stack run /opt/llama-stack/config/config.yaml\n`);
    const env = start('#!/usr/bin/env python3', { LLAMA_STACK_CONFIG: '/c.yaml' });
    expect(env.stdout).toMatch(/^preflight by \S*python3\S*\nllama stack run \/c\.yaml\n$/);
  });

  test('passes its arguments (the container\'s args) on to the server command', () => {
    const r = start(`#!${hostPython().executable}`, { LLAMA_STACK_CONFIG: '/c.yaml' }, ['--port', '9000']);
    expect(r.stdout).toBe(`preflight by ${hostPython().executable}\nllama stack run /c.yaml --port 9000\n`);
  });

  test('a failed preflight stops the container before the server starts', () => {
    const r = start(`#!${hostPython().executable}`, { LLAMA_STACK_CONFIG: '/c.yaml', FAIL: '1' });
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('llama stack run');
  });

  test('is POSIX sh', () => {
    const r = spawnSync('/bin/sh', ['-n', START_SERVER], { encoding: 'utf8' });
    expect(r.status).toBe(0);
  });

  test('needs the config variable of the release and its command', () => {
    const noConfig = start(`#!${hostPython().executable}`, {});
    expect(noConfig.status).toBe(1);
    expect(noConfig.stderr).toContain('neither OGX_CONFIG nor LLAMA_STACK_CONFIG is set');
    const noLlama = spawnSync('/bin/sh', [path.join(dir, 'scripts', 'start-server.sh')], {
      encoding: 'utf8', env: { PATH: '/usr/bin:/bin', LLAMA_STACK_CONFIG: '/c.yaml', SERVER_COMMAND: 'llama stack run' },
    });
    expect(noLlama.status).toBe(1);
    expect(noLlama.stderr).toContain('No `llama` command in the distribution image');
    // The release's command comes from SERVER_COMMAND: an ogx pod on a llama-stack image names what it misses.
    const noOgx = spawnSync('/bin/sh', [path.join(dir, 'scripts', 'start-server.sh')], {
      encoding: 'utf8', env: { PATH: '/usr/bin:/bin', OGX_CONFIG: '/c.yaml', SERVER_COMMAND: 'ogx run' },
    });
    expect(noOgx.status).toBe(1);
    expect(noOgx.stderr).toContain('No `ogx` command in the distribution image');
    expect(noOgx.stderr).toContain('set serverVersion to the release the image runs');
  });
});
