"""The implementation: one model, ``echo``, whose chat completions return the last user message, prefixed.

What the server calls (checked against llama-stack 0.3.5 and 0.7.3 and ogx 1.1.3 and 1.5.0; ogx keeps the
module paths below under `ogx/` instead of `llama_stack/`):

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
from .service import ECHO_ROUTE

try:  # an optional dependency: used when present, never required (preflight must not fail without it)
    import httpx
except ImportError:
    httpx = None

MODEL_ID = "echo"
SERVICE_TIMEOUT_SECONDS = 10


class AcmeEchoInferenceAdapter:
    def __init__(self, config):
        self.config = config

    async def initialize(self):
        # With a service part (config.url, filled in by the merge for a sidecar or a Service, at the key and
        # with the path spec.serviceAddress of lls-provider-spec.yaml names) the echo is the service's;
        # without one it runs in this process. httpx joins ECHO_ROUTE below the URL's path (/v1).
        self.http = None
        if self.config.url:
            if httpx is None:
                raise RuntimeError("acme-echo: config.url is set, and calling the service needs httpx, which is not installed")
            self.http = httpx.AsyncClient(base_url=self.config.url, timeout=SERVICE_TIMEOUT_SECONDS)

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
        completion_id, answer = await self.echo(prompt)
        # No tokenizer here: usage counts whitespace-separated words.
        prompt_words, answer_words = len(prompt.split()), len(answer.split())
        # Nested parts as plain mappings: the server's pydantic model validates them into its own types, whose
        # names differ between releases (the assistant message is OpenAIAssistantMessageParam in 0.3,
        # OpenAIChatCompletionResponseMessage in 0.7).
        return lls.OpenAIChatCompletion(
            id=completion_id,
            created=int(time.time()),
            model=params.model,
            choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
            usage={
                "prompt_tokens": prompt_words,
                "completion_tokens": answer_words,
                "total_tokens": prompt_words + answer_words,
            },
        )

    async def echo(self, prompt):
        """The completion's id and answer: from the service when there is one, else from this process."""
        if self.http is None:
            return "chatcmpl-" + uuid.uuid4().hex, echo(prompt, self.config.prefix)
        try:
            response = await self.http.post(ECHO_ROUTE, json={"text": prompt, "prefix": self.config.prefix})
            response.raise_for_status()
            answer = response.json()
            return answer["id"], answer["text"]
        except httpx.HTTPStatusError as e:
            raise RuntimeError(
                "acme-echo: the service at %s answered HTTP %d: %s" % (self.config.url, e.response.status_code, e.response.text)
            ) from e
        except httpx.HTTPError as e:
            # The server answers this request with an error and keeps serving; the next call tries again.
            raise ConnectionError(
                "acme-echo: the service at %s did not answer: %s" % (self.config.url, str(e) or type(e).__name__)
            ) from e

    async def openai_completion(self, params):
        raise NotImplementedError("acme-echo serves only chat completions (POST /v1/chat/completions)")

    async def openai_embeddings(self, params):
        raise NotImplementedError("acme-echo serves only chat completions (POST /v1/chat/completions)")


def text_of(content):
    """The text of a message's content: a string, or a list of content parts of which the text parts count."""
    if isinstance(content, str):
        return content
    return " ".join(part.text for part in content or [] if getattr(part, "type", None) == "text")
