"""The public entry points named in README, as a participant would use them."""

from __future__ import annotations

import json

import agent_harness


def test_connect_and_public_api(harness):
    assert harness.describe().startswith("backend: ")
    memory_id = harness.memory.add(
        "API check: vessels are big", kind="note", metadata={"check": "api"}
    )
    assert harness.memory.list(metadata_filter={"check": "api"}, limit=5)[0].id == memory_id
    for mode in ("vector", "keyword", "hybrid"):
        assert harness.memory.search("vessel capacity", k=3, mode=mode)
    out = json.loads(
        harness.tools.call("run_sql", {"sql": "SELECT COUNT(*) AS n FROM supplychain.vessels"})
    )
    assert out["columns"] == ["n"] and out["row_count"] == 1 and out["rows"][0][0] > 0
    assert len(harness.tools.retrieve("where is the ship now", k=5)) == 5 + len(
        harness.tools.always_on
    )
    assert harness.skills.manifest("slow query", k=3)
    assert harness.memory.delete(memory_id)


def test_connect_twice_on_the_same_folder_prepares_nothing_new(harness):
    again = agent_harness.connect(
        backend=harness.settings.backend, data_dir=harness.settings.data_dir
    )
    try:
        assert again.is_prepared()
        assert again.memory.count() == harness.memory.count()
    finally:
        again.close()


def test_settings_reject_unknown_backend(monkeypatch):
    import pytest

    monkeypatch.setenv("WORKSHOP_BACKEND", "postgres")
    with pytest.raises(ValueError, match="not a backend"):
        agent_harness.Settings.from_env()


def test_oracle_backend_without_a_database_says_what_to_do(tmp_path, monkeypatch):
    import oracledb
    import pytest

    from agent_harness.backends import BackendError

    attempts = []
    connect = oracledb.connect

    def counted(*args, **kwargs):
        attempts.append(kwargs.get("dsn"))
        return connect(*args, **kwargs)

    monkeypatch.setattr(oracledb, "connect", counted)
    monkeypatch.setenv("WORKSHOP_ORACLE_DSN", "127.0.0.1:1/FREEPDB1")  # nothing listens there
    with pytest.raises(BackendError, match="docker compose up -d oracle") as raised:
        agent_harness.connect(backend="oracle", data_dir=tmp_path)
    assert "WORKSHOP_ORACLE_DSN" in str(raised.value)
    assert "WORKSHOP_BACKEND=embedded" in str(raised.value)
    # a refused port fails at once: one attempt, no waiting for a database to open
    assert attempts == ["127.0.0.1:1/FREEPDB1"], attempts
