"""The words of a search query, the same on every backend (no SQL in here).

Each backend quotes these words in its own full-text syntax (FTS5 ``"word"`` OR-joined, Oracle
Text ``{word}`` ACCUM-joined); splitting the text into words first is what keeps every operator
of either syntax out of the query.
"""

from __future__ import annotations

import re

__all__ = ["MAX_QUERY_TOKENS", "STOP_WORDS", "query_tokens"]

_TOKEN = re.compile(r"\w+", re.UNICODE)
MAX_QUERY_TOKENS = 64

# Words too common to rank by: dropped from keyword queries unless nothing else is left.
STOP_WORDS = frozenset(
    "a an and are as at be by for from has have how i in is it its me my of on or our so that "
    "the their there these this to was we were what when where which who why will with you".split()
)


def query_tokens(text: str) -> list[str]:
    """The distinct words of a query (letters and digits of any script), lower-case, at most
    64, stop words removed unless the query has nothing else."""
    tokens: list[str] = []
    for token in _TOKEN.findall(str(text)[:20_000].lower()):
        if token not in tokens:
            tokens.append(token)
        if len(tokens) == MAX_QUERY_TOKENS:
            break
    content = [t for t in tokens if t not in STOP_WORDS]
    return content or tokens
