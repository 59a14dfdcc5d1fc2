"""The embedded (SQLite) side of progressive disclosure: the skill graph and the agents.

The resolution walk is a recursive CTE. SQLite has no CYCLE clause, so each row carries its
path (``|a|b|``) and a step that reaches a skill already on its path is kept, marked
``cycle = 1``, and not walked further: the cycle is reported instead of looping.
"""

from __future__ import annotations

from agent_harness.backends.disclosure_roles import (
    AGENT_COLUMNS,
    AGENT_SKILL_COLUMNS,
    AgentStore,
    SkillGraphStore,
)

__all__ = ["EmbeddedSkillGraph", "EmbeddedAgents", "RESOLVE_SQL"]

RESOLVE_SQL = """
WITH edges (source, target) AS (
    SELECT skill_name, depends_on FROM skill_dependencies WHERE required = 1
), walk (skill, depth, via, path, cycle) AS (
    SELECT name, 0, NULL, '|' || name || '|', 0 FROM skillbox WHERE name = :skill
    UNION ALL
    SELECT e.target, w.depth + 1, w.skill, w.path || e.target || '|',
           CASE WHEN instr(w.path, '|' || e.target || '|') > 0 THEN 1 ELSE 0 END
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


class EmbeddedSkillGraph(SkillGraphStore):
    """``skill_tools``, ``skill_dependencies`` and ``skillbox.parent_skill`` on SQLite."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def replace_links(self, skill, tools, dependencies, parent) -> None:
        conn = self.backend.conn
        with self.backend._lock, conn:
            conn.execute("DELETE FROM skill_tools WHERE skill_name = :s", {"s": skill})
            conn.execute("DELETE FROM skill_dependencies WHERE skill_name = :s", {"s": skill})
            conn.executemany(
                "INSERT INTO skill_tools (skill_name, tool_name, access_level) VALUES (:s, :t, :a)",
                [{"s": skill, "t": tool, "a": access} for tool, access in tools],
            )
            conn.executemany(
                "INSERT INTO skill_dependencies (skill_name, depends_on, required)"
                " VALUES (:s, :d, :r)",
                [{"s": skill, "d": dep, "r": int(bool(req))} for dep, req in dependencies],
            )
            conn.execute(
                "UPDATE skillbox SET parent_skill = :p WHERE name = :s", {"p": parent, "s": skill}
            )

    def resolve(self, skill: str) -> list[dict]:
        return self.backend.query(RESOLVE_SQL, {"skill": skill})

    def links(self) -> list[dict]:
        return self.backend.query(
            "SELECT skill_name, tool_name, access_level FROM skill_tools"
            " ORDER BY skill_name, tool_name"
        )

    def dependencies(self) -> list[dict]:
        return self.backend.query(
            "SELECT skill_name, depends_on, required FROM skill_dependencies"
            " ORDER BY skill_name, depends_on"
        )

    def parents(self) -> dict[str, str | None]:
        rows = self.backend.query("SELECT name, parent_skill FROM skillbox ORDER BY name")
        return {r["name"]: r["parent_skill"] for r in rows}


class EmbeddedAgents(AgentStore):
    """``agents``, ``agent_skills`` and ``thread_skills`` on SQLite."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def put(self, agent: dict, skills: list[dict]) -> None:
        conn = self.backend.conn
        values = {c: agent.get(c) for c in AGENT_COLUMNS}
        updates = ", ".join(f"{c} = excluded.{c}" for c in AGENT_COLUMNS[1:])
        with self.backend._lock, conn:
            conn.execute(
                f"INSERT INTO agents ({', '.join(AGENT_COLUMNS)}) VALUES"
                f" ({', '.join(':' + c for c in AGENT_COLUMNS)})"
                f" ON CONFLICT (name) DO UPDATE SET {updates},"
                " updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                values,
            )
            conn.execute("DELETE FROM agent_skills WHERE agent_name = :a", {"a": agent["name"]})
            conn.executemany(
                f"INSERT INTO agent_skills (agent_name, {', '.join(AGENT_SKILL_COLUMNS)})"
                f" VALUES (:agent_name, {', '.join(':' + c for c in AGENT_SKILL_COLUMNS)})",
                [{"agent_name": agent["name"], **row} for row in skills],
            )

    def get(self, name: str) -> dict | None:
        rows = self.backend.query("SELECT * FROM agents WHERE name = :name", {"name": name})
        if not rows:
            return None
        skills = self.backend.query(
            f"SELECT {', '.join(AGENT_SKILL_COLUMNS)} FROM agent_skills WHERE agent_name = :name"
            " ORDER BY priority DESC, sequence, skill_name",
            {"name": name},
        )
        return {**rows[0], "skills": skills}

    def names(self) -> list[str]:
        return [r["name"] for r in self.backend.query("SELECT name FROM agents ORDER BY name")]

    def delete(self, name: str) -> bool:
        with self.backend._lock, self.backend.conn:
            gone = self.backend.conn.execute(
                "DELETE FROM agents WHERE name = :name RETURNING name", {"name": name}
            ).fetchall()
        return bool(gone)

    def note_loaded(self, thread_id, agent, skill, turn_id) -> bool:
        with self.backend._lock, self.backend.conn:
            added = self.backend.conn.execute(
                "INSERT INTO thread_skills (thread_id, agent_name, skill_name, turn_id)"
                " VALUES (:t, :a, :s, :turn) ON CONFLICT DO NOTHING RETURNING skill_name",
                {"t": thread_id, "a": agent, "s": skill, "turn": turn_id},
            ).fetchall()
        return bool(added)

    def loaded(self, thread_id: str, agent: str) -> list[str]:
        rows = self.backend.query(
            "SELECT skill_name FROM thread_skills WHERE thread_id = :t AND agent_name = :a"
            " ORDER BY loaded_at, rowid",
            {"t": thread_id, "a": agent},
        )
        return [r["skill_name"] for r in rows]
