"""acme_echo_provider: a sample Llama Stack external inference provider.

Llama Stack loads an external provider named by `module:` in its config in two steps
(llama_stack/core/distribution.py and llama_stack/core/resolver.py):

1. ``importlib.import_module("acme_echo_provider.provider").get_provider_spec()`` returns the
   provider's spec (API, provider type, config class, implementation module);
2. ``importlib.import_module(spec.module).get_adapter_impl(config, deps)`` builds the implementation
   of a ``remote::`` provider (``get_provider_impl`` for an ``inline::`` one).

This module is ``spec.module``: it only exposes the factory and imports the heavy parts lazily.
"""

__version__ = "0.1.0"


async def get_adapter_impl(config, _deps):
    """Builds and initialises the adapter; called by the Llama Stack server at start-up."""
    from .adapter import AcmeEchoInferenceAdapter  # noqa: PLC0415 - imported when the server needs it

    impl = AcmeEchoInferenceAdapter(config)
    await impl.initialize()
    return impl
