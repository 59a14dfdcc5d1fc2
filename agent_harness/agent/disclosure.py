"""How a turn picks the tools it offers: all of them, retrieved for the question, or disclosed
by the skills the model loads (progressive disclosure, notebook 07).

A **strategy** decides the tools of each model request of a turn:

* ``all``: every tool (open circuits left out);
* ``retrieve``: the top-k tools for the question plus the registry's always-on set (notebooks
  04-06);
* ``disclose``: a minimal always-on set (:data:`STARTER_TOOLS`: ``load_skill`` and what every turn
  needs) and the agent's skill manifest in the system prompt. When the model loads a skill,
  the tools that skill unlocks (its own and, transitively, its required dependencies') are
  APPENDED after the ones already sent, so the cached prompt prefix stays valid;
  ``fetch_tool_output`` is added once an output of the thread was offloaded. Skills loaded in
  a thread stay loaded for its later turns;
* ``disclose+retrieve``: both: the disclosed set plus the top-k tools for the question.

Whatever the strategy, a call to a tool that was not offered is refused at dispatch (the error
names the skill that would unlock it), and with an agent a ``write`` / ``execute`` tool runs
only when the agent's skills grant that access.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from agent_harness.parts.agents import Agent

__all__ = [
    "STRATEGIES",
    "STARTER_TOOLS",
    "DEFAULT_AGENT",
    "Unlock",
    "ToolStrategy",
    "AllTools",
    "RetrievedTools",
    "DisclosedTools",
    "make_strategy",
]

STRATEGIES = ("all", "retrieve", "disclose", "disclose+retrieve")
#: Sent on every request of a disclosing turn: how to unlock tools, plus the two tools nearly
#: every question needs (what the data means, and a query).
STARTER_TOOLS = ("load_skill", "search_knowledge", "run_sql")
#: The agent a disclosing turn uses when none is named.
DEFAULT_AGENT = "supplychain-analyst"


@dataclass
class Unlock:
    """What one disclosure added to a turn's tools.

    Attributes:
        reason: ``load_skill`` (the model loaded a skill), ``thread`` (loaded in an earlier
            turn of the thread), ``offload`` (an output was stored: ``fetch_tool_output``).
        skill: The skill loaded (None for an offload).
        added: Tools appended to the offered list, in order.
        already: Tools the skill unlocks that were offered already.
        withheld: Tools the skill maps that this agent may not run (their access is not
            granted), so they are not offered.
        closed: Tools the skill unlocks whose circuit is open now (not offered).
        cycles: Dependency cycles met while resolving the skill.
        missing: Required dependencies that do not exist.
        via: Tool -> the skill that maps it.
    """

    reason: str
    skill: str | None = None
    added: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    via: dict[str, str] = field(default_factory=dict)

    def note(self) -> str:
        """The line appended to the ``load_skill`` result the model reads."""
        parts = [f"tools unlocked: {', '.join(self.added) or 'none new'}"]
        if self.withheld:
            parts.append(f"not available to this agent: {', '.join(self.withheld)}")
        if self.closed:
            parts.append(f"switched off for now: {', '.join(self.closed)}")
        if self.cycles:
            parts.append("dependency cycle: " + "; ".join(" -> ".join(c) for c in self.cycles))
        return "\n\n[" + "; ".join(parts) + "]"


class ToolStrategy:
    """Base class: a strategy fills ``turn.offered`` at the start of a turn and may append to
    it after each tool call. Subclasses override :meth:`start` and :meth:`after_call`.

    Args:
        harness: The harness.
        agent: The agent of the turn (None: no agent, no access checks).
        k: How many tools retrieval picks (strategies that retrieve).
    """

    name = "base"

    def __init__(self, harness, agent: Agent | None = None, k: int = 5) -> None:
        self.harness = harness
        self.agent = agent
        self.k = k
        self._grants = harness.agents.grants(agent) if agent is not None else None
        self._unlocked_by: dict[str, list[str]] = {}

    def start(self, turn) -> list[Unlock]:
        """Fill ``turn.offered`` for the first request; return what was disclosed."""
        raise NotImplementedError

    def after_call(self, turn, record) -> list[Unlock]:
        """React to one finished tool call (append tools); return what was disclosed."""
        return []

    def call_rules(self, turn) -> dict:
        """The keyword arguments of ``h.tools.call_detailed`` for a call of this turn: what is
        offered now, which skill unlocks what, the agent's grants."""
        return {
            "offered": turn.offered_names,
            "unlocked_by": self._unlocked_by or None,
            "grants": self._grants,
            "agent": self.agent.name if self.agent else None,
        }

    # --- helpers ------------------------------------------------------------------------------
    def offer(self, turn, names) -> tuple[list[str], list[str], list[str]]:
        """Append tools to the turn's offer, after the ones already there.

        Returns:
            (added, already offered, closed: their circuit is open now).
        """
        registry = self.harness.tools
        shut = registry.open_tools()
        present = set(turn.offered_names)
        added, already, closed = [], [], []
        for name in dict.fromkeys(names):
            if name in present:
                already.append(name)
            elif name in shut:
                closed.append(name)
            elif name in registry.names():
                added.append(name)
                present.add(name)
        turn.offered.extend(registry.schemas(added))
        return added, already, closed


class AllTools(ToolStrategy):
    """Every tool on every request (the baseline the others are measured against)."""

    name = "all"

    def start(self, turn) -> list[Unlock]:
        self.offer(turn, self.harness.tools.names())
        return []


class RetrievedTools(ToolStrategy):
    """The top-k tools for the question plus the registry's always-on set."""

    name = "retrieve"

    def start(self, turn) -> list[Unlock]:
        schemas = self.harness.tools.retrieve(turn.question, k=self.k)
        self.offer(turn, [s["function"]["name"] for s in schemas])
        return []


class DisclosedTools(ToolStrategy):
    """:data:`STARTER_TOOLS` plus what the agent's loaded skills unlock (optionally plus the top-k
    tools for the question: ``disclose+retrieve``)."""

    name = "disclose"

    def __init__(self, harness, agent: Agent, k: int = 5, retrieve: bool = False) -> None:
        super().__init__(harness, agent, k)
        self.retrieve = retrieve
        self.name = "disclose+retrieve" if retrieve else "disclose"
        self.access = harness.agents.access(agent)
        for skill, info in self.access.items():
            for tool, level in info["tools"].items():
                if level is not None:
                    self._unlocked_by.setdefault(tool, []).append(skill)

    def start(self, turn) -> list[Unlock]:
        base = [n for n in STARTER_TOOLS if n in self.harness.tools.names()]
        if self.harness.offload.has_outputs(turn.thread_id):
            base.append("fetch_tool_output")
        self.offer(turn, base)
        unlocks = [
            self.unlock(turn, skill, "thread")
            for skill in self.harness.backend.agents.loaded(turn.thread_id, self.agent.name)
            if skill in self.access
        ]
        if self.retrieve:
            ranked = self.harness.tools.retrieve(turn.question, k=self.k, always_on=False)
            self.offer(turn, [s["function"]["name"] for s in ranked])
        return unlocks

    def after_call(self, turn, record) -> list[Unlock]:
        unlocks = []
        if record.name == "load_skill" and record.ok:
            skill = self.harness.skills.find(_skill_argument(record.arguments))
            unlock = self.unlock(turn, skill, "load_skill")
            self.harness.backend.agents.note_loaded(
                turn.thread_id, self.agent.name, skill, turn.turn_id
            )
            record.shown += unlock.note()
            unlocks.append(unlock)
        if record.offloaded and "fetch_tool_output" not in turn.offered_names:
            added, _, _ = self.offer(turn, ["fetch_tool_output"])
            unlocks.append(Unlock("offload", added=added))
        return unlocks

    def unlock(self, turn, skill: str, reason: str) -> Unlock:
        """Append what ``skill`` unlocks for this agent (see :meth:`AgentLibrary.access`)."""
        info = self.access[skill]
        allowed = [t for t, level in info["tools"].items() if level is not None]
        added, already, closed = self.offer(turn, allowed)
        return Unlock(
            reason,
            skill,
            added,
            already,
            withheld=[t for t, level in info["tools"].items() if level is None],
            closed=closed,
            cycles=info["cycles"],
            missing=info["missing"],
            via={t: info["via"].get(t, skill) for t in added},
        )


def _skill_argument(arguments) -> str:
    value = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
    return str(value.get("name", ""))


def make_strategy(harness, strategy="retrieve", agent=None, k: int = 5) -> ToolStrategy:
    """The strategy object for ``agent_turn(..., strategy=..., agent=...)``.

    Args:
        harness: The harness.
        strategy: One of :data:`STRATEGIES`, or a :class:`ToolStrategy` (returned as is).
        agent: An agent name or :class:`Agent` (a disclosing strategy without one uses
            :data:`DEFAULT_AGENT`).
        k: Tools picked by retrieval.

    Raises:
        ValueError: An unknown strategy name (the message lists them).
    """
    if isinstance(strategy, ToolStrategy):
        return strategy
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of: {', '.join(STRATEGIES)}")
    if agent is None and strategy.startswith("disclose"):
        agent = DEFAULT_AGENT
    if isinstance(agent, str):
        agent = harness.agents.get(agent)
    if strategy == "all":
        return AllTools(harness, agent, k)
    if strategy == "retrieve":
        return RetrievedTools(harness, agent, k)
    return DisclosedTools(harness, agent, k, retrieve=strategy == "disclose+retrieve")
