"""Issue 26 on the stand-in (nothing here ran on Oracle): identity tickets in another time zone,
binding failures that must not pass silently, compilation errors, and sessions that keep their
package state across a second ``workshop setup``.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest

from agent_harness.backends import BackendError
from agent_harness.backends.oracle import OracleBackend
from agent_harness.backends.oracle.compiled import CompilationFailed, same_source
from agent_harness.backends.oracle.guardrails import TICKET_SQL, TICKETS_DDL, package_body_sql
from agent_harness.backends.oracle.steps import Step
from agent_harness.foundation.identity import Identity
from agent_harness.supplychain.schema import OWNER
from tests import oracle_flows as flows
from tests.oracle_fake import FakeOracle, oracle_error
from tests.oracle_tickets import TicketBook, driver_session_time_zone, parse_zone

ANA = Identity.of({"user": "ana", "roles": ["analyst"], "regions": ["ATLANTIC"]})
UTC = dt.timezone.utc
KOLKATA = parse_zone("+05:30")

#: The ticket window as the package read before issue 26: issued_at (a TIMESTAMP holding the
#: server's SYSTIMESTAMP) against SYSTIMESTAMP - 5 minutes (a TIMESTAMP WITH TIME ZONE).
OLD_DDL = TICKETS_DDL.replace("DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP)", "DEFAULT SYSTIMESTAMP")
OLD_INSERT = (
    "INSERT INTO identity_tickets (ticket, app_user, roles, regions)"
    " VALUES (:ticket, :app_user, :roles, :regions)"
)
OLD_BODY = (
    "DELETE FROM identity_tickets\n"
    "      WHERE ticket = p_ticket AND issued_at > SYSTIMESTAMP - INTERVAL '5' MINUTE\n"
    "      RETURNING app_user, roles, regions INTO g_user, g_roles, g_regions;"
)


@pytest.fixture
def kolkata(monkeypatch):
    """The client at UTC+05:30, as python-oracledb sees it (its logon sets the session's
    TIME_ZONE from the local offset); ORA_SDTZ where the platform cannot change TZ."""
    monkeypatch.delenv("ORA_SDTZ", raising=False)
    if hasattr(time, "tzset"):
        monkeypatch.setenv("TZ", "Asia/Kolkata")
        time.tzset()
        yield
        monkeypatch.undo()
        time.tzset()
    else:  # Windows
        monkeypatch.setenv("ORA_SDTZ", "+05:30")
        yield


@pytest.fixture
def fake(monkeypatch):
    yield from flows.fake_driver(monkeypatch)


@pytest.fixture
def lenient(monkeypatch):
    """The fake without the floor's check at the end: these tests send broken PL/SQL."""
    import oracledb

    driver = FakeOracle()
    monkeypatch.setattr(oracledb, "connect", driver.connect)
    return driver


def _ticket(book: TicketBook, ddl: str, insert: str, zone) -> str:
    book.insert(ddl, insert, {"ticket": "t1"}, zone)
    return "t1"


def test_the_driver_sets_the_session_time_zone_from_the_client(kolkata):
    assert driver_session_time_zone() in ("+05:30", "Asia/Kolkata")


@pytest.mark.parametrize(("zone", "accepted"), [(UTC, True), (KOLKATA, False)])
def test_the_old_ticket_window_fails_east_of_utc(zone, accepted):
    # Globalization Support Guide: a TIMESTAMP compared with a TIMESTAMP WITH TIME ZONE is
    # read in the SESSION time zone; the container's SYSTIMESTAMP is UTC.
    book = TicketBook()
    ticket = _ticket(book, OLD_DDL, OLD_INSERT, zone)
    assert book.consume(OLD_BODY, ticket, zone) is accepted


@pytest.mark.parametrize("zone", [UTC, KOLKATA, parse_zone("-08:00")])
def test_the_ticket_window_is_five_minutes_in_every_time_zone(zone):
    body = package_body_sql([OWNER, "WORKSHOP"])
    now = dt.datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    for age, accepted in ((0, True), (4.9, True), (5.1, False), (60, False)):
        book = TicketBook(clock=lambda: now)
        ticket = _ticket(book, TICKETS_DDL, TICKET_SQL, zone)
        book.clock = lambda age=age: now + dt.timedelta(minutes=age)
        assert book.consume(body, ticket, zone) is accepted, (zone, age)
    book = TicketBook(clock=lambda: now)
    ticket = _ticket(book, TICKETS_DDL, TICKET_SQL, zone)
    assert book.consume(body, ticket, zone) and not book.consume(body, ticket, zone)  # once


def test_the_guardrail_flows_run_in_kolkata(kolkata, fake, tmp_path):
    backend = OracleBackend(flows.settings(tmp_path))
    try:
        flows.exercise_guardrails(fake, backend, tmp_path)
    finally:
        backend.close()
    assert fake.statements(r"bind_session") and not fake.world.refusals


def test_an_identity_binds_in_kolkata(kolkata, fake, tmp_path):
    guarded = OracleBackend(flows.settings(tmp_path), ANA)
    try:
        guarded.readonly_query("SELECT COUNT(*) AS n FROM voyages")
    finally:
        guarded.close()
    assert all(
        c.time_zone.utcoffset(None) == dt.timedelta(hours=5, minutes=30) for c in fake.connections
    )


def test_the_owners_refused_ticket_raises(fake, tmp_path):
    fake.answer(r"bind_session", error=oracle_error("ORA-20022: unknown or expired ticket"))
    backend = OracleBackend(flows.settings(tmp_path))
    try:
        with pytest.raises(BackendError, match="ticket was refused.*ORA-20022"):
            backend.readonly_query("SELECT COUNT(*) AS n FROM voyages")
    finally:
        backend.close()
    assert not fake.statements(r"^SELECT COUNT\(\*\) AS n FROM voyages")


def test_without_the_package_the_owner_reads_and_an_identity_is_told(fake, tmp_path):
    del fake.world.sources[("SUPPLYCHAIN", "PACKAGE BODY", "WORKSHOP_IDENTITY")]
    owner = OracleBackend(flows.settings(tmp_path))
    guarded = OracleBackend(flows.settings(tmp_path), ANA)
    try:
        owner.readonly_query("SELECT COUNT(*) AS n FROM voyages")
        with pytest.raises(BackendError, match="access policy is not installed.*PLS-00201"):
            guarded.readonly_query("SELECT COUNT(*) AS n FROM voyages")
    finally:
        owner.close()
        guarded.close()


def test_a_second_setup_keeps_the_bound_sessions_package_state(fake, tmp_path):
    guarded = OracleBackend(flows.settings(tmp_path), ANA)
    try:
        guarded.readonly_query("SELECT COUNT(*) AS n FROM voyages")
        guarded.supplychain.install_policy()  # `workshop setup` again: nothing changed
        guarded.readonly_query("SELECT COUNT(*) AS n FROM voyages")
        assert not fake.statements(r"^CREATE OR REPLACE PACKAGE")
        fake.world.sources[("SUPPLYCHAIN", "PACKAGE BODY", "WORKSHOP_IDENTITY")] += "\n-- old"
        guarded.supplychain.install_policy()  # a changed body is created again ...
        assert len(fake.statements(r"^CREATE OR REPLACE PACKAGE BODY")) == 1
        with pytest.raises(BackendError, match="ORA-04068"):  # ... and the session's state goes
            guarded.readonly_query("SELECT COUNT(*) AS n FROM voyages")
    finally:
        guarded.close()


def test_stored_source_is_compared_without_its_layout():
    sql = "CREATE OR REPLACE PACKAGE p AUTHID DEFINER AS\n  PROCEDURE q;\nEND p;"
    assert same_source(["PACKAGE p AUTHID DEFINER AS\n", "    procedure q;\n", "END p;"], sql)
    assert not same_source(["PACKAGE p AUTHID DEFINER AS\n", "  PROCEDURE r;\n", "END p;"], sql)
    assert not same_source([], sql)


def test_a_procedure_with_compile_errors_raises_with_its_lines(lenient, tmp_path):
    backend = OracleBackend(flows.settings(tmp_path))
    broken = Step(
        "procedure",
        "CATALOG_WATCH_CHECK",
        "CREATE OR REPLACE PROCEDURE catalog_watch_check AS\nBEGIN\n  IF 1 = 1 THEN NULL; END;\n"
        "END catalog_watch_check;",
    )
    try:
        with pytest.raises(CompilationFailed, match=r"CATALOG_WATCH_CHECK.*line \d+"):
            backend.run_migration_step(broken)
        assert backend.object_exists("procedure", "CATALOG_WATCH_CHECK") is False  # INVALID
    finally:
        backend.close()
    errors = lenient.statements(r"FROM user_errors")
    assert errors and errors[-1].binds == {"name": "CATALOG_WATCH_CHECK", "kind": "PROCEDURE"}


def test_a_package_body_with_compile_errors_stops_the_install(lenient, tmp_path):
    from agent_harness.backends.oracle import supplychain as module

    original = module.install_statements

    def broken(ro_user, owners):
        statements = original(ro_user, owners)
        statements[1] = statements[1].replace("END IF;", "END;", 1)  # an IF left open
        return statements

    module.install_statements = broken
    try:
        backend = OracleBackend(flows.settings(tmp_path))
        with pytest.raises(CompilationFailed, match="package body WORKSHOP_IDENTITY"):
            backend.supplychain.install_policy()
        backend.close()
    finally:
        module.install_statements = original


def test_a_migration_whose_procedure_compiles_cleanly_is_done(fake, tmp_path):
    from agent_harness.backends.oracle.migrations import MIGRATIONS

    step = next(s for m in MIGRATIONS for s in m.steps if s.kind == "procedure")
    backend = OracleBackend(flows.settings(tmp_path))
    try:
        backend.run_migration_step(step)
        assert backend.object_exists("procedure", step.name) is True
    finally:
        backend.close()
