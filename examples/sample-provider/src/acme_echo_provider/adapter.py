"""The implementation: one model, ``echo``, whose chat completions return the last user message, prefixed.

What the Llama Stack server calls (checked against llama-stack 0.3.5 and 0.7.3):

- ``list_models()`` once at start-up (``llama_stack/core/routing_tables/models.py`` ``refresh()``: a
  provider not yet listed is always listed once; ``should_refresh_models()`` False means never again).
  The server registers each model as ``<provider_id>/<provider_resource_id>``, so with
  ``provider_id: acme-echo`` clients ask for the model ``acme-echo/echo``.
- ``register_model()`` / ``unregister_model()`` for every registration (from that listing, from
  ``models:`` in the config, or ``POST /v1/models``) (``routing_tables/common.py``).
- ``openai_chat_completion(params)`` for ``POST /v1/chat/completions`` (``core/routers/inference.py``),
  with ``params.model`` already rewritten to the provider's own model id. The router reads the response's
  ``choices``, ``usage`` and ``model``, so it must be Llama Stack's ``OpenAIChatCompletion``.
- The resolver checks at start-up that the implementation has every route method of the Inference API
  (``core/resolver.py`` ``check_protocol_compliance``: ``openai_completion`` and ``openai_embeddings`` too).
"""

import time
import uuid

from acme_text_utils import echo

from . import llama_stack_types as lls

try:  # an optional dependency: used when present, never required (preflight must not fail without it)
    import httpx
except ImportError:
    httpx = None

MODEL_ID = "echo"


class AcmeEchoInferenceAdapter:
    def __init__(self, config):
        self.config = config

    async def initialize(self):
        self.http = httpx.AsyncClient(base_url=self.config.base_url) if (httpx and self.config.base_url) else None

    async def shutdown(self):
        if self.http is not None:
            await self.http.aclose()

    async def list_models(self):
        # __provider_id__ is set on the implementation by the server's resolver right after get_adapter_impl().
        return [
            lls.Model(
                identifier=MODEL_ID,
                provider_resource_id=MODEL_ID,
                provider_id=self.__provider_id__,
                model_type=lls.ModelType.llm,
            )
        ]

    async def should_refresh_models(self):
        return False

    async def register_model(self, model):
        if model.provider_resource_id != MODEL_ID:
            raise ValueError(
                "acme-echo serves only the model %r, not %r: register it with provider_model_id: %s"
                % (MODEL_ID, model.provider_resource_id, MODEL_ID)
            )
        return model

    async def unregister_model(self, model_id):
        """Nothing to release: the one model is not loaded from anywhere."""

    async def openai_chat_completion(self, params):
        if params.stream:
            raise ValueError('acme-echo does not stream: send "stream": false')
        prompt = text_of(params.messages[-1].content) if params.messages else ""
        answer = echo(prompt, self.config.prefix)
        # No tokenizer here: usage counts whitespace-separated words.
        prompt_words, answer_words = len(prompt.split()), len(answer.split())
        # Nested parts as plain mappings: the server's pydantic model validates them into its own types, whose
        # names differ between releases (the assistant message is OpenAIAssistantMessageParam in 0.3,
        # OpenAIChatCompletionResponseMessage in 0.7).
        return lls.OpenAIChatCompletion(
            id="chatcmpl-" + uuid.uuid4().hex,
            created=int(time.time()),
            model=params.model,
            choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
            usage={
                "prompt_tokens": prompt_words,
                "completion_tokens": answer_words,
                "total_tokens": prompt_words + answer_words,
            },
        )

    async def openai_completion(self, params):
        raise NotImplementedError("acme-echo serves only chat completions (POST /v1/chat/completions)")

    async def openai_embeddings(self, params):
        raise NotImplementedError("acme-echo serves only chat completions (POST /v1/chat/completions)")


def text_of(content):
    """The text of a message's content: a string, or a list of content parts of which the text parts count."""
    if isinstance(content, str):
        return content
    return " ".join(part.text for part in content or [] if getattr(part, "type", None) == "text")
