"""The Oracle migrations of progressive disclosure (m010: skill links, agents, thread skills;
m011: implementation types no longer listed in a CHECK).

Same name and meaning as the embedded backend's; appended to
:data:`agent_harness.backends.oracle.migrations.MIGRATIONS`.
"""

from __future__ import annotations

from agent_harness.backends.migrations import Migration
from agent_harness.backends.oracle.steps import UPDATED as _UPDATED
from agent_harness.backends.oracle.steps import Step

__all__ = ["DISCLOSURE_MIGRATIONS"]

DISCLOSURE_MIGRATIONS = [
    Migration(
        "m010_create_agents_and_skill_links",
        [
            # A skill's parent groups it in the manifest (not followed for unlocking).
            Step(
                "column",
                "SKILLBOX.PARENT_SKILL",
                "ALTER TABLE skillbox ADD (parent_skill VARCHAR2(400 CHAR))",
            ),
            Step(
                "table",
                "SKILL_TOOLS",
                """CREATE TABLE skill_tools (
                skill_name VARCHAR2(400 CHAR) NOT NULL
                    REFERENCES skillbox (name) ON DELETE CASCADE,
                tool_name VARCHAR2(200 CHAR) NOT NULL,
                access_level VARCHAR2(10) DEFAULT 'read' NOT NULL
                    CHECK (access_level IN ('read', 'write', 'execute')),
                PRIMARY KEY (skill_name, tool_name))""",
            ),
            Step(
                "index",
                "SKILL_TOOLS_TOOL",
                "CREATE INDEX skill_tools_tool ON skill_tools (tool_name)",
            ),
            Step(
                "table",
                "SKILL_DEPENDENCIES",
                """CREATE TABLE skill_dependencies (
                skill_name VARCHAR2(400 CHAR) NOT NULL
                    REFERENCES skillbox (name) ON DELETE CASCADE,
                depends_on VARCHAR2(400 CHAR) NOT NULL,
                required NUMBER(1) DEFAULT 1 NOT NULL CHECK (required IN (0, 1)),
                PRIMARY KEY (skill_name, depends_on))""",
            ),
            Step(
                "table",
                "AGENTS",
                f"""CREATE TABLE agents (
                name VARCHAR2(64 CHAR) PRIMARY KEY,
                description VARCHAR2(4000 CHAR) NOT NULL,
                system_prompt CLOB NOT NULL,
                source VARCHAR2(2000 CHAR),
                content_hash VARCHAR2(64),
                {_UPDATED})""",
            ),
            Step(
                "table",
                "AGENT_SKILLS",
                """CREATE TABLE agent_skills (
                agent_name VARCHAR2(64 CHAR) NOT NULL
                    REFERENCES agents (name) ON DELETE CASCADE,
                skill_name VARCHAR2(400 CHAR) NOT NULL
                    REFERENCES skillbox (name) ON DELETE CASCADE,
                priority NUMBER DEFAULT 0 NOT NULL,
                sequence NUMBER DEFAULT 0 NOT NULL,
                config VARCHAR2(4000 CHAR) DEFAULT '{}' NOT NULL CHECK (config IS JSON),
                PRIMARY KEY (agent_name, skill_name))""",
            ),
            # Skills loaded in a conversation: their tools stay unlocked for the thread.
            Step(
                "table",
                "THREAD_SKILLS",
                """CREATE TABLE thread_skills (
                thread_id VARCHAR2(200 CHAR) NOT NULL,
                agent_name VARCHAR2(64 CHAR) NOT NULL,
                skill_name VARCHAR2(400 CHAR) NOT NULL,
                turn_id VARCHAR2(64),
                loaded_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL,
                PRIMARY KEY (thread_id, agent_name, skill_name))""",
            ),
        ],
    ),
    Migration(
        "m011_open_implementation_types",
        [
            # Implementation types are registered in Python, so the column no longer lists
            # them: drop the unnamed CHECK (found by its text in USER_CONSTRAINTS,
            # SEARCH_CONDITION_VC, Database Reference 23) with ALTER TABLE ... DROP CONSTRAINT
            # (SQL Language Reference 23, ALTER TABLE, drop_constraint_clause). The block does
            # nothing once the constraint is gone, so it may run again.
            Step(
                "idempotent block",
                "TOOL_DEFINITIONS.IMPLEMENTATION_TYPE",
                """BEGIN
                FOR c IN (SELECT constraint_name FROM user_constraints
                          WHERE table_name = 'TOOL_DEFINITIONS' AND constraint_type = 'C'
                            AND UPPER(search_condition_vc) LIKE '%IMPLEMENTATION_TYPE IN%') LOOP
                    EXECUTE IMMEDIATE
                        'ALTER TABLE tool_definitions DROP CONSTRAINT ' || c.constraint_name;
                END LOOP;
            END;""",
            ),
        ],
    ),
    Migration(
        "m012_drop_toolbox_enabled",
        [
            # Nothing ever read toolbox.enabled: a tool is switched off by its circuit breaker
            # (tool_breakers). ALTER TABLE ... DROP COLUMN (SQL Language Reference 23, ALTER
            # TABLE, drop_column_clause); skipped once USER_TAB_COLUMNS no longer lists it.
            Step("dropped column", "TOOLBOX.ENABLED", "ALTER TABLE toolbox DROP COLUMN enabled"),
        ],
    ),
]
