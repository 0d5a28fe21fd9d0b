"""The provider's config class: Llama Stack builds it from the provider entry's ``config`` mapping."""

try:  # every Llama Stack distribution ships pydantic; the fallback keeps the module importable without it
    from pydantic import BaseModel
except ImportError:
    BaseModel = None

DEFAULT_PREFIX = "echo: "

if BaseModel is not None:

    class AcmeEchoConfig(BaseModel):
        prefix: str = DEFAULT_PREFIX
        # The service part's address (sidecar or Service): LlamaStackWithProviders fills it in. Empty: echo in-process.
        url: str = ""

else:

    class AcmeEchoConfig:  # type: ignore[no-redef]
        def __init__(self, prefix=DEFAULT_PREFIX, url="", **unknown):
            if unknown:
                raise TypeError("unknown config field(s): " + ", ".join(sorted(unknown)))
            self.prefix = prefix
            self.url = url
