"""A catalog that keeps itself current (embedded backend): a changed comment or a new table
reaches memory at the detector's next check without anyone calling scan, a dropped table's
facts go and the other memories about it are retired, each memory scope (identity) catches up
on its own, and ``workshop rescan`` says what it did."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import time

import pytest
from click.testing import CliRunner

from agent_harness.parts.catalog_scanner import RETIRED


@pytest.fixture
def h(tmp_path, template):
    import agent_harness

    shutil.copytree(template, tmp_path, dirs_exist_ok=True)
    harness = agent_harness.connect(backend="embedded", data_dir=tmp_path)
    yield harness
    harness.close()


def subjects(h, query: str, kinds=("table", "column")) -> list[str]:
    return [m.content for m in h.memory.search(query, k=5, mode="keyword", kinds=list(kinds))]


def test_a_prepared_catalog_is_current(h):
    result = h.catalog_watch.check()
    assert not result.changed and result.counts is None
    assert result.fingerprint == h.backend.catalog_watch.fingerprint("SUPPLYCHAIN")


def test_the_fingerprint_moves_with_a_comment_a_table_or_a_column_and_nothing_else(h):
    watch = h.backend.catalog_watch
    first = watch.fingerprint("SUPPLYCHAIN")
    h.tools.call("run_sql", {"sql": "SELECT COUNT(*) FROM voyages"})
    h.memory.add("a note changes no catalog", kind="note")
    assert watch.fingerprint("SUPPLYCHAIN") == first
    h.backend.set_comment("ports", "berths", "Container berths (a new comment).")
    second = watch.fingerprint("SUPPLYCHAIN")
    assert second != first
    h.backend.execute("CREATE TABLE supplychain.port_fees (port_code TEXT, fee_usd NUMBER)")
    third = watch.fingerprint("SUPPLYCHAIN")
    assert third not in (first, second)
    h.backend.execute("ALTER TABLE supplychain.port_fees ADD COLUMN currency TEXT")
    assert watch.fingerprint("SUPPLYCHAIN") not in (first, second, third)


def test_a_new_table_comment_is_found_by_the_detectors_next_check(h):
    """Nobody calls check or scan: the watcher's own thread picks the change up. The test waits
    (a generous deadline: a busy machine is slow) for a check that began after the change and
    then asserts what the checks saw; how long anything took is never asserted."""
    watcher, seen = h.catalog_watch, []
    check = watcher.check

    def recorded_check(force: bool = False):
        result = check(force)
        seen.append(result)
        return result

    watcher.check = recorded_check  # the thread calls self.check: every result is kept
    watcher.start(period_s=0.2)
    try:
        h.backend.execute(
            "CREATE TABLE supplychain.port_fees (port_code TEXT PRIMARY KEY, fee_usd NUMBER)"
        )
        h.backend.set_comment("port_fees", None, "Harbour dues per port call: zebrafish tariff.")
        changed_at = dt.datetime.now(dt.timezone.utc)
        deadline = time.monotonic() + 120
        while not any(r.checked_at >= changed_at for r in seen):
            assert time.monotonic() < deadline, "the watcher's thread stopped checking"
            time.sleep(0.05)
    finally:
        watcher.stop()
    assert watcher.last_error is None, watcher.last_error
    changed = [r for r in seen if r.changed]
    assert changed, "the watcher never saw the change"
    # the table and its two columns (in one re-scan, or two if a check ran mid-change)
    assert sum(r.counts["added"] for r in changed) >= 3, [r.counts for r in changed]
    found = json.loads(h.tools.call("search_knowledge", {"query": "zebrafish tariff", "k": 3}))
    assert found[0]["subject"] == "SUPPLYCHAIN.PORT_FEES", found


def test_a_dropped_tables_memories_are_retired_not_left_to_mislead(h):
    h.backend.execute("CREATE TABLE supplychain.port_fees (port_code TEXT, fee_usd NUMBER)")
    h.backend.set_comment("port_fees", None, "Harbour dues per port call.")
    assert h.catalog_watch.check().changed
    note = h.memory.add(
        "Port fees double for reefers at NLRTM.", kind="finding", subject="SUPPLYCHAIN.PORT_FEES"
    )
    other = h.memory.add("Ports are keyed by UN/LOCODE.", kind="note", subject="SUPPLYCHAIN.PORTS")
    h.backend.execute("DROP TABLE supplychain.port_fees")
    result = h.catalog_watch.check()
    assert result.changed and result.counts["removed"] == 3 and len(result.retired) == 1
    assert h.memory.get(note) is None and h.memory.get(other) is not None
    [retired] = h.memory.list(metadata_filter={"kind": RETIRED})
    assert retired.content.startswith("[retired: SUPPLYCHAIN.PORT_FEES no longer exists]")
    assert retired.metadata["retired_kind"] == "finding"
    assert not h.memory.list(metadata_filter={"kind": "table", "subject": "SUPPLYCHAIN.PORT_FEES"})
    found = json.loads(h.tools.call("search_knowledge", {"query": "port fees reefers NLRTM"}))
    assert all(hit["kind"] != RETIRED for hit in found)
    asked = json.loads(
        h.tools.call("search_knowledge", {"query": "port fees reefers", "kinds": [RETIRED]})
    )
    assert asked and asked[0]["kind"] == RETIRED


def test_each_identity_catches_up_in_its_own_memory(h):
    import agent_harness

    ana = agent_harness.connect(
        backend="embedded",
        data_dir=h.backend.data_dir,
        identity={"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC"]},
    )
    try:
        h.backend.set_comment("vessels", "flag", "Flag state, e.g. Panama (quokka).")
        assert h.catalog_watch.check().changed
        assert ana.catalog_watch.check().changed  # her scope had the old comment
        assert not ana.catalog_watch.check().changed
        assert any("quokka" in c for c in subjects(ana, "quokka"))
    finally:
        ana.close()


def test_a_turn_checks_the_catalog_when_a_period_has_passed(h):
    h.backend.set_comment("ports", "name", "Port name in English (ocelot).")
    h.catalog_watch.last = None  # no check in this process yet: the next turn checks
    from agent_harness.agent.agent_loop import agent_turn

    agent_turn(h, "What does the column berths mean?")
    assert h.catalog_watch.last is not None and h.catalog_watch.last.changed
    assert any("ocelot" in c for c in subjects(h, "ocelot"))


def test_workshop_rescan_reports_a_change_and_then_nothing(h, monkeypatch):
    from agent_harness.interfaces.cli import cli

    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(h.backend.data_dir))
    monkeypatch.setenv("WORKSHOP_BACKEND", "embedded")
    h.backend.set_comment("carriers", "country", "Country of the head office (axolotl).")
    runner = CliRunner()
    first = runner.invoke(cli, ["rescan"])
    assert first.exit_code == 0, first.output
    assert "catalog changed" in first.output and "1 updated" in first.output
    again = runner.invoke(cli, ["rescan"])
    assert "catalog unchanged" in again.output
    bad = runner.invoke(cli, ["rescan", "--identity", "ana:analyst:ARCTIC"])
    assert bad.exit_code != 0 and "not an ocean region" in bad.output
