"""The Oracle side of progressive disclosure: the skill graph and the agents.

The resolution walk is recursive subquery factoring with Oracle's CYCLE clause (SQL Language
Reference 23, SELECT, "subquery_factoring_clause": ``search_clause`` / ``cycle_clause``): a row
that reaches a skill already on its path is returned with ``is_cycle = 'Y'`` and not walked
further, which is what the embedded backend does by hand with its path column. The path column
is CAST to VARCHAR2(4000): a recursive WITH takes its column types from the anchor member.

JSON (``config``) is kept as text checked with ``IS JSON``, as in ``tool_definitions``. A
replace is DELETE + INSERT in one transaction (no MERGE with a CLOB bound twice).
"""

from __future__ import annotations

from agent_harness.backends.disclosure_roles import (
    AGENT_COLUMNS,
    AGENT_SKILL_COLUMNS,
    AgentStore,
    SkillGraphStore,
)

__all__ = ["OracleSkillGraph", "OracleAgents", "RESOLVE_SQL"]

RESOLVE_SQL = """
WITH edges (source, target) AS (
    SELECT skill_name, depends_on FROM skill_dependencies WHERE required = 1
), walk (skill, depth, via, path) AS (
    SELECT name, 0, CAST(NULL AS VARCHAR2(400 CHAR)), CAST('|' || name || '|' AS VARCHAR2(4000))
    FROM skillbox WHERE name = :skill
    UNION ALL
    SELECT e.target, w.depth + 1, w.skill, w.path || e.target || '|'
    FROM walk w JOIN edges e ON e.source = w.skill
) CYCLE skill SET is_cycle TO 'Y' DEFAULT 'N'
SELECT w.skill, w.depth, w.via, w.path,
       CASE WHEN w.is_cycle = 'Y' THEN 1 ELSE 0 END AS cycle,
       CASE WHEN k.name IS NULL THEN 0 ELSE 1 END AS known,
       t.tool_name, t.access_level
FROM walk w
LEFT JOIN skillbox k ON k.name = w.skill
LEFT JOIN skill_tools t ON t.skill_name = w.skill AND w.is_cycle = 'N'
ORDER BY w.depth, w.path, t.tool_name"""


class OracleSkillGraph(SkillGraphStore):
    """``skill_tools``, ``skill_dependencies`` and ``skillbox.parent_skill`` on Oracle."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def replace_links(self, skill, tools, dependencies, parent) -> None:
        backend = self.backend
        with backend.transaction():
            backend.execute("DELETE FROM skill_tools WHERE skill_name = :s", {"s": skill})
            backend.execute("DELETE FROM skill_dependencies WHERE skill_name = :s", {"s": skill})
            for tool, access in tools:
                backend.execute(
                    "INSERT INTO skill_tools (skill_name, tool_name, access_level)"
                    " VALUES (:s, :t, :a)",
                    {"s": skill, "t": tool, "a": access},
                )
            for other, required in dependencies:
                backend.execute(
                    "INSERT INTO skill_dependencies (skill_name, depends_on, required)"
                    " VALUES (:s, :d, :r)",
                    {"s": skill, "d": other, "r": int(bool(required))},
                )
            backend.execute(
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


class OracleAgents(AgentStore):
    """``agents``, ``agent_skills`` and ``thread_skills`` on Oracle."""

    def __init__(self, backend) -> None:
        self.backend = backend

    def put(self, agent: dict, skills: list[dict]) -> None:
        backend = self.backend
        values = {c: agent.get(c) for c in AGENT_COLUMNS}
        values["system_prompt"] = backend._clob(values["system_prompt"])
        with backend.transaction():
            # ON DELETE CASCADE takes the agent's skill rows with it.
            backend.execute("DELETE FROM agents WHERE name = :name", {"name": agent["name"]})
            backend.execute(
                f"INSERT INTO agents ({', '.join(AGENT_COLUMNS)}) VALUES"
                f" ({', '.join(':' + c for c in AGENT_COLUMNS)})",
                values,
            )
            for row in skills:
                backend.execute(
                    f"INSERT INTO agent_skills (agent_name, {', '.join(AGENT_SKILL_COLUMNS)})"
                    f" VALUES (:agent_name, {', '.join(':' + c for c in AGENT_SKILL_COLUMNS)})",
                    {"agent_name": agent["name"], **{c: row[c] for c in AGENT_SKILL_COLUMNS}},
                )

    def get(self, name: str) -> dict | None:
        rows = self.backend.query(
            "SELECT name, description, system_prompt, source, content_hash FROM agents"
            " WHERE name = :name",
            {"name": name},
        )
        if not rows:
            return None
        row = rows[0]
        if hasattr(row["system_prompt"], "read"):  # a CLOB locator
            row["system_prompt"] = row["system_prompt"].read()
        skills = self.backend.query(
            f"SELECT {', '.join(AGENT_SKILL_COLUMNS)} FROM agent_skills WHERE agent_name = :name"
            " ORDER BY priority DESC, sequence, skill_name",
            {"name": name},
        )
        return {**row, "skills": skills}

    def names(self) -> list[str]:
        return [r["name"] for r in self.backend.query("SELECT name FROM agents ORDER BY name")]

    def delete(self, name: str) -> bool:
        with self.backend.transaction():
            found = self.backend.query(
                "SELECT COUNT(*) AS n FROM agents WHERE name = :name", {"name": name}
            )[0]["n"]
            self.backend.execute("DELETE FROM agents WHERE name = :name", {"name": name})
        return found > 0

    def note_loaded(self, thread_id, agent, skill, turn_id) -> bool:
        binds = {"t": thread_id, "a": agent, "s": skill}
        with self.backend.transaction():
            seen = self.backend.query(
                "SELECT COUNT(*) AS n FROM thread_skills"
                " WHERE thread_id = :t AND agent_name = :a AND skill_name = :s",
                binds,
            )[0]["n"]
            if not seen:
                self.backend.execute(
                    "INSERT INTO thread_skills (thread_id, agent_name, skill_name, turn_id)"
                    " VALUES (:t, :a, :s, :turn)",
                    {**binds, "turn": turn_id},
                )
        return not seen

    def loaded(self, thread_id: str, agent: str) -> list[str]:
        rows = self.backend.query(
            "SELECT skill_name FROM thread_skills WHERE thread_id = :t AND agent_name = :a"
            " ORDER BY loaded_at, skill_name",
            {"t": thread_id, "a": agent},
        )
        return [r["skill_name"] for r in rows]
