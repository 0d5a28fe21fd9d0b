"""Llama Stack's own types, from wherever the running distribution keeps them.

llama-stack >= 0.4 ships them in its separate ``llama_stack_api`` package; 0.2 / 0.3 in
``llama_stack.apis.*`` and ``llama_stack.providers.datatypes`` (checked against 0.3.5 and 0.7.3). Neither
is a dependency of this wheel: the distribution image provides llama-stack. Outside a distribution (unit
tests, preflight's import check) neither exists, ``AVAILABLE`` is False and every name is None, so the
package still imports: an optional import, which preflight accepts.
"""

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
