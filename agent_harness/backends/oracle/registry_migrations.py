"""The Oracle migrations of the self-healing registry, tools as data and tool search
(m005-m009).

Same names and meaning as the embedded backend's; appended to
:data:`agent_harness.backends.oracle.migrations.MIGRATIONS`.
"""

from __future__ import annotations

from agent_harness.backends.migrations import Migration
from agent_harness.backends.oracle.provenance_graph import PROPERTY_GRAPH_DDL
from agent_harness.backends.oracle.steps import UPDATED as _UPDATED
from agent_harness.backends.oracle.steps import Step

__all__ = ["REGISTRY_MIGRATIONS"]

REGISTRY_MIGRATIONS = [
    Migration(
        "m005_create_tool_telemetry",
        [
            # Times are TIMESTAMP in UTC (bound as naive UTC): the index serves the window.
            Step(
                "table",
                "TOOL_TELEMETRY",
                """CREATE TABLE tool_telemetry (
                id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                gen_ai_tool_name VARCHAR2(200 CHAR) NOT NULL,
                gen_ai_tool_call_id VARCHAR2(200 CHAR),
                gen_ai_tool_type VARCHAR2(40) DEFAULT 'function' NOT NULL,
                tool_category VARCHAR2(40 CHAR),
                gen_ai_conversation_id VARCHAR2(200 CHAR),
                turn_id VARCHAR2(64),
                gen_ai_tool_call_arguments CLOB,
                success NUMBER(1) CHECK (success IN (0, 1)),
                error_type VARCHAR2(200 CHAR),
                error_message VARCHAR2(1000 CHAR),
                duration_ms BINARY_DOUBLE NOT NULL,
                output_chars NUMBER DEFAULT 0 NOT NULL,
                started_at TIMESTAMP NOT NULL)""",
            ),
            Step(
                "index",
                "TOOL_TELEMETRY_TOOL",
                "CREATE INDEX tool_telemetry_tool ON tool_telemetry (gen_ai_tool_name, id)",
            ),
            Step(
                "index",
                "TOOL_TELEMETRY_TIME",
                "CREATE INDEX tool_telemetry_time ON tool_telemetry (started_at)",
            ),
            Step(
                "index",
                "TOOL_TELEMETRY_TURN",
                "CREATE INDEX tool_telemetry_turn ON tool_telemetry (turn_id)",
            ),
        ],
    ),
    Migration(
        "m006_create_tool_breakers",
        [
            Step(
                "table",
                "TOOL_BREAKERS",
                """CREATE TABLE tool_breakers (
                tool_name VARCHAR2(200 CHAR) PRIMARY KEY,
                state VARCHAR2(10) NOT NULL CHECK (state IN ('closed', 'open', 'half_open')),
                since TIMESTAMP NOT NULL,
                reason VARCHAR2(1000 CHAR),
                retry_at TIMESTAMP,
                trial_successes NUMBER DEFAULT 0 NOT NULL,
                trial_failures NUMBER DEFAULT 0 NOT NULL,
                window_start_id NUMBER DEFAULT 0 NOT NULL,
                opened_count NUMBER DEFAULT 0 NOT NULL)""",
            ),
            Step(
                "table",
                "TOOL_TRANSITIONS",
                """CREATE TABLE tool_transitions (
                id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                tool_name VARCHAR2(200 CHAR) NOT NULL,
                from_state VARCHAR2(10) NOT NULL,
                to_state VARCHAR2(10) NOT NULL,
                reason VARCHAR2(1000 CHAR) NOT NULL,
                actor VARCHAR2(20) NOT NULL,
                evidence CLOB DEFAULT '{}' NOT NULL CHECK (evidence IS JSON),
                at TIMESTAMP NOT NULL)""",
            ),
            Step(
                "index",
                "TOOL_TRANSITIONS_TOOL",
                "CREATE INDEX tool_transitions_tool ON tool_transitions (tool_name, id)",
            ),
        ],
    ),
    Migration(
        "m007_create_provenance",
        [
            Step(
                "table",
                "AGENT_TURNS",
                """CREATE TABLE agent_turns (
                turn_id VARCHAR2(64) PRIMARY KEY,
                thread_id VARCHAR2(200 CHAR),
                user_id VARCHAR2(200 CHAR),
                agent_id VARCHAR2(200 CHAR),
                question CLOB NOT NULL,
                model VARCHAR2(200 CHAR),
                answer CLOB,
                status VARCHAR2(20) DEFAULT 'running' NOT NULL,
                started_at TIMESTAMP NOT NULL,
                duration_ms BINARY_DOUBLE,
                prompt_tokens NUMBER,
                completion_tokens NUMBER,
                total_tokens NUMBER)""",
            ),
            Step(
                "index",
                "AGENT_TURNS_THREAD",
                "CREATE INDEX agent_turns_thread ON agent_turns (thread_id, started_at)",
            ),
            # telemetry_id is a soft link: retention may prune telemetry, never the trail.
            Step(
                "table",
                "TURN_EVENTS",
                """CREATE TABLE turn_events (
                id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                turn_id VARCHAR2(64) NOT NULL REFERENCES agent_turns (turn_id) ON DELETE CASCADE,
                parent_id NUMBER REFERENCES turn_events (id) ON DELETE CASCADE,
                seq NUMBER NOT NULL,
                kind VARCHAR2(40) NOT NULL,
                name VARCHAR2(200 CHAR),
                ok NUMBER(1),
                telemetry_id NUMBER,
                detail CLOB DEFAULT '{}' NOT NULL CHECK (detail IS JSON),
                at TIMESTAMP NOT NULL,
                duration_ms BINARY_DOUBLE)""",
            ),
            Step(
                "index",
                "TURN_EVENTS_TURN",
                "CREATE INDEX turn_events_turn ON turn_events (turn_id, seq)",
            ),
            Step(
                "index",
                "TURN_EVENTS_PARENT",
                "CREATE INDEX turn_events_parent ON turn_events (parent_id)",
            ),
            Step(
                "index",
                "TURN_EVENTS_KIND_NAME",
                "CREATE INDEX turn_events_kind_name ON turn_events (kind, name)",
            ),
            Step(
                "index",
                "TURN_EVENTS_TELEMETRY",
                "CREATE INDEX turn_events_telemetry ON turn_events (telemetry_id)",
            ),
            Step("property graph", "PROVENANCE_GRAPH", PROPERTY_GRAPH_DDL),
        ],
    ),
    Migration(
        "m008_create_tool_definitions",
        [
            Step(
                "table",
                "TOOL_DEFINITIONS",
                f"""CREATE TABLE tool_definitions (
                name VARCHAR2(64 CHAR) PRIMARY KEY,
                description VARCHAR2(4000 CHAR) NOT NULL,
                implementation_type VARCHAR2(20) NOT NULL
                    CHECK (implementation_type IN ('python', 'sql', 'javascript', 'mcp')),
                implementation CLOB NOT NULL CHECK (implementation IS JSON),
                category VARCHAR2(40 CHAR) DEFAULT 'general' NOT NULL,
                access_level VARCHAR2(10) DEFAULT 'read' NOT NULL
                    CHECK (access_level IN ('read', 'write', 'execute')),
                timeout_s NUMBER DEFAULT 30 NOT NULL,
                {_UPDATED})""",
            ),
            Step(
                "table",
                "TOOL_PARAMETERS",
                """CREATE TABLE tool_parameters (
                tool_name VARCHAR2(64 CHAR) NOT NULL
                    REFERENCES tool_definitions (name) ON DELETE CASCADE,
                ordinal NUMBER NOT NULL,
                name VARCHAR2(64 CHAR) NOT NULL,
                json_type VARCHAR2(10) NOT NULL CHECK (json_type IN
                    ('string', 'integer', 'number', 'boolean', 'array', 'object')),
                required NUMBER(1) DEFAULT 1 NOT NULL CHECK (required IN (0, 1)),
                default_value VARCHAR2(4000 CHAR) CHECK (default_value IS JSON),
                description VARCHAR2(4000 CHAR) NOT NULL,
                schema_extra VARCHAR2(4000 CHAR) DEFAULT '{}' NOT NULL
                    CHECK (schema_extra IS JSON),
                PRIMARY KEY (tool_name, name))""",
            ),
        ],
    ),
    Migration(
        "m009_create_tool_search",
        [
            # The keyword text of a tool (Tool.search_text(), computed in Python); rows stored
            # before this migration get theirs at the next ToolRegistry.sync().
            Step("column", "TOOLBOX.SEARCH_TEXT", "ALTER TABLE toolbox ADD (search_text CLOB)"),
            # As the memories' index: accents folded, every word indexed, kept in step at
            # each commit.
            Step(
                "text index",
                "TOOLBOX_TEXT",
                "CREATE INDEX toolbox_text ON toolbox (search_text) INDEXTYPE IS CTXSYS.CONTEXT"
                " PARAMETERS ('LEXER WORKSHOP_LEXER STOPLIST WORKSHOP_STOPLIST"
                " SYNC (ON COMMIT)')",
            ),
        ],
    ),
]
