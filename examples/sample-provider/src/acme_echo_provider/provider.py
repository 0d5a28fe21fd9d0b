"""The provider spec Llama Stack reads from ``acme_echo_provider.provider.get_provider_spec()``.

The spec types live in ``llama_stack_api`` (llama-stack >= 0.4) or ``llama_stack.providers.datatypes``
(earlier releases); both are provided by the distribution image, never shipped in the provider image.
Outside a distribution (unit tests, the preflight stand-in used by kube-inference-constructs' tests)
neither exists, and a plain object with the same fields is returned: an optional import, which
preflight must accept.
"""

API = "inference"
ADAPTER_TYPE = "acme-echo"
PROVIDER_TYPE = "remote::" + ADAPTER_TYPE
MODULE = "acme_echo_provider"
CONFIG_CLASS = "acme_echo_provider.config.AcmeEchoConfig"
DESCRIPTION = "Echoes the prompt back; a sample external provider."

try:  # llama-stack >= 0.4
    from llama_stack_api import Api, RemoteProviderSpec
except ImportError:
    try:  # llama-stack 0.2 / 0.3
        from llama_stack.providers.datatypes import Api, RemoteProviderSpec
    except ImportError:
        Api = RemoteProviderSpec = None


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
    if RemoteProviderSpec is None:
        return PlainProviderSpec(api=API, **fields)
    return RemoteProviderSpec(api=Api.inference, **fields)
