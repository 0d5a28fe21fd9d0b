"""The server's own types, from wherever the running distribution keeps them: one wheel for both lines.

OGX (the project's name from 0.8, formerly Llama Stack) ships them in its ``ogx_api`` package (the spec
classes also in ``ogx_api.provider``, its stable provider surface, from 1.0); llama-stack >= 0.4 in
``llama_stack_api``; 0.2 / 0.3 in ``llama_stack.apis.*`` and ``llama_stack.providers.datatypes`` (checked
against ogx 1.5.0 and 1.1.3 and llama-stack 0.7.3 and 0.3.5). ``ogx_api`` is tried first: OGX refuses a
spec built from ``llama_stack_api`` classes (its ``ProviderWithSpec`` validation), so where both are
importable (a provider's dependencies may bring ``llama_stack_api`` into an OGX pod) the server's own
must win. None is a dependency of this wheel: the distribution image provides the server. Outside a
distribution (unit tests, preflight's import check) none exists, ``AVAILABLE`` is False and every name is
None, so the package still imports: an optional import, which preflight accepts.
"""

try:  # ogx >= 0.8
    from ogx_api import Api, Model, ModelType, OpenAIChatCompletion, RemoteProviderSpec
except ImportError:
    try:  # llama-stack >= 0.4
        from llama_stack_api import Api, Model, ModelType, OpenAIChatCompletion, RemoteProviderSpec
    except ImportError:
        try:  # llama-stack 0.2 / 0.3
            from llama_stack.apis.inference import OpenAIChatCompletion
            from llama_stack.apis.models import Model, ModelType
            from llama_stack.providers.datatypes import Api, RemoteProviderSpec
        except ImportError:
            Api = Model = ModelType = OpenAIChatCompletion = RemoteProviderSpec = None

AVAILABLE = RemoteProviderSpec is not None
