"""Embedded backend details: migrations, keyword query building, vector binds, files."""

from __future__ import annotations

import pytest

from agent_harness.backends import BackendError
from agent_harness.backends.embedded import MIGRATIONS, EmbeddedBackend, query_tokens
from agent_harness.backends.embedded.dictionary import USER_TABLES_SQL


def test_migrations_are_numbered_and_idempotent(tmp_path):
    backend = EmbeddedBackend(tmp_path)
    try:
        assert backend.migrate() == MIGRATIONS.names()
        assert backend.migrate() == []
        assert backend.applied_migrations() == MIGRATIONS.names()
        assert all(name.startswith(f"m{i:03d}_") for i, name in enumerate(MIGRATIONS.names(), 1))
    finally:
        backend.close()
    assert {p.name for p in tmp_path.iterdir()} >= {"harness.db", "supplychain.db"}


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("Which vessels were delayed at Rotterdam?", ["vessels", "delayed", "rotterdam"]),
        ("the", ["the"]),  # only stop words: keep them rather than match nothing
        ('"AND" OR NEAR(x) -y *', ["near", "x", "y"]),
        ("Café crème", ["café", "crème"]),
        ("", []),
        ("a a a b b", ["b"]),
    ],
)
def test_query_tokens(text, tokens):
    assert query_tokens(text) == tokens


def test_query_tokens_are_capped():
    assert len(query_tokens(" ".join(f"w{i}" for i in range(500)))) == 64


def test_text_query_quotes_every_token(tmp_path):
    backend = EmbeddedBackend(tmp_path)
    try:
        assert backend.text_query('x" OR 1') == '"x" OR "1"'
        assert backend.text_query("!!!") == '""'
        with pytest.raises(BackendError, match="384"):
            backend.vector_bind([0.0] * 3)
    finally:
        backend.close()


def test_harness_connection_runs_one_statement_per_call(tmp_path):
    backend = EmbeddedBackend(tmp_path)
    try:
        with pytest.raises(BackendError, match="one SQL statement"):
            backend.query("SELECT 1; CREATE TABLE smuggled (x)")
        assert backend.query("SELECT name FROM sqlite_schema WHERE name = 'smuggled'") == []
        assert backend.query("SELECT 1 AS one;") == [{"one": 1}]
    finally:
        backend.close()


def test_the_scanners_dictionary_joins_read_each_tables_schema_a_few_times(template, tmp_path):
    """The emulated dictionary views are materialized once per use in a statement: the
    catalog scanner's foreign-key query (constraints joined to their columns, twice) asks
    SQLite for each table's foreign keys a few times, not once per row of the outer views
    (about 1,800 times per table before)."""
    import shutil

    from agent_harness.backends.embedded.connection import open_harness_connection
    from agent_harness.backends.roles.catalog_watch import FOREIGN_KEYS_PRINT_SQL
    from agent_harness.parts.catalog_scanner import FOREIGN_KEYS_SQL

    shutil.copytree(template, tmp_path / "db")
    conn = open_harness_connection(
        tmp_path / "db" / "harness.db", tmp_path / "db" / "supplychain.db"
    )
    try:
        tables = len(conn.execute(USER_TABLES_SQL).fetchall())
        for sql, uses in ((FOREIGN_KEYS_SQL, 4), (FOREIGN_KEYS_PRINT_SQL, 3)):
            asked: list[str] = []
            conn.set_profile(lambda statement, _ns, asked=asked: asked.append(statement))
            rows = conn.execute(sql, {"owner": "SUPPLYCHAIN"}).fetchall()
            conn.set_profile(None)
            assert len(rows) == 8  # the demo schema's foreign keys
            schema_reads = [s for s in asked if "foreign_key_list" in s or "table_info" in s]
            assert schema_reads and len(schema_reads) <= 2 * uses * tables, len(schema_reads)
    finally:
        conn.close()
