"""The skill walk on Oracle: recursive subquery factoring with Oracle's CYCLE clause.

SQL Language Reference 23, SELECT, "subquery_factoring_clause" (``cycle_clause``): without a
CYCLE clause Oracle stops a walk with ORA-32044 as soon as a row repeats an ancestor's values
in the columns the recursive member's WHERE clause reads, and the shared walk reads its
``cycle`` flag there (0 on every row until one closes a cycle). With ``CYCLE skill SET is_cycle
TO 'Y' DEFAULT 'N'`` a row that reaches a skill already on its path is returned marked and not
walked further, which is what the shared walk does with its path column. The path is CAST to
VARCHAR2(4000): a recursive WITH takes its column types from the anchor member.
"""

from __future__ import annotations

from agent_harness.backends.roles.disclosure import SkillGraph

__all__ = ["OracleSkillGraph", "RESOLVE_SQL"]

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


class OracleSkillGraph(SkillGraph):
    """The shared skill graph with Oracle's own walk."""

    def resolve_sql(self) -> str:
        return RESOLVE_SQL
