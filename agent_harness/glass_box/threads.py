"""Conversations in the provenance tables: list them, reopen one.

Every turn is a row of ``agent_turns`` with its ``thread_id``
(:mod:`agent_harness.agent.provenance`),
so the threads, their questions and answers, and each turn's trail come back from the database
after a restart: the glass box's thread list and its "reopen" read them here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Thread", "threads", "thread_turns"]

#: How many of the latest turns the thread list looks at.
RECENT_TURNS = 500


@dataclass
class Thread:
    """One conversation.

    Attributes:
        thread_id: Its id.
        turns: How many turns it has (among the recent ones).
        first_question: The question that opened it.
        last_at: When its latest turn started.
        turn_ids: Its turns, oldest first.
    """

    thread_id: str
    turns: int = 0
    first_question: str = ""
    last_at: object = None
    turn_ids: list[str] = field(default_factory=list)

    def label(self) -> str:
        """How the thread list shows it."""
        question = " ".join(self.first_question.split())
        question = question if len(question) <= 48 else question[:47] + "…"
        return f"{self.thread_id} · {self.turns} turn{'s' * (self.turns != 1)} · {question}"


def threads(harness, limit: int = 30) -> list[Thread]:
    """The latest threads, most recently active first (from the latest turns)."""
    found: dict[str, Thread] = {}
    for turn in reversed(harness.provenance.turns(RECENT_TURNS)):  # oldest first
        thread = found.setdefault(turn["thread_id"], Thread(turn["thread_id"]))
        if not thread.turn_ids:
            thread.first_question = turn["question"] or ""
        thread.turns += 1
        thread.turn_ids.append(turn["turn_id"])
        thread.last_at = turn["started_at"]
    ordered = sorted(found.values(), key=lambda t: (str(t.last_at), t.thread_id), reverse=True)
    return ordered[:limit]


def thread_turns(harness, thread_id: str) -> list[dict]:
    """A thread's turns, oldest first: each turn's row (question, answer, status, ...)."""
    rows = [t for t in harness.provenance.turns(RECENT_TURNS) if t["thread_id"] == thread_id]
    return list(reversed(rows))
