"""The Oracle backend: Oracle AI Database (Free, in a container) through python-oracledb (thin).

Every Oracle SQL statement of the project lives in this module; its pure-Python half (query
escaping, the read-only statement check, the model file, the JavaScript wrapper) is in
:mod:`agent_harness.backends.oracle_support`.

Three database users, created by the init scripts in ``setup/oracle/``:

* the harness owner (``WORKSHOP_ORACLE_USER``, DB_DEVELOPER_ROLE): memories with a
  ``VECTOR(384, FLOAT32)`` column, an HNSW index (``FETCH APPROX``) and an Oracle Text CONTEXT
  index (``SYNC (ON COMMIT)``); the toolbox and the skillbox with their own HNSW indexes; the
  scratchpad (CLOB); the migrations and the settings table;
* the read-only user behind ``run_sql`` (``WORKSHOP_ORACLE_RO_USER``): CREATE SESSION only, plus
  the SELECT grants :meth:`OracleBackend.load_supplychain` gives it. The database enforces
  read-only; a statement check in front gives the clear refusals;
* SUPPLYCHAIN (``WORKSHOP_ORACLE_SC_USER``): owns the demo tables, their comments and their
  SDO_GEOMETRY point locations; used only to (re)load them and to change comments.

Embeddings: Oracle's augmented all_MiniLM_L12_v2 is loaded into the database
(``DBMS_VECTOR.LOAD_ONNX_MODEL``) and every vector, stored or query, is computed there with
``VECTOR_EMBEDDING``; when it cannot be loaded, every vector comes from the client-side
all-MiniLM-L6-v2 instead. The two are different vector spaces, so the mode is recorded in
``harness_settings`` and never mixed: only ``workshop setup`` changes it, and a change
re-embeds every stored memory and clears the toolbox and skillbox (set up again right after).

Written against Oracle's documentation; it runs where an Oracle database is reachable (the
GitHub Actions Oracle job, Codespaces). ``tests/test_oracle_backend.py`` covers each statement.
"""

from __future__ import annotations

import array
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import oracledb

from agent_harness.backends.base import (
    Backend,
    BackendError,
    ReadOnlyResult,
    ReadOnlyViolation,
    Scope,
)
from agent_harness.backends.oracle_support import (
    CLIENT_MODE,
    MLE_RESULT,
    NO_MATCH_WORD,
    EmbeddingChoice,
    ModelSourceError,
    bind_text,
    choose_embedding_mode,
    column_label,
    contains_query,
    memory_embed_text,
    mle_source,
    model_disabled,
    parse_mle_result,
    read_onnx_model,
    screen_readonly_sql,
)
from agent_harness.config import Settings
from agent_harness.embeddings import DIMENSIONS
from agent_harness.supplychain.schema import OWNER

__all__ = ["OracleBackend", "MIGRATIONS", "MODEL_NAME", "connect_user"]

MODEL_NAME = "ALL_MINILM_L12_V2"
MODEL_METADATA = (
    '{"function": "embedding", "embeddingOutput": "embedding", "input": {"input": ["DATA"]}}'
)
JS_ENVIRONMENT = "WORKSHOP_JS_PURE"
CONNECT_TIMEOUT_S = 5.0
STARTUP_WAIT_S = 90.0  # a database that is still opening (listener up, PDB not open yet)
JS_GRACE_MS = 2000  # creating the MLE context comes on top of the code's own time limit
_IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]{0,127}$")
_METADATA_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_TS = '\'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"\''


def _iso(column: str) -> str:
    """A TIMESTAMP WITH TIME ZONE as the ISO text the embedded backend stores."""
    return f"TO_CHAR(SYS_EXTRACT_UTC({column}), {_TS})"


# --- migrations -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One DDL step; skipped when its object exists (Oracle DDL commits, so a migration that
    stopped half-way must be able to run again)."""

    kind: str  # table | index | text index | preference | stoplist
    name: str  # the object it creates, upper case
    sql: str


_HNSW = "ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95"
_VECTOR = f"VECTOR({DIMENSIONS}, FLOAT32)"
_UPDATED = "updated_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL"

# Numbered, idempotent migrations (name, steps). Never edit one that has shipped: add one.
MIGRATIONS: list[tuple[str, list[Step]]] = [
    (
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
                "CREATE INDEX memories_scope_kind ON memories (user_id, agent_id, kind, subject)",
            ),
            Step(
                "index", "MEMORIES_THREAD", "CREATE INDEX memories_thread ON memories (thread_id)"
            ),
            Step(
                "text index",
                "MEMORIES_TEXT",
                "CREATE INDEX memories_text ON memories (content) INDEXTYPE IS CTXSYS.CONTEXT"
                " PARAMETERS ('LEXER WORKSHOP_LEXER STOPLIST WORKSHOP_STOPLIST SYNC (ON COMMIT)')",
            ),
            Step(
                "index",
                "MEMORIES_HNSW",
                f"CREATE VECTOR INDEX memories_hnsw ON memories (embedding) {_HNSW}",
            ),
        ],
    ),
    (
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
    (
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
    (
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
]

_EXISTS_SQL = {
    "table": "SELECT COUNT(*) FROM user_tables WHERE table_name = :name",
    "index": "SELECT COUNT(*) FROM user_indexes WHERE index_name = :name",
    "text index": "SELECT COUNT(*) FROM user_indexes WHERE index_name = :name",
    "preference": "SELECT COUNT(*) FROM ctx_user_preferences WHERE pre_name = :name",
    "stoplist": "SELECT COUNT(*) FROM ctx_stoplists WHERE spl_owner = USER AND spl_name = :name",
    "object": "SELECT COUNT(*) FROM user_objects WHERE object_name = :name",
}

# Columns a box row may set (the names are put into SQL: only these), and JSON columns.
_BOX_COLUMNS = {
    "toolbox": ("description", "parameters", "category", "always_on", "enabled", "content_hash"),
    "skillbox": ("title", "description", "body", "source", "path", "content_hash"),
}
_BOX_SELECT = {
    "toolbox": "id, name, description, JSON_SERIALIZE(parameters RETURNING CLOB) AS parameters,"
    f" category, always_on, enabled, content_hash, {_iso('updated_at')} AS updated_at",
    "skillbox": "id, name, title, description, body, source, path, content_hash,"
    f" {_iso('updated_at')} AS updated_at",
}
_JSON_COLUMNS = {"parameters"}

# Error codes with a fix worth saying (ORA-nnnnn).
_HINTS = {
    51962: "the vector memory pool is 0 or full: as SYSDBA run ALTER SYSTEM SET"
    " vector_memory_size=512M SCOPE=SPFILE and restart the database (docker compose restart"
    " oracle)",
    51950: "the vector memory pool is not enabled: as SYSDBA run ALTER SYSTEM SET"
    " vector_memory_size=512M SCOPE=SPFILE and restart the database",
    1031: "the user lacks a privilege: the harness owner needs DB_DEVELOPER_ROLE (the init"
    " scripts in setup/oracle/ grant it on the container's first start)",
    1950: "no quota on the tablespace: ALTER USER ... QUOTA UNLIMITED ON USERS (as SYSDBA)",
    1017: "wrong user name or password: check the WORKSHOP_ORACLE_*_USER / _PASSWORD variables;"
    " the users are created by setup/oracle/ on the container's first start",
}
# Connect errors meaning "the database is still opening": worth waiting for.
_STARTING = ("DPY-6001", "ORA-12514", "ORA-12528", "ORA-01033", "ORA-01109", "ORA-12521")


def _code(error: Exception) -> int:
    detail = error.args[0] if error.args else None
    return int(getattr(detail, "code", 0) or 0)


def _full_code(error: Exception) -> str:
    detail = error.args[0] if error.args else None
    return str(getattr(detail, "full_code", "") or "")


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _whole_text(error: Exception) -> str:
    """All lines of an error but Oracle's "Help: <url>" line, as one sentence."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = " ".join(line for line in lines if not line.startswith("Help:"))
    return text.rstrip(".") or type(error).__name__


def _hint(error: Exception) -> str:
    hint = _HINTS.get(_code(error))
    return f" ({hint})" if hint else ""


def _used_binds(sql: str, binds: Any) -> Any:
    """Only the named binds the statement uses: oracledb refuses unknown names (DPY-4008),
    where SQLite ignores them, and backend-neutral callers may pass a few extra."""
    if not isinstance(binds, dict):
        return binds or {}
    names = {n.lower() for n in re.findall(r":([A-Za-z_][A-Za-z0-9_$#]*)", sql)}
    return {k: v for k, v in binds.items() if k.lower() in names}


def _dict_rows(cursor) -> list[dict]:
    if cursor.description is None:
        return []
    names = [d[0].lower() for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _plain(value: Any) -> Any:
    """Objects to plain values: an SDO_GEOMETRY point becomes WKT text."""
    if isinstance(value, oracledb.DbObject):
        point = getattr(value, "SDO_POINT", None) if value.type.name == "SDO_GEOMETRY" else None
        if point is not None:
            return f"POINT ({point.X} {point.Y})"
        return f"<{value.type.schema}.{value.type.name}>"
    return value


def connect_user(settings: Settings, user: str, password: str, role: str) -> oracledb.Connection:
    """Connect one user, waiting while the database opens; every failure says what to do.

    Args:
        settings: Where (WORKSHOP_ORACLE_DSN).
        user: The user name.
        password: Its password.
        role: Which of the three users, for the message (``harness owner``, ...).

    Raises:
        BackendError: Nothing listens, wrong credentials, or the database never opened.
    """
    deadline = time.monotonic() + STARTUP_WAIT_S
    while True:
        try:
            return oracledb.connect(
                user=user,
                password=password,
                dsn=settings.oracle_dsn,
                tcp_connect_timeout=CONNECT_TIMEOUT_S,
            )
        except oracledb.Error as e:
            if _full_code(e) in _STARTING and time.monotonic() < deadline:
                time.sleep(3)
                continue
            raise BackendError(
                f"cannot connect to Oracle at {settings.oracle_dsn} as {user} ({role}):"
                f" {_whole_text(e)}{_hint(e)}. Start the database with `docker compose up -d"
                " oracle` and wait until `docker compose ps` says healthy; check"
                " WORKSHOP_ORACLE_DSN (host:port/service). Or use WORKSHOP_BACKEND=embedded"
                " (no server needed)."
            ) from e


def _input_type(column) -> Any:
    """What executemany binds for a column (the first row may hold None)."""
    if column.type == "text":
        return column.length or 4000
    if column.type in ("int", "decimal"):
        return oracledb.DB_TYPE_NUMBER
    return oracledb.DB_TYPE_DATE if column.type == "date" else oracledb.DB_TYPE_TIMESTAMP


def _quote(text: str) -> str:
    """A SQL string literal (COMMENT ON takes no binds)."""
    return "'" + str(text).replace("'", "''") + "'"


def _identifier(name: str) -> str:
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a plain identifier (letters, digits, _ $ #)")
    return name.upper()


# Tables whose rows are points: they get an invisible SDO_GEOMETRY column next to lat/lon.
_LOCATED = {"ports", "vessel_positions"}


class OracleBackend(Backend):
    """Oracle AI Database with three users; see the module docstring."""

    name = "oracle"
    can_embed_in_database = True

    def __init__(self, settings: Settings):
        if settings.oracle_sc_user.upper() != OWNER:
            raise BackendError(
                f"WORKSHOP_ORACLE_SC_USER={settings.oracle_sc_user!r}: the demo schema must be"
                f" {OWNER}, the name the tools' SQL uses (supplychain.<table>)"
            )
        self.settings = settings
        self._lock = threading.RLock()
        self._depth = 0
        self.conn = connect_user(
            settings, settings.oracle_user, settings.oracle_password, "harness owner"
        )
        self._readonly: oracledb.Connection | None = None
        self._readonly_lock = threading.Lock()
        self._owner_conn: oracledb.Connection | None = None
        self._js: oracledb.Connection | None = None
        self._js_lock = threading.Lock()
        self._js_unavailable: str | None = None  # why MLE is not used, once known
        self._choice: EmbeddingChoice | None = None

    # --- life cycle -------------------------------------------------------------------------
    def describe(self) -> str:
        mode = self._embedding_mode()
        embeddings = (
            f"in-database {MODEL_NAME} (VECTOR_EMBEDDING)"
            if mode.in_database
            else "client-side all-MiniLM-L6-v2"
        )
        if mode.reason:
            embeddings += f" [{mode.reason}]"
        js = f"client-side V8 ({self._js_unavailable})" if self._js_unavailable else "MLE"
        return (
            f"Oracle AI Database {self.conn.version} at {self.settings.oracle_dsn} as"
            f" {self.settings.oracle_user.upper()}; embeddings: {embeddings}; exec_js: {js}"
        )

    def close(self) -> None:
        for conn in (self._readonly, self._owner_conn, self._js, self.conn):
            if conn is not None:
                try:
                    conn.close()
                except oracledb.Error:
                    pass  # already broken: nothing left to close
        self._readonly = self._owner_conn = self._js = None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Commit at the outermost level; a nested block rolls back to its own savepoint."""
        with self._lock:
            savepoint = f"workshop_sp{self._depth}" if self._depth else None
            if savepoint:
                self._run(f"SAVEPOINT {savepoint}")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if savepoint:
                    self._run(f"ROLLBACK TO SAVEPOINT {savepoint}")
                else:
                    self.conn.rollback()
                raise
            self._depth -= 1
            if not savepoint:
                self.conn.commit()

    def _run(self, sql: str) -> None:
        with self.conn.cursor() as cur:
            cur.execute(sql)

    def migrate(self) -> list[str]:
        applied: list[str] = []
        with self._lock:
            self.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version NUMBER PRIMARY KEY,"
                " name VARCHAR2(200) NOT NULL,"
                " applied_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL)"
            )
            done = {int(r["version"]) for r in self.query("SELECT version FROM schema_migrations")}
            for version, (name, steps) in enumerate(MIGRATIONS, start=1):
                if version in done:
                    continue
                for step in steps:
                    self._apply(step)
                self.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (:version, :name)",
                    {"version": version, "name": name},
                )
                applied.append(name)
        return applied

    def _exists(self, kind: str, name: str) -> bool:
        with self.conn.cursor() as cur:
            cur.execute(_EXISTS_SQL[kind], name=name)
            return cur.fetchone()[0] > 0

    def _apply(self, step: Step) -> None:
        if self._exists(step.kind, step.name):
            return
        try:
            with self.conn.cursor() as cur:
                cur.execute(step.sql)
        except oracledb.DatabaseError as e:
            if step.kind == "text index" and self._exists(step.kind, step.name):
                with self.conn.cursor() as cur:  # a failed CONTEXT index stays behind FAILED
                    cur.execute(f"DROP INDEX {step.name} FORCE")
            raise BackendError(
                f"migration step {step.name} failed: {_first_line(e)}{_hint(e)}. Fix it and run"
                " `workshop setup --backend oracle` again."
            ) from e

    def applied_migrations(self) -> list[str]:
        try:
            return [
                r["name"] for r in self.query("SELECT name FROM schema_migrations ORDER BY version")
            ]
        except oracledb.DatabaseError:
            return []  # not migrated yet

    # --- plain SQL ----------------------------------------------------------------------------
    def query(self, sql: str, binds: dict | None = None) -> list[dict]:
        with self._lock, self.conn.cursor() as cur:
            cur.execute(sql, _used_binds(sql, binds), fetch_lobs=False)
            return _dict_rows(cur)

    def execute(self, sql: str, binds: dict | None = None) -> None:
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(sql, _used_binds(sql, binds))

    def _clob(self, text: str | None) -> Any:
        """A str bound for a CLOB: a temporary LOB when long or empty. A str over 32 KB would
        bind as LONG, which SQL functions refuse, and Oracle reads '' as NULL."""
        if text is None:
            return None
        if not text or len(text.encode("utf-8", "surrogatepass")) > 4000:
            return self.conn.createlob(oracledb.DB_TYPE_CLOB, text)
        return text

    # --- SUPPLYCHAIN --------------------------------------------------------------------------
    def _owner_connection(self) -> oracledb.Connection:
        if self._owner_conn is None:
            s = self.settings
            self._owner_conn = connect_user(s, s.oracle_sc_user, s.oracle_sc_password, OWNER)
        return self._owner_conn

    def supplychain_loaded(self) -> bool:
        tables = self.query(
            "SELECT COUNT(*) AS n FROM all_tables WHERE owner = :owner", {"owner": OWNER}
        )
        if not tables[0]["n"]:
            return False
        return self.query("SELECT COUNT(*) AS n FROM supplychain.vessels")[0]["n"] > 0

    def load_supplychain(self, tables: Sequence, rows: dict[str, list[tuple]]) -> dict[str, int]:
        readers = [
            _identifier(self.settings.oracle_user),
            _identifier(self.settings.oracle_ro_user),
        ]
        counts: dict[str, int] = {}
        with self._lock:
            conn = self._owner_connection()
            with conn.cursor() as cur:
                cur.execute("SELECT table_name FROM user_tables")
                existing = {r[0] for r in cur.fetchall()}
                for table in reversed(tables):
                    if table.name.upper() in existing:
                        cur.execute(f"DROP TABLE {table.name} CASCADE CONSTRAINTS PURGE")
                for table in tables:
                    cur.execute(self._create_table_sql(table))
                    self._comment_table(cur, table)
                    columns = ", ".join(c.name for c in table.columns)
                    values = ", ".join(f":{i}" for i in range(1, len(table.columns) + 1))
                    if rows[table.name]:
                        cur.setinputsizes(*[_input_type(c) for c in table.columns])
                        cur.executemany(
                            f"INSERT INTO {table.name} ({columns}) VALUES ({values})",
                            [tuple(row) for row in rows[table.name]],
                        )
                    if table.name in _LOCATED:
                        cur.execute(
                            f"UPDATE {table.name} SET location = SDO_GEOMETRY(2001, 4326,"
                            " SDO_POINT_TYPE(longitude, latitude, NULL), NULL, NULL)"
                            " WHERE longitude IS NOT NULL AND latitude IS NOT NULL"
                        )
                    counts[table.name] = len(rows[table.name])
                conn.commit()
                for table in tables:
                    for reader in readers:
                        cur.execute(f"GRANT SELECT ON {table.name} TO {reader}")
        return counts

    @staticmethod
    def _create_table_sql(table) -> str:
        lines = []
        for column in table.columns:
            line = f"{column.name} {column.declared_type}"
            if not column.nullable or column.name == table.primary_key:
                line += " NOT NULL"
            lines.append(line)
        if table.name in _LOCATED:
            # INVISIBLE: left out of SELECT * and of ALL_TAB_COLUMNS, so run_sql results and the
            # catalog facts are the same as on the embedded backend.
            lines.append("location SDO_GEOMETRY INVISIBLE")
        lines.append(f"CONSTRAINT {table.name}_pk PRIMARY KEY ({table.primary_key})")
        for column in table.unique:
            lines.append(f"CONSTRAINT {table.name}_{column}_uk UNIQUE ({column})")
        for fk in table.foreign_keys:
            lines.append(
                f"CONSTRAINT {table.name}_{fk.column}_fk FOREIGN KEY ({fk.column})"
                f" REFERENCES {fk.ref_table} ({fk.ref_column})"
            )
        return f"CREATE TABLE {table.name} (\n  " + ",\n  ".join(lines) + "\n)"

    @staticmethod
    def _comment_table(cur, table) -> None:
        cur.execute(f"COMMENT ON TABLE {table.name} IS {_quote(table.comment)}")
        for column in table.columns:
            cur.execute(f"COMMENT ON COLUMN {table.name}.{column.name} IS {_quote(column.comment)}")
        if table.name in _LOCATED:
            cur.execute(
                f"COMMENT ON COLUMN {table.name}.location IS 'Invisible SDO_GEOMETRY point"
                " (SDO_GTYPE 2001, SRID 4326: longitude, latitude) for spatial queries'"
            )

    def set_comment(self, table: str, column: str | None, comment: str) -> None:
        target = _identifier(table) + (f".{_identifier(column)}" if column else "")
        kind = "COLUMN" if column else "TABLE"
        with self._lock, self._owner_connection().cursor() as cur:
            cur.execute(f"COMMENT ON {kind} {target} IS {_quote(comment)}")

    # --- read-only SQL ------------------------------------------------------------------------
    def _readonly_connection(self) -> oracledb.Connection:
        if self._readonly is None:
            s = self.settings
            conn = connect_user(s, s.oracle_ro_user, s.oracle_ro_password, "read-only user")
            with conn.cursor() as cur:  # unqualified names resolve as on SQLite: vessels
                cur.execute(f"ALTER SESSION SET CURRENT_SCHEMA = {OWNER}")
            self._readonly = conn
        return self._readonly

    def _drop_readonly(self) -> None:
        if self._readonly is not None:
            try:
                self._readonly.close()
            except oracledb.Error:
                pass  # broken by the interrupted call: a new one opens next time
            self._readonly = None

    def readonly_query(
        self, sql: str, binds: dict | None = None, max_rows: int = 50, timeout_s: float = 5.0
    ) -> ReadOnlyResult:
        statement = screen_readonly_sql(sql)
        max_rows = max(1, int(max_rows))
        with self._readonly_lock:
            conn = self._readonly_connection()
            conn.call_timeout = max(1, int(timeout_s * 1000))
            try:
                with conn.cursor() as cur:
                    cur.arraysize = min(max_rows + 1, 1000)
                    cur.execute(statement, _used_binds(statement, binds), fetch_lobs=False)
                    if cur.description is None:
                        raise ReadOnlyViolation(
                            "read-only connection: only queries that return rows can run here"
                        )
                    columns = [column_label(d[0]) for d in cur.description]
                    fetched = cur.fetchmany(max_rows + 1)
                conn.rollback()  # nothing to undo after a query; keeps the session clean
            except oracledb.Error as e:
                raise self._readonly_error(e, timeout_s) from e
        rows = [[_plain(v) for v in row] for row in fetched[:max_rows]]
        return ReadOnlyResult(columns=columns, rows=rows, truncated=len(fetched) > max_rows)

    def _readonly_error(self, error: oracledb.Error, timeout_s: float) -> BackendError:
        full = _full_code(error)
        if full == "DPY-4024" or _code(error) in (1013, 3156):
            self._drop_readonly()
            return BackendError(
                f"query stopped after the {timeout_s:g} s time limit: add filters or aggregate"
                " first"
            )
        if full.startswith("DPY-1") or full.startswith("DPY-4011"):
            self._drop_readonly()
        if _code(error) == 1031:
            return ReadOnlyViolation(
                "read-only connection: this statement is not allowed (ORA-01031: insufficient"
                " privileges). Only SELECT queries on SUPPLYCHAIN can run here."
            )
        if _code(error) == 942:
            return BackendError(
                f"SQL error: {_first_line(error)}. Tables are supplychain.<table>: carriers,"
                " ports, vessels, voyages, vessel_positions, containers, cargo_items."
            )
        return BackendError(f"SQL error: {_first_line(error)}")

    # --- memory -------------------------------------------------------------------------------
    def insert_memory(self, row: dict, vector: np.ndarray | None) -> int:
        with self.transaction(), self.conn.cursor() as cur:
            new_id = cur.var(oracledb.DB_TYPE_NUMBER)
            cur.execute(
                "INSERT INTO memories (user_id, agent_id, thread_id, kind, subject, content,"
                " metadata, content_hash) VALUES (:user_id, :agent_id, :thread_id, :kind,"
                " :subject, :content, JSON(:metadata), :content_hash) RETURNING id INTO :new_id",
                {
                    **self._memory_binds(row),
                    "user_id": row["user_id"],
                    "agent_id": row["agent_id"],
                    "thread_id": row["thread_id"],
                    "kind": row["kind"],
                    "new_id": new_id,
                },
            )
            memory_id = int(new_id.getvalue()[0])
            self._put_memory_vector(memory_id, row, vector)
        return memory_id

    def _memory_binds(self, row: dict) -> dict:
        return {
            "subject": row["subject"],
            "content": self._clob(row["content"]),
            "metadata": self._clob(row["metadata"]),
            "content_hash": row["content_hash"],
        }

    def _put_memory_vector(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        with self.conn.cursor() as cur:
            if vector is not None:
                cur.execute(
                    "UPDATE memories SET embedding = :embedding WHERE id = :id",
                    embedding=self.vector_bind(vector),
                    id=memory_id,
                )
            elif self.embeds_in_database:
                cur.execute(
                    f"UPDATE memories SET embedding = VECTOR_EMBEDDING({MODEL_NAME}"
                    " USING :text AS DATA) WHERE id = :id",
                    text=bind_text(memory_embed_text(row["subject"], row["content"])),
                    id=memory_id,
                )
            else:
                raise BackendError("client-side embedding mode: every memory needs a vector")

    def update_memory(self, memory_id: int, row: dict, vector: np.ndarray | None) -> None:
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(
                "UPDATE memories SET content = :content, subject = :subject,"
                " metadata = JSON(:metadata), content_hash = :content_hash,"
                " updated_at = SYSTIMESTAMP WHERE id = :id",
                {**self._memory_binds(row), "id": memory_id},
            )
            self._put_memory_vector(memory_id, row, vector)

    def delete_memory(self, scope: Scope, memory_id: int) -> bool:
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(
                "DELETE FROM memories WHERE id = :id AND user_id = :user_id"
                " AND agent_id = :agent_id",
                id=memory_id,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
            )
            return cur.rowcount > 0

    def list_memories(
        self, scope: Scope, where: list[tuple[str, str, Any]], limit: int
    ) -> list[dict]:
        clauses = ["m.user_id = :user_id", "m.agent_id = :agent_id"]
        binds: dict[str, Any] = {"user_id": scope.user_id, "agent_id": scope.agent_id}
        for i, (target, key, value) in enumerate(where):
            if not _METADATA_KEY.match(key):
                raise ValueError(f"filter key {key!r} is not valid: use letters, digits and _")
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            tests = []
            for j, item in enumerate(values):
                expr = f"m.{key}" if target == "column" else self._json_value(key, item)
                if item is None:
                    tests.append(f"{expr} IS NULL")
                    continue
                binds[f"w{i}_{j}"] = self._filter_value(target, item)
                tests.append(f"{expr} = :w{i}_{j}")
            clauses.append("(" + (" OR ".join(tests) or "1 = 0") + ")")
        binds["max_rows"] = limit
        return self.query(
            f"SELECT {self.memory_columns_sql()} FROM memories m WHERE {' AND '.join(clauses)}"
            " ORDER BY m.id DESC FETCH FIRST :max_rows ROWS ONLY",
            binds,
        )

    @staticmethod
    def _json_value(key: str, value: Any) -> str:
        # Numbers compare as numbers; text, booleans ('true'/'false') and null as text.
        path = f"'$.\"{key}\"'"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"JSON_VALUE(m.metadata, {path} RETURNING NUMBER NULL ON ERROR)"
        return f"JSON_VALUE(m.metadata, {path} RETURNING VARCHAR2(4000) NULL ON ERROR)"

    @staticmethod
    def _filter_value(target: str, value: Any) -> Any:
        if target == "metadata" and isinstance(value, bool):
            return "true" if value else "false"
        return int(value) if isinstance(value, bool) else value

    def memory_columns_sql(self, alias: str = "m") -> str:
        a = alias
        return (
            f"{a}.id, {a}.user_id, {a}.agent_id, {a}.thread_id, {a}.kind, {a}.subject,"
            f" {a}.content, JSON_SERIALIZE({a}.metadata RETURNING CLOB) AS metadata,"
            f" {a}.content_hash, {_iso(f'{a}.created_at')} AS created_at,"
            f" {_iso(f'{a}.updated_at')} AS updated_at"
        )

    def vector_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # The HNSW index serves only ORDER BY VECTOR_DISTANCE(..., COSINE) FETCH APPROX, so the
        # tie-break on id and the ranks come one level up.
        return (
            "SELECT knn.id, ROW_NUMBER() OVER (ORDER BY knn.score, knn.id) AS r, knn.score"
            " FROM (SELECT mv.id, VECTOR_DISTANCE(mv.embedding, :qv, COSINE) AS score"
            " FROM memories mv WHERE mv.user_id = :user_id AND mv.agent_id = :agent_id"
            + self.kinds_sql("mv.kind", n_kinds, exclude)
            + " ORDER BY VECTOR_DISTANCE(mv.embedding, :qv, COSINE)"
            " FETCH APPROX FIRST :per_list ROWS ONLY) knn"
        )

    def text_ranked_sql(self, n_kinds: int = 0, exclude: bool = False) -> str:
        # SCORE(1) belongs to CONTAINS(..., 1): higher is better (0..100).
        return (
            "SELECT ft.id, ROW_NUMBER() OVER (ORDER BY ft.score DESC, ft.id) AS r, ft.score"
            " FROM (SELECT mt.id, SCORE(1) AS score FROM memories mt"
            " WHERE CONTAINS(mt.content, :q, 1) > 0"
            " AND mt.user_id = :user_id AND mt.agent_id = :agent_id"
            + self.kinds_sql("mt.kind", n_kinds, exclude)
            + " ORDER BY SCORE(1) DESC, mt.id FETCH FIRST :per_list ROWS ONLY) ft"
        )

    def top_k_sql(self) -> str:
        return "FETCH FIRST :k ROWS ONLY"

    def text_query(self, text: str) -> str:
        """Each word becomes ``{word}`` (``}`` doubled), joined by ACCUM; see
        :func:`~agent_harness.backends.oracle_support.contains_query`."""
        return contains_query(text)

    def vector_bind(self, vector: np.ndarray) -> array.array:
        values = np.asarray(vector, dtype=np.float32)
        if values.shape != (DIMENSIONS,):
            raise BackendError(
                f"expected a vector of {DIMENSIONS} floats, got shape {values.shape}"
            )
        bound = array.array("f")
        bound.frombytes(values.tobytes())
        return bound

    # --- toolbox and skillbox -----------------------------------------------------------------
    def upsert_indexed(self, box: str, key: str, fields: dict, vector: np.ndarray | None) -> None:
        allowed = _BOX_COLUMNS[box]
        unknown = [f for f in fields if f not in allowed]
        if unknown:
            raise ValueError(f"{box} has no column(s) {unknown}; columns: {allowed}")
        if vector is None:
            raise BackendError(f"{box}: every row needs a vector (from Harness.embed)")
        binds: dict[str, Any] = {"name": key, "embedding": self.vector_bind(vector)}
        values = {}
        for column, value in fields.items():
            binds[column] = self._clob(value) if isinstance(value, str) else value
            values[column] = f"JSON(:{column})" if column in _JSON_COLUMNS else f":{column}"
        updates = ", ".join(f"b.{c} = {v}" for c, v in values.items())
        columns = ", ".join(["name", *values, "embedding"])
        inserts = ", ".join([":name", *values.values(), ":embedding"])
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(
                f"MERGE INTO {box} b USING (SELECT :name AS name FROM dual) s"
                " ON (b.name = s.name)"
                f" WHEN MATCHED THEN UPDATE SET {updates}, b.embedding = :embedding,"
                " b.updated_at = SYSTIMESTAMP"
                f" WHEN NOT MATCHED THEN INSERT ({columns}) VALUES ({inserts})",
                binds,
            )

    def delete_indexed(self, box: str, keys: Sequence[str]) -> None:
        if box not in _BOX_COLUMNS:
            raise ValueError(f"unknown box {box!r}; use one of {sorted(_BOX_COLUMNS)}")
        if not keys:
            return
        with self.transaction(), self.conn.cursor() as cur:
            cur.executemany(f"DELETE FROM {box} WHERE name = :name", [{"name": k} for k in keys])

    def indexed_rows(self, box: str) -> list[dict]:
        if box not in _BOX_SELECT:  # the name is put into SQL: only known tables
            raise ValueError(f"unknown box {box!r}; use one of {sorted(_BOX_SELECT)}")
        return self.query(f"SELECT {_BOX_SELECT[box]} FROM {box} ORDER BY name")

    def nearest_indexed(self, box: str, vector: np.ndarray, k: int, text: str = "") -> list[str]:
        if box not in _BOX_COLUMNS:
            raise ValueError(f"unknown box {box!r}; use one of {sorted(_BOX_COLUMNS)}")
        if k <= 0:
            return []
        rows = self.query(
            "SELECT nb.name FROM (SELECT b.name,"
            " VECTOR_DISTANCE(b.embedding, :qv, COSINE) AS distance"
            f" FROM {box} b ORDER BY VECTOR_DISTANCE(b.embedding, :qv, COSINE)"
            " FETCH APPROX FIRST :k ROWS ONLY) nb ORDER BY nb.distance, nb.name",
            {"qv": self.vector_bind(vector), "k": int(k)},
        )
        return [r["name"] for r in rows]

    # --- scratchpad ---------------------------------------------------------------------------
    def scratch_put(self, scope: Scope, path: str, content: str, append: bool) -> int:
        new = "f.content || :content" if append else ":content"
        binds = {"u": scope.user_id, "a": scope.agent_id, "p": path}
        merge = (
            "MERGE INTO scratch_files f USING (SELECT :u AS user_id, :a AS agent_id, :p AS path"
            " FROM dual) s ON (f.user_id = s.user_id AND f.agent_id = s.agent_id"
            " AND f.path = s.path)"
            f" WHEN MATCHED THEN UPDATE SET f.content = {new}, f.updated_at = SYSTIMESTAMP"
            " WHEN NOT MATCHED THEN INSERT (user_id, agent_id, path, content)"
            " VALUES (s.user_id, s.agent_id, s.path, :content)"
        )
        with self.transaction(), self.conn.cursor() as cur:
            for attempt in (1, 2):
                try:
                    # One statement: the row lock makes an append atomic with several writers.
                    cur.execute(merge, {**binds, "content": self._clob(content)})
                    break
                except oracledb.IntegrityError:
                    if attempt == 2:  # two first writers raced to INSERT: the second updates
                        raise
            cur.execute(
                "SELECT content FROM scratch_files WHERE user_id = :u AND agent_id = :a"
                " AND path = :p",
                binds,
                fetch_lobs=False,
            )
            # Characters as Python counts them (DBMS_LOB.GETLENGTH counts UTF-16 units).
            return len(cur.fetchone()[0] or "")

    def scratch_get(self, scope: Scope, path: str) -> str | None:
        rows = self.query(
            "SELECT content FROM scratch_files WHERE user_id = :u AND agent_id = :a AND path = :p",
            {"u": scope.user_id, "a": scope.agent_id, "p": path},
        )
        return (rows[0]["content"] or "") if rows else None

    def scratch_paths(self, scope: Scope) -> list[dict]:
        rows = self.query(
            f"SELECT path, content, {_iso('updated_at')} AS updated_at FROM scratch_files"
            " WHERE user_id = :u AND agent_id = :a ORDER BY path",
            {"u": scope.user_id, "a": scope.agent_id},
        )
        return [
            {"path": r["path"], "size": len(r["content"] or ""), "updated_at": r["updated_at"]}
            for r in rows
        ]

    # --- embeddings ---------------------------------------------------------------------------
    def _recorded_mode(self) -> str | None:
        try:
            rows = self.query("SELECT value FROM harness_settings WHERE name = 'embedding_mode'")
        except oracledb.DatabaseError:
            return None  # not migrated yet
        return rows[0]["value"] if rows else None

    def _embedding_mode(self) -> EmbeddingChoice:
        """The recorded mode (client-side until ``workshop setup`` records one)."""
        if self._choice is None:
            recorded = self._recorded_mode()
            if recorded is None:  # read again next time: `workshop setup` may record it
                return EmbeddingChoice(CLIENT_MODE, "not set up yet")
            self._choice = EmbeddingChoice(recorded)
        return self._choice

    @property
    def embeds_in_database(self) -> bool:
        """True in the in-database mode: memories get VECTOR_EMBEDDING vectors in SQL."""
        return self._embedding_mode().in_database

    def embed_texts(self, texts: list[str]) -> np.ndarray | None:
        if not self.embeds_in_database:
            return None
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        with self._lock, self.conn.cursor() as cur:
            for i, text in enumerate(texts):
                cur.execute(
                    f"SELECT VECTOR_EMBEDDING({MODEL_NAME} USING :text AS DATA) FROM dual",
                    text=bind_text(text),
                )
                vector = np.asarray(cur.fetchone()[0], dtype=np.float32)
                vectors[i] = vector / max(float(np.linalg.norm(vector)), 1e-12)
        return vectors

    def _model_loaded(self) -> bool:
        rows = self.query(
            "SELECT COUNT(*) AS n FROM user_mining_models WHERE model_name = :name",
            {"name": MODEL_NAME},
        )
        return rows[0]["n"] > 0

    def _check_model(self) -> None:
        with self._lock, self.conn.cursor() as cur:
            cur.execute(
                f"SELECT VECTOR_EMBEDDING({MODEL_NAME} USING 'vessel capacity in TEU' AS DATA)"
                " FROM dual"
            )
            dims = len(cur.fetchone()[0])
        if dims != DIMENSIONS:
            raise BackendError(
                f"{MODEL_NAME} gives {dims} dimensions, the tables hold {DIMENSIONS}"
            )

    def load_onnx_model(self, source: str | None = None) -> str:
        """Load Oracle's augmented all_MiniLM_L12_v2 as ALL_MINILM_L12_V2, once.

        Args:
            source: URL or path of the zip or .onnx file (default WORKSHOP_ONNX_MODEL).

        Returns:
            What was done.

        Raises:
            BackendError: The file cannot be read or the database refuses the model.
        """
        source = self.settings.onnx_model if source is None else source
        if self._model_loaded():
            self._check_model()
            return f"{MODEL_NAME} already in the database"
        if model_disabled(source):
            raise ModelSourceError("WORKSHOP_ONNX_MODEL=none: no model to load")
        data = read_onnx_model(source, cache_dir=self.settings.data_dir / "onnx", timeout_s=120)
        try:
            with self._lock, self.conn.cursor() as cur:
                # The BLOB overload: no directory object, no file copied into the container.
                cur.execute(
                    "BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(model_name => :name, model_data => :data,"
                    " metadata => JSON(:metadata)); END;",
                    name=MODEL_NAME,
                    data=self.conn.createlob(oracledb.DB_TYPE_BLOB, data),
                    metadata=MODEL_METADATA,
                )
        except oracledb.DatabaseError as e:
            raise BackendError(
                f"DBMS_VECTOR.LOAD_ONNX_MODEL failed: {_first_line(e)}{_hint(e)}"
            ) from e
        self._check_model()
        return f"loaded {MODEL_NAME} ({len(data) / 1e6:.0f} MB) with DBMS_VECTOR.LOAD_ONNX_MODEL"

    def setup_embeddings(self, client_embed: Callable[[list[str]], np.ndarray]) -> str:
        choice = choose_embedding_mode(self.settings.onnx_model, self.load_onnx_model)
        recorded = self._recorded_mode()
        note = ""
        if (recorded or CLIENT_MODE) != choice.key:  # vectors of one model only, ever
            n = self._reembed(choice, client_embed)
            if recorded or n:
                note = f"; switched from {recorded or CLIENT_MODE}: re-embedded {n} memories"
        with self.transaction(), self.conn.cursor() as cur:
            cur.execute(
                "MERGE INTO harness_settings t USING (SELECT 'embedding_mode' AS name,"
                " :mode_key AS value FROM dual) s ON (t.name = s.name)"
                " WHEN MATCHED THEN UPDATE SET t.value = s.value, t.updated_at = SYSTIMESTAMP"
                " WHEN NOT MATCHED THEN INSERT (name, value) VALUES (s.name, s.value)",
                mode_key=choice.key,
            )
        self._choice = choice
        where = "in the database" if choice.in_database else "client-side"
        return f"{choice.key} ({where}: {choice.reason}){note}"

    def _reembed(self, choice: EmbeddingChoice, client_embed) -> int:
        """Recompute every stored memory vector with the new mode; empty the toolbox and the
        skillbox (the next setup steps store them again, with vectors of the new mode)."""
        rows = self.query("SELECT id, subject, content FROM memories ORDER BY id")
        texts = [memory_embed_text(r["subject"], r["content"]) for r in rows]
        with self.transaction(), self.conn.cursor() as cur:
            if rows and choice.in_database:
                cur.executemany(
                    f"UPDATE memories SET embedding = VECTOR_EMBEDDING({MODEL_NAME}"
                    " USING :text AS DATA) WHERE id = :id",
                    [{"text": bind_text(t), "id": r["id"]} for t, r in zip(texts, rows)],
                )
            elif rows:
                vectors = client_embed(texts)
                cur.executemany(
                    "UPDATE memories SET embedding = :embedding WHERE id = :id",
                    [
                        {"embedding": self.vector_bind(v), "id": r["id"]}
                        for v, r in zip(vectors, rows)
                    ],
                )
            cur.execute("DELETE FROM toolbox")
            cur.execute("DELETE FROM skillbox")
        return len(rows)

    # --- exec_js on MLE -----------------------------------------------------------------------
    def _js_connection(self) -> oracledb.Connection | None:
        """A connection of its own (a timed-out call may break it), with the PURE environment:
        code in it can read or write no database state."""
        if self._js is not None:
            return self._js
        s = self.settings
        try:
            conn = connect_user(s, s.oracle_user, s.oracle_password, "harness owner, exec_js")
        except BackendError:
            return None  # not remembered: the database may be back on the next call
        try:
            with conn.cursor() as cur:
                cur.execute(_EXISTS_SQL["object"], name=JS_ENVIRONMENT)
                if not cur.fetchone()[0]:
                    cur.execute(f"CREATE MLE ENV {JS_ENVIRONMENT} PURE")
        except oracledb.DatabaseError as e:
            conn.close()
            self._js_unavailable = f"no PURE MLE environment: {_first_line(e)}"
            return None
        self._js = conn
        return conn

    def run_js(self, code: str, timeout_ms: int) -> dict | None:
        from agent_harness.sandbox import MAX_CODE_CHARS

        if self._js_unavailable or not isinstance(code, str) or not code.strip():
            return None  # the client-side sandbox runs it (and words the usual errors)
        if len(code) > MAX_CODE_CHARS:
            return None
        timeout_ms = max(10, min(int(timeout_ms), 10_000))
        with self._js_lock:
            conn = self._js_connection()
            if conn is None:
                return None
            conn.call_timeout = timeout_ms + JS_GRACE_MS
            try:
                with conn.cursor() as cur:
                    result = cur.var(oracledb.DB_TYPE_CLOB)
                    cur.execute(
                        "DECLARE ctx DBMS_MLE.context_handle_t; out_json CLOB;"
                        " BEGIN ctx := DBMS_MLE.create_context(environment => :env);"
                        " BEGIN DBMS_MLE.eval(ctx, 'JAVASCRIPT', :source);"
                        f" DBMS_MLE.import_from_mle(ctx, '{MLE_RESULT}', out_json);"
                        " EXCEPTION WHEN OTHERS THEN DBMS_MLE.drop_context(ctx); RAISE; END;"
                        " DBMS_MLE.drop_context(ctx); :result := out_json; END;",
                        env=JS_ENVIRONMENT,
                        source=conn.createlob(oracledb.DB_TYPE_CLOB, mle_source(code)),
                        result=result,
                    )
                    value = result.getvalue()
                    text = value.read() if hasattr(value, "read") else value
            except oracledb.Error as e:
                return self._js_error(e, timeout_ms)
        return parse_mle_result(text)

    def _js_error(self, error: oracledb.Error, timeout_ms: int) -> dict | None:
        if _full_code(error) == "DPY-4024" or _code(error) in (1013, 3156):
            try:
                self._js.close()
            except (oracledb.Error, AttributeError):
                pass  # the interrupted connection is replaced on the next call
            self._js = None
            return {"error": f"timed out after {timeout_ms} ms", "console": []}
        if _code(error) in (1031, 6550):  # no EXECUTE DYNAMIC MLE / DBMS_MLE unknown
            self._js_unavailable = f"MLE not usable: {_first_line(error)}"
            return None
        message = _first_line(error)
        if "memory" in message.lower():
            return {"error": f"JavaScript ran out of memory: {message}", "console": []}
        return {"error": f"JavaScript failed in the database: {message}", "console": []}

    # --- doctor -------------------------------------------------------------------------------
    def doctor_checks(self) -> list[tuple[str, str, Callable[[], str]]]:
        recreate = (
            "The init scripts in setup/oracle/ create the users on the container's first start:"
            " docker compose down -v && docker compose up -d oracle (this deletes its data)."
        )
        return [
            (
                "Oracle reachable",
                "docker compose up -d oracle; check WORKSHOP_ORACLE_DSN.",
                self._check_reachable,
            ),
            ("Oracle users", recreate, self._check_users),
            (
                "vector pool",
                "As SYSDBA: ALTER SYSTEM SET vector_memory_size=512M SCOPE=SPFILE; restart.",
                self._check_vector_pool,
            ),
            (
                "in-database model",
                "workshop setup --backend oracle (loads it, or records client-side mode);"
                " set WORKSHOP_ONNX_MODEL to the zip's URL or a local copy.",
                self._check_model_mode,
            ),
            (
                "Oracle indexes",
                "workshop setup --backend oracle; an index that stays INVALID or FAILED:"
                " DROP INDEX <name> FORCE, then workshop setup again.",
                self._check_indexes,
            ),
            (
                "read-only user",
                f"As SYSDBA: revoke everything from {self.settings.oracle_ro_user} except"
                " CREATE SESSION and the SELECT grants on SUPPLYCHAIN.",
                self._check_readonly_user,
            ),
        ]

    def _check_reachable(self) -> str:
        self.query("SELECT 1 AS one FROM dual")
        return f"Oracle {self.conn.version} at {self.settings.oracle_dsn}"

    def _check_users(self) -> str:
        s = self.settings
        for user, password, role in (
            (s.oracle_ro_user, s.oracle_ro_password, "read-only user"),
            (s.oracle_sc_user, s.oracle_sc_password, OWNER),
        ):
            connect_user(s, user, password, role).close()
        return f"{s.oracle_user}, {s.oracle_ro_user} and {s.oracle_sc_user} can log in"

    def _check_vector_pool(self) -> str:
        try:
            rows = self.query("SELECT value FROM v$parameter WHERE name = 'vector_memory_size'")
        except oracledb.DatabaseError:
            if self._exists("index", "MEMORIES_HNSW"):
                return "V$PARAMETER is not visible here; the HNSW indexes exist, so the pool is set"
            raise BackendError("V$PARAMETER is not visible and no HNSW index exists") from None
        value = str(rows[0]["value"] or "0") if rows else "0"
        if not value.isdigit():
            return f"vector_memory_size = {value}"
        if int(value) <= 0:
            raise BackendError("vector_memory_size is 0: HNSW indexes cannot be built")
        return f"vector_memory_size = {int(value) // (1024 * 1024)} MB"

    def _check_model_mode(self) -> str:
        mode = self._embedding_mode()
        if not mode.in_database:
            return f"client-side all-MiniLM-L6-v2 embeddings ({mode.reason or 'recorded'})"
        if not self._model_loaded():
            raise BackendError(f"the recorded mode is in-database but {MODEL_NAME} is missing")
        self._check_model()
        return f"{MODEL_NAME} loaded, {DIMENSIONS} dimensions"

    def _check_indexes(self) -> str:
        rows = self.query(
            "SELECT index_name, index_type, status, domidx_status, domidx_opstatus"
            " FROM user_indexes WHERE table_name IN ('MEMORIES', 'TOOLBOX', 'SKILLBOX')"
        )
        found = {r["index_name"]: r for r in rows}
        expected = [s.name for _, steps in MIGRATIONS for s in steps if "index" in s.kind]
        missing = [n for n in expected if n not in found]
        bad = [
            n
            for n, r in found.items()
            if r["status"] not in ("VALID", "N/A")
            or (r["domidx_opstatus"] and r["domidx_opstatus"] != "VALID")
        ]
        errors = self.query("SELECT COUNT(*) AS n FROM ctx_user_index_errors")[0]["n"]
        if missing or bad:
            raise BackendError(f"missing: {missing or 'none'}; not valid: {bad or 'none'}")
        return f"{len(expected)} indexes valid; {errors} Oracle Text indexing errors"

    def _check_readonly_user(self) -> str:
        probes = {
            "INSERT": "INSERT INTO supplychain.ports (port_code, name, ocean_region)"
            " VALUES ('ZZZZZ', 'doctor probe', 'PACIFIC')",
            "CREATE TABLE": "CREATE TABLE workshop_doctor_probe (x NUMBER)",
        }
        refused = []
        with self._readonly_lock:
            conn = self._readonly_connection()
            for what, sql in probes.items():
                try:
                    with conn.cursor() as cur:  # on purpose past the statement check
                        cur.execute(sql)
                except oracledb.DatabaseError as e:
                    conn.rollback()
                    if _code(e) not in (1031, 942, 1950):
                        raise
                    refused.append(f"{what}: {_first_line(e).split(':')[0]}")
                    continue
                conn.rollback()
                if what == "CREATE TABLE":
                    with conn.cursor() as cur:
                        cur.execute("DROP TABLE workshop_doctor_probe PURGE")
                raise BackendError(f"the read-only user could run {what}: it is not read-only")
        return "refused " + ", ".join(refused)
