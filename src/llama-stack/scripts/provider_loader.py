# Loads external providers as the server (llama-stack, or OGX from 0.8) does, stopping short of starting
# them: used by preflight.py (beside it) in the server container, with the server's interpreter and
# PYTHONPATH. The server's package is SERVER_PACKAGE (`ogx`, or `llama_stack`); ogx keeps llama-stack's
# module layout under its own name (`ogx/core/...`).
#
# The server (llama-stack 0.3.5 and 0.7.3, ogx 1.1.3 and 1.5.0 alike):
#   - reads the config, substitutes ${env.*} (<package>/core/stack.py replace_env_vars) and parses
#     each provider entry (<package>/core/datatypes.py Provider);
#   - for every entry with `module:`, strips a `==version` pin, imports `<module>.provider`, calls
#     get_provider_spec(); a list is filtered by the entry's provider_type, anything else is registered
#     under the entry's provider_type (<package>/core/distribution.py get_external_providers_from_module);
#   - refuses a provider_type nothing registered and a spec with deprecation_error, then pairs the spec
#     with the entry in a ProviderWithSpec, a pydantic model whose `spec` must be a ProviderSpec of the
#     server's own API package: a spec from llama_stack_api is refused by ogx
#     (<package>/core/resolver.py validate_and_prepare_providers, validate_provider);
#   - imports the spec's module, builds its config_class from the entry's config and calls
#     get_adapter_impl (a RemoteProviderSpec) or get_provider_impl (any other spec) with it
#     (<package>/core/resolver.py instantiate_provider).
# With the server's package importable (a real distribution image) the server's own functions and
# classes do those steps; only calling the factory is left out, since it starts the provider. Without
# it the same steps run by attribute access, and `Upstream.missing` says why.
# Python >= 3.8, standard library only.
import importlib
import inspect
import types


# Where each server package's spec classes come from (the release table's providerSpecModule).
SPEC_MODULES = {
    "ogx": "ogx_api (ogx_api.provider from ogx 1.0)",
    "llama_stack": "llama_stack_api (llama-stack 0.4 to 0.7; llama_stack.providers.datatypes before)",
}


class Refused(Exception):
    """A step of the server's loading refuses the provider: (check, detail, resolution)."""

    def __init__(self, check, detail, resolution):
        Exception.__init__(self, detail)
        self.check, self.detail, self.resolution = check, detail, resolution


class ImportFailed(Exception):
    """Importing provider code failed; `cause` is the exception, `what` the module being imported."""

    def __init__(self, what, cause):
        Exception.__init__(self, str(cause))
        self.what, self.cause = what, cause


class Upstream:
    """The server's own loading functions and classes.

    `missing` says why not when the server's package is not there at all (preflight then mirrors the
    steps); `broken` says why not when it is there but fails to import, which the server would too.
    """

    def __init__(self, package):
        self.package = package
        self.missing = self.broken = None
        try:
            distribution = importlib.import_module(package + ".core.distribution")
            resolver = importlib.import_module(package + ".core.resolver")
            Provider = importlib.import_module(package + ".core.datatypes").Provider
            replace_env_vars = importlib.import_module(package + ".core.stack").replace_env_vars
            instantiate_class_type = importlib.import_module(package + ".core.utils.dynamic").instantiate_class_type
            self.get_external_providers_from_module = distribution.get_external_providers_from_module
            self.Api = distribution.Api
            self.validate_provider = resolver.validate_provider
            self.ProviderWithSpec = resolver.ProviderWithSpec
            self.RemoteProviderSpec = resolver.RemoteProviderSpec
        except Exception as e:  # noqa: BLE001 - the server's import would fail alike
            why = "%s: %s" % (type(e).__name__, e)
            if isinstance(e, ModuleNotFoundError) and e.name == package:
                self.missing = why
            else:
                self.broken, self.missing = why, why
            return
        self.Provider = Provider
        self.replace_env_vars = replace_env_vars
        self.instantiate_class_type = instantiate_class_type


class Entry:
    """One provider entry with `module:` of the config the server loads."""

    def __init__(self, api, provider_id, provider_type, module, config):
        self.api, self.provider_id, self.provider_type, self.module = api, provider_id, provider_type, module
        self.config = config if isinstance(config, dict) else {}


def config_entries(config, upstream):
    """The entries with `module:` of a parsed config, after the server's ${env.*} substitution."""
    if not upstream.missing:
        config = upstream.replace_env_vars(config)
    entries = []
    sections = config.get("providers") if isinstance(config, dict) else None
    for api, items in (sections or {}).items() if isinstance(sections, dict) else []:
        for item in items or []:
            if isinstance(item, dict) and item.get("module") is not None:
                entries.append(Entry(str(api), item.get("provider_id"), item.get("provider_type"), item.get("module"),
                                     item.get("config") or {}))
    return entries, config


def load(entry, upstream, run_config):
    """Loads an entry as the server does; returns its ProviderSpec or raises Refused / ImportFailed."""
    spec = _spec_upstream(entry, upstream) if not upstream.missing else _spec_mirrored(entry)
    _check_instantiation(entry, spec, upstream, run_config)
    return spec


def _provider_spec_of(entry, spec_or_list):
    """get_external_providers_from_module(): a list is filtered by the entry's provider_type (the last match wins)."""
    if not isinstance(spec_or_list, list):
        return spec_or_list
    chosen = None
    for candidate in spec_or_list:
        try:
            if candidate.provider_type != entry.provider_type:
                continue
        except AttributeError:
            raise Refused("spec", "get_provider_spec() returned a list holding %r, which has no provider_type." % (candidate,),
                          "Return ProviderSpec objects (RemoteProviderSpec or InlineProviderSpec), not dicts.")
        chosen = candidate
    if chosen is None:
        types_ = ", ".join(str(getattr(c, "provider_type", "?")) for c in spec_or_list) or "(none)"
        raise Refused("spec", "get_provider_spec() returned a list of %d spec(s) with provider types %s; none has provider_type "
                      "'%s' of the config's entry, so the server refuses it (\"Provider `%s` is not available for API `%s`\")."
                      % (len(spec_or_list), types_, entry.provider_type, entry.provider_type, entry.api),
                      "Set provider_type of the entry (spec.providerType in lls-provider-spec.yaml) to one of %s." % types_)
    return chosen


def _import_provider_module(entry):
    package_name = str(entry.module).split("==")[0]
    try:
        return importlib.import_module(package_name + ".provider")
    except Exception as e:  # noqa: BLE001 - the server fails on anything raised here
        raise ImportFailed(package_name + ".provider", e)


def _get_provider_spec(entry, module):
    if not hasattr(module, "get_provider_spec"):
        raise Refused("spec", "%s has no get_provider_spec()." % module.__name__,
                      "Define get_provider_spec() in %s returning the provider's ProviderSpec." % module.__name__)
    try:
        return module.get_provider_spec()
    except Exception as e:  # noqa: BLE001
        raise ImportFailed(module.__name__, e)


def _spec_upstream(entry, upstream):
    try:
        api = upstream.Api(entry.api)
    except ValueError:
        raise Refused("spec", "providers.%s of the config is not an API of this server release." % entry.api,
                      "Place the provider under one of: %s." % ", ".join(a.value for a in upstream.Api))
    try:
        provider = upstream.Provider(provider_id=entry.provider_id, provider_type=entry.provider_type, module=entry.module,
                                     config=entry.config)
    except Exception as e:  # noqa: BLE001 - pydantic's ValidationError
        raise Refused("config", "The config's entry is not a valid provider: %s" % e, "Fix the provider entry of the config.")
    module = _import_provider_module(entry)  # imported first, for the precise error get_external_providers_from_module hides
    spec_or_list = _get_provider_spec(entry, module)
    if isinstance(spec_or_list, list):
        _provider_spec_of(entry, spec_or_list)  # the precise refusal when nothing matches
    registry = {api: {}}
    try:
        upstream.get_external_providers_from_module(registry, types.SimpleNamespace(providers={entry.api: [provider]}), False)
        upstream.validate_provider(provider, api, registry)
        spec = registry[api][provider.provider_type]
        spec.deps__ = [a.value for a in spec.api_dependencies] + [a.value for a in spec.optional_api_dependencies]
        upstream.ProviderWithSpec(spec=spec, **provider.model_dump())
    except Refused:
        raise
    except Exception as e:  # noqa: BLE001 - whatever the server's own code raises, the server raises too
        raise Refused("spec", "The server refuses the provider spec: %s: %s" % (type(e).__name__, e),
                      "Make get_provider_spec() return a ProviderSpec (RemoteProviderSpec or InlineProviderSpec) of the server's own "
                      "API package without deprecation_error: %s. A provider for both lines imports the classes from ogx_api and "
                      "falls back to llama_stack_api." % SPEC_MODULES.get(upstream.package, upstream.package))
    return spec


def _spec_mirrored(entry):
    spec = _provider_spec_of(entry, _get_provider_spec(entry, _import_provider_module(entry)))
    missing = [f for f in ("api", "provider_type", "config_class") if not hasattr(spec, f)]
    if missing:
        raise Refused("spec", "get_provider_spec() returned %r, which is not a ProviderSpec (no %s)." % (spec, ", ".join(missing)),
                      "Return a ProviderSpec (RemoteProviderSpec or InlineProviderSpec) with api, provider_type and config_class.")
    if getattr(spec, "deprecation_error", None):
        raise Refused("spec", "The provider spec is deprecated and refused: %s" % spec.deprecation_error,
                      "Use a provider version that is not deprecated.")
    return spec


def _check_instantiation(entry, spec, upstream, run_config):
    """instantiate_provider() up to the factory call: module, config class and config, factory."""
    module_name = getattr(spec, "module", None)
    if module_name is None:
        raise Refused("spec", "The provider spec has no module, so the server cannot instantiate it.",
                      "Set module in the ProviderSpec get_provider_spec() returns (the package with the factory).")
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001
        raise ImportFailed(module_name, e)
    if upstream.missing:
        remote = str(getattr(spec, "provider_type", "")).startswith("remote::")
        instantiate_class_type = _instantiate_class_type
    else:
        remote = isinstance(spec, upstream.RemoteProviderSpec)
        instantiate_class_type = upstream.instantiate_class_type
    method = "get_adapter_impl" if remote else "get_provider_impl"
    try:
        config_type = instantiate_class_type(spec.config_class)
    except Exception as e:  # noqa: BLE001
        raise Refused("spec", "The provider spec's config_class '%s' cannot be loaded: %s: %s" % (spec.config_class, type(e).__name__, e),
                      "Point config_class at the provider's config class (module path and class name).")
    config = dict(entry.config)
    vector_stores = run_config.get("vector_stores") if isinstance(run_config, dict) else None
    if not remote and vector_stores is not None and "vector_stores_config" in (getattr(config_type, "__fields__", None) or {}):
        config["vector_stores_config"] = vector_stores  # resolver.py (0.7.3 to ogx 1.5) injects it into inline configs
    try:
        config_type(**config)
    except Exception as e:  # noqa: BLE001 - pydantic's ValidationError, or anything the class raises
        raise Refused("config", "The provider's config does not build its config class %s: %s: %s" % (
            spec.config_class, type(e).__name__, e),
            "Fix the provider's config (externalProviders[].config, or the entry in the server config) to match %s."
            % spec.config_class)
    factory = getattr(module, method, None)
    if not callable(factory):
        raise Refused("spec", "The provider spec names module '%s', which has no %s() (file: %s)." % (
            module_name, method, getattr(module, "__file__", None) or "(namespace package)"),
            "Define async %s(config, deps) in %s; the server calls it for a %s spec." % (
                method, module_name, "RemoteProviderSpec" if remote else "non-remote"))
    inspect.signature(factory)  # the server inspects it for a `policy` parameter


def _instantiate_class_type(fully_qualified_name):
    """<package>/core/utils/dynamic.py instantiate_class_type(), for when the server's package is not importable."""
    module_name, class_name = fully_qualified_name.rsplit(".", 1)
    module = importlib.import_module(module_name)
    return getattr(module, class_name)


def unmet_pip_packages(spec, requirement_class):
    """The requirements of the spec's pip_packages that nothing importable (server env + shared dir) satisfies."""
    from importlib import metadata

    unmet = []
    for text in getattr(spec, "pip_packages", None) or []:
        for req_text in _requirement_texts(str(text)):
            try:
                req = requirement_class(req_text)
            except Exception:  # noqa: BLE001 - packaging's InvalidRequirement
                unmet.append((text, "it is not a requirement pip understands"))
                continue
            if req.marker is not None and not req.marker.evaluate():
                continue
            try:
                have = metadata.version(req.name)
            except metadata.PackageNotFoundError:
                unmet.append((req_text, "no installed distribution provides %s" % req.name))
                continue
            if not req.specifier.contains(have, prereleases=True):
                unmet.append((req_text, "%s %s is installed" % (req.name, have)))
    return unmet


def _requirement_texts(text):
    """The requirements of one pip_packages entry: the server's own entries may carry pip options or list several."""
    head = text.split(" --", 1)[0].strip()
    if any(op in head for op in "<>=!~;[@") or " " not in head:
        return [head] if head else []
    return head.split()
