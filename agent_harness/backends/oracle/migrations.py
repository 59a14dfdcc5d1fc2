"""The Oracle backend's migrations: DDL steps that are skipped when their object exists.

Named and append-only (see :mod:`agent_harness.backends.migrations`): to add one, append
``Migration("m005_what_it_does", [Step(...), ...])`` to :data:`MIGRATIONS`. Never edit or rename
one that has shipped. Oracle DDL commits by itself, so a migration cannot be rolled back as a
whole; instead every step checks the data dictionary first (:data:`EXISTS_SQL`) and a migration
that stopped half-way runs again from the top.
"""

from __future__ import annotations

from agent_harness.backends.migrations import Migration, Migrations
from agent_harness.backends.oracle.catalog_watch import CATALOG_WATCH_MIGRATIONS
from agent_harness.backends.oracle.disclosure_migrations import DISCLOSURE_MIGRATIONS
from agent_harness.backends.oracle.registry_migrations import REGISTRY_MIGRATIONS
from agent_harness.backends.oracle.steps import Step
from agent_harness.backends.oracle.text_query import NO_MATCH_WORD
from agent_harness.foundation.embeddings import DIMENSIONS

__all__ = ["EXISTS_SQL", "LEDGER_DDL", "MIGRATIONS", "Step"]


_HNSW = "ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95"
_VECTOR = f"VECTOR({DIMENSIONS}, FLOAT32)"
_UPDATED = "updated_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL"

MIGRATIONS = Migrations(
    "oracle",
    [
        Migration(
            "m001_create_memory",
            [
                # Accents fold to base letters (cafe finds Café), as FTS5's remove_diacritics does.
                Step(
                    "preference",
                    "WORKSHOP_LEXER",
                    "BEGIN CTX_DDL.CREATE_PREFERENCE('WORKSHOP_LEXER', 'BASIC_LEXER');"
                    " CTX_DDL.SET_ATTRIBUTE('WORKSHOP_LEXER', 'BASE_LETTER', 'YES'); END;",
                ),
                # Every word is indexed, as in FTS5; the one stopword is the "match nothing" query.
                Step(
                    "stoplist",
                    "WORKSHOP_STOPLIST",
                    "BEGIN CTX_DDL.CREATE_STOPLIST('WORKSHOP_STOPLIST', 'BASIC_STOPLIST');"
                    f" CTX_DDL.ADD_STOPWORD('WORKSHOP_STOPLIST', '{NO_MATCH_WORD}'); END;",
                ),
                Step(
                    "table",
                    "MEMORIES",
                    f"""CREATE TABLE memories (
                id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                user_id VARCHAR2(200 CHAR) NOT NULL,
                agent_id VARCHAR2(200 CHAR) NOT NULL,
                thread_id VARCHAR2(200 CHAR),
                kind VARCHAR2(40) NOT NULL,
                subject VARCHAR2(1000 CHAR),
                content CLOB NOT NULL,
                metadata JSON NOT NULL,
                content_hash VARCHAR2(64) NOT NULL,
                created_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL,
                {_UPDATED},
                embedding {_VECTOR})""",
                ),
                Step(
                    "index",
                    "MEMORIES_SCOPE_KIND",
                    "CREATE INDEX memories_scope_kind ON memories"
                    " (user_id, agent_id, kind, subject)",
                ),
                Step(
                    "index",
                    "MEMORIES_THREAD",
                    "CREATE INDEX memories_thread ON memories (thread_id)",
                ),
                Step(
                    "text index",
                    "MEMORIES_TEXT",
                    "CREATE INDEX memories_text ON memories (content) INDEXTYPE IS CTXSYS.CONTEXT"
                    " PARAMETERS ('LEXER WORKSHOP_LEXER STOPLIST WORKSHOP_STOPLIST"
                    " SYNC (ON COMMIT)')",
                ),
                Step(
                    "index",
                    "MEMORIES_HNSW",
                    f"CREATE VECTOR INDEX memories_hnsw ON memories (embedding) {_HNSW}",
                ),
            ],
        ),
        Migration(
            "m002_create_toolbox_and_skillbox",
            [
                Step(
                    "table",
                    "TOOLBOX",
                    f"""CREATE TABLE toolbox (
                id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name VARCHAR2(200 CHAR) NOT NULL UNIQUE,
                description CLOB NOT NULL,
                parameters JSON NOT NULL,
                category VARCHAR2(100 CHAR),
                always_on NUMBER(1) DEFAULT 0 NOT NULL,
                enabled NUMBER(1) DEFAULT 1 NOT NULL,
                content_hash VARCHAR2(64) NOT NULL,
                {_UPDATED},
                embedding {_VECTOR})""",
                ),
                Step(
                    "index",
                    "TOOLBOX_HNSW",
                    f"CREATE VECTOR INDEX toolbox_hnsw ON toolbox (embedding) {_HNSW}",
                ),
                Step(
                    "table",
                    "SKILLBOX",
                    f"""CREATE TABLE skillbox (
                id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name VARCHAR2(400 CHAR) NOT NULL UNIQUE,
                title VARCHAR2(1000 CHAR) NOT NULL,
                description CLOB NOT NULL,
                body CLOB NOT NULL,
                source VARCHAR2(400 CHAR) NOT NULL,
                path VARCHAR2(2000 CHAR),
                content_hash VARCHAR2(64) NOT NULL,
                {_UPDATED},
                embedding {_VECTOR})""",
                ),
                Step(
                    "index",
                    "SKILLBOX_HNSW",
                    f"CREATE VECTOR INDEX skillbox_hnsw ON skillbox (embedding) {_HNSW}",
                ),
            ],
        ),
        Migration(
            "m003_create_scratchpad",
            [
                Step(
                    "table",
                    "SCRATCH_FILES",
                    f"""CREATE TABLE scratch_files (
                user_id VARCHAR2(200 CHAR) NOT NULL,
                agent_id VARCHAR2(200 CHAR) NOT NULL,
                path VARCHAR2(400 CHAR) NOT NULL,
                content CLOB,
                {_UPDATED},
                PRIMARY KEY (user_id, agent_id, path))""",
                ),
            ],
        ),
        Migration(
            "m004_create_settings",
            [
                Step(
                    "table",
                    "HARNESS_SETTINGS",
                    f"""CREATE TABLE harness_settings (
                name VARCHAR2(100) PRIMARY KEY,
                value VARCHAR2(4000),
                {_UPDATED})""",
                ),
            ],
        ),
        *REGISTRY_MIGRATIONS,
        *DISCLOSURE_MIGRATIONS,
        *CATALOG_WATCH_MIGRATIONS,
        Migration(
            "m014_memory_vectors_as_bits",
            [
                # The embedded backend's m014 moves its vectors into a vec0 table of bits and
                # floats (a sign-bit scan, then an exact re-score). Oracle keeps each vector in
                # memories.embedding under its HNSW index (m001), which already finds the
                # candidates without reading every vector: nothing to change here. The name
                # is kept so both ledgers list the same migrations (PL/SQL Language Reference
                # 23, "NULL Statement": a block that does nothing).
                Step("idempotent block", "MEMORY_VECTORS_AS_BITS", "BEGIN NULL; END;"),
            ],
        ),
    ],
)

EXISTS_SQL = {
    "table": "SELECT COUNT(*) FROM user_tables WHERE table_name = :name",
    # Database Reference 26: USER_TAB_COLUMNS (TABLE_NAME, COLUMN_NAME); named TABLE.COLUMN
    "column": "SELECT COUNT(*) FROM user_tab_columns WHERE table_name || '.' || column_name"
    " = :name",
    "index": "SELECT COUNT(*) FROM user_indexes WHERE index_name = :name",
    "text index": "SELECT COUNT(*) FROM user_indexes WHERE index_name = :name",
    "preference": "SELECT COUNT(*) FROM ctx_user_preferences WHERE pre_name = :name",
    "stoplist": "SELECT COUNT(*) FROM ctx_stoplists WHERE spl_owner = USER AND spl_name = :name",
    # Database Reference 26: USER_PROPERTY_GRAPHS (GRAPH_NAME)
    "property graph": "SELECT COUNT(*) FROM user_property_graphs WHERE graph_name = :name",
    # A column a step drops (TABLE.COLUMN): done once this counts 0 (DONE_WHEN_ABSENT).
    "dropped column": "SELECT COUNT(*) FROM user_tab_columns WHERE table_name || '.' || column_name"
    " = :name",
    # Database Reference 23: USER_OBJECTS (OBJECT_NAME, OBJECT_TYPE, STATUS): a procedure
    # stored with compilation errors is INVALID and is created again; USER_SCHEDULER_JOBS
    "procedure": "SELECT COUNT(*) FROM user_objects WHERE object_name = :name"
    " AND object_type = 'PROCEDURE' AND status = 'VALID'",
    "job": "SELECT COUNT(*) FROM user_scheduler_jobs WHERE job_name = :name",
    # A PL/SQL block that checks for itself what is left to do: always run.
    "idempotent block": "SELECT COUNT(*) FROM dual WHERE :name IS NULL",
}

#: Step kinds that remove an object: done when the object is NOT in the dictionary.
DONE_WHEN_ABSENT = frozenset({"dropped column"})

LEDGER_DDL = (
    "CREATE TABLE IF NOT EXISTS schema_migrations (version NUMBER PRIMARY KEY,"
    " name VARCHAR2(200) NOT NULL,"
    " applied_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL)"
)
