# preflight: checks every external provider before the Llama Stack server starts, so that a provider the
# server cannot load stops the container with the provider, its image, the cause and the fix, instead of
# a crash deep in the server's start-up. Upstream has no such command; start-server.sh runs this in the
# server container with the server's own Python and PYTHONPATH, so it imports exactly what the server
# will import.
#
# For each provider entry with `module:` of the config the server will load (OGX_CONFIG or LLAMA_STACK_CONFIG; without
# it, each installed provider as its metadata describes it), in spec order:
#   1. architecture: the native extensions (.so) of the provider's installed distributions are ELF files
#      for this machine and this CPython, and their wheel tags fit this platform; checked BEFORE any import;
#   2. loading, exactly as the server loads it (provider_loader.py, beside this script): `<module>.provider`,
#      get_provider_spec(), the spec picked by provider_type, the server's own spec validation, the
#      config class built from the entry's config, the factory the server calls;
#   3. dependencies: every requirement of the spec's pip_packages is met by what the server can import;
#   4. metadata: api and provider_type of lls-provider-spec.yaml are compared with the runtime spec; a
#      mismatch prints a non-blocking warning. The config entry (written from the metadata) wins: the
#      server registers the spec under the entry's API section and provider_type
#      (<package>/core/distribution.py get_external_providers_from_module, llama-stack 0.3.5 to ogx 1.5.0).
# And for every distribution in the provider packages: OpenTelemetry entry points, whose code the server's
# OpenTelemetry runs outside the provider's import, print a non-blocking warning (otel_warning).
# Exit status 0 when every provider passed (warnings allowed), 1 otherwise; every failure names the
# provider, its image, what failed and how to fix it.
#
# Inputs (environment): EXTERNAL_PROVIDERS_DIR (the shared volume, read-only here), OGX_CONFIG or
# LLAMA_STACK_CONFIG (the config the server will load: the variable of its release), SERVER_PACKAGE (the
# server's Python package: `ogx`, or `llama_stack`), PYTHONPATH.
# Standard library + PyYAML (a dependency of the server, so every distribution image has it); Python >= 3.8.
import importlib
import importlib.machinery
import importlib.metadata
import json
import os
import re
import struct
import sys
import sysconfig
import traceback

# Beside this script in the same ConfigMap (sys.path[0] is the script's directory).
from provider_loader import Entry, ImportFailed, Refused, Upstream, config_entries, load, unmet_pip_packages

SHARED = os.environ.get("EXTERNAL_PROVIDERS_DIR") or "/opt/llama-stack/external-providers"
PACKAGES = os.path.join(SHARED, "python-packages")
METADATA = os.path.join(SHARED, "metadata")
MANIFEST = os.path.join(SHARED, "installed-packages.txt")
CONFIG = os.environ.get("OGX_CONFIG") or os.environ.get("LLAMA_STACK_CONFIG") or ""
PACKAGE = os.environ.get("SERVER_PACKAGE") or ""
if not PACKAGE:
    sys.exit("ERROR: SERVER_PACKAGE is not set: the construct sets it to the server release's Python package (ogx, llama_stack).")

# ELF e_machine values (System V gABI) and the names Python's platform.machine() uses for them.
ELF_MACHINES = {
    3: "x86 (i386)", 8: "MIPS", 20: "PowerPC", 21: "PowerPC64", 22: "IBM S/390 (s390x)", 40: "ARM (32-bit)",
    62: "x86-64", 183: "AArch64 (arm64)", 243: "RISC-V", 258: "LoongArch",
}
ARCH_ALIASES = {
    "x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64", "i386": "i686",
    "i686": "i686", "x86": "i686", "win32": "i686", "ppc64le": "ppc64le", "ppc64": "ppc64", "s390x": "s390x",
    "armv7l": "armv7l", "armv6l": "armv6l", "riscv64": "riscv64", "loongarch64": "loongarch64",
    "universal2": "universal2",
}


def emit(text=""):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------------
# Inputs


class Provider:
    def __init__(self, directory):
        self.directory = directory
        # The provider key: its metadata directory's name, as installed-packages.txt records the owner.
        self.key = os.path.basename(directory)
        self.id = os.path.basename(directory)
        self.image = "(unknown image)"
        self.api = None
        self.order = 1 << 30
        self.package_name = None
        self.module = None
        self.meta_api = None
        self.meta_type = None
        self.config = {}
        self.installed = True
        self.errors = []
        self.warnings = []


def load_yaml_module():
    try:
        import yaml  # noqa: PLC0415 - the server depends on PyYAML, so the distribution image has it
    except ImportError:
        emit("ERROR: preflight needs PyYAML, which every ogx and llama-stack distribution installs; it is missing in "
             "this image (%s)." % sys.executable)
        emit("Resolution: run the server with an ogx (or llama-stack) distribution image, or disable preflight.")
        sys.exit(1)
    return yaml


def read_providers(yaml):
    providers = []
    if not os.path.isdir(METADATA):
        return providers
    for name in sorted(os.listdir(METADATA)):
        path = os.path.join(METADATA, name)
        if name.startswith(".") or not os.path.isdir(path):
            continue
        p = Provider(path)
        try:
            with open(os.path.join(path, "crd-config.yaml"), encoding="utf-8") as f:
                crd = json.load(f)
            if not isinstance(crd, dict):
                raise ValueError("not a JSON object")
            p.id = crd.get("providerId") or p.id
            p.image = crd.get("image") or p.image
            p.api = crd.get("api")
            p.order = int(crd.get("order", p.order))
            p.config = crd.get("config") or {}
        except (OSError, ValueError, TypeError) as e:
            p.errors.append(("metadata", "Cannot read %s/crd-config.yaml: %s" % (path, e),
                             "The provider's install init container writes this file; check its log."))
        try:
            with open(os.path.join(path, "lls-provider-spec.yaml"), encoding="utf-8") as f:
                meta = yaml.safe_load(f)
            spec = (meta or {}).get("spec") or {}
            p.package_name = str(spec.get("packageName") or "") or None
            p.meta_api = spec.get("api")
            p.meta_type = spec.get("providerType")
        except (OSError, yaml.YAMLError, AttributeError) as e:
            p.errors.append(("metadata", "Cannot read %s/lls-provider-spec.yaml: %s" % (path, e),
                             "Fix /lls-provider/lls-provider-spec.yaml in the provider image."))
        if p.package_name:
            p.module = p.package_name.split("==")[0].strip()
        elif not p.errors:
            p.errors.append(("metadata", "lls-provider-spec.yaml has no spec.packageName, so there is no module to import.",
                             "Set spec.packageName to the provider's Python package in the provider image's metadata."))
        providers.append(p)
    providers.sort(key=lambda p: (p.order, p.id))
    return providers


def read_owners():
    """Normalized distribution name -> provider key (its metadata directory's name), from installed-packages.txt."""
    owners = {}
    try:
        with open(MANIFEST, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^(\S+)==\S+ provider=(\S+) image=(\S+)$", line.strip())
                if m:
                    owners.setdefault(normalize(m.group(1)), m.group(2))
    except OSError:
        pass
    return owners


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


class Dist:
    def __init__(self, info_dir):
        self.info_dir = info_dir
        self.name, self.version = os.path.basename(info_dir)[: -len(".dist-info")], "?"
        self.tags = []
        self.files = []
        self.top_level = set()
        meta = read_text(os.path.join(info_dir, "METADATA"))
        for line in meta.splitlines():
            if line.startswith("Name:"):
                self.name = line.split(":", 1)[1].strip()
            elif line.startswith("Version:"):
                self.version = line.split(":", 1)[1].strip()
            elif not line.strip():
                break
        for line in read_text(os.path.join(info_dir, "WHEEL")).splitlines():
            if line.startswith("Tag:"):
                self.tags.append(line.split(":", 1)[1].strip())
        for line in read_text(os.path.join(info_dir, "RECORD")).splitlines():
            path = line.rsplit(",", 2)[0] if line.count(",") >= 2 else line
            if path and not path.startswith(".."):
                self.files.append(path)
                self.top_level.add(path.split("/")[0])

    @property
    def key(self):
        return normalize(self.name)

    def label(self):
        return "%s %s" % (self.name, self.version)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def read_dists():
    dists = []
    if os.path.isdir(PACKAGES):
        for entry in sorted(os.listdir(PACKAGES)):
            if entry.endswith(".dist-info"):
                dists.append(Dist(os.path.join(PACKAGES, entry)))
    return dists


# ---------------------------------------------------------------------------------------------------
# 1. Architecture, before any import


def elf_identity(path):
    """(class bits, endianness, e_machine) of an ELF file, or a string naming what else it is."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError as e:
        return "unreadable (%s)" % e
    if head[:4] == b"\x7fELF" and len(head) >= 20:
        bits = {1: 32, 2: 64}.get(head[4], 0)
        endian = {1: "<", 2: ">"}.get(head[5], "<")
        machine = struct.unpack(endian + "H", head[18:20])[0]
        return bits, endian, machine
    if head[:4] in (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe"):
        return "a macOS Mach-O binary"
    if head[:2] == b"MZ":
        return "a Windows PE binary"
    return "not an ELF shared object"


def describe_elf(identity):
    bits, endian, machine = identity
    return "%s, %d-bit, %s-endian" % (ELF_MACHINES.get(machine, "machine %d" % machine), bits,
                                      "little" if endian == "<" else "big")


def running_identity():
    """The ELF identity of this interpreter: the reference the extensions must match."""
    for candidate in (os.path.realpath(sys.executable), "/proc/self/exe"):
        ident = elf_identity(candidate)
        if isinstance(ident, tuple):
            return ident
    return None


def running_arch():
    plat = sysconfig.get_platform()  # e.g. linux-x86_64
    return ARCH_ALIASES.get(plat.split("-")[-1].lower(), plat.split("-")[-1].lower())


def platform_tag_problem(plat):
    """Why a wheel platform tag does not fit this interpreter's platform, or None."""
    if plat == "any":
        return None
    here = sys.platform
    if plat.startswith(("manylinux", "musllinux", "linux")):
        if not here.startswith("linux"):
            return "built for Linux, this is %s" % here
    elif plat.startswith("macosx"):
        return "built for macOS" if here != "darwin" else None
    elif plat.startswith("win"):
        return "built for Windows" if not here.startswith("win") else None
    arch = None
    for alias in sorted(ARCH_ALIASES, key=len, reverse=True):
        if plat.endswith("_" + alias) or plat == alias:
            arch = ARCH_ALIASES[alias]
            break
    if arch and arch not in (running_arch(), "universal2"):
        return "built for %s, this machine is %s" % (arch, running_arch())
    return None


def interpreter_tag_problem(py, abi):
    """Why a wheel's python/abi tags do not fit this CPython, or None."""
    impl = sys.implementation.name
    major, minor = sys.version_info[:2]
    here = "cp%d%d" % (major, minor) if impl == "cpython" else impl
    if abi in ("none",):
        return None
    if abi == "abi3":
        m = re.match(r"^cp(\d)(\d+)$", py)
        if impl != "cpython":
            return "built for the CPython stable ABI, this is %s" % impl
        if m and (int(m.group(1)), int(m.group(2))) > (major, minor):
            return "needs CPython >= %s.%s, this is %d.%d" % (m.group(1), m.group(2), major, minor)
        return None
    m = re.match(r"^cp(\d)(\d+)", abi)
    if m and "cp%s%s" % (m.group(1), m.group(2)) != here:
        return "built for CPython %s.%s (ABI %s), this server runs %s %d.%d" % (
            m.group(1), m.group(2), abi, impl, major, minor)
    return None


def check_wheel_tags(dist):
    """Problems when none of the wheel's tags fits this interpreter and platform."""
    if not dist.tags:
        return []
    reasons = []
    for tag in dist.tags:
        parts = tag.split("-")
        if len(parts) != 3:
            continue
        py, abi, plat = parts
        why = platform_tag_problem(plat) or interpreter_tag_problem(py, abi)
        if why is None:
            return []
        reasons.append("%s: %s" % (tag, why))
    return ["%s: wheel tag %s" % (dist.label(), r) for r in reasons]


SO_TAG = re.compile(r"\.cpython-(\d)(\d+)[a-z]*-([A-Za-z0-9_]+?)-([a-z]+)-([a-z0-9]+)\.so$")


def check_native_files(dist, reference):
    problems = []
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for rel in dist.files:
        if not (rel.endswith(".so") or ".so." in rel.rsplit("/", 1)[-1]):
            continue
        path = os.path.join(PACKAGES, rel)
        if not os.path.isfile(path):
            continue
        ident = elf_identity(path)
        if not isinstance(ident, tuple):
            problems.append("%s: %s is %s" % (dist.label(), rel, ident))
            continue
        if reference is not None and (ident[0], ident[1], ident[2]) != reference:
            problems.append("%s: %s is built for %s; this server runs on %s" % (
                dist.label(), rel, describe_elf(ident), describe_elf(reference)))
            continue
        m = SO_TAG.search(rel)
        if m and not any(rel.endswith(s) for s in suffixes if s != ".so"):
            problems.append("%s: %s is an extension for CPython %s.%s; this server runs %s %d.%d (accepts %s)" % (
                dist.label(), rel, m.group(1), m.group(2), sys.implementation.name, sys.version_info[0],
                sys.version_info[1], ", ".join(s for s in suffixes if s != ".so")))
    return problems


def check_architecture(p, dists, reference):
    problems = []
    for d in dists:
        problems += check_wheel_tags(d)
        problems += check_native_files(d, reference)
    if problems:
        p.errors.append((
            "architecture",
            "Native code in the provider's packages does not match this server's platform (%s, %s %d.%d):\n%s" % (
                sysconfig.get_platform(), sys.implementation.name, sys.version_info[0], sys.version_info[1],
                "\n".join("  - " + x for x in problems)),
            "Rebuild the provider image with wheels for %s and the distribution's Python %d.%d (for example "
            "`pip download --platform manylinux2014_%s --python-version %d.%d --only-binary=:all:`), or use "
            "pure-Python wheels." % (running_arch(), sys.version_info[0], sys.version_info[1], running_arch(),
                                     sys.version_info[0], sys.version_info[1]),
        ))
    return not problems


# ---------------------------------------------------------------------------------------------------
# 2.-4. Import, spec, metadata


def short_traceback(exc):
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(lines).rstrip().splitlines()
    return "\n".join("    " + line for line in text[-12:])


def where(module):
    path = getattr(module, "__file__", None) or "(namespace package)"
    return path


def describe_import_error(p, what, exc):
    if isinstance(exc, ModuleNotFoundError):
        missing = exc.name or "?"
        if missing == p.module + ".provider" and what == missing:
            return (
                "Module '%s' has no 'provider' submodule. The server imports '%s.provider' and calls its "
                "get_provider_spec(); it refuses the provider otherwise (\"get_provider_spec not found\")." % (p.module, p.module),
                "Add %s/provider.py defining get_provider_spec() to the provider package." % p.module.replace(".", "/"),
            )
        if missing == p.module or p.module.startswith(missing + "."):
            installed = sorted(e for e in os.listdir(PACKAGES)) if os.path.isdir(PACKAGES) else []
            return (
                "Module '%s' is not importable: it is not on PYTHONPATH.\n  PYTHONPATH=%s\n  Top-level entries in %s: %s" % (
                    p.module, os.environ.get("PYTHONPATH", ""), PACKAGES, ", ".join(installed) or "(none)"),
                "Set spec.packageName in lls-provider-spec.yaml to the import name of the package the provider "
                "wheel installs (e.g. my_org_provider, not my-org-provider), and make sure PYTHONPATH starts with %s."
                % PACKAGES,
            )
        return (
            "Importing '%s' failed: it needs module '%s', which is not installed.\n%s" % (p.module, missing, short_traceback(exc)),
            "Add a wheel providing '%s' to /lls-provider/packages/ in the provider image (installation is offline), "
            "or guard the import with try/except ImportError if the dependency is optional." % missing,
        )
    return (
        "Importing '%s' failed with %s: %s\n%s" % (what, type(exc).__name__, exc, short_traceback(exc)),
        "Fix the provider package so that it imports cleanly with the distribution's Python %d.%d and the "
        "packages installed in %s, then rebuild the provider image." % (sys.version_info[0], sys.version_info[1], PACKAGES),
    )


def field(spec, name):
    try:
        value = getattr(spec, name)
    except Exception:  # noqa: BLE001 - a property of a foreign object may raise anything
        value = None
    return getattr(value, "value", value)  # Api enum -> its string value


def compare_metadata(p, spec):
    """provider_type and api of the metadata against the runtime spec; mismatches warn, the config's values win."""
    rows = [("provider_type", p.meta_type, field(spec, "provider_type")), ("api", p.meta_api, field(spec, "api"))]
    if all(str(meta) == str(runtime) for _, meta, runtime in rows):
        return
    lines = ["WARNING: Provider metadata mismatch (non-blocking)", "", "Provider: " + p.id, "Image: " + p.image]
    for name, meta, runtime in rows:
        lines += ["", "Field: " + name, "  Metadata (lls-provider-spec.yaml): %s" % meta,
                  "  Runtime (get_provider_spec()): %s" % runtime]
        if str(meta) == str(runtime):
            lines.append("  Match \u2713")
        else:
            lines.append("  Using: %s (the config entry's value: the server registers the provider under it)" % meta)
    lines += ["", "Resolution: Update lls-provider-spec.yaml in the provider image to match get_provider_spec()."]
    p.warnings.append("\n".join(lines))


def read_config(yaml):
    """The config the server will load, parsed (None without a config variable or when it cannot be read)."""
    if not CONFIG:
        return None
    try:
        with open(CONFIG, encoding="utf-8") as f:
            config = yaml.safe_load(f) or {}
    except (OSError, yaml.YAMLError) as e:
        emit("WARNING: cannot read the server config %s to load the providers from it: %s" % (CONFIG, e))
        return None
    if not isinstance(config, dict):
        emit("WARNING: the server config %s is not a mapping; loading the installed providers as their metadata describes them." % CONFIG)
        return None
    return config


def check_in_config(providers, entries):
    """Warns when the config the server will load lacks an installed provider (the merge should add each)."""
    for p in providers:
        match = [e for e in entries if e.provider_id == p.id and e.api == p.api]
        if not match:
            p.warnings.append("Provider '%s' (image %s) is installed but %s has no provider with provider_id '%s' and a "
                              "module under providers.%s; the server will not load it." % (p.id, p.image, CONFIG, p.id, p.api))
        elif str(match[0].module).split("==")[0] != p.module:
            p.warnings.append("Provider '%s' in %s has module '%s', but its metadata names package '%s'." % (
                p.id, CONFIG, match[0].module, p.package_name))


def requirement_class():
    """packaging's Requirement from the server's environment (or pip's copy of it), or None."""
    for name in ("packaging.requirements", "pip._vendor.packaging.requirements"):
        try:
            return importlib.import_module(name).Requirement
        except ImportError:
            continue
    return None


def check_pip_packages(p, spec):
    unmet = []
    if getattr(spec, "pip_packages", None):
        requirement = requirement_class()
        if requirement is None:
            p.warnings.append("Provider '%s' declares pip_packages %s, which cannot be checked: neither packaging nor pip "
                              "is importable here." % (p.id, list(spec.pip_packages)))
            return
        unmet = unmet_pip_packages(spec, requirement)
    if unmet:
        p.errors.append(("dependencies", "The provider spec's pip_packages are not all installed:\n%s" % "\n".join(
            "  - %s: %s" % u for u in unmet),
            "Add wheels for them to /lls-provider/packages/ in the provider image (installation is offline), or use a "
            "distribution image that already has them."))


# ---------------------------------------------------------------------------------------------------
# OpenTelemetry entry points
#
# With an OTEL_* variable set, launch-server.sh starts the server through `opentelemetry-instrument`,
# which loads entry points of every distribution on the path (importlib.metadata, so the provider
# packages, first on PYTHONPATH, are read first: opentelemetry-python
# opentelemetry-api/src/opentelemetry/util/_importlib_metadata.py):
#   - every one of the groups below, at start, before the server's code and outside any provider's import
#     (opentelemetry-python-contrib opentelemetry-instrumentation/src/opentelemetry/instrumentation/
#     auto_instrumentation/__init__.py: run(), in opentelemetry-instrument before it execs the server,
#     loads opentelemetry_environment_variables; initialize(), from its sitecustomize in the server process,
#     calls _load_distro, _load_configurators, _load_instrumentors of _load.py; the first distro and
#     configurator are taken unless OTEL_PYTHON_DISTRO / OTEL_PYTHON_CONFIGURATOR name another, an
#     instrumentor unless OTEL_PYTHON_DISABLED_INSTRUMENTATIONS names it);
#   - any other opentelemetry_* group (propagators, context, exporters, samplers, id generators, resource
#     detectors, providers) by name, the first distribution declaring the name winning: the names the
#     OTEL_* settings or their defaults select (opentelemetry-api src/opentelemetry/propagate/__init__.py
#     for OTEL_PROPAGATORS, default tracecontext,baggage; opentelemetry-sdk
#     src/opentelemetry/sdk/_configuration/__init__.py _import_config_components for the exporters).
AUTO_LOADED_GROUPS = dict(
    dict.fromkeys(("opentelemetry_distro", "opentelemetry_configurator", "opentelemetry_pre_instrument",
                   "opentelemetry_instrumentor", "opentelemetry_post_instrument"), "loaded at every start"),
    opentelemetry_environment_variables="loaded at every start, by opentelemetry-instrument before it starts the server")
# Wheel metadata is the provider image's text: shown quoted (control characters escaped) and clipped.
SHOWN_LENGTH = 120


def quoted(text):
    text = str(text)
    return repr(text[:SHOWN_LENGTH]) + ("... (%d characters)" % len(text) if len(text) > SHOWN_LENGTH else "")


def otel_entry_points(dist):
    """The distribution's entry points in an opentelemetry_* group: (group, name, value), in file order."""
    points = importlib.metadata.Distribution.at(dist.info_dir).entry_points
    return [(ep.group, ep.name, ep.value) for ep in points if ep.group.startswith("opentelemetry_")]


def when_loaded(group, name):
    return AUTO_LOADED_GROUPS.get(group) or (
        "loaded when an OTEL_* setting or its default selects %s, ahead of the server's own of that name" % quoted(name))


def otel_warning(p, dist):
    """The warning for a distribution declaring OpenTelemetry entry points, or None."""
    try:
        listed = ["  - group %s, name %s: %s (%s)" % (quoted(g), quoted(n), quoted(v), when_loaded(g, n))
                  for g, n, v in otel_entry_points(dist)]
    except Exception as e:  # noqa: BLE001 - a hostile entry_points.txt may break the parser in any way
        listed = ["  - entry_points.txt cannot be read here (%s): it may declare any of them"
                  % quoted("%s: %s" % (type(e).__name__, e))]
    if not listed:
        return None
    otel = sorted(k for k in os.environ if k.startswith("OTEL_"))
    lines = ["WARNING: Provider package declares OpenTelemetry entry points (non-blocking)", "",
             "Provider: " + p.id, "Image: " + p.image, "Package: " + quoted(dist.label()), "",
             "Entry points:"] + listed
    lines += ["", "This is code of the provider image that OpenTelemetry runs inside the server process, before and outside "
              "the provider's own import: with an OTEL_* variable set, the server starts through opentelemetry-instrument, "
              "which loads these entry points at start.",
              ("This container sets %s: it runs at this start." % ", ".join(otel)) if otel else
              "This container sets no OTEL_* variable: auto-instrumentation is off at this start.",
              "", "Resolution: Set OTEL_* variables only with provider images you trust as much as the server itself; "
              "otherwise unset the server's OTEL_* variables, or use a provider wheel without these entry points."]
    return "\n".join(lines)


def unattributed():
    """Stands for the packages no provider installed (installed-packages.txt names no owner) in the checks."""
    p = Provider(os.path.join(METADATA, "(unattributed)"))
    p.id, p.module = "(packages without an owner in installed-packages.txt)", "-"
    return p


def check_otel_entry_points(providers, dists, owners, unowned):
    """Adds otel_warning to the provider that installed each distribution, `unowned` where none did."""
    by_key = {p.key: p for p in providers}
    for d in dists:
        owner = by_key.get(owners.get(d.key), unowned)
        warning = otel_warning(owner, d)
        if warning:
            owner.warnings.append(warning)


# ---------------------------------------------------------------------------------------------------


def report_error(p, check, detail, resolution):
    lines = ["ERROR: Preflight check failed for external provider '%s'" % p.id, "",
             "Provider: " + p.id, "Image: " + p.image, "Module: %s" % (p.module or "(unknown)"), "Check: " + check, "",
             detail, "", "Resolution: " + resolution, ""]
    sys.stderr.write("\n".join(lines) + "\n")
    sys.stderr.flush()


def loaded(p, entry, upstream, run_config, dists, reference):
    """Checks one config entry; returns the spec the server would use, or None with p.errors filled."""
    p.module = str(entry.module).split("==")[0]
    if p.installed and not check_architecture(p, dists, reference):
        return None  # never import code built for another platform
    try:
        spec = load(entry, upstream, run_config)
    except Refused as r:
        p.errors.append((r.check, r.detail, r.resolution))
        return None
    except ImportFailed as f:
        detail, resolution = describe_import_error(p, f.what, f.cause)
        p.errors.append(("import", detail, resolution))
        return None
    check_pip_packages(p, spec)
    if getattr(spec, "deprecation_warning", None):
        p.warnings.append("Provider '%s' is deprecated: %s" % (p.id, spec.deprecation_warning))
    return spec


def main():
    yaml = load_yaml_module()
    upstream = Upstream(PACKAGE)
    providers = read_providers(yaml)
    emit("Preflight: checking %d external provider(s) in %s with %s %s (%s)" % (
        len(providers), SHARED, sys.implementation.name, sys.version.split()[0], sysconfig.get_platform()))
    if not providers:
        emit("Preflight: no external providers installed; nothing to check.")
        return 0
    if upstream.broken:
        for p in providers:
            p.errors.append(("import", "The server's own %s fails to import with this PYTHONPATH: %s" % (PACKAGE, upstream.broken),
                             "When a package in %s replaces one the server needs (see installed-packages.txt), remove it "
                             "from the provider image; otherwise the distribution image itself is broken." % PACKAGES))
    elif upstream.missing:
        emit("WARNING: %s is not importable with %s (%s); the providers are loaded by the server's steps "
             "without the server's own classes to check their specs against." % (PACKAGE, sys.executable, upstream.missing))
    if os.path.realpath(PACKAGES) not in [os.path.realpath(x) for x in sys.path if x]:
        for p in providers:
            p.errors.append(("import", "%s is not on this Python's path (PYTHONPATH=%s), so the server cannot import any "
                             "external provider." % (PACKAGES, os.environ.get("PYTHONPATH", "")),
                             "Prepend %s to PYTHONPATH in the server container." % PACKAGES))

    config = read_config(yaml)
    run_config = {}
    if config is None:
        entries = [Entry(p.api, p.id, p.meta_type, p.package_name, p.config) for p in providers if p.package_name]
    else:
        try:
            entries, run_config = config_entries(config, upstream)
        except Exception as e:  # noqa: BLE001 - the server's own ${env.*} substitution refuses the config
            for p in providers:
                p.errors.append(("config", "The server cannot read %s: %s: %s" % (CONFIG, type(e).__name__, e),
                                 "Set the environment variables the config refers to, or give them defaults (${env.NAME:=default})."))
            entries = None
        if entries is None:
            entries = []
        else:
            check_in_config([p for p in providers if p.api], entries)

    dists = read_dists()
    owners = read_owners()
    unowned = unattributed()
    check_otel_entry_points(providers, dists, owners, unowned)
    reference = running_identity()
    checked = set()
    by_id = {p.id: p for p in providers}
    for entry in entries:
        p = by_id.get(entry.provider_id)
        if p is None:
            p = Provider(os.path.join(METADATA, str(entry.provider_id)))
            p.image = "(none: the config's own entry, not installed by an init container)"
            p.installed = False
            providers.append(p)
        if p.errors:
            continue
        top = str(entry.module).split("==")[0].split(".")[0]
        mine = [d for d in dists if owners.get(d.key) == p.key or top in d.top_level]
        checked.update(d.key for d in mine)
        spec = loaded(p, entry, upstream, run_config, mine, reference)
        if spec is None:
            continue
        module = sys.modules.get(p.module)
        origin = where(module) if module else "?"
        if p.installed and module is not None and getattr(module, "__file__", None) and not os.path.realpath(origin).startswith(
                os.path.realpath(PACKAGES) + os.sep):
            p.warnings.append("Module '%s' was imported from %s, not from the provider packages in %s; another copy "
                              "on PYTHONPATH shadows the provider image's." % (p.module, origin, PACKAGES))
        if p.installed:
            compare_metadata(p, spec)
        if not p.errors:
            emit("Preflight: provider '%s' (%s, api %s) OK: %s from %s" % (
                p.id, field(spec, "provider_type"), field(spec, "api"), p.module, origin))

    others = [d for d in dists if d.key not in checked]
    if others and not any(p.errors for p in providers) and not check_architecture(unowned, others, reference):
        providers.append(unowned)  # counted among the providers that failed

    warnings = [w for p in providers for w in p.warnings] + ([] if unowned in providers else unowned.warnings)
    for w in warnings:
        emit(w if w.startswith("WARNING:") else "WARNING: " + w)
        emit()
    failed = [p for p in providers if p.errors]
    for p in failed:
        for check, detail, resolution in p.errors:
            report_error(p, check, detail, resolution)
    if failed:
        sys.stderr.write("Preflight failed: %d of %d external provider(s) cannot be loaded (%s); the server was not started.\n" % (
            len(failed), len(providers), ", ".join("'%s'" % p.id for p in failed)))
        return 1
    emit("Preflight passed: %d external provider(s) ready (%d warning(s))." % (len(providers), len(warnings)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
