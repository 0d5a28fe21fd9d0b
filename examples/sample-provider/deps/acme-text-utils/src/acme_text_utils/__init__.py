"""Text helpers used by the sample echo provider."""

__version__ = "1.0.0"


def echo(text, prefix="echo: "):
    """Returns the text with a prefix, collapsing runs of whitespace."""
    return prefix + " ".join(str(text).split())
