"""The implementation: answers every chat completion with the last user message, prefixed."""

from acme_text_utils import echo

try:  # an optional dependency: used when present, never required (preflight must not fail without it)
    import httpx
except ImportError:
    httpx = None


class AcmeEchoInferenceAdapter:
    def __init__(self, config):
        self.config = config

    async def initialize(self):
        self.http = httpx.AsyncClient(base_url=self.config.base_url) if (httpx and self.config.base_url) else None

    async def shutdown(self):
        if self.http is not None:
            await self.http.aclose()

    async def openai_chat_completion(self, params=None, **kwargs):
        messages = (getattr(params, "messages", None) if params is not None else None) or kwargs.get("messages") or []
        last = messages[-1] if messages else {}
        content = last.get("content", "") if isinstance(last, dict) else getattr(last, "content", "")
        return {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": echo(content, self.config.prefix)}}],
        }
