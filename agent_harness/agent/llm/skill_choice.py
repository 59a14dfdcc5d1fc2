"""How the offline model loads a skill when the tool its script needs is not offered yet.

Under progressive disclosure (``agent_turn(..., strategy="disclose")``) a turn starts with a few
tools and the agent's skill manifest in the system prompt, one line per skill::

    - vessel-location-and-eta: Use when asked where a ship is ... [unlocks: vessel_position, ...]

A model that needs ``vessel_position`` reads the manifest and calls ``load_skill`` for a skill
that unlocks it; the next request then offers the tool. The offline model does the same: such
a **disclosure round** (its call ids start with :data:`DISCLOSURE_ID`) does not count as a step
of the scenario, so the script continues where it was once the tool is there.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["DISCLOSURE_ID", "read_manifest", "loaded_skills", "skill_for", "is_disclosure"]

#: Prefix of the ids of ``load_skill`` calls the offline model makes to unlock a tool.
DISCLOSURE_ID = "call_skill_"
_LINE = re.compile(
    r"^\s*- (?P<name>[a-z0-9][a-z0-9-]*): (?P<text>.*?)(?: \[unlocks: (?P<tools>[^\]]*)\])?\s*$"
)


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def read_manifest(messages: list[dict]) -> dict[str, dict]:
    """Skills listed in the system prompt: name -> {"description", "unlocks": [tools]}, in
    manifest order (empty when the prompt has no manifest)."""
    found: dict[str, dict] = {}
    for message in messages:
        if message.get("role") != "system":
            continue
        for line in _text(message.get("content")).splitlines():
            match = _LINE.match(line)
            if match:
                tools = [t.strip() for t in (match["tools"] or "").split(",") if t.strip()]
                found[match["name"]] = {"description": match["text"], "unlocks": tools}
    return found


def loaded_skills(messages: list[dict]) -> set[str]:
    """Skills this conversation already asked ``load_skill`` for."""
    names = set()
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            if function.get("name") != "load_skill":
                continue
            try:
                names.add(str(json.loads(function.get("arguments") or "{}").get("name")))
            except (ValueError, AttributeError):
                continue
    return names


def skill_for(tool: str, manifest: dict[str, dict], loaded: set[str]) -> str | None:
    """The skill to load for ``tool``: of the manifest's skills that unlock it and were not
    loaded yet, the one that unlocks the fewest tools (the most specific), first in the
    manifest on a tie; None when no skill unlocks it."""
    candidates = [
        (len(info["unlocks"]), position, name)
        for position, (name, info) in enumerate(manifest.items())
        if tool in info["unlocks"] and name not in loaded
    ]
    return min(candidates)[2] if candidates else None


def is_disclosure(call_ids: list[str]) -> bool:
    """True for a round made only of the offline model's own skill loads."""
    return bool(call_ids) and all(str(i).startswith(DISCLOSURE_ID) for i in call_ids)
