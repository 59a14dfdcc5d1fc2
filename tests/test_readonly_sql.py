"""run_sql is read-only: a corpus of hostile SQL is refused and leaves NOTHING changed.

Every hostile statement goes through the tool exactly as the model sends it
(``harness.tools.call("run_sql", {"sql": ...})``) and must come back as ``{"error": ...}``.
Around each one we take a fingerprint of everything a statement could touch: the bytes of
``supplychain.db``, every table's rows (read through the harness connection), the files in the
data folder and in a scratch folder that ATTACH and VACUUM INTO point at, the harness tables'
row counts, the settings (pragmas) of both databases, and the state of the read-only connection
itself (attached databases, temp objects, query_only, open transaction). If a statement gets
through, the assertion shows which part of the fingerprint moved.

The statements are templates: ``{scratch}`` is the scratch folder, ``{harness_db}`` the
harness database file. The test runs in the scratch folder, so a relative file name lands there.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import pytest

# What the error must say, by who refused the statement (lower case; any phrase will do).
READ_ONLY = ("read-only", "would change the database")  # the guard
ONE_STATEMENT = ("one sql statement",)  # the guard
TIME_LIMIT = ("time limit",)  # the guard
FUNCTION_DENIED = ("not authorized to use function", "no such function")  # guard or SQLite
SYNTAX = ("syntax error",)  # SQLite: odd characters are not whitespace to its tokenizer
TOO_BIG = ("too big",)  # SQLite's length limit

# (id, SQL template, acceptable phrases in the error)
HOSTILE: list[tuple[str, str, tuple[str, ...]]] = [
    # --- plain DML --------------------------------------------------------------------------
    ("insert", "INSERT INTO supplychain.ports SELECT * FROM supplychain.ports", READ_ONLY),
    ("insert-default-values", "INSERT INTO supplychain.carriers DEFAULT VALUES", READ_ONLY),
    ("update", "UPDATE supplychain.vessels SET rowid = rowid", READ_ONLY),
    ("update-returning", "UPDATE supplychain.ports SET rowid = rowid RETURNING *", READ_ONLY),
    ("delete", "DELETE FROM supplychain.ports", READ_ONLY),
    ("delete-unqualified-view", "DELETE FROM ports", READ_ONLY + ("is a view",)),
    ("delete-dictionary", "DELETE FROM supplychain._dictionary_comments", READ_ONLY),
    ("replace", "REPLACE INTO supplychain.ports SELECT * FROM supplychain.ports", READ_ONLY),
    (
        "insert-or-replace",
        "INSERT OR REPLACE INTO supplychain.vessels SELECT * FROM supplychain.vessels",
        READ_ONLY,
    ),
    (
        "upsert-do-nothing",
        "INSERT INTO supplychain.ports SELECT * FROM supplychain.ports WHERE true"
        " ON CONFLICT DO NOTHING",
        READ_ONLY,
    ),
    (
        "upsert-port",
        "INSERT INTO supplychain.ports (port_code, name, ocean_region)"
        " VALUES ('NLRTM', 'pwned', 'ATLANTIC')"
        " ON CONFLICT (port_code) DO UPDATE SET name = excluded.name",
        READ_ONLY,
    ),
    (
        "upsert-do-update",
        "INSERT INTO supplychain._dictionary_comments (table_name, column_name, comments)"
        " VALUES ('VESSELS', '', 'pwned') ON CONFLICT (table_name, column_name)"
        " DO UPDATE SET comments = excluded.comments",
        READ_ONLY,
    ),
    # --- DML behind a WITH prefix -----------------------------------------------------------
    ("cte-delete", "WITH x AS (SELECT 1) DELETE FROM supplychain.ports", READ_ONLY),
    (
        "cte-update",
        "WITH x AS (SELECT 1) UPDATE supplychain.vessels SET rowid = rowid"
        " WHERE rowid IN (SELECT * FROM x)",
        READ_ONLY,
    ),
    (
        "cte-insert",
        "WITH x AS (SELECT * FROM supplychain.carriers) INSERT INTO supplychain.carriers"
        " SELECT * FROM x",
        READ_ONLY,
    ),
    (
        "cte-recursive-delete",
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5)"
        " DELETE FROM supplychain.vessels WHERE rowid IN (SELECT n FROM c)",
        READ_ONLY,
    ),
    # --- DDL ----------------------------------------------------------------------------------
    ("drop-table", "DROP TABLE supplychain.vessels", READ_ONLY),
    ("drop-table-if-exists", "DROP TABLE IF EXISTS supplychain.cargo_items", READ_ONLY),
    ("drop-temp-view", "DROP VIEW vessels", READ_ONLY),
    ("drop-dictionary-view", "DROP VIEW all_tables", READ_ONLY),
    ("create-table", "CREATE TABLE supplychain.evil (x)", READ_ONLY),
    ("create-table-main", "CREATE TABLE evil (x)", READ_ONLY),
    ("create-temp-table", "CREATE TEMP TABLE evil (x)", READ_ONLY),
    ("create-table-as", "CREATE TABLE evil AS SELECT * FROM supplychain.vessels", READ_ONLY),
    ("create-index", "CREATE INDEX supplychain.evil_idx ON vessels (rowid)", READ_ONLY),
    (
        "drop-index",
        "DROP INDEX supplychain.sqlite_autoindex_ports_1",
        READ_ONLY + ("cannot be dropped", "no such index"),
    ),
    # IF EXISTS on a missing object compiles to a no-op that never asks the authorizer.
    ("drop-missing-table-if-exists", "DROP TABLE IF EXISTS supplychain.no_such", READ_ONLY),
    ("drop-missing-index-if-exists", "DROP INDEX IF EXISTS supplychain.no_such", READ_ONLY),
    ("drop-missing-trigger-if-exists", "DROP TRIGGER IF EXISTS no_such", READ_ONLY),
    ("create-view", "CREATE VIEW supplychain.evil_v AS SELECT 1", READ_ONLY),
    ("create-temp-view", "CREATE TEMP VIEW evil_v AS SELECT 1", READ_ONLY),
    (
        "create-trigger",
        "CREATE TRIGGER supplychain.evil_tr AFTER INSERT ON ports BEGIN DELETE FROM ports; END",
        READ_ONLY,
    ),
    (
        "create-temp-trigger",
        "CREATE TEMP TRIGGER evil_tr INSTEAD OF DELETE ON vessels BEGIN SELECT 1; END",
        READ_ONLY,
    ),
    ("alter-add-column", "ALTER TABLE supplychain.vessels ADD COLUMN evil TEXT", READ_ONLY),
    ("alter-rename", "ALTER TABLE supplychain.ports RENAME TO ports_old", READ_ONLY),
    ("create-virtual-fts5", "CREATE VIRTUAL TABLE supplychain.evil_fts USING fts5(x)", READ_ONLY),
    ("create-virtual-temp", "CREATE VIRTUAL TABLE temp.evil_fts USING fts5(x)", READ_ONLY),
    # --- ATTACH / DETACH / VACUUM -------------------------------------------------------------
    ("attach-new-file", "ATTACH DATABASE '{scratch}/evil.db' AS evil", READ_ONLY),
    ("attach-relative-file", "ATTACH 'evil_relative.db' AS evil", READ_ONLY),
    ("attach-uri-rwc", "ATTACH 'file:{scratch}/evil_uri.db?mode=rwc' AS evil", READ_ONLY),
    ("attach-memory", "ATTACH ':memory:' AS evil", READ_ONLY),
    ("attach-harness-db", "ATTACH DATABASE '{harness_db}' AS h", READ_ONLY),
    (
        "attach-then-create",
        "ATTACH '{scratch}/evil2.db' AS e2; CREATE TABLE e2.t (x)",
        READ_ONLY + ONE_STATEMENT,
    ),
    (
        "attach-harness-then-delete",
        "ATTACH '{harness_db}' AS h; DELETE FROM h.memories",
        READ_ONLY + ONE_STATEMENT,
    ),
    ("detach-supplychain", "DETACH DATABASE supplychain", READ_ONLY),
    ("detach-temp", "DETACH temp", READ_ONLY),
    ("vacuum", "VACUUM", READ_ONLY),
    ("vacuum-supplychain", "VACUUM supplychain", READ_ONLY),
    ("vacuum-into", "VACUUM supplychain INTO '{scratch}/copy.db'", READ_ONLY),
    ("vacuum-into-relative", "VACUUM INTO 'copy_relative.db'", READ_ONLY),
    # --- PRAGMA writes ------------------------------------------------------------------------
    ("pragma-query-only-0", "PRAGMA query_only = 0", READ_ONLY),
    ("pragma-query-only-off", "PRAGMA query_only=OFF", READ_ONLY),
    ("pragma-journal-mode", "PRAGMA supplychain.journal_mode = WAL", READ_ONLY),
    ("pragma-journal-mode-main", "PRAGMA journal_mode = DELETE", READ_ONLY),
    ("pragma-writable-schema", "PRAGMA writable_schema = 1", READ_ONLY),
    ("pragma-foreign-keys", "PRAGMA foreign_keys = OFF", READ_ONLY),
    ("pragma-user-version", "PRAGMA supplychain.user_version = 5", READ_ONLY),
    ("pragma-user-version-main", "PRAGMA user_version=5", READ_ONLY),
    ("pragma-schema-version", "PRAGMA supplychain.schema_version = 99", READ_ONLY),
    ("pragma-data-version-set", "PRAGMA data_version = 5", READ_ONLY),
    ("pragma-trusted-schema", "PRAGMA trusted_schema = 1", READ_ONLY),
    ("pragma-wal-checkpoint", "PRAGMA supplychain.wal_checkpoint(TRUNCATE)", READ_ONLY),
    ("pragma-optimize", "PRAGMA optimize", READ_ONLY),
    (
        "pragma-query-only-tvf",
        "SELECT * FROM pragma_query_only(0)",
        READ_ONLY + ("too many arguments",),
    ),
    # --- transactions -------------------------------------------------------------------------
    ("begin", "BEGIN", READ_ONLY),
    ("begin-exclusive", "BEGIN EXCLUSIVE", READ_ONLY),
    ("commit", "COMMIT", READ_ONLY),
    ("rollback", "ROLLBACK", READ_ONLY),
    ("savepoint", "SAVEPOINT s1", READ_ONLY),
    ("release", "RELEASE s1", READ_ONLY),
    ("analyze", "ANALYZE", READ_ONLY),
    ("analyze-supplychain", "ANALYZE supplychain", READ_ONLY),
    ("reindex", "REINDEX", READ_ONLY),
    ("reindex-table", "REINDEX supplychain.vessels", READ_ONLY),
    # --- several statements -------------------------------------------------------------------
    ("select-then-delete", "SELECT 1; DELETE FROM supplychain.ports", READ_ONLY + ONE_STATEMENT),
    ("select-then-select", "SELECT 1; SELECT 2", ONE_STATEMENT),
    (
        "select-comment-semicolon-delete",
        "SELECT 1 /* ; */ ; DELETE FROM supplychain.ports",
        READ_ONLY + ONE_STATEMENT,
    ),
    (
        "select-line-comment-then-delete",
        "SELECT 1 -- harmless\n; DELETE FROM supplychain.ports",
        READ_ONLY + ONE_STATEMENT,
    ),
    (
        "select-then-drop-after-comment",
        "SELECT COUNT(*) FROM supplychain.vessels; -- done\nDROP TABLE supplychain.vessels",
        READ_ONLY + ONE_STATEMENT,
    ),
    (
        "select-then-begin-then-delete",
        "SELECT 1; BEGIN; DELETE FROM supplychain.ports; COMMIT",
        READ_ONLY + ONE_STATEMENT,
    ),
    # --- comments and odd spelling ------------------------------------------------------------
    ("block-comment-delete", "/* just a read */ DELETE FROM supplychain.ports", READ_ONLY),
    ("line-comment-delete", "-- x\nDELETE FROM supplychain.ports", READ_ONLY),
    ("mixed-case-delete", "dElEtE fRoM supplychain.ports", READ_ONLY),
    ("mixed-case-pragma", "PrAgMa QuErY_oNlY = 0", READ_ONLY),
    ("ascii-whitespace-delete", "\t\r\n\fDELETE\tFROM\nsupplychain.ports\r\n", READ_ONLY),
    ("nbsp-delete", "\u00a0DELETE FROM supplychain.ports", READ_ONLY + SYNTAX),
    ("zero-width-space-delete", "\u200bDELETE FROM supplychain.ports", READ_ONLY + SYNTAX),
    ("bom-delete", "\ufeffDELETE FROM supplychain.ports", READ_ONLY + SYNTAX),
    ("ideographic-space-delete", "DELETE\u3000FROM supplychain.ports", READ_ONLY + SYNTAX),
    ("fullwidth-delete", "\uff24\uff25\uff2c\uff25\uff34\uff25 FROM ports", SYNTAX),
    # --- functions with side effects or huge results ------------------------------------------
    ("load-extension", "SELECT load_extension('x')", FUNCTION_DENIED),
    (
        "load-extension-in-subquery",
        "SELECT * FROM (SELECT load_extension('/tmp/evil.so', 'sqlite3_evil_init'))",
        FUNCTION_DENIED,
    ),
    ("fts3-tokenizer", "SELECT fts3_tokenizer('simple')", FUNCTION_DENIED),
    ("readfile", "SELECT readfile('/etc/passwd')", FUNCTION_DENIED),
    ("writefile", "SELECT writefile('{scratch}/w.txt', 'pwned')", FUNCTION_DENIED),
    ("zeroblob-huge", "SELECT zeroblob(2000000000)", TOO_BIG),
    ("randomblob-huge", "SELECT randomblob(2000000000)", TOO_BIG),
    ("select-for-update", "SELECT * FROM supplychain.vessels FOR UPDATE", SYNTAX),
    # --- runaway queries: the time limit stops them -------------------------------------------
    (
        "runaway-recursive-cte",
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT COUNT(*) FROM c",
        TIME_LIMIT,
    ),
    (
        "huge-cross-join",
        "SELECT COUNT(*) FROM supplychain.cargo_items a, supplychain.cargo_items b,"
        " supplychain.containers c, supplychain.vessel_positions d",
        TIME_LIMIT,
    ),
]


def _sha256(value) -> str:
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()


def _file_list(folder: Path) -> list[tuple[str, int]]:
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob("*") if p.is_file()
    )


def _readonly_state(backend) -> dict:
    """Settings and objects of the read-only connection itself (the guard's own session).

    Reads private attributes on purpose: an ATTACH, a temp object, ``query_only = 0`` or an
    open transaction would live only in this connection. The guard's authorizer and time
    limit are paused for these few reads and restored.
    """
    readonly = backend.supplychain._readonly
    with readonly._lock:
        authorizer, deadline = readonly.conn.authorizer, readonly._deadline
        readonly.conn.authorizer = None
        readonly._deadline = time.monotonic() + 60
        try:

            def rows(sql: str) -> list:
                return [tuple(r) for r in readonly.conn.execute(sql)]

            return {
                "guard authorizer in place": authorizer == readonly._authorize,
                "in transaction": readonly.conn.in_transaction,
                "databases": [
                    (r[1], Path(r[2]).name if r[2] else "") for r in rows("PRAGMA database_list")
                ],
                "temp objects": rows("SELECT type, name, sql FROM temp.sqlite_schema ORDER BY 2"),
                "main objects": rows("SELECT type, name, sql FROM main.sqlite_schema ORDER BY 2"),
                "query_only": rows("PRAGMA query_only"),
                "foreign_keys": rows("PRAGMA foreign_keys"),
                "writable_schema": rows("PRAGMA writable_schema"),
                "trusted_schema": rows("PRAGMA trusted_schema"),
                "main user_version": rows("PRAGMA main.user_version"),
            }
        finally:
            readonly.conn.authorizer = authorizer
            readonly._deadline = deadline


def fingerprint(harness, scratch: Path) -> dict:
    """Everything a hostile statement could change, as comparable values."""
    backend = harness.backend
    tables = [
        r["name"]
        for r in backend.query(
            "SELECT name FROM supplychain.sqlite_schema WHERE type = 'table' ORDER BY name"
        )
    ]
    contents = {
        t: _sha256([tuple(r.values()) for r in backend.query(f'SELECT * FROM supplychain."{t}"')])
        for t in tables
    }

    def pragma(name: str):
        return [tuple(r.values()) for r in backend.query(f"PRAGMA {name}")]

    return {
        "supplychain.db sha256": hashlib.sha256(backend.supplychain_path.read_bytes()).hexdigest(),
        "supplychain schema": [
            tuple(r.values())
            for r in backend.query(
                "SELECT type, name, tbl_name, sql FROM supplychain.sqlite_schema ORDER BY name"
            )
        ],
        "supplychain table contents": contents,
        # Names only: harness.db's WAL grows with the harness's own writes.
        "data folder files": [name for name, _ in _file_list(backend.data_dir)],
        "scratch folder files": _file_list(scratch),
        "harness row counts": {
            t: backend.query(f"SELECT COUNT(*) AS n FROM {t}")[0]["n"]
            for t in ("memories", "toolbox", "skillbox", "scratch_files", "schema_migrations")
        },
        "harness schema": [
            tuple(r.values())
            for r in backend.query("SELECT type, name FROM main.sqlite_schema ORDER BY name")
        ],
        "supplychain pragmas": {
            name: pragma(f"supplychain.{name}")
            for name in ("user_version", "schema_version", "journal_mode", "application_id")
        },
        "harness pragmas": {
            name: pragma(name)
            for name in ("main.journal_mode", "main.user_version", "foreign_keys", "query_only")
        },
        "read-only connection": _readonly_state(backend),
    }


def run_sql(harness, sql: str, **arguments) -> dict:
    output = harness.tools.call("run_sql", {"sql": sql, **arguments})
    assert isinstance(output, str), "tools.call must return JSON text"
    return json.loads(output)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """The folder hostile ATTACH / VACUUM INTO statements point at (must stay empty)."""
    return tmp_path_factory.mktemp("attach-target")


@pytest.fixture(scope="module")
def embedded_harness(tmp_path_factory, template):
    """A harness of this module's own on the embedded backend only: the fingerprint reads the
    embedded backend's files (Oracle's corpus is in test_oracle_backend.py), so this fixture
    is not parametrised over the backends and has no Oracle variant that could never run."""
    import agent_harness

    data_dir = tmp_path_factory.mktemp("readonly-embedded")
    shutil.copytree(template, data_dir, dirs_exist_ok=True)
    h = agent_harness.connect(backend="embedded", data_dir=data_dir)
    yield h
    h.close()


@pytest.fixture
def guarded(embedded_harness, scratch, monkeypatch):
    """The embedded harness, with the read-only connection open and the cwd in ``scratch``."""
    monkeypatch.chdir(scratch)
    assert "error" not in run_sql(embedded_harness, "SELECT 1 AS one")  # opens it
    return embedded_harness


def _diff(before: dict, after: dict) -> list[str]:
    changed = []
    for key in before:
        if before[key] != after[key]:
            if isinstance(before[key], dict):
                inner = [k for k in before[key] if before[key][k] != after[key].get(k)]
                inner += [k for k in after[key] if k not in before[key]]
                changed.append(
                    f"{key}: {inner} (before {before[key]!r:.300} after {after[key]!r:.300})"
                )
            else:
                changed.append(f"{key}: before {before[key]!r:.300} after {after[key]!r:.300}")
    return changed


def test_the_fingerprint_sees_changes(guarded, scratch):
    # The corpus test is only as good as its fingerprint: check that it sees real changes.
    backend = guarded.backend
    before = fingerprint(guarded, scratch)
    (scratch / "stray.db").write_bytes(b"x")
    try:
        assert [c.split(":")[0] for c in _diff(before, fingerprint(guarded, scratch))] == [
            "scratch folder files"
        ]
    finally:
        (scratch / "stray.db").unlink()

    original = backend.query(
        "SELECT comments FROM supplychain._dictionary_comments"
        " WHERE table_name = 'PORTS' AND column_name = ''"
    )[0]["comments"]
    backend.set_comment("ports", None, "changed by a test")
    try:
        changed = {c.split(":")[0] for c in _diff(before, fingerprint(guarded, scratch))}
        assert {"supplychain.db sha256", "supplychain table contents"} <= changed
    finally:
        backend.set_comment("ports", None, original)


@pytest.mark.parametrize(
    ("statement", "phrases"),
    [pytest.param(sql, phrases, id=case_id) for case_id, sql, phrases in HOSTILE],
)
def test_hostile_sql_is_refused_and_changes_nothing(guarded, scratch, statement, phrases):
    # (not "template": that name is the prepared-database fixture the harness is built from)
    sql = statement.format(scratch=scratch, harness_db=guarded.backend.harness_path)
    before = fingerprint(guarded, scratch)
    result = run_sql(guarded, sql)
    after = fingerprint(guarded, scratch)

    changed = _diff(before, after)
    assert not changed, f"{sql!r} CHANGED: " + " | ".join(changed)
    assert set(result) == {"error"}, f"{sql!r} was not refused: {result!r:.500}"
    message = result["error"]
    assert any(p in message.lower() for p in phrases), (
        f"{sql!r}: error {message!r} should mention one of {phrases}"
    )


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("DELETE FROM supplychain.ports", id="delete"),
        pytest.param("ATTACH ':memory:' AS evil", id="attach"),
        pytest.param("VACUUM", id="vacuum"),
        pytest.param("VACUUM INTO 'copy_relative.db'", id="vacuum-into"),
    ],
)
def test_a_refusal_says_what_to_do_instead(guarded, sql):
    # House style: say what was wrong AND what to do next (here: send a SELECT).
    message = run_sql(guarded, sql)["error"]
    assert "read-only" in message.lower() and "select" in message.lower(), message


def test_the_corpus_is_large_and_ids_are_unique():
    ids = [case_id for case_id, _, _ in HOSTILE]
    assert len(ids) >= 45
    assert len(set(ids)) == len(ids)


def test_the_connection_still_works_after_the_hostile_corpus(guarded):
    # Runs after the corpus in file order: nothing it tried may have broken the guard's session.
    result = run_sql(guarded, "SELECT COUNT(*) AS n FROM supplychain.vessels")
    assert "error" not in result, result
    assert result["rows"][0][0] > 0


# --- queries that must work -------------------------------------------------------------------


def _assert_result_shape(result: dict) -> None:
    assert set(result) == {"columns", "rows", "row_count", "truncated"}, result
    assert isinstance(result["columns"], list)
    assert all(isinstance(c, str) for c in result["columns"])
    assert isinstance(result["rows"], list)
    assert all(isinstance(r, list) and len(r) == len(result["columns"]) for r in result["rows"])
    assert result["row_count"] == len(result["rows"])
    assert isinstance(result["truncated"], bool)


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT COUNT(*) AS n FROM supplychain.vessels", id="select"),
        pytest.param(
            "WITH v AS (SELECT * FROM supplychain.vessels) SELECT COUNT(*) AS n FROM v",
            id="with-select",
        ),
        pytest.param("SELECT COUNT(*) AS n FROM vessels", id="unqualified-table"),
        pytest.param("  select count(*) as n from VESSELS  ", id="lower-case-and-spaces"),
        pytest.param("-- how many?\nSELECT COUNT(*) AS n FROM vessels", id="leading-comment"),
    ],
)
def test_counting_vessels_works(guarded, sql):
    result = run_sql(guarded, sql)
    _assert_result_shape(result)
    assert result["row_count"] == 1 and result["truncated"] is False
    expected = guarded.backend.query("SELECT COUNT(*) AS n FROM supplychain.vessels")[0]["n"]
    assert result["rows"][0][0] == expected > 0


def test_recursive_cte_with_a_bound_works(guarded):
    result = run_sql(
        guarded,
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10)"
        " SELECT n FROM c",
    )
    _assert_result_shape(result)
    assert result["columns"] == ["n"]
    assert [r[0] for r in result["rows"]] == list(range(1, 11))
    assert result["truncated"] is False


def test_dictionary_views_work(guarded):
    result = run_sql(guarded, "SELECT table_name FROM all_tables ORDER BY table_name")
    _assert_result_shape(result)
    names = {r[0] for r in result["rows"]}
    assert {"VESSELS", "PORTS", "VOYAGES"} <= names
    assert not any(n.startswith("_") for n in names)

    columns = run_sql(
        guarded,
        "SELECT column_name, data_type FROM all_tab_columns WHERE table_name = 'VESSELS'",
    )
    _assert_result_shape(columns)
    assert columns["row_count"] > 0


def test_joins_between_tables_work(guarded):
    result = run_sql(
        guarded,
        "SELECT s.name, COUNT(*) AS voyages FROM supplychain.voyages v"
        " JOIN supplychain.vessels s ON s.imo_number = v.imo_number"
        " GROUP BY s.name ORDER BY voyages DESC, s.name",
        max_rows=5,
    )
    _assert_result_shape(result)
    assert result["columns"] == ["name", "voyages"]
    assert 1 <= result["row_count"] <= 5


SEQUENCE_100 = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) "


@pytest.mark.parametrize(
    ("max_rows", "expected_rows", "truncated"),
    [
        pytest.param(7, 7, True, id="capped"),
        pytest.param(100, 100, False, id="exactly-all"),
        pytest.param(101, 100, False, id="more-than-all"),
        pytest.param(1, 1, True, id="one"),
    ],
)
def test_max_rows_caps_rows_and_sets_truncated(guarded, max_rows, expected_rows, truncated):
    result = run_sql(guarded, SEQUENCE_100 + "SELECT n FROM c", max_rows=max_rows)
    _assert_result_shape(result)
    assert result["row_count"] == expected_rows
    assert result["truncated"] is truncated
    assert [r[0] for r in result["rows"]] == list(range(1, expected_rows + 1))


def test_max_rows_is_1_to_1000_in_the_schema_and_refused_outside(guarded):
    """The range is in the schema (minimum 1, maximum 1000); outside it the call is refused,
    never silently clamped (issue 18)."""
    spec = guarded.tools.get("run_sql").parameters["properties"]["max_rows"]
    assert (spec["minimum"], spec["maximum"]) == (1, 1000)
    sql = (
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5000)"
        " SELECT n FROM c"
    )
    result = run_sql(guarded, sql, max_rows=1000)
    _assert_result_shape(result)
    assert result["row_count"] == 1000 and result["truncated"] is True
    for wrong in (0, -5, 5000):
        refused = run_sql(guarded, sql, max_rows=wrong)
        assert set(refused) == {"error"} and "max_rows" in refused["error"], refused


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("", id="empty"),
        pytest.param("   ", id="spaces"),
        pytest.param("\n\t \r\n", id="whitespace"),
    ],
)
def test_empty_sql_gives_a_clear_error(guarded, sql):
    result = run_sql(guarded, sql)
    assert set(result) == {"error"}, result
    assert "empty" in result["error"].lower() and "select" in result["error"].lower()


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param(";", id="semicolon"),
        pytest.param("-- only a comment", id="comment-only"),
        pytest.param("/* nothing */", id="block-comment-only"),
    ],
)
def test_sql_without_a_statement_gives_an_error(guarded, sql):
    result = run_sql(guarded, sql)
    assert set(result) == {"error"}, f"{sql!r} should say there is no statement: {result!r}"


@pytest.mark.parametrize(
    ("sql", "phrase"),
    [
        pytest.param("SELEC 1", "syntax", id="typo"),
        pytest.param("SELECT * FROM", "incomplete input", id="incomplete"),
        pytest.param("SELECT 'unterminated", "unrecognized token", id="unterminated-string"),
        pytest.param("SELECT * FROM no_such_table", "no such table", id="unknown-table"),
        pytest.param("SELECT no_such_column FROM vessels", "no such column", id="unknown-column"),
        pytest.param("SELECT no_such_function(1)", "no such function", id="unknown-function"),
    ],
)
def test_sql_errors_come_back_as_errors(guarded, sql, phrase):
    result = run_sql(guarded, sql)
    assert set(result) == {"error"}, result
    assert phrase in result["error"].lower(), result["error"]


def test_binds_carry_values_that_would_break_a_pasted_literal(harness):
    """A hostile value in binds is only a value: it matches nothing and changes nothing."""
    sql = "SELECT name FROM supplychain.ports WHERE port_code = :code ORDER BY name"
    assert run_sql(harness, sql, binds={"code": "NLRTM"})["rows"] == [["Rotterdam"]]
    hostile = "x' OR '1'='1"
    assert run_sql(harness, sql, binds={"code": hostile})["rows"] == []


def test_numbers_bind_as_numbers(harness):
    sql = "SELECT COUNT(*) AS n FROM supplychain.vessels WHERE capacity_teu >= :teu"
    big = run_sql(harness, sql, binds={"teu": 20000})["rows"][0][0]
    everything = run_sql(harness, sql, binds={"teu": 0})["rows"][0][0]
    assert 0 < big < everything


@pytest.mark.parametrize(
    ("binds", "phrase"),
    [
        pytest.param({}, "code", id="missing"),
        pytest.param({"code": ["NLRTM"]}, "plain value", id="list-value"),
        pytest.param({"code": {"a": 1}}, "plain value", id="dict-value"),
    ],
)
def test_bad_binds_say_what_to_do(harness, binds, phrase):
    sql = "SELECT name FROM supplychain.ports WHERE port_code = :code"
    result = run_sql(harness, sql, binds=binds)
    assert set(result) == {"error"}, result
    assert phrase in result["error"].lower() or "argument" in result["error"].lower(), result
