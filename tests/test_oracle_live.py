"""The guardrails, the documents and the catalog watch on a real Oracle (issue 26, item 7).

Marked ``oracle``: skipped wherever no Oracle is reachable (every machine of the project's own;
nothing here has run on Oracle yet). The GitHub Actions ``oracle`` job runs them in one process
with TZ=Asia/Kolkata, so the identity tickets' window is tested east of UTC. Their embedded
twins are tests/test_guardrails.py, tests/test_documents.py and tests/test_catalog_watch.py.
"""

from __future__ import annotations

import time

import pytest

import agent_harness
from agent_harness.backends import BackendError
from agent_harness.backends.errors import DocumentConflict
from agent_harness.backends.oracle.compiled import CompilationFailed
from agent_harness.backends.oracle.steps import Step
from tests.conftest import ORACLE_SKIP

pytestmark = [pytest.mark.oracle, ORACLE_SKIP]

ANA = {"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC"]}
FAY = {"user": "fay", "roles": ["finance"], "regions": ["PACIFIC", "ATLANTIC"]}


def _rows(h, sql, binds=None):
    return h.backend.readonly_query(sql, binds or {}, max_rows=100_000).rows


@pytest.fixture(scope="module")
def ana(oracle_harness):
    h = agent_harness.connect(backend="oracle", identity=ANA)
    yield h
    h.close()


@pytest.fixture(scope="module")
def fay(oracle_harness):
    h = agent_harness.connect(backend="oracle", identity=FAY)
    yield h
    h.close()


def test_an_identity_sees_its_regions_and_what_hangs_off_them(oracle_harness, ana):
    owner = oracle_harness
    regions = {r for (r,) in _rows(ana, "SELECT DISTINCT ocean_region FROM voyages")}
    assert regions == {"ATLANTIC"}
    atlantic = _rows(owner, "SELECT COUNT(*) FROM voyages WHERE ocean_region = 'ATLANTIC'")
    assert _rows(ana, "SELECT COUNT(*) FROM voyages") == atlantic
    mine = _rows(
        owner,
        "SELECT COUNT(*) FROM containers c JOIN voyages v ON v.voyage_id = c.voyage_id"
        " WHERE v.ocean_region = 'ATLANTIC'",
    )
    assert _rows(ana, "SELECT COUNT(*) FROM containers") == mine
    assert _rows(ana, "SELECT COUNT(*) FROM carriers") == _rows(
        owner, "SELECT COUNT(*) FROM carriers"
    )


def test_the_mask_blinds_where_and_aggregates_without_the_finance_role(ana, fay):
    assert _rows(ana, "SELECT COUNT(*) FROM cargo_items WHERE unit_value_cents > 0") == [[0]]
    assert _rows(ana, "SELECT MAX(unit_value_cents) FROM cargo_items") == [[None]]
    assert _rows(fay, "SELECT COUNT(*) FROM cargo_items WHERE unit_value_cents > 0")[0][0] > 0


def test_documents_follow_the_policy_and_refuse_a_stale_etag(oracle_harness, ana):
    owner = oracle_harness
    [(atlantic,)] = _rows(
        owner, "SELECT MIN(voyage_id) FROM voyages WHERE ocean_region = 'ATLANTIC'"
    )
    [(indian,)] = _rows(owner, "SELECT MIN(voyage_id) FROM voyages WHERE ocean_region = 'INDIAN'")
    seen = ana.documents.get("voyage_dv", atlantic)
    assert seen is not None and ana.documents.get("voyage_dv", indian) is None
    items = [i for c in seen["containers"] for i in c["items"]]
    assert items and all(i["unitValueCents"] is None for i in items)
    doc = owner.documents.get("voyage_dv", atlantic)
    before = doc["status"]
    stored = owner.documents.update("voyage_dv", dict(doc, status="DELAYED"))
    try:
        assert stored["status"] == "DELAYED"
        with pytest.raises(DocumentConflict):
            owner.documents.update("voyage_dv", dict(doc, status="ACTIVE"))
    finally:
        owner.documents.update("voyage_dv", dict(stored, status=before))


def test_a_table_the_workshop_adds_moves_both_fingerprints_and_the_job_queues_it(oracle_harness):
    h = oracle_harness
    watch = h.backend.catalog_watch
    h.backend.supplychain_execute("DROP TABLE IF EXISTS supplychain.chk_live_fees")
    before = watch.fingerprint("SUPPLYCHAIN")
    queued = watch.queued_since("SUPPLYCHAIN", None)
    h.backend.supplychain_execute("CREATE TABLE supplychain.chk_live_fees (port_code VARCHAR(5))")
    try:
        assert watch.fingerprint("SUPPLYCHAIN") != before
        listed = h.backend.query(
            "SELECT COUNT(*) AS n FROM all_tab_columns WHERE owner = 'SUPPLYCHAIN'"
            " AND table_name = 'CHK_LIVE_FEES'"
        )
        assert listed[0]["n"] == 1  # the harness owner sees it (a direct SELECT grant)
        deadline = time.monotonic() + 180  # the job runs every minute, one job at a time
        while watch.queued_since("SUPPLYCHAIN", None) == queued and time.monotonic() < deadline:
            time.sleep(5)
        assert watch.queued_since("SUPPLYCHAIN", None) > queued, "the job never queued it"
    finally:
        h.backend.supplychain_execute("DROP TABLE IF EXISTS supplychain.chk_live_fees")
    assert watch.fingerprint("SUPPLYCHAIN") == before


def test_the_harness_owner_cannot_write_supplychain(oracle_harness):
    with pytest.raises(Exception, match="ORA-01031|ORA-00942"):
        oracle_harness.backend.execute("DELETE FROM supplychain.ports WHERE 1 = 0")


def test_a_second_setup_keeps_a_bound_session(ana):
    assert _rows(ana, "SELECT COUNT(*) FROM voyages")[0][0] > 0
    ana.backend.supplychain.install_policy()  # the package is unchanged: not created again
    assert _rows(ana, "SELECT COUNT(*) FROM voyages")[0][0] > 0  # no ORA-04068


def test_a_procedure_with_compile_errors_raises(oracle_harness):
    backend = oracle_harness.backend
    broken = Step(
        "procedure",
        "WORKSHOP_BROKEN_PROBE",
        "CREATE OR REPLACE PROCEDURE workshop_broken_probe AS BEGIN WRONG WRONG; END;",
    )
    try:
        with pytest.raises(CompilationFailed, match="WORKSHOP_BROKEN_PROBE.*line"):
            backend.run_migration_step(broken)
    finally:
        backend.db.run_ddl("DROP PROCEDURE workshop_broken_probe")


def test_an_unknown_ticket_is_refused(oracle_harness):
    from agent_harness.backends.oracle.guardrails import BIND_SQL
    from agent_harness.backends.oracle.readonly import ReadOnlySession

    session = ReadOnlySession(oracle_harness.settings, None, lambda identity: "0" * 64)
    try:
        with pytest.raises(BackendError, match="ORA-20022"):
            session.query("SELECT COUNT(*) FROM voyages")
    finally:
        session.drop()
    assert "bind_session" in BIND_SQL
