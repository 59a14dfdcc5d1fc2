"""Agents: a name, a system prompt and a set of skills (``h.agents``).

An agent is assigned skills (with a priority, a sequence and a config); only their one-line
descriptions go into its prompt, as a **manifest**. When the model loads a skill, the tools
mapped to it are unlocked (see :mod:`agent_harness.agent.disclosure`). What an agent may DO with a
tool is bounded by its skills: a tool marked ``write`` or ``execute`` runs only when one of the
agent's skills grants that access (capped per assignment by ``config: {max_access: read}``);
``read`` tools need no grant.

Agents are rows (``agents``, ``agent_skills``); the project's are files under
``setup/agents/`` (front matter: description, skills, config; the body is the system prompt),
ingested by ``workshop setup``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import frontmatter
import pydantic

from agent_harness.parts.access import ACCESS_LEVELS, allows, strongest
from agent_harness.parts.memory import content_hash
from agent_harness.parts.skills import SkillNotFound

__all__ = [
    "Agent",
    "AgentSkill",
    "AgentLibrary",
    "AgentNotFound",
    "AgentDefinitionError",
    "PROJECT_AGENTS",
    "allows",
]

PROJECT_AGENTS = Path(__file__).resolve().parents[1] / "playbooks" / "agents"
_AGENT_NAME = re.compile(r"^[a-z][a-z0-9-]{0,63}$")


class AgentNotFound(KeyError):
    """No agent with that name; the message lists the agents there are."""

    def __str__(self) -> str:
        return str(self.args[0])


class AgentDefinitionError(ValueError):
    """An agent definition that cannot be stored; the message says what to change."""


@dataclass(frozen=True)
class AgentSkill:
    """One skill assigned to an agent.

    Attributes:
        name: The skill.
        priority: Higher first in the manifest.
        sequence: Order among equal priorities.
        config: Free JSON; ``max_access`` (read, write, execute) caps what this skill grants.
    """

    name: str
    priority: int = 0
    sequence: int = 0
    config: dict = field(default_factory=dict)

    @property
    def max_access(self) -> str:
        """The strongest access this assignment may grant."""
        return self.config.get("max_access", "execute")


@dataclass(frozen=True)
class Agent:
    """An agent definition: name, description, system prompt, skills (manifest order)."""

    name: str
    description: str
    system_prompt: str
    skills: tuple[AgentSkill, ...] = ()

    def skill_names(self) -> list[str]:
        """The assigned skills in manifest order."""
        return [s.name for s in self.skills]


class _SkillEntry(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str
    priority: int = 0
    sequence: int | None = None
    config: dict = {}


class _AgentFile(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str | None = None
    description: str
    skills: list[str | _SkillEntry]
    config: dict = {}


class AgentLibrary:
    """The agents of one harness (``h.agents``)."""

    def __init__(self, harness) -> None:
        self.harness = harness
        self.store = harness.backend.agents

    # --- definitions --------------------------------------------------------------------------
    def define(
        self,
        name: str,
        description: str,
        system_prompt: str,
        skills: list,
        config: dict | None = None,
        source: str = "code",
    ) -> Agent:
        """Store (or replace) an agent.

        Args:
            name: Lower case words joined by ``-`` (``supplychain-analyst``).
            description: What the agent is for (one line).
            system_prompt: Its instructions; the skill manifest is added after them.
            skills: Skill names, or dicts ``{"name", "priority", "sequence", "config"}``, in
                manifest order (a missing ``sequence`` is the position in this list).
            config: Defaults merged into every skill's config (e.g. ``{"max_access": "read"}``).
            source: Where it came from (a file path, or ``code``).

        Raises:
            AgentDefinitionError: A bad name, an empty prompt or skill list, an unknown
                skill (with close names), or a ``max_access`` that is not an access level.
        """
        if not isinstance(name, str) or not _AGENT_NAME.match(name):
            raise AgentDefinitionError(
                f"agent name {name!r}: use lower-case words joined by '-', e.g. 'port-analyst'"
            )
        if not str(description or "").strip() or not str(system_prompt or "").strip():
            raise AgentDefinitionError(f"agent {name!r} needs a description and a system prompt")
        entries = [_SkillEntry(name=s) if isinstance(s, str) else s for s in skills or []]
        try:
            entries = [e if isinstance(e, _SkillEntry) else _SkillEntry(**e) for e in entries]
        except (TypeError, pydantic.ValidationError) as e:
            raise AgentDefinitionError(f"agent {name!r}: bad skill entry: {e}") from None
        if not entries:
            raise AgentDefinitionError(f"agent {name!r} needs at least one skill")
        rows = []
        for position, entry in enumerate(entries):
            try:
                skill = self.harness.skills.find(entry.name)
            except SkillNotFound as e:
                raise AgentDefinitionError(f"agent {name!r}: {e}") from None
            merged = {**(config or {}), **entry.config}
            if merged.get("max_access", "execute") not in ACCESS_LEVELS:
                raise AgentDefinitionError(
                    f"agent {name!r}, skill {skill!r}: max_access must be one of"
                    f" {', '.join(ACCESS_LEVELS)}"
                )
            rows.append(
                {
                    "skill_name": skill,
                    "priority": int(entry.priority),
                    "sequence": position if entry.sequence is None else int(entry.sequence),
                    "config": json.dumps(merged, sort_keys=True),
                }
            )
        digest = content_hash(json.dumps([name, description, system_prompt, rows]))
        self.store.put(
            {
                "name": name,
                "description": description.strip(),
                "system_prompt": system_prompt.strip(),
                "source": source,
                "content_hash": digest,
            },
            rows,
        )
        return self.get(name)

    def ingest(self, folder: Path | str = PROJECT_AGENTS) -> dict:
        """Store every agent file (``*.md``) of a folder; unchanged ones write nothing.

        Returns:
            ``{"stored": [names], "unchanged": n, "skipped": ["file: why"]}``.
        """
        folder = Path(folder)
        if not folder.is_dir():
            raise FileNotFoundError(f"no agents folder at {folder}")
        stored, unchanged, skipped = [], 0, []
        for path in sorted(folder.glob("*.md")):
            try:
                try:
                    post = frontmatter.loads(path.read_text(encoding="utf-8"))
                except Exception as e:  # YAML errors come in several classes
                    raise ValueError(f"the front matter is not valid YAML: {e}") from None
                spec = _AgentFile.model_validate(post.metadata)
                name = spec.name or path.stem
                row = self.store.get(name)
                before = row["content_hash"] if row else None
                agent = self.define(
                    name, spec.description, post.content, spec.skills, spec.config, str(path)
                )
            except (ValueError, pydantic.ValidationError) as e:
                skipped.append(f"{path.name}: {e}")
                continue
            if before == self.store.get(agent.name)["content_hash"]:
                unchanged += 1
            else:
                stored.append(agent.name)
        return {"stored": stored, "unchanged": unchanged, "skipped": skipped}

    def get(self, name: str) -> Agent:
        """One agent.

        Raises:
            AgentNotFound: No such agent (the message lists them).
        """
        row = self.store.get(str(name))
        if row is None:
            names = ", ".join(self.store.names()) or "none yet (run workshop setup)"
            raise AgentNotFound(f"no agent named {name!r}; agents: {names}")
        skills = tuple(
            AgentSkill(s["skill_name"], s["priority"], s["sequence"], json.loads(s["config"]))
            for s in row["skills"]
        )
        return Agent(row["name"], row["description"], row["system_prompt"], skills)

    def names(self) -> list[str]:
        """Every agent's name."""
        return self.store.names()

    def delete(self, name: str) -> bool:
        """Delete an agent (its threads' loaded skills stay in the trail)."""
        return self.store.delete(name)

    # --- what an agent may see and do -----------------------------------------------------------
    def access(self, agent: Agent | str) -> dict[str, dict]:
        """Per assigned skill, what loading it unlocks and grants, within its ``max_access``:
        ``{skill: {"tools": {tool: granted or None}, "cycles", "missing"}}``. A tool whose
        grant the cap removed (a ``write`` tool under ``max_access: read``) maps to None."""
        agent = agent if isinstance(agent, Agent) else self.get(agent)
        found = {}
        for assigned in agent.skills:
            resolution = self.harness.skills.resolve(assigned.name)
            cap = ACCESS_LEVELS.index(assigned.max_access)
            tools = {}
            for tool, granted in resolution.tools.items():
                level = ACCESS_LEVELS[min(ACCESS_LEVELS.index(granted), cap)]
                tools[tool] = level if allows(level, self._needs(tool)) else None
            found[assigned.name] = {
                "tools": tools,
                "via": resolution.via,
                "cycles": resolution.cycles,
                "missing": resolution.missing,
            }
        return found

    def grants(self, agent: Agent | str) -> dict[str, str]:
        """Tool -> the strongest access the agent's skills grant it (tools it may run)."""
        best: dict[str, str] = {}
        for info in self.access(agent).values():
            for tool, level in info["tools"].items():
                if level is not None:
                    best[tool] = strongest([best.get(tool), level])
        return best

    def manifest(self, agent: Agent | str) -> list[dict]:
        """The agent's skills as the model sees them: name, description, parent and the tools
        each unlocks for this agent, in manifest order (children right after their parent)."""
        agent = agent if isinstance(agent, Agent) else self.get(agent)
        access = self.access(agent)
        rows = {r["name"]: r for r in self.harness.backend.indexed_rows("skillbox")}
        parents = self.harness.backend.skill_graph.parents()
        mine = agent.skill_names()
        entries = [
            {
                "name": n,
                "description": rows[n]["description"],
                "parent": parents.get(n) if parents.get(n) in mine else None,
                "unlocks": [t for t, level in access[n]["tools"].items() if level is not None],
            }
            for n in mine
            if n in rows
        ]
        ordered: list[dict] = []

        def place(parent: str | None, depth: int) -> None:
            for entry in entries:
                if (
                    entry["parent"] == parent
                    and entry["name"] not in _names(ordered)
                    and depth < 10
                ):
                    ordered.append({**entry, "depth": depth})
                    place(entry["name"], depth + 1)

        place(None, 0)
        # A parent cycle (a is b's parent and b is a's) leaves both unplaced: list them flat.
        ordered += [{**e, "depth": 0} for e in entries if e["name"] not in _names(ordered)]
        return ordered

    def manifest_text(self, agent: Agent | str) -> str:
        """The manifest as prompt lines: ``- name: description [unlocks: a, b]``."""
        lines = []
        for entry in self.manifest(agent):
            indent = "  " * entry["depth"]
            unlocks = f" [unlocks: {', '.join(entry['unlocks'])}]" if entry["unlocks"] else ""
            lines.append(f"{indent}- {entry['name']}: {entry['description']}{unlocks}")
        return "\n".join(lines)

    def _needs(self, tool: str) -> str:
        try:
            return self.harness.tools.get(tool).access_level
        except KeyError:
            return "read"  # an unknown tool is refused at dispatch anyway


def _names(entries: list[dict]) -> set[str]:
    return {e["name"] for e in entries}
