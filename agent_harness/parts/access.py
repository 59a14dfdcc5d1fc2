"""Access levels: what a tool does to the world, and what a skill lets an agent do with it.

``read`` looks things up, ``write`` stores or changes data, ``execute`` runs code. A tool
declares the level it needs (``@register(access_level=...)``); a skill grants a level per tool
it unlocks. Levels are ordered: a grant covers its own level and the weaker ones.
"""

from __future__ import annotations

__all__ = ["ACCESS_LEVELS", "allows", "strongest"]

#: Access levels, weakest first.
ACCESS_LEVELS = ("read", "write", "execute")


def allows(granted: str | None, needed: str) -> bool:
    """True when a grant covers what a tool needs: a ``read`` tool needs no grant; ``write``
    and ``execute`` need a grant at least as strong (``execute`` > ``write`` > ``read``)."""
    if needed == "read":
        return True
    return granted in ACCESS_LEVELS and ACCESS_LEVELS.index(granted) >= ACCESS_LEVELS.index(needed)


def strongest(levels) -> str | None:
    """The strongest of some access levels (None and unknown values are skipped)."""
    known = [lvl for lvl in levels if lvl in ACCESS_LEVELS]
    return max(known, key=ACCESS_LEVELS.index) if known else None
