"""The memory hits of a turn's context, in its provenance trail.

The agent loop puts the memories most relevant to the question into the turn's context
(``build_context``: hybrid search, ``k=5``, tool outputs left out). :class:`KnowledgeRecorder`
is a turn hook that records those same hits as a ``knowledge`` event at the top of the turn's
trail (sequence number 0, before the ``tools_offered`` event), with one ``memory_hit`` child
per hit: its memory id, kind, subject, score and the start of its content. So a trail says
which memories the model was given, and :func:`hit_for_call` can say which one supplied a tool
call's argument (notebook 08's correction demo; the glass box panel).
"""

from __future__ import annotations

import json
import re

from agent_harness.agent.turns import TurnHooks, TurnResult
from agent_harness.backends.roles import utc_now

__all__ = ["KNOWLEDGE_K", "knowledge_hits", "KnowledgeRecorder", "hit_for_call", "hits_of"]

#: How many memories ``build_context`` puts into a turn's context (its ``k_knowledge``).
KNOWLEDGE_K = 5
_EXCERPT = 160
_VALUE = re.compile(r"[\w-]{3,}")


def knowledge_hits(harness, question: str, k: int = KNOWLEDGE_K) -> list:
    """The memories a turn's context carries for ``question``: the search ``build_context``
    makes (hybrid, tool outputs left out). Returns :class:`~agent_harness.parts.memory.Memory`
    rows, best first."""
    return harness.memory.search(question, k=k, mode="hybrid", exclude_kinds=["tool_output"])


def _hit_row(memory) -> dict:
    return {
        "memory_id": memory.id,
        "kind": memory.kind,
        "subject": memory.subject,
        "score": None if memory.score is None else round(float(memory.score), 6),
        "content": memory.content[:_EXCERPT],
    }


class KnowledgeRecorder(TurnHooks):
    """Records a turn's memory hits in its trail (a turn hook, after the provenance recorder,
    which writes the turn's row first).

    Attributes:
        latest: The hits of the turns running now, by turn id (as dicts: memory_id, kind,
            subject, score, content), for other hooks (the glass box panel) to read.
    """

    def __init__(self, harness) -> None:
        self.harness = harness
        self.latest: dict[str, list[dict]] = {}

    def on_turn_start(self, turn: TurnResult) -> None:
        hits = [_hit_row(m) for m in knowledge_hits(self.harness, turn.question)]
        self.latest[turn.turn_id] = hits
        store = self.harness.backend.provenance
        event = {"turn_id": turn.turn_id, "seq": 0, "at": utc_now()}
        parent = store.add_event(
            {**event, "kind": "knowledge", "name": "memory", "detail": {"count": len(hits)}}
        )
        for hit in hits:
            store.add_event(
                {
                    **event,
                    "parent_id": parent,
                    "kind": "memory_hit",
                    "name": hit["kind"],
                    "detail": hit,
                }
            )

    def on_turn_end(self, turn: TurnResult) -> None:
        self.latest.pop(turn.turn_id, None)

    def on_turn_error(self, turn: TurnResult, error: BaseException) -> None:
        self.latest.pop(turn.turn_id, None)


def hits_of(tree: dict) -> list[dict]:
    """The ``memory_hit`` details of a trail (``h.provenance.explain(turn_id)``), in order."""
    return [
        child["detail"]
        for event in tree.get("events", [])
        if event["kind"] == "knowledge"
        for child in event["children"]
        if child["kind"] == "memory_hit"
    ]


def hit_for_call(hits: list[dict], arguments: str | dict, question: str = "") -> dict | None:
    """The memory hit that supplied a value of a tool call's arguments: the first hit (episodes
    last) whose content holds one of the argument values (words of 3 characters or more,
    compared without case), or None. A value the ``question`` holds came from the user, not
    from a memory. ``arguments`` is the call's JSON text or dict."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return None
    asked = str(question or "").lower()
    values = [
        v.lower()
        for value in (arguments or {}).values()
        if isinstance(value, str)
        for v in _VALUE.findall(value)
        if v.lower() not in asked
    ]
    # What was said (a note, a correction) before what was answered (an episode repeats it).
    for hit in sorted(hits, key=lambda h: h.get("kind") == "episode"):
        content = str(hit.get("content", "")).lower()
        if any(v in content for v in values):
            return hit
    return None
