"""Embedded backend details: migrations, keyword query building, vector binds, files."""

from __future__ import annotations

import pytest

from agent_harness.backends import BackendError
from agent_harness.backends.embedded import MIGRATIONS, EmbeddedBackend, query_tokens


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
