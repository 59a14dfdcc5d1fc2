"""The embedded backend's migrations: SQLite DDL, each step one statement.

Named and append-only (see :mod:`agent_harness.backends.migrations`): to add one, append
``Migration("m005_what_it_does", [...statements])`` to :data:`MIGRATIONS`. Never edit or rename
one that has shipped. Each migration runs inside one savepoint with its record in
``schema_migrations``, so it applies completely or not at all.
"""

from __future__ import annotations

from agent_harness.backends.embedded.connection import NOW
from agent_harness.backends.migrations import Migration, Migrations
from agent_harness.foundation.embeddings import DIMENSIONS

__all__ = ["MIGRATIONS", "LEDGER_DDL", "NOW"]

# Shared by m008 (created) and m011 (recreated around the rebuilt tool_definitions).
_TOOL_PARAMETERS = """CREATE TABLE tool_parameters (
                    tool_name TEXT NOT NULL
                        REFERENCES tool_definitions (name) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    json_type TEXT NOT NULL CHECK (json_type IN
                        ('string', 'integer', 'number', 'boolean', 'array', 'object')),
                    required INTEGER NOT NULL DEFAULT 1 CHECK (required IN (0, 1)),
                    default_value TEXT CHECK (default_value IS NULL OR json_valid(default_value)),
                    description TEXT NOT NULL,
                    schema_extra TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(schema_extra)),
                    PRIMARY KEY (tool_name, name))"""

MIGRATIONS = Migrations(
    "embedded",
    [
        Migration(
            "m001_create_memory",
            [
                f"""CREATE TABLE memories (
                id INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL,
                agent_id TEXT NOT NULL,
                thread_id TEXT,
                kind TEXT NOT NULL,
                subject TEXT,
                content TEXT NOT NULL,
                metadata TEXT NOT NULL DEFAULT '{{}}' CHECK (json_valid(metadata)),
                content_hash TEXT NOT NULL,
                created_at TEXT NOT NULL DEFAULT ({NOW}),
                updated_at TEXT NOT NULL DEFAULT ({NOW}))""",
                "CREATE INDEX memories_scope_kind ON memories (user_id, agent_id, kind, subject)",
                "CREATE INDEX memories_thread ON memories (thread_id)",
                # External-content FTS5 table kept in step by triggers, inside the same transaction.
                """CREATE VIRTUAL TABLE memory_fts USING fts5(
                content, subject, content='memories', content_rowid='id',
                tokenize='porter unicode61 remove_diacritics 2')""",
                """CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
                INSERT INTO memory_fts(rowid, content, subject)
                VALUES (new.id, new.content, new.subject); END""",
                """CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
                INSERT INTO memory_fts(memory_fts, rowid, content, subject)
                VALUES ('delete', old.id, old.content, old.subject); END""",
                """CREATE TRIGGER memories_au AFTER UPDATE OF content, subject ON memories BEGIN
                INSERT INTO memory_fts(memory_fts, rowid, content, subject)
                VALUES ('delete', old.id, old.content, old.subject);
                INSERT INTO memory_fts(rowid, content, subject)
                VALUES (new.id, new.content, new.subject); END""",
                # scope (user + agent) is a partition key: a search scans only its own scope.
                # Vectors are unit length, so L2 ranks exactly as cosine does, and sqlite-vec's L2
                # kernel is about 15% faster; the search reports cosine distance = L2^2 / 2.
                f"""CREATE VIRTUAL TABLE memory_vec USING vec0(
                memory_id INTEGER PRIMARY KEY,
                embedding float[{DIMENSIONS}] distance_metric=l2,
                scope TEXT PARTITION KEY,
                kind TEXT)""",
            ],
        ),
        Migration(
            "m002_create_toolbox_and_skillbox",
            [
                # category and enabled are read by later features (telemetry, progressive
                # disclosure).
                f"""CREATE TABLE toolbox (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                description TEXT NOT NULL,
                parameters TEXT NOT NULL CHECK (json_valid(parameters)),
                category TEXT,
                always_on INTEGER NOT NULL DEFAULT 0,
                enabled INTEGER NOT NULL DEFAULT 1,
                content_hash TEXT NOT NULL,
                updated_at TEXT NOT NULL DEFAULT ({NOW}))""",
                f"""CREATE VIRTUAL TABLE toolbox_vec USING vec0(
                id INTEGER PRIMARY KEY, embedding float[{DIMENSIONS}] distance_metric=cosine)""",
                f"""CREATE TABLE skillbox (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                title TEXT NOT NULL,
                description TEXT NOT NULL,
                body TEXT NOT NULL,
                source TEXT NOT NULL,
                path TEXT,
                content_hash TEXT NOT NULL,
                updated_at TEXT NOT NULL DEFAULT ({NOW}))""",
                f"""CREATE VIRTUAL TABLE skillbox_vec USING vec0(
                id INTEGER PRIMARY KEY, embedding float[{DIMENSIONS}] distance_metric=cosine)""",
            ],
        ),
        Migration(
            "m003_create_scratchpad",
            [
                f"""CREATE TABLE scratch_files (
                user_id TEXT NOT NULL,
                agent_id TEXT NOT NULL,
                path TEXT NOT NULL,
                content TEXT NOT NULL,
                updated_at TEXT NOT NULL DEFAULT ({NOW}),
                PRIMARY KEY (user_id, agent_id, path))""",
            ],
        ),
        Migration(
            "m004_create_settings",
            [
                f"""CREATE TABLE IF NOT EXISTS harness_settings (
                    name TEXT PRIMARY KEY,
                    value TEXT,
                    updated_at TEXT NOT NULL DEFAULT ({NOW}))""",
            ],
        ),
        Migration(
            "m005_create_tool_telemetry",
            [
                """CREATE TABLE tool_telemetry (
                    id INTEGER PRIMARY KEY,
                    gen_ai_tool_name TEXT NOT NULL,
                    gen_ai_tool_call_id TEXT,
                    gen_ai_tool_type TEXT NOT NULL DEFAULT 'function',
                    tool_category TEXT,
                    gen_ai_conversation_id TEXT,
                    turn_id TEXT,
                    gen_ai_tool_call_arguments TEXT,
                    success INTEGER CHECK (success IN (0, 1)),
                    error_type TEXT,
                    error_message TEXT,
                    duration_ms REAL NOT NULL,
                    output_chars INTEGER NOT NULL DEFAULT 0,
                    started_at TEXT NOT NULL)""",
                # The window of a tool is read newest first through this index.
                "CREATE INDEX tool_telemetry_tool ON tool_telemetry (gen_ai_tool_name, id)",
                "CREATE INDEX tool_telemetry_time ON tool_telemetry (started_at)",
                "CREATE INDEX tool_telemetry_turn ON tool_telemetry (turn_id)",
            ],
        ),
        Migration(
            "m006_create_tool_breakers",
            [
                """CREATE TABLE tool_breakers (
                    tool_name TEXT PRIMARY KEY,
                    state TEXT NOT NULL CHECK (state IN ('closed', 'open', 'half_open')),
                    since TEXT NOT NULL,
                    reason TEXT,
                    retry_at TEXT,
                    trial_successes INTEGER NOT NULL DEFAULT 0,
                    trial_failures INTEGER NOT NULL DEFAULT 0,
                    window_start_id INTEGER NOT NULL DEFAULT 0,
                    opened_count INTEGER NOT NULL DEFAULT 0)""",
                """CREATE TABLE tool_transitions (
                    id INTEGER PRIMARY KEY,
                    tool_name TEXT NOT NULL,
                    from_state TEXT NOT NULL,
                    to_state TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    actor TEXT NOT NULL,
                    evidence TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(evidence)),
                    at TEXT NOT NULL)""",
                "CREATE INDEX tool_transitions_tool ON tool_transitions (tool_name, id)",
            ],
        ),
        Migration(
            "m007_create_provenance",
            [
                """CREATE TABLE agent_turns (
                    turn_id TEXT PRIMARY KEY,
                    thread_id TEXT,
                    user_id TEXT,
                    agent_id TEXT,
                    question TEXT NOT NULL,
                    model TEXT,
                    answer TEXT,
                    status TEXT NOT NULL DEFAULT 'running',
                    started_at TEXT NOT NULL,
                    duration_ms REAL,
                    prompt_tokens INTEGER,
                    completion_tokens INTEGER,
                    total_tokens INTEGER)""",
                "CREATE INDEX agent_turns_thread ON agent_turns (thread_id, started_at)",
                # telemetry_id is a soft link: retention may prune telemetry, never the trail.
                """CREATE TABLE turn_events (
                    id INTEGER PRIMARY KEY,
                    turn_id TEXT NOT NULL REFERENCES agent_turns (turn_id) ON DELETE CASCADE,
                    parent_id INTEGER REFERENCES turn_events (id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    name TEXT,
                    ok INTEGER,
                    telemetry_id INTEGER,
                    detail TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(detail)),
                    at TEXT NOT NULL,
                    duration_ms REAL)""",
                "CREATE INDEX turn_events_turn ON turn_events (turn_id, seq)",
                "CREATE INDEX turn_events_parent ON turn_events (parent_id)",
                "CREATE INDEX turn_events_kind_name ON turn_events (kind, name)",
                "CREATE INDEX turn_events_telemetry ON turn_events (telemetry_id)",
            ],
        ),
        Migration(
            "m008_create_tool_definitions",
            [
                f"""CREATE TABLE tool_definitions (
                    name TEXT PRIMARY KEY,
                    description TEXT NOT NULL,
                    implementation_type TEXT NOT NULL
                        CHECK (implementation_type IN ('python', 'sql', 'javascript', 'mcp')),
                    implementation TEXT NOT NULL CHECK (json_valid(implementation)),
                    category TEXT NOT NULL DEFAULT 'general',
                    access_level TEXT NOT NULL DEFAULT 'read'
                        CHECK (access_level IN ('read', 'write', 'execute')),
                    timeout_s REAL NOT NULL DEFAULT 30,
                    updated_at TEXT NOT NULL DEFAULT ({NOW}))""",
                _TOOL_PARAMETERS,
            ],
        ),
        Migration(
            "m009_create_tool_search",
            [
                # The keyword text of a tool (Tool.search_text(), computed in Python); rows
                # stored before this migration get theirs at the next ToolRegistry.sync().
                "ALTER TABLE toolbox ADD COLUMN search_text TEXT NOT NULL DEFAULT ''",
                # External-content FTS5 table kept in step by triggers, as memory_fts is.
                """CREATE VIRTUAL TABLE toolbox_fts USING fts5(
                search_text, content='toolbox', content_rowid='id',
                tokenize='porter unicode61 remove_diacritics 2')""",
                """CREATE TRIGGER toolbox_ai AFTER INSERT ON toolbox BEGIN
                INSERT INTO toolbox_fts(rowid, search_text) VALUES (new.id, new.search_text);
                END""",
                """CREATE TRIGGER toolbox_ad AFTER DELETE ON toolbox BEGIN
                INSERT INTO toolbox_fts(toolbox_fts, rowid, search_text)
                VALUES ('delete', old.id, old.search_text); END""",
                # Re-indexed only when the text changed.
                """CREATE TRIGGER toolbox_au AFTER UPDATE OF search_text ON toolbox
                WHEN old.search_text IS NOT new.search_text BEGIN
                INSERT INTO toolbox_fts(toolbox_fts, rowid, search_text)
                VALUES ('delete', old.id, old.search_text);
                INSERT INTO toolbox_fts(rowid, search_text) VALUES (new.id, new.search_text);
                END""",
                "INSERT INTO toolbox_fts(toolbox_fts) VALUES ('rebuild')",
            ],
        ),
        Migration(
            "m010_create_agents_and_skill_links",
            [
                # A skill's parent groups it in the manifest (not followed for unlocking).
                "ALTER TABLE skillbox ADD COLUMN parent_skill TEXT",
                # What loading a skill unlocks, and the access it grants to each tool. No
                # foreign key to toolbox: a skill may name a tool defined later (reported).
                """CREATE TABLE skill_tools (
                    skill_name TEXT NOT NULL REFERENCES skillbox (name) ON DELETE CASCADE,
                    tool_name TEXT NOT NULL,
                    access_level TEXT NOT NULL DEFAULT 'read'
                        CHECK (access_level IN ('read', 'write', 'execute')),
                    PRIMARY KEY (skill_name, tool_name))""",
                "CREATE INDEX skill_tools_tool ON skill_tools (tool_name)",
                """CREATE TABLE skill_dependencies (
                    skill_name TEXT NOT NULL REFERENCES skillbox (name) ON DELETE CASCADE,
                    depends_on TEXT NOT NULL,
                    required INTEGER NOT NULL DEFAULT 1 CHECK (required IN (0, 1)),
                    PRIMARY KEY (skill_name, depends_on))""",
                f"""CREATE TABLE agents (
                    name TEXT PRIMARY KEY,
                    description TEXT NOT NULL,
                    system_prompt TEXT NOT NULL,
                    source TEXT,
                    content_hash TEXT,
                    updated_at TEXT NOT NULL DEFAULT ({NOW}))""",
                """CREATE TABLE agent_skills (
                    agent_name TEXT NOT NULL REFERENCES agents (name) ON DELETE CASCADE,
                    skill_name TEXT NOT NULL REFERENCES skillbox (name) ON DELETE CASCADE,
                    priority INTEGER NOT NULL DEFAULT 0,
                    sequence INTEGER NOT NULL DEFAULT 0,
                    config TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config)),
                    PRIMARY KEY (agent_name, skill_name))""",
                # Skills loaded in a conversation: their tools stay unlocked for the thread.
                f"""CREATE TABLE thread_skills (
                    thread_id TEXT NOT NULL,
                    agent_name TEXT NOT NULL,
                    skill_name TEXT NOT NULL,
                    turn_id TEXT,
                    loaded_at TEXT NOT NULL DEFAULT ({NOW}),
                    PRIMARY KEY (thread_id, agent_name, skill_name))""",
            ],
        ),
        Migration(
            "m011_open_implementation_types",
            [
                # Implementation types are registered in Python (one table of type -> runner),
                # so the column no longer lists them. SQLite cannot drop a CHECK: rebuild the
                # table. tool_parameters goes first and comes back (a DROP of its parent would
                # cascade into its rows); the savepoint makes it all or nothing.
                "CREATE TEMP TABLE m011_parameters AS SELECT * FROM tool_parameters",
                "CREATE TEMP TABLE m011_definitions AS SELECT * FROM tool_definitions",
                "DROP TABLE tool_parameters",
                "DROP TABLE tool_definitions",
                f"""CREATE TABLE tool_definitions (
                    name TEXT PRIMARY KEY,
                    description TEXT NOT NULL,
                    implementation_type TEXT NOT NULL,
                    implementation TEXT NOT NULL CHECK (json_valid(implementation)),
                    category TEXT NOT NULL DEFAULT 'general',
                    access_level TEXT NOT NULL DEFAULT 'read'
                        CHECK (access_level IN ('read', 'write', 'execute')),
                    timeout_s REAL NOT NULL DEFAULT 30,
                    updated_at TEXT NOT NULL DEFAULT ({NOW}))""",
                _TOOL_PARAMETERS,
                "INSERT INTO tool_definitions SELECT * FROM temp.m011_definitions",
                "INSERT INTO tool_parameters SELECT * FROM temp.m011_parameters",
                "DROP TABLE temp.m011_parameters",
                "DROP TABLE temp.m011_definitions",
            ],
        ),
        Migration(
            "m012_drop_toolbox_enabled",
            [
                # Nothing ever read toolbox.enabled: a tool is switched off by its circuit
                # breaker (tool_breakers), the one switch retrieval and calls obey.
                "ALTER TABLE toolbox DROP COLUMN enabled",
            ],
        ),
        Migration(
            "m013_catalog_watch",
            [
                # The fingerprint of the catalog each memory scope last scanned (the change
                # detector of agent_harness.agent.catalog_watch; Oracle also queues changes found by
                # a scheduler job, see the Oracle m013).
                f"""CREATE TABLE IF NOT EXISTS catalog_watch (
                    owner TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    agent_id TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    checked_at TEXT NOT NULL DEFAULT ({NOW}),
                    scanned_at TEXT NOT NULL DEFAULT ({NOW}),
                    PRIMARY KEY (owner, user_id, agent_id))""",
            ],
        ),
        Migration(
            "m014_memory_vectors_as_bits",
            [
                # A memory's vector twice: its sign bits (384 bits = 48 bytes, what the KNN
                # scans: 32 times less than the floats) and, as an auxiliary column read only
                # for the candidates, the float32 vector the candidates are re-scored with
                # (embedded/memory.py). vec0 cannot rename a table, so the new one has a new name.
                f"""CREATE VIRTUAL TABLE memory_vectors USING vec0(
                memory_id INTEGER PRIMARY KEY,
                embedding_bits bit[{DIMENSIONS}],
                scope TEXT PARTITION KEY,
                kind TEXT,
                +embedding BLOB)""",
                """INSERT INTO memory_vectors (memory_id, embedding_bits, scope, kind, embedding)
                SELECT memory_id, vec_quantize_binary(embedding), scope, kind, embedding
                FROM memory_vec""",
                "DROP TABLE memory_vec",
            ],
        ),
    ],
)

LEDGER_DDL = (
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
    f" name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT ({NOW}))"
)
