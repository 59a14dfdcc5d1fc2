"""Role objects for progressive disclosure (notebook 07): skills that unlock tools, agents.

Like the registry's roles (:mod:`agent_harness.backends.roles`), each storage concern is a
narrow interface with one implementation per dialect:

* :class:`SkillGraphStore` (``backend.skill_graph``): which tools a skill unlocks (with the
  access it grants), which skills it depends on (required or optional), its parent, and the
  walk that resolves a skill into every tool it unlocks, in ONE recursive statement;
* :class:`AgentStore` (``backend.agents``): agent definitions, the skills assigned to each
  (priority, sequence, config), and the skills loaded in each conversation thread.
"""

from __future__ import annotations

import abc

__all__ = ["SkillGraphStore", "AgentStore", "AGENT_COLUMNS", "AGENT_SKILL_COLUMNS"]

#: An agent's row.
AGENT_COLUMNS = ("name", "description", "system_prompt", "source", "content_hash")
#: One skill assigned to an agent (``config`` is JSON text).
AGENT_SKILL_COLUMNS = ("skill_name", "priority", "sequence", "config")


class SkillGraphStore(abc.ABC):
    """Skills -> tools, skills -> skills (dependencies, parent)."""

    @abc.abstractmethod
    def replace_links(
        self,
        skill: str,
        tools: list[tuple[str, str]],
        dependencies: list[tuple[str, bool]],
        parent: str | None,
    ) -> None:
        """Replace a stored skill's links in one transaction: its ``(tool, access_level)``
        rows, its ``(skill, required)`` dependency rows and its parent."""

    @abc.abstractmethod
    def resolve(self, skill: str) -> list[dict]:
        """Walk ``skill`` and, transitively, its REQUIRED dependencies in ONE recursive
        statement. One row per (skill reached, tool it maps): ``skill``, ``depth`` (0 for the
        skill itself), ``via`` (the skill that required it), ``path`` (``|a|b|c|``), ``cycle``
        (1 when this step closes a cycle: the row is reported, not walked further), ``known``
        (0 when no such skill is stored), ``tool_name`` and ``access_level`` (None when the
        skill maps no tool). Optional dependencies are not followed. [] when ``skill`` itself
        is not stored."""

    @abc.abstractmethod
    def links(self) -> list[dict]:
        """Every skill -> tool row: skill_name, tool_name, access_level."""

    @abc.abstractmethod
    def dependencies(self) -> list[dict]:
        """Every dependency row: skill_name, depends_on, required (0/1)."""

    @abc.abstractmethod
    def parents(self) -> dict[str, str | None]:
        """Every stored skill's parent (None for a top-level skill)."""


class AgentStore(abc.ABC):
    """Agents, their skills, and the skills loaded per conversation."""

    @abc.abstractmethod
    def put(self, agent: dict, skills: list[dict]) -> None:
        """Insert or replace an agent (keys: :data:`AGENT_COLUMNS`) and replace its skill
        rows (keys: :data:`AGENT_SKILL_COLUMNS`), in one transaction."""

    @abc.abstractmethod
    def get(self, name: str) -> dict | None:
        """An agent's row plus ``skills`` (its rows, by priority desc, sequence, name)."""

    @abc.abstractmethod
    def names(self) -> list[str]:
        """Every agent's name, sorted."""

    @abc.abstractmethod
    def delete(self, name: str) -> bool:
        """Delete an agent and its skill rows; True when one was there."""

    @abc.abstractmethod
    def note_loaded(self, thread_id: str, agent: str, skill: str, turn_id: str | None) -> bool:
        """Record that ``skill`` was loaded in a thread (idempotent); True when it is new."""

    @abc.abstractmethod
    def loaded(self, thread_id: str, agent: str) -> list[str]:
        """The skills loaded in a thread by an agent, in the order they were first loaded."""
