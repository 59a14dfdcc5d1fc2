"""Issue 21 on Oracle, on the python-oracledb fake (nothing here ran on Oracle): the VPD policy
is written from the same rules as the embedded views, the identity reaches the database only
through a one-time ticket, the duality views follow the document shapes, the scheduler job and
its procedure are migration steps. Every statement sent is also checked by the offline floor
(``tests/test_oracle_floor.py``)."""

from __future__ import annotations

import re

import pytest

from agent_harness.backends import BackendError
from agent_harness.backends.oracle import OracleBackend
from agent_harness.backends.oracle.catalog_watch import JOB
from agent_harness.backends.oracle.documents import duality_view_sql, plain_document
from agent_harness.backends.oracle.guardrails import (
    BIND_SQL,
    install_statements,
    new_ticket,
    package_body_sql,
    policy_block,
)
from agent_harness.backends.oracle.migrations import EXISTS_SQL, MIGRATIONS
from agent_harness.backends.roles.access_rules import ROW_POLICIES
from agent_harness.backends.roles.documents import DOCUMENTS
from agent_harness.foundation.identity import Identity
from tests import oracle_flows as flows
from tests.oracle_fake import oracle_error

ANA = Identity.of({"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC", "PACIFIC"]})


@pytest.fixture
def fake(monkeypatch):
    yield from flows.fake_driver(monkeypatch)


def test_the_policy_function_returns_the_embedded_predicates():
    body = package_body_sql(["SUPPLYCHAIN", "WORKSHOP"])
    assert "IN ('SUPPLYCHAIN', 'WORKSHOP')" in body  # the owners are exempt, by user name
    for table, rule in ROW_POLICIES.items():
        assert f"WHEN '{table.upper()}' THEN" in body
        if rule.parent:
            assert rule.predicate((), f"supplychain.{rule.parent}") in body
    # an unbound session sees nothing; a second bind is refused; the ticket is consumed
    assert "IF NOT g_bound THEN RETURN '1 = 0'; END IF;" in body
    assert "already bound" in body and "DELETE FROM identity_tickets" in body
    assert "INSTR(',' || g_roles || ',', ',finance,')" in body


def test_the_mask_is_column_masking_with_all_rows_and_every_table_gets_a_row_policy():
    block = policy_block()
    for table in ROW_POLICIES:
        assert f"add_policy('{table.upper()}', 'WORKSHOP_ROWS'" in block
    assert "'UNIT_VALUE_CENTS');" in block
    assert "sec_relevant_cols_opt => DBMS_RLS.ALL_ROWS" in block
    assert "policy_type => DBMS_RLS.DYNAMIC" in block  # re-evaluated at every execution
    assert "FROM user_policies" in block  # idempotent


def test_install_grants_the_read_only_user_only_execute_on_the_package(fake):
    from tests.oracle_privileges import Privileges

    privileges = Privileges()
    for sql in install_statements("WORKSHOP_RO", ["SUPPLYCHAIN", "WORKSHOP"]):
        privileges.apply("SUPPLYCHAIN", sql)
    assert privileges.objects == {
        "WORKSHOP_RO": {("SUPPLYCHAIN", "WORKSHOP_IDENTITY"): {"EXECUTE": False}}
    }


def test_a_ticket_carries_the_identity_and_nothing_guessable():
    a, b = new_ticket(ANA), new_ticket(ANA)
    assert a["ticket"] != b["ticket"] and len(a["ticket"]) == 64
    assert a["regions"] == "ATLANTIC,PACIFIC" and a["roles"] == "analyst"
    owner = new_ticket(Identity.owner_of("workshop"))
    assert owner["roles"] == "finance" and owner["regions"].count(",") == 3
    assert new_ticket(Identity.of({"user": "nobody"}))["regions"] is None


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_duality_views_follow_the_document_shapes(name):
    document = DOCUMENTS[name]
    ddl = duality_view_sql(document)
    assert ddl.startswith(f"CREATE OR REPLACE JSON RELATIONAL DUALITY VIEW {name} AS")
    assert f"'_id' : {document.root.alias}.{document.key}" in ddl
    for part in document.parts:
        for field in part.fields:
            written = re.search(
                rf"'{field.name}' : {part.alias}\.{field.column}( WITH NOUPDATE)?", ddl
            )
            assert written, field.name
            frozen = bool(written.group(1))
            assert frozen == (part.updatable and not field.updatable), field.name
        tagged = f"FROM {part.table} {part.alias} WITH UPDATE" in ddl
        assert tagged == part.updatable, part.table


def test_a_fetched_document_reads_as_on_the_embedded_backend():
    import datetime as dt
    from decimal import Decimal

    data = {
        "_id": Decimal(9),
        "etaDate": dt.datetime(2025, 5, 16),
        "containers": [{"items": [{"weightKg": Decimal("1.5")}]}],
        "_metadata": {"etag": "AB", "asof": "00"},
    }
    plain = plain_document(DOCUMENTS["voyage_dv"], data)
    assert plain["_id"] == 9 and plain["etaDate"] == "2025-05-16"
    assert plain["containers"][0]["items"][0]["weightKg"] == 1.5
    assert plain["_metadata"] == {"etag": "AB"}


def test_the_watch_is_a_procedure_and_a_scheduler_job_skipped_once_they_exist():
    m013 = next(m for m in MIGRATIONS if m.name == "m013_catalog_watch")
    kinds = {s.kind: s for s in m013.steps}
    assert kinds["job"].name == JOB and "FREQ=MINUTELY;INTERVAL=1" in kinds["job"].sql
    assert "enabled => TRUE" in kinds["job"].sql
    assert "user_scheduler_jobs" in EXISTS_SQL["job"]
    assert "ORA_HASH" in kinds["procedure"].sql
    # an INVALID procedure does not count as done: tests/test_oracle_sessions.py


def test_an_identity_session_binds_once_right_after_connecting(fake, tmp_path):
    backend = OracleBackend(flows.settings(tmp_path), ANA)
    try:
        backend.readonly_query("SELECT COUNT(*) AS n FROM voyages")
        backend.readonly_query("SELECT COUNT(*) AS n FROM containers")
    finally:
        backend.close()
    ro = [s for s in fake.sent if s.user == "workshop_ro"]
    assert [s.sql for s in ro][:2] == ["ALTER SESSION SET CURRENT_SCHEMA = SUPPLYCHAIN", BIND_SQL]
    assert sum(s.sql == BIND_SQL for s in ro) == 1
    tickets = fake.statements(r"^INSERT INTO identity_tickets")
    assert [t.user for t in tickets] == ["supplychain"]
    assert ro[1].binds["ticket"] == tickets[0].binds["ticket"]


def test_an_identity_that_cannot_be_bound_reads_nothing(fake, tmp_path):
    fake.answer(r"bind_session", error=oracle_error("ORA-20022: unknown or expired ticket"))
    backend = OracleBackend(flows.settings(tmp_path), ANA)
    try:
        with pytest.raises(BackendError, match="cannot bind the identity 'ana'"):
            backend.readonly_query("SELECT COUNT(*) AS n FROM voyages")
    finally:
        backend.close()
    assert not fake.statements(r"^SELECT COUNT\(\*\) AS n FROM voyages")


def test_the_owner_reads_on_a_schema_loaded_before_the_policy(fake, tmp_path):
    fake.answer(r"INSERT INTO identity_tickets", error=oracle_error("ORA-00942: no table"))
    backend = OracleBackend(flows.settings(tmp_path))
    try:
        backend.readonly_query("SELECT COUNT(*) AS n FROM voyages")
    finally:
        backend.close()
    assert fake.statements(r"^SELECT COUNT\(\*\) AS n FROM voyages")
    assert not fake.statements(r"bind_session")


def test_documents_on_oracle_are_updated_by_the_owner_only(fake, tmp_path):
    backend = OracleBackend(flows.settings(tmp_path), ANA)
    try:
        with pytest.raises(BackendError, match="workshop owner"):
            backend.documents.update("voyage_dv", {"_id": 9, "_metadata": {"etag": "A"}})
    finally:
        backend.close()
    assert not fake.statements(r"^UPDATE supplychain\.voyage_dv")
