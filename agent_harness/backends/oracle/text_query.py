"""Any user text as an Oracle Text ``CONTAINS`` query that cannot fail to parse (no SQL here).

The query text of ``CONTAINS`` is a mini-language: space-separated words are a phrase, and
``- & | , ; = ~ ? ! $ > * % _ ( ) [ ] { } \\`` and the words AND OR NOT NEAR ACCUM ABOUT MINUS
WITHIN are operators, so raw user text raises DRG-50901. Each word is escaped as ``{word}``
instead (inside braces everything is plain text; ``}}`` is a closing brace) and the words are
joined with ``ACCUM``, so a document scores higher the more of them it contains.

Oracle Text (18c and later) indexes a token of up to 255 bytes and truncates a longer one
("Token Limitations for Oracle Text Indexes", Oracle Text Reference 26); a query word is cut to
the same 255 bytes, which still finds the truncated token.
"""

from __future__ import annotations

from agent_harness.backends.search_words import query_tokens

__all__ = [
    "MAX_QUERY_BYTES",
    "MAX_TOKEN_BYTES",
    "NO_MATCH_WORD",
    "contains_query",
    "escape_text_token",
]

#: The only word of the index's stoplist: a query of just this word matches nothing, without
#: an error. It is what an empty or all-punctuation query becomes.
NO_MATCH_WORD = "zzqxworkshopnomatch"
MAX_TOKEN_BYTES = 255  # Oracle Text (18c+) keeps at most 255 bytes of a token
MAX_QUERY_BYTES = 3500  # stays below the 4000-byte VARCHAR2 limit of the query argument


def escape_text_token(token: str) -> str:
    """One word as an escaped Oracle Text term: ``{word}``, with ``}`` doubled inside.

    Inside braces every operator character and reserved word (AND, NEAR, ACCUM, ``%``, ``$``,
    ...) is plain text; ``}}`` is how a closing brace is written there.
    """
    return "{" + token.replace("}", "}}") + "}"


def _cut_utf8(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", "ignore")


def contains_query(text: str) -> str:
    """Turn any text into an Oracle Text ``CONTAINS`` query that cannot fail to parse.

    The words of :func:`~agent_harness.backends.search_words.query_tokens` (letters and digits of
    any script) are each escaped with :func:`escape_text_token` and joined with ``ACCUM``, so a
    document scores higher the more of the words it contains. Words are cut to 255 bytes, the
    whole query to 3500 bytes; no words at all gives the stopword :data:`NO_MATCH_WORD`, a
    valid query that matches nothing. Never raises.
    """
    parts: list[str] = []
    size = 0
    for token in query_tokens("" if text is None else text):
        token = _cut_utf8(token, MAX_TOKEN_BYTES)
        if not any(c.isalnum() for c in token):  # "_" alone is no word to the lexer
            continue
        part = escape_text_token(token)
        cost = len(part.encode("utf-8")) + (len(" ACCUM ") if parts else 0)
        if size + cost > MAX_QUERY_BYTES:
            break
        parts.append(part)
        size += cost
    return " ACCUM ".join(parts) if parts else escape_text_token(NO_MATCH_WORD)
