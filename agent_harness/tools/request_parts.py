"""Requests with several parts: find the parts, interleave their tool rankings.

"Find the median of these points, then tell me the mode, and lastly plot them" needs three
tools. Ranked as a whole, the top 5 tends to fill with tools for the most worded part; ranked
part by part, each part's best tool is near the top of its own list. Hybrid ranking
(:meth:`~agent_harness.tools.registry.ToolRegistry.rank`) ranks the whole request and each
part, and interleaves the lists: the whole request's first tool, each part's first tool, the
whole request's second tool, and so on, every tool once.

A request is split only where it says it has parts: a word such as "then", "also",
"lastly", "secondly" (:data:`MARKERS`), and then at those words and at sentence ends. A part
needs at least :data:`MIN_WORDS` words; at most :data:`MAX_PARTS` parts are ranked. Measured
on three public tool sets and the generated catalogue in ``bench/README.md``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["MARKERS", "MIN_WORDS", "MAX_PARTS", "request_parts", "interleave"]

#: Words that announce another part of a request.
MARKERS = (
    "and then",
    "also",
    "additionally",
    "then",
    "after that",
    "afterwards",
    "furthermore",
    "moreover",
    "first",
    "firstly",
    "second",
    "secondly",
    "third",
    "thirdly",
    "lastly",
    "finally",
)
#: A part shorter than this is a fragment ("Show the"), not a part.
MIN_WORDS = 3
#: At most this many parts are ranked (a long text costs at most this many statements more).
MAX_PARTS = 8

_LONGEST_FIRST = sorted(MARKERS, key=len, reverse=True)
_MARKER = re.compile(
    r"\b(?:" + "|".join(m.replace(" ", r"\s+") for m in _LONGEST_FIRST) + r")\b", re.I
)
_SPLIT = re.compile(r"(?<=[.?!;])\s+|\s*" + _MARKER.pattern + r"[,:]?\s*", re.I)
_TRIM = " \t\r\n\"'.,?!;:()"


def request_parts(text: str) -> list[str]:
    """The parts of a request that says it has several, else ``[]``.

    Args:
        text: The user's request (any text).

    Returns:
        Two to :data:`MAX_PARTS` parts of at least :data:`MIN_WORDS` words each, in order;
        ``[]`` when the text has no marker word or fewer than two such parts.
    """
    text = str(text or "")
    if not _MARKER.search(text):
        return []
    parts = [p.strip(_TRIM) for p in _SPLIT.split(text) if p and p.strip(_TRIM)]
    parts = [p for p in parts if len(p.split()) >= MIN_WORDS]
    return parts[:MAX_PARTS] if len(parts) > 1 else []


def interleave(lists: Sequence[Sequence[dict]], k: int | None = None) -> list[dict]:
    """Round-robin over ranked rows, each name once: the first of every list, then the second.

    Args:
        lists: Ranked rows (each with a ``name``), the whole request's list first.
        k: How many rows (None: all).

    Returns:
        Rows in interleaved order, each with ``part``: the index of the list it was taken from
        (0 for the whole request).
    """
    out: list[dict] = []
    seen: set[str] = set()
    for rank in range(max((len(rows) for rows in lists), default=0)):
        for part, rows in enumerate(lists):
            if rank < len(rows) and rows[rank]["name"] not in seen:
                seen.add(rows[rank]["name"])
                out.append({**rows[rank], "part": part})
                if k is not None and len(out) >= k:
                    return out
    return out
