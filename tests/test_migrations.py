"""The one migration runner both backends use: keyed by name, ordered, idempotent.

Run here on the embedded backend; the Oracle variant of the same runner is exercised by
``tests/test_oracle_backend.py`` where Oracle is reachable.
"""

from __future__ import annotations

import apsw
import pytest

from agent_harness.backends.embedded import MIGRATIONS, EmbeddedBackend
from agent_harness.backends.migrations import Migration, Migrations
from agent_harness.backends.oracle import MIGRATIONS as ORACLE_MIGRATIONS


def _backend_with(tmp_path, *extra: Migration) -> EmbeddedBackend:
    class Extended(EmbeddedBackend):
        migrations = Migrations("embedded", [*MIGRATIONS, *extra])

    return Extended(tmp_path)


def test_shipped_names_are_kept():
    assert MIGRATIONS.names() == [
        "m001_create_memory",
        "m002_create_toolbox_and_skillbox",
        "m003_create_scratchpad",
        "m004_create_settings",
        "m005_create_tool_telemetry",
        "m006_create_tool_breakers",
        "m007_create_provenance",
        "m008_create_tool_definitions",
        "m009_create_tool_search",
        "m010_create_agents_and_skill_links",
        "m011_open_implementation_types",
        "m012_drop_toolbox_enabled",
        "m013_catalog_watch",
        "m014_memory_vectors_as_bits",
    ]
    # both dialects share the names (Oracle got m004_create_settings first)
    assert ORACLE_MIGRATIONS.names() == MIGRATIONS.names()


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["m001_a", "m001_a"], "defined twice"),
        (["m001_a", "m002_b", "m001_a"], "defined twice"),
        (["m002_a", "m001_b"], "higher number"),
        (["m001_a", "m001_b"], "higher number"),
    ],
)
def test_a_list_refuses_duplicates_and_disorder(names, message):
    with pytest.raises(ValueError, match=message):
        Migrations("test", [Migration(n, ["SELECT 1"]) for n in names])


@pytest.mark.parametrize("name", ["m1_short", "M001_upper", "m001-dash", "create_x", "m001_"])
def test_a_badly_named_migration_is_refused(name):
    with pytest.raises(ValueError, match="m<three digits>"):
        Migration(name, ["SELECT 1"])


def test_gaps_are_allowed_so_both_dialects_can_append_the_same_name():
    listed = Migrations("test", [Migration("m003_a", ["x"]), Migration("m005_b", ["y"])])
    assert listed.names() == ["m003_a", "m005_b"]


def test_an_appended_migration_runs_once_on_an_existing_database(tmp_path):
    backend = EmbeddedBackend(tmp_path)
    assert backend.migrate() == MIGRATIONS.names()
    backend.close()
    probe = Migration("m099_create_probe", ["CREATE TABLE probe (x INTEGER)"])
    backend = _backend_with(tmp_path, probe)
    try:
        assert backend.migrate() == ["m099_create_probe"]
        assert backend.migrate() == []
        assert backend.applied_migrations() == [*MIGRATIONS.names(), "m099_create_probe"]
        versions = backend.query("SELECT version, name FROM schema_migrations ORDER BY version")
        assert [r["version"] for r in versions] == list(range(1, len(MIGRATIONS.names()) + 2))
        assert backend.query("SELECT COUNT(*) AS n FROM probe") == [{"n": 0}]
    finally:
        backend.close()


def test_names_not_positions_decide_what_is_applied(tmp_path):
    # A database whose ledger numbers differ from the list's positions (and that knows a
    # migration this checkout does not): nothing is run again, the unknown name is left alone.
    backend = EmbeddedBackend(tmp_path)
    try:
        backend.migrate()
        backend.execute("UPDATE schema_migrations SET version = version + 100")
        backend.execute(
            "INSERT INTO schema_migrations (version, name)"
            " VALUES (999, 'm009_from_a_newer_checkout')"
        )
        assert backend.migrate() == []
        assert backend.applied_migrations()[-1] == "m009_from_a_newer_checkout"
    finally:
        backend.close()


def test_a_failing_migration_leaves_nothing_behind_and_can_run_again(tmp_path):
    broken = Migration(
        "m099_two_steps", ["CREATE TABLE half (x INTEGER)", "CREATE TABLE oops (x NOT VALID SQL"]
    )
    backend = _backend_with(tmp_path, broken)
    try:
        with pytest.raises(apsw.SQLError):
            backend.migrate()
        assert "m099_two_steps" not in backend.applied_migrations()
        assert backend.applied_migrations() == MIGRATIONS.names()  # the earlier ones stay
        assert backend.query("SELECT name FROM sqlite_schema WHERE name = 'half'") == []
    finally:
        backend.close()
    fixed = Migration("m099_two_steps", ["CREATE TABLE half (x INTEGER)", "CREATE TABLE ok (x)"])
    backend = _backend_with(tmp_path, fixed)
    try:
        assert backend.migrate() == ["m099_two_steps"]
    finally:
        backend.close()


def test_an_unmigrated_database_has_no_applied_migrations(tmp_path):
    backend = EmbeddedBackend(tmp_path)
    try:
        assert backend.applied_migrations() == []
    finally:
        backend.close()


def test_m011_keeps_every_data_tool_and_takes_a_new_implementation_type(tmp_path):
    """The rebuild that drops the type CHECK loses no definition and no parameter row."""
    upto_m010 = Migrations("embedded", [m for m in MIGRATIONS if m.number <= 10])
    backend = EmbeddedBackend(tmp_path)
    try:
        backend.migrations = upto_m010
        backend.migrate()
        definition = {
            "name": "port_rows",
            "description": "Rows of a port.",
            "implementation_type": "sql",
            "implementation": '{"statement": "SELECT 1"}',
            "category": "ports",
            "access_level": "read",
            "timeout_s": 5.0,
        }
        parameter = {
            "ordinal": 1,
            "name": "port",
            "json_type": "string",
            "required": True,
            "default_value": None,
            "description": "",
            "schema_extra": "{}",
        }
        backend.tool_definitions.put(definition, [parameter])
        with pytest.raises(apsw.ConstraintError):  # before m011: the type is checked in SQL
            backend.tool_definitions.put({**definition, "implementation_type": "wasm"}, [])
        backend.migrations = MIGRATIONS
        assert backend.migrate() == [
            "m011_open_implementation_types",
            "m012_drop_toolbox_enabled",
            "m013_catalog_watch",
            "m014_memory_vectors_as_bits",
        ]
        [stored] = backend.tool_definitions.all()
        assert stored["implementation_type"] == "sql"
        assert [p["name"] for p in stored["parameters"]] == ["port"]
        backend.tool_definitions.put(
            {**definition, "name": "other", "implementation_type": "wasm"}, []
        )
        assert [d["name"] for d in backend.tool_definitions.all()] == ["other", "port_rows"]
        assert backend.query("SELECT name FROM temp.sqlite_schema WHERE name LIKE 'm011%'") == []
    finally:
        backend.close()


def test_m012_drops_toolbox_enabled_which_nothing_read(tmp_path):
    """toolbox.enabled was read by nothing (a tool is switched off by its breaker): gone, and
    a toolbox row keeps everything else."""
    backend = EmbeddedBackend(tmp_path)
    try:
        backend.migrate()
        columns = [r["name"] for r in backend.query("PRAGMA table_info(toolbox)")]
        assert "enabled" not in columns and {"name", "always_on", "content_hash"} <= set(columns)
    finally:
        backend.close()
