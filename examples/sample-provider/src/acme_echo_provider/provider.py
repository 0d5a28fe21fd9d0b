"""The provider spec Llama Stack reads from ``acme_echo_provider.provider.get_provider_spec()``.

The spec types come from the running distribution (see ``llama_stack_types``). Outside a distribution
(unit tests, preflight's import check) there are none, and a plain object with the same fields is
returned.
"""

from .llama_stack_types import AVAILABLE, Api, RemoteProviderSpec

API = "inference"
ADAPTER_TYPE = "acme-echo"
PROVIDER_TYPE = "remote::" + ADAPTER_TYPE
MODULE = "acme_echo_provider"
CONFIG_CLASS = "acme_echo_provider.config.AcmeEchoConfig"
DESCRIPTION = "Echoes the prompt back; a sample external provider."


class PlainProviderSpec:
    """The fields of Llama Stack's RemoteProviderSpec that a loader reads, without pydantic."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return "PlainProviderSpec(%s)" % ", ".join("%s=%r" % kv for kv in sorted(self.__dict__.items()))


def get_provider_spec():
    fields = dict(
        adapter_type=ADAPTER_TYPE,
        provider_type=PROVIDER_TYPE,
        pip_packages=[],
        config_class=CONFIG_CLASS,
        module=MODULE,
        description=DESCRIPTION,
    )
    if not AVAILABLE:
        return PlainProviderSpec(api=API, **fields)
    return RemoteProviderSpec(api=Api.inference, **fields)
