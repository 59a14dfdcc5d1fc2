"""The embedded backend: SQLite (through apsw) + FTS5 (BM25) + sqlite-vec (cosine). No server.

Every SQLite statement of the harness lives in this module. Files, under the data folder:

* ``harness.db``: memories, their full-text index (``memory_fts``) and vectors (``memory_vec``),
  the toolbox, the skillbox, the scratchpad. WAL mode, so a notebook and the CLI can share it.
* ``supplychain.db``: the demo data, attached as ``supplychain`` so ``supplychain.vessels``
  resolves as on Oracle. SQLite has no ``COMMENT ON`` and no data dictionary, so the backend keeps
  comments in ``supplychain._dictionary_comments`` and emulates Oracle's ``ALL_TABLES``,
  ``ALL_TAB_COMMENTS``, ``ALL_TAB_COLUMNS``, ``ALL_COL_COMMENTS``, ``ALL_CONSTRAINTS`` and
  ``ALL_CONS_COLUMNS`` as temporary views: the catalog scanner's SQL runs unchanged on both.

Why apsw and not the standard ``sqlite3``: many Pythons (pyenv builds, some laptops) are built
without extension loading, and sqlite-vec is an extension. apsw bundles a current SQLite and loads
extensions everywhere, from wheels.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import apsw
import numpy as np
import sqlite_vec

from agent_harness.backends.base import (
    Backend,
    BackendError,
    ReadOnlyResult,
    Scope,
)
from agent_harness.backends.embedded_provenance import PROVENANCE_MIGRATIONS, EmbeddedProvenance
from agent_harness.backends.embedded_readonly import ReadOnlyConnection
from agent_harness.backends.embedded_registry import (
    REGISTRY_MIGRATIONS,
    EmbeddedBreakers,
    EmbeddedTelemetry,
    EmbeddedToolRanking,
)
from agent_harness.backends.tokens import MAX_QUERY_TOKENS, STOP_WORDS, query_tokens
from agent_harness.embeddings import DIMENSIONS

__all__ = [
    "EmbeddedBackend",
    "MIGRATIONS",
    # re-exported: they lived here before the Oracle backend shared them
    "MAX_QUERY_TOKENS",
    "STOP_WORDS",
    "query_tokens",
]

_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

# Numbered, idempotent migrations (name, statements). Never edit one that has shipped: add one.
MIGRATIONS: list[tuple[str, list[str]]] = [
    (
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
                created_at TEXT NOT NULL DEFAULT ({_NOW}),
                updated_at TEXT NOT NULL DEFAULT ({_NOW}))""",
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
    (
        "m002_create_toolbox_and_skillbox",
        [
            # category and enabled are read by later features (telemetry, progressive disclosure).
            f"""CREATE TABLE toolbox (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                description TEXT NOT NULL,
                parameters TEXT NOT NULL CHECK (json_valid(parameters)),
                category TEXT,
                always_on INTEGER NOT NULL DEFAULT 0,
                enabled INTEGER NOT NULL DEFAULT 1,
                content_hash TEXT NOT NULL,
                updated_at TEXT NOT NULL DEFAULT ({_NOW}))""",
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
                updated_at TEXT NOT NULL DEFAULT ({_NOW}))""",
            f"""CREATE VIRTUAL TABLE skillbox_vec USING vec0(
                id INTEGER PRIMARY KEY, embedding float[{DIMENSIONS}] distance_metric=cosine)""",
        ],
    ),
    (
        "m003_create_scratchpad",
        [
            f"""CREATE TABLE scratch_files (
                user_id TEXT NOT NULL,
                agent_id TEXT NOT NULL,
                path TEXT NOT NULL,
                content TEXT NOT NULL,
                updated_at TEXT NOT NULL DEFAULT ({_NOW}),
                PRIMARY KEY (user_id, agent_id, path))""",
        ],
    ),
    *REGISTRY_MIGRATIONS,
    *PROVENANCE_MIGRATIONS,
]

_BOXES = {"toolbox": "toolbox_vec", "skillbox": "skillbox_vec"}
_SCOPE_SEP = "\x1f"  # unit separator: cannot be typed by accident into a user or agent id


def _sql_value(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _dict_rows(cursor: apsw.Cursor) -> list[dict]:
    try:
        names = [d[0].lower() for d in cursor.get_description()]
    except apsw.ExecutionCompleteError:  # apsw: no rows means no description
        return []
    return [dict(zip(names, row)) for row in cursor.fetchall()]


class EmbeddedBackend(Backend):
    """SQLite files under ``data_dir``; see the module docstring."""

    name = "embedded"
    embeds_in_database = False

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.harness_path = self.data_dir / "harness.db"
        self.supplychain_path = self.data_dir / "supplychain.db"
        self._lock = threading.RLock()
        self.conn = self._open_harness()
        self._readonly: ReadOnlyConnection | None = None
        self.telemetry = EmbeddedTelemetry(self)
        self.breakers = EmbeddedBreakers(self)
        self.tool_ranking = EmbeddedToolRanking(self)
        self.provenance = EmbeddedProvenance(self)

    # --- life cycle -------------------------------------------------------------------------
    def _open_harness(self) -> apsw.Connection:
        conn = apsw.Connection(str(self.harness_path))
        conn.set_busy_timeout(10_000)
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("ATTACH DATABASE ? AS supplychain", (str(self.supplychain_path),))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS supplychain._dictionary_comments ("
            " table_name TEXT NOT NULL, column_name TEXT NOT NULL DEFAULT '',"
            " comments TEXT, PRIMARY KEY (table_name, column_name))"
        )
        create_dictionary_views(conn)
        return conn

    def describe(self) -> str:
        return f"embedded SQLite {apsw.sqlite_lib_version()} + sqlite-vec in {self.data_dir}"

    def close(self) -> None:
        if self._readonly is not None:
            self._readonly.close()
            self._readonly = None
        self.conn.close()

    def transaction(self) -> AbstractContextManager[None]:
        # apsw: `with conn:` is a savepoint; nested ones nest; an exception rolls back.
        return self.conn

    def migrate(self) -> list[str]:
        applied: list[str] = []
        with self._lock, self.conn:
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                f" name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT ({_NOW}))"
            )
            done = {r[0] for r in self.conn.execute("SELECT version FROM schema_migrations")}
            for version, (name, statements) in enumerate(MIGRATIONS, start=1):
                if version in done:
                    continue
                for statement in statements:
                    self.conn.execute(statement)
                self.conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (version, name)
                )
                applied.append(name)
        return applied

    def applied_migrations(self) -> list[str]:
        """Names of the migrations applied to this database."""
        try:
            return [
                r["name"] for r in self.query("SELECT name FROM schema_migrations ORDER BY version")
            ]
        except apsw.SQLError:
            return []

    # --- plain SQL ----------------------------------------------------------------------------
    def query(self, sql: str, binds: dict | None = None) -> list[dict]:
        with self._lock:
            return _dict_rows(self._one_statement_cursor().execute(sql, binds or {}))

    def execute(self, sql: str, binds: dict | None = None) -> None:
        with self._lock:
            self._one_statement_cursor().execute(sql, binds or {}).fetchall()

    def _one_statement_cursor(self) -> apsw.Cursor:
        """A cursor that refuses a second statement: apsw would otherwise run every statement
        of a string, so text pasted into SQL could smuggle in a write."""
        cursor = self.conn.cursor()
        seen = []

        def trace(_cursor, statement, _bindings) -> bool:
            seen.append(statement)
            if len(seen) > 1:
                raise BackendError(
                    "only one SQL statement per call: remove everything after the first ';'"
                )
            return True

        cursor.exec_trace = trace
        return cursor

    # --- SUPPLYCHAIN --------------------------------------------------------------------------
    def supplychain_loaded(self) -> bool:
        rows = self.query(
            "SELECT COUNT(*) AS n FROM supplychain.sqlite_schema"
            " WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'"
        )
        return rows[0]["n"] > 0

    def load_supplychain(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        counts: dict[str, int] = {}
        with self._lock, self.conn:
            self.conn.execute("PRAGMA foreign_keys=OFF")
            for table in reversed(tables):
                self.conn.execute(f"DROP TABLE IF EXISTS supplychain.{table.name}")
            self.conn.execute("DELETE FROM supplychain._dictionary_comments")
            for table in tables:
                self.conn.execute(self._create_table_sql(table))
                placeholders = ", ".join("?" for _ in table.columns)
                columns = ", ".join(c.name for c in table.columns)
                self.conn.executemany(
                    f"INSERT INTO supplychain.{table.name} ({columns}) VALUES ({placeholders})",
                    [tuple(_sql_value(v) for v in row) for row in rows[table.name]],
                )
                counts[table.name] = len(rows[table.name])
                self.set_comment(table.name, None, table.comment)
                for column in table.columns:
                    self.set_comment(table.name, column.name, column.comment)
            self.conn.execute("PRAGMA foreign_keys=ON")
        return counts

    @staticmethod
    def _create_table_sql(table) -> str:
        lines = []
        for column in table.columns:
            line = f"{column.name} {column.declared_type}"
            if column.name == table.primary_key:
                line += " PRIMARY KEY"
            elif not column.nullable:
                line += " NOT NULL"
            if column.name in table.unique:
                line += " UNIQUE"
            lines.append(line)
        for fk in table.foreign_keys:
            lines.append(f"FOREIGN KEY ({fk.column}) REFERENCES {fk.ref_table} ({fk.ref_column})")
        return f"CREATE TABLE supplychain.{table.name} (\n  " + ",\n  ".join(lines) + "\n)"

    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        with self._lock:
            self.conn.execute(
                "INSERT INTO supplychain._dictionary_comments (table_name, column_name, comments)"
                " VALUES (upper(:t), upper(:c), :comment) ON CONFLICT (table_name, column_name)"
                " DO UPDATE SET comments = excluded.comments",
                {"t": table, "c": column or "", "comment": comment},
            )

    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        with self._lock:
            if self._readonly is None:
                self._readonly = ReadOnlyConnection(self.supplychain_path)
            readonly = self._readonly
        return readonly.run(sql, binds or {}, max_rows=max_rows, timeout_s=timeout_s)

    # --- memory -------------------------------------------------------------------------------
    @staticmethod
    def _scope_key(user_id: str, agent_id: str) -> str:
        return f"{user_id}{_SCOPE_SEP}{agent_id}"

    def insert_memory(self, row: dict, vector: np.ndarray | None) -> int:
        with self._lock, self.conn:
            memory_id = self.conn.execute(
                "INSERT INTO memories (user_id, agent_id, thread_id, kind, subject, content,"
                " metadata, content_hash) VALUES (:user_id, :agent_id, :thread_id, :kind,"
                " :subject, :content, :metadata, :content_hash) RETURNING id",
                row,
            ).fetchall()[0][0]
            self._put_memory_vector(memory_id, row, vector)
        return memory_id

    def _put_memory_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        if vector is None:
            raise BackendError("the embedded backend needs a vector for every memory")
        self.conn.execute("DELETE FROM memory_vec WHERE memory_id = ?", (memory_id,))
        self.conn.execute(
            "INSERT INTO memory_vec (memory_id, embedding, scope, kind) VALUES (?, ?, ?, ?)",
            (
                memory_id,
                self.vector_bind(vector),
                self._scope_key(row["user_id"], row["agent_id"]),
                row["kind"],
            ),
        )

    def update_memory(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        with self._lock, self.conn:
            self.conn.execute(
                "UPDATE memories SET content = :content, subject = :subject, metadata = :metadata,"
                f" content_hash = :content_hash, updated_at = {_NOW} WHERE id = :id",
                {**row, "id": memory_id},
            )
            self._put_memory_vector(memory_id, row, vector)

    def delete_memory(self, scope: Scope, memory_id: int) -> bool:
        with self._lock, self.conn:
            deleted = self.conn.execute(
                "DELETE FROM memories WHERE id = ? AND user_id = ? AND agent_id = ? RETURNING id",
                (memory_id, scope.user_id, scope.agent_id),
            ).fetchall()
            self.conn.execute("DELETE FROM memory_vec WHERE memory_id = ?", (memory_id,))
        return bool(deleted)

    def list_memories(
        self, scope: Scope, where: list[tuple[str, str, Any]], limit: int
    ) -> list[dict]:
        clauses = ["m.user_id = :user_id", "m.agent_id = :agent_id"]
        binds: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        for i, (target, key, value) in enumerate(where):
            expr = f"m.{key}" if target == "column" else f"json_extract(m.metadata, '$.{key}')"
            if isinstance(value, (list, tuple)):
                names = [f"w{i}_{j}" for j in range(len(value))]
                binds.update({n: _bindable(v) for n, v in zip(names, value)})
                inner = ", ".join(f":{n}" for n in names) or "NULL"
                clauses.append(f"{expr} IN ({inner})")
            elif value is None:
                clauses.append(f"{expr} IS NULL")
            else:
                binds[f"w{i}"] = _bindable(value)
                clauses.append(f"{expr} = :w{i}")
        binds["limit"] = limit
        return self.query(
            f"SELECT {self.memory_columns_sql()} FROM memories m WHERE {' AND '.join(clauses)}"
            " ORDER BY m.id DESC LIMIT :limit",
            binds,
        )

    def memory_columns_sql(self, alias: str = "m") -> str:
        return ", ".join(
            f"{alias}.{c}"
            for c in (
                "id",
                "user_id",
                "agent_id",
                "thread_id",
                "kind",
                "subject",
                "content",
                "metadata",
                "content_hash",
                "created_at",
                "updated_at",
            )
        )

    def vector_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # vec0 allows one ORDER BY distance on its KNN query: rank it one level up.
        return (
            "SELECT knn.id, ROW_NUMBER() OVER (ORDER BY knn.score, knn.id) AS r, knn.score"
            " FROM (SELECT v.memory_id AS id, v.distance * v.distance / 2.0 AS score"
            " FROM memory_vec v"
            " WHERE v.embedding MATCH :qv AND v.k = :per_list"
            " AND v.scope = :user_id || char(31) || :agent_id"
            + self.kinds_sql("v.kind", n_kinds, exclude)
            + " ORDER BY v.distance) knn"
        )

    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # FTS5's rank is bm25(): more negative is better.
        return (
            "SELECT f.rowid AS id, ROW_NUMBER() OVER (ORDER BY f.rank, f.rowid) AS r,"
            " -f.rank AS score FROM memory_fts f JOIN memories mt ON mt.id = f.rowid"
            " WHERE memory_fts MATCH :q AND mt.user_id = :user_id AND mt.agent_id = :agent_id"
            + self.kinds_sql("mt.kind", n_kinds, exclude)
            + " ORDER BY f.rank, f.rowid LIMIT :per_list"
        )

    def top_k_sql(self) -> str:
        return "LIMIT :k"

    def text_query(self, text: str) -> str:
        """Each word becomes a quoted FTS5 string, joined by OR: no operator survives.

        ``\\w+`` keeps letters and digits of any script, so quotes, ``*``, ``-``, ``NEAR``,
        parentheses and column filters are never passed to FTS5 as syntax. At most 64
        distinct words are kept, common stop words dropped (see :func:`query_tokens`); no words
        gives ``""``, a valid query that matches nothing.
        """
        tokens = query_tokens(text)
        return " OR ".join(f'"{t}"' for t in tokens) if tokens else '""'

    def vector_bind(self, vector: np.ndarray) -> bytes:
        array = np.asarray(vector, dtype=np.float32)
        if array.shape != (DIMENSIONS,):
            raise BackendError(f"expected a vector of {DIMENSIONS} floats, got shape {array.shape}")
        return array.tobytes()

    # --- toolbox and skillbox -----------------------------------------------------------------
    def upsert_indexed(self, box: str, key: str, fields: dict, vector: np.ndarray | None) -> None:
        vec_table = _BOXES[box]
        columns = ["name", *fields]
        updates = ", ".join(f"{c} = excluded.{c}" for c in fields)
        with self._lock, self.conn:
            box_id = self.conn.execute(
                f"INSERT INTO {box} ({', '.join(columns)}) VALUES"
                f" ({', '.join(':' + c for c in columns)}) ON CONFLICT (name) DO UPDATE SET"
                f" {updates}, updated_at = {_NOW} RETURNING id",
                {"name": key, **fields},
            ).fetchall()[0][0]
            self.conn.execute(f"DELETE FROM {vec_table} WHERE id = ?", (box_id,))
            self.conn.execute(
                f"INSERT INTO {vec_table} (id, embedding) VALUES (?, ?)",
                (box_id, self.vector_bind(vector)),
            )

    def delete_indexed(self, box: str, keys: Sequence[str]) -> None:
        vec_table = _BOXES[box]
        with self._lock, self.conn:
            for key in keys:
                for (box_id,) in self.conn.execute(
                    f"DELETE FROM {box} WHERE name = ? RETURNING id", (key,)
                ).fetchall():
                    self.conn.execute(f"DELETE FROM {vec_table} WHERE id = ?", (box_id,))

    def indexed_rows(self, box: str) -> list[dict]:
        if box not in _BOXES:  # the name is put into SQL: only known tables
            raise ValueError(f"unknown box {box!r}; use one of {sorted(_BOXES)}")
        return self.query(f"SELECT * FROM {box} ORDER BY name")

    def nearest_indexed(self, box: str, vector: np.ndarray, k: int, text: str = "") -> list[str]:
        if k <= 0:
            return []
        rows = self.query(
            f"SELECT b.name FROM {_BOXES[box]} v JOIN {box} b ON b.id = v.id"
            " WHERE v.embedding MATCH :qv AND v.k = :k ORDER BY v.distance, b.name",
            {"qv": self.vector_bind(vector), "k": int(k)},
        )
        return [r["name"] for r in rows]

    # --- scratchpad ---------------------------------------------------------------------------
    def scratch_put(self, scope: Scope, path: str, content: str, append: bool) -> int:
        new = "scratch_files.content || excluded.content" if append else "excluded.content"
        with self._lock, self.conn:
            # One statement: an append is atomic even with several writers.
            return self.conn.execute(
                "INSERT INTO scratch_files (user_id, agent_id, path, content)"
                " VALUES (:u, :a, :p, :c) ON CONFLICT (user_id, agent_id, path) DO UPDATE SET"
                f" content = {new}, updated_at = {_NOW} RETURNING length(content)",
                {"u": scope.user_id, "a": scope.agent_id, "p": path, "c": content},
            ).fetchall()[0][0]

    def scratch_get(self, scope: Scope, path: str) -> str | None:
        rows = self.query(
            "SELECT content FROM scratch_files WHERE user_id = ? AND agent_id = ? AND path = ?",
            (scope.user_id, scope.agent_id, path),
        )
        return rows[0]["content"] if rows else None

    def scratch_paths(self, scope: Scope) -> list[dict]:
        return self.query(
            "SELECT path, length(content) AS size, updated_at FROM scratch_files"
            " WHERE user_id = ? AND agent_id = ? ORDER BY path",
            (scope.user_id, scope.agent_id),
        )


def _bindable(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    return value


def create_dictionary_views(conn: apsw.Connection) -> None:
    """Emulate Oracle's data dictionary views over ``supplychain`` as TEMP views.

    Only the columns the harness and the workshop use; names, owners and types are upper-case
    as Oracle shows them. Tables whose names start with ``_`` are the emulation's own.
    """
    owner = "'SUPPLYCHAIN'"
    user_tables = (
        "SELECT name FROM supplychain.sqlite_schema WHERE type = 'table'"
        " AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'"
    )
    views = {
        "all_tables": f"SELECT {owner} AS owner, upper(t.name) AS table_name,"
        f" NULL AS num_rows FROM ({user_tables}) t",
        "all_tab_comments": f"SELECT {owner} AS owner, upper(t.name) AS table_name,"
        " 'TABLE' AS table_type, c.comments FROM (" + user_tables + ") t"
        " LEFT JOIN supplychain._dictionary_comments c"
        " ON c.table_name = upper(t.name) AND c.column_name = ''",
        "all_tab_columns": f"SELECT {owner} AS owner, upper(t.name) AS table_name,"
        " upper(p.name) AS column_name,"
        " upper(CASE WHEN instr(p.type, '(') > 0 THEN substr(p.type, 1, instr(p.type, '(') - 1)"
        " ELSE p.type END) AS data_type,"
        " CASE WHEN instr(p.type, '(') > 0 THEN"
        " CAST(substr(p.type, instr(p.type, '(') + 1) AS INTEGER) END AS data_length,"
        " CASE WHEN instr(p.type, ',') > 0 THEN"
        " CAST(substr(p.type, instr(p.type, ',') + 1) AS INTEGER) END AS data_scale,"
        " CASE WHEN p.\"notnull\" = 1 OR p.pk > 0 THEN 'N' ELSE 'Y' END AS nullable,"
        " p.cid + 1 AS column_id"
        f" FROM ({user_tables}) t JOIN pragma_table_info(t.name, 'supplychain') p",
        "all_col_comments": "SELECT c.owner, c.table_name, c.column_name, d.comments"
        " FROM all_tab_columns c LEFT JOIN supplychain._dictionary_comments d"
        " ON d.table_name = c.table_name AND d.column_name = c.column_name",
        "all_constraints": f"SELECT {owner} AS owner, 'PK_' || upper(t.name) AS constraint_name,"
        " 'P' AS constraint_type, upper(t.name) AS table_name, NULL AS r_owner,"
        " NULL AS r_constraint_name"
        f" FROM ({user_tables}) t WHERE EXISTS (SELECT 1 FROM"
        " pragma_table_info(t.name, 'supplychain') p WHERE p.pk > 0)"
        f" UNION ALL SELECT {owner}, 'FK_' || upper(t.name) || '_' || upper(f.\"from\"), 'R',"
        f" upper(t.name), {owner}, 'PK_' || upper(f.\"table\")"
        f" FROM ({user_tables}) t JOIN pragma_foreign_key_list(t.name, 'supplychain') f",
        "all_cons_columns": f"SELECT {owner} AS owner, 'PK_' || upper(t.name) AS constraint_name,"
        " upper(t.name) AS table_name, upper(p.name) AS column_name, p.pk AS position"
        f" FROM ({user_tables}) t JOIN pragma_table_info(t.name, 'supplychain') p WHERE p.pk > 0"
        f" UNION ALL SELECT {owner}, 'FK_' || upper(t.name) || '_' || upper(f.\"from\"),"
        ' upper(t.name), upper(f."from"), f.seq + 1'
        f" FROM ({user_tables}) t JOIN pragma_foreign_key_list(t.name, 'supplychain') f",
    }
    for name, select in views.items():
        conn.execute(f"CREATE TEMP VIEW IF NOT EXISTS {name} AS {select}")
