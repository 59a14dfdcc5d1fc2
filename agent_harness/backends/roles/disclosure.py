"""Progressive disclosure (notebook 07), written once: the skill graph and the agents.

* :class:`SkillGraph` (``backend.skill_graph``): which tools a skill unlocks (with the access it
  grants), which skills it depends on (required or optional), its parent, and the walk that
  resolves a skill into every tool it unlocks, in ONE recursive statement;
* :class:`Agents` (``backend.agents``): agent definitions, the skills assigned to each
  (priority, sequence, config), and the skills loaded in each conversation thread.

The walk (:data:`RESOLVE_SQL`) finds cycles with the path itself: each row carries ``|a|b|``,
and a step that reaches a skill already on its path is kept, marked ``cycle = 1``, and not
walked further. It has no ``RECURSIVE`` keyword and CASTs the path in the anchor (a recursive
WITH takes its column types from the anchor member), as an attendee writes it in notebook 07. A
dialect may walk its own way (:meth:`SkillGraph.resolve_sql`; Oracle: its CYCLE clause).
"""

from __future__ import annotations

from agent_harness.backends.connection import Connection
from agent_harness.backends.roles.common import AGENT_COLUMNS, AGENT_SKILL_COLUMNS, check_text_fits

__all__ = ["Agents", "RESOLVE_SQL", "SkillGraph"]

RESOLVE_SQL = """
WITH edges (source, target) AS (
    SELECT skill_name, depends_on FROM skill_dependencies WHERE required = 1
), walk (skill, depth, via, path, cycle) AS (
    SELECT name, 0, CAST(NULL AS VARCHAR(400)), CAST('|' || name || '|' AS VARCHAR(4000)), 0
    FROM skillbox WHERE name = :skill
    UNION ALL
    SELECT e.target, w.depth + 1, w.skill, w.path || e.target || '|',
           CASE WHEN INSTR(w.path, '|' || e.target || '|') > 0 THEN 1 ELSE 0 END
    FROM walk w JOIN edges e ON e.source = w.skill
    WHERE w.cycle = 0
)
SELECT w.skill, w.depth, w.via, w.path, w.cycle,
       CASE WHEN k.name IS NULL THEN 0 ELSE 1 END AS known,
       t.tool_name, t.access_level
FROM walk w
LEFT JOIN skillbox k ON k.name = w.skill
LEFT JOIN skill_tools t ON t.skill_name = w.skill AND w.cycle = 0
ORDER BY w.depth, w.path, t.tool_name"""


class SkillGraph:
    """``skill_tools``, ``skill_dependencies`` and ``skillbox.parent_skill``.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db

    def replace_links(
        self,
        skill: str,
        tools: list[tuple[str, str]],
        dependencies: list[tuple[str, bool]],
        parent: str | None,
    ) -> None:
        """Replace a stored skill's links in one transaction: its ``(tool, access_level)``
        rows, its ``(skill, required)`` dependency rows and its parent."""
        with self.db.transaction():
            self.db.execute("DELETE FROM skill_tools WHERE skill_name = :s", {"s": skill})
            self.db.execute("DELETE FROM skill_dependencies WHERE skill_name = :s", {"s": skill})
            self.db.execute_many(
                "INSERT INTO skill_tools (skill_name, tool_name, access_level) VALUES (:s, :t, :a)",
                [{"s": skill, "t": tool, "a": access} for tool, access in tools],
            )
            self.db.execute_many(
                "INSERT INTO skill_dependencies (skill_name, depends_on, required)"
                " VALUES (:s, :d, :r)",
                [{"s": skill, "d": dep, "r": int(bool(req))} for dep, req in dependencies],
            )
            self.db.execute(
                "UPDATE skillbox SET parent_skill = :p WHERE name = :s", {"p": parent, "s": skill}
            )

    def resolve_sql(self) -> str:
        """The walk of :meth:`resolve` (bind ``:skill``)."""
        return RESOLVE_SQL

    def resolve(self, skill: str) -> list[dict]:
        """Walk ``skill`` and, transitively, its REQUIRED dependencies in ONE recursive
        statement. One row per (skill reached, tool it maps): ``skill``, ``depth`` (0 for the
        skill itself), ``via`` (the skill that required it), ``path`` (``|a|b|c|``), ``cycle``
        (1 when this step closes a cycle: the row is reported, not walked further), ``known``
        (0 when no such skill is stored), ``tool_name`` and ``access_level`` (None when the
        skill maps no tool). Optional dependencies are not followed. [] when ``skill`` itself
        is not stored."""
        rows = self.db.query(self.resolve_sql(), {"skill": skill})
        for r in rows:
            for name in ("depth", "cycle", "known"):
                r[name] = int(r[name])
        return rows

    def links(self) -> list[dict]:
        """Every skill -> tool row: skill_name, tool_name, access_level."""
        return self.db.query(
            "SELECT skill_name, tool_name, access_level FROM skill_tools"
            " ORDER BY skill_name, tool_name"
        )

    def dependencies(self) -> list[dict]:
        """Every dependency row: skill_name, depends_on, required (0/1)."""
        rows = self.db.query(
            "SELECT skill_name, depends_on, required FROM skill_dependencies"
            " ORDER BY skill_name, depends_on"
        )
        for r in rows:
            r["required"] = int(r["required"])
        return rows

    def parents(self) -> dict[str, str | None]:
        """Every stored skill's parent (None for a top-level skill)."""
        rows = self.db.query("SELECT name, parent_skill FROM skillbox ORDER BY name")
        return {r["name"]: r["parent_skill"] for r in rows}


class Agents:
    """``agents``, ``agent_skills`` and ``thread_skills``.

    Args:
        db: The backend's connection.
    """

    def __init__(self, db: Connection) -> None:
        self.db = db
        self.dialect = db.dialect

    def put(self, agent: dict, skills: list[dict]) -> None:
        """Insert or replace an agent (keys: :data:`AGENT_COLUMNS`) and replace its skill
        rows (keys: :data:`AGENT_SKILL_COLUMNS`), in one transaction.

        Raises:
            TextTooLong: The description or a skill's config takes more than 4000 bytes.
        """
        check_text_fits(agent.get("description"), f"agent {agent['name']!r}: the description")
        for row in skills:
            check_text_fits(row["config"], f"agent {agent['name']!r}: the config of a skill")
        values = {c: agent.get(c) for c in AGENT_COLUMNS}
        values["system_prompt"] = self.db.text(values["system_prompt"])
        upsert = self.dialect.upsert(
            "agents", ["name"], {c: f":{c}" for c in AGENT_COLUMNS}, touch="updated_at"
        )
        with self.db.transaction():
            self.db.execute(upsert, values)
            self.db.execute("DELETE FROM agent_skills WHERE agent_name = :a", {"a": agent["name"]})
            self.db.execute_many(
                f"INSERT INTO agent_skills (agent_name, {', '.join(AGENT_SKILL_COLUMNS)})"
                f" VALUES (:agent_name, {', '.join(':' + c for c in AGENT_SKILL_COLUMNS)})",
                [
                    {"agent_name": agent["name"], **{c: row[c] for c in AGENT_SKILL_COLUMNS}}
                    for row in skills
                ],
            )

    def get(self, name: str) -> dict | None:
        """An agent's row plus ``skills`` (its rows, by priority desc, sequence, name)."""
        rows = self.db.query(
            f"SELECT {', '.join(AGENT_COLUMNS)} FROM agents WHERE name = :name", {"name": name}
        )
        if not rows:
            return None
        skills = self.db.query(
            f"SELECT {', '.join(AGENT_SKILL_COLUMNS)} FROM agent_skills WHERE agent_name = :name"
            " ORDER BY priority DESC, sequence, skill_name",
            {"name": name},
        )
        for row in skills:
            row["priority"], row["sequence"] = int(row["priority"]), int(row["sequence"])
        return {**rows[0], "skills": skills}

    def names(self) -> list[str]:
        """Every agent's name, sorted."""
        return [r["name"] for r in self.db.query("SELECT name FROM agents ORDER BY name")]

    def delete(self, name: str) -> bool:
        """Delete an agent and its skill rows; True when one was there."""
        with self.db.transaction():
            self.db.execute("DELETE FROM agent_skills WHERE agent_name = :a", {"a": name})
            return self.db.execute("DELETE FROM agents WHERE name = :name", {"name": name}) > 0

    def note_loaded(self, thread_id: str, agent: str, skill: str, turn_id: str | None) -> bool:
        """Record that ``skill`` was loaded in a thread (idempotent, one statement, so two
        writers cannot both insert); True when it is new."""
        insert_if_missing = self.dialect.upsert(
            "thread_skills",
            ["thread_id", "agent_name", "skill_name"],
            {"thread_id": ":t", "agent_name": ":a", "skill_name": ":s", "turn_id": ":turn"},
            update=[],
        )
        added = self.db.execute(
            insert_if_missing, {"t": thread_id, "a": agent, "s": skill, "turn": turn_id}
        )
        return added > 0

    def loaded(self, thread_id: str, agent: str) -> list[str]:
        """The skills loaded in a thread by an agent, in the order they were first loaded
        (ties by name)."""
        rows = self.db.query(
            "SELECT skill_name FROM thread_skills WHERE thread_id = :t AND agent_name = :a"
            " ORDER BY loaded_at, skill_name",
            {"t": thread_id, "a": agent},
        )
        return [r["skill_name"] for r in rows]
