"""A real OracleBackend on the recording fake of python-oracledb (tests/oracle_fake.py).

Everything between the harness and the driver runs here, on every machine: the connection
(savepoints, TIMESTAMP binds, the MERGE retry, CLOB binds, RETURNING), the migration runner
with every DDL step, the shared roles and the Oracle ones with their row mapping, the whole
``workshop setup`` (``Harness.prepare``). Every statement sent is checked by
:func:`tests.oracle_floor.check_statement` when the test ends (the ``fake`` fixture). What only
a real Oracle can settle (that the database accepts each statement and answers as documented)
is left to the Oracle-marked tests.
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import oracledb
import pytest

from agent_harness.backends import BackendError, Scope
from agent_harness.backends.migrations import RECORD_SQL
from agent_harness.backends.oracle import MIGRATIONS, OracleBackend
from agent_harness.backends.oracle.connection import connect_user
from agent_harness.backends.oracle.migrations import DONE_WHEN_ABSENT, LEDGER_DDL
from agent_harness.parts.memory import MemoryStore
from agent_harness.tools.policy import Policy
from tests.oracle_fake import oracle_error
from tests.oracle_flows import (
    EXISTS,
    NOW,
    exercise_roles,
    fake_driver,
    prepare_on,
    settings,
    vector,
)
from tests.oracle_rows import FakeLob

DDL = re.compile(r"^\s*(CREATE|ALTER TABLE|BEGIN|DROP)")


@pytest.fixture
def fake(monkeypatch):
    yield from fake_driver(monkeypatch)


@pytest.fixture
def backend(fake, tmp_path):
    b = OracleBackend(settings(tmp_path, onnx_model="none"))
    yield b
    b.close()


# --- migrations -------------------------------------------------------------------------------


def test_a_new_schema_gets_every_ddl_step_in_order_and_each_name_recorded(fake, backend):
    fake.answer(EXISTS, [{"COUNT(*)": 0}])
    fake.answer(r"FROM schema_migrations ORDER BY version", [])
    assert backend.migrate() == MIGRATIONS.names()
    sent = [s.sql for s in fake.sent]
    assert sent.index(LEDGER_DDL) < sent.index(MIGRATIONS[0].steps[0].sql)
    ddl = [s for s in sent if DDL.match(s)]
    # A count of 0 means "not there": every object is created, and a column a step drops is
    # already gone (that step is done).
    assert ddl == [LEDGER_DDL] + [
        step.sql for m in MIGRATIONS for step in m.steps if step.kind not in DONE_WHEN_ABSENT
    ]
    records = fake.statements(re.escape(RECORD_SQL))
    assert [r.binds["name"] for r in records] == MIGRATIONS.names()


def test_objects_that_exist_are_skipped_and_recorded_migrations_not_run(fake, backend):
    fake.answer(EXISTS, [{"COUNT(*)": 1}])
    fake.answer(r"FROM schema_migrations ORDER BY version", [{"NAME": MIGRATIONS[0].name}])
    assert backend.migrate() == MIGRATIONS.names()[1:]
    # Everything is there: only the ledger's DDL and the drops of what is still there run.
    drops = [s.sql for m in MIGRATIONS[1:] for s in m.steps if s.kind in DONE_WHEN_ABSENT]
    assert drops and [s.sql for s in fake.sent if DDL.match(s.sql)] == [LEDGER_DDL, *drops]
    assert backend.applied_migrations() == [MIGRATIONS[0].name]


@pytest.mark.parametrize(
    ("error", "fix"),
    [
        ("ORA-51962: The vector memory area is out of space", "vector_memory_size=512M"),
        ("ORA-29855: error occurred in the execution of ODCIINDEXCREATE routine", ""),
    ],
)
def test_a_failed_step_says_what_to_do_and_a_failed_text_index_is_dropped(
    fake, backend, error, fix
):
    step = next(s for m in MIGRATIONS for s in m.steps if s.kind == "text index")
    fake.answer(EXISTS, [{"COUNT(*)": 0}])
    fake.answer(re.escape(step.sql), error=oracle_error(error))
    fake.answer(r"user_indexes WHERE index_name", [{"COUNT(*)": 1}], times=1)  # FAILED index
    fake.answer(r"user_indexes WHERE index_name", [{"COUNT(*)": 0}], times=1)  # before
    with pytest.raises(BackendError) as raised:
        backend.run_migration_step(step)
    message = str(raised.value)
    assert f"migration step {step.name} failed: {error[:9]}" in message and fix in message
    assert "workshop setup --backend oracle" in message
    assert fake.statements(f"^DROP INDEX {step.name} FORCE$")


# --- the connection -----------------------------------------------------------------------------


def test_nested_transactions_are_savepoints_and_the_outermost_commits(fake, backend):
    conn = backend.db.conn
    with backend.transaction():
        backend.breakers.set_setting("registry.min_calls", "5")
        with pytest.raises(ValueError), backend.transaction():
            backend.breakers.set_setting("registry.min_calls", "6")
            raise ValueError("inner")
        assert conn.commits == 0
    assert conn.commits == 1 and conn.rollbacks == 0
    sent = [s.sql for s in fake.sent]
    assert "SAVEPOINT workshop_sp1" in sent and "ROLLBACK TO SAVEPOINT workshop_sp1" in sent
    with pytest.raises(ValueError), backend.transaction():
        raise ValueError("outer")
    assert conn.rollbacks == 1


def test_a_merge_that_loses_a_first_insert_race_is_run_once_more(fake, backend):
    # Two writers of one new key both take MERGE's insert branch; the loser gets ORA-00001.
    fake.answer(r"^MERGE INTO thread_skills", error=oracle_error("ORA-00001: unique"), times=1)
    assert backend.agents.note_loaded("thread", "agent", "skill", "turn") is True
    merges = fake.statements(r"^MERGE INTO thread_skills")
    assert len(merges) == 2 and "WHEN MATCHED" not in merges[0].sql  # insert if missing
    fake.answer(r"^INSERT INTO tool_transitions", error=oracle_error("ORA-00001: unique"))
    with pytest.raises(oracledb.IntegrityError):  # only a MERGE is retried
        backend.breakers.put(
            {"tool_name": "t", "state": "open", "since": NOW, "retry_at": NOW},
            {"from_state": "closed", "to_state": "open", "reason": "r", "actor": "a"},
        )
    assert len(fake.statements(r"^INSERT INTO tool_transitions")) == 1


def test_insert_returns_the_identity_through_returning_into(fake, backend):
    event_id = backend.provenance.add_event({"turn_id": "x", "seq": 1, "kind": "answer", "at": NOW})
    [sent] = fake.statements(r"^INSERT INTO turn_events")
    assert sent.sql.endswith(" RETURNING id INTO :new_id") and event_id == 101


def test_empty_and_long_text_go_as_clobs(fake, backend):
    scope = Scope("u", "a")
    backend.scratch.put(scope, "empty.md", "", append=False)
    backend.scratch.put(scope, "long.md", "\u00e9" * 2001, append=False)  # 4002 bytes
    backend.scratch.put(scope, "short.md", "short", append=False)
    contents = [s.binds["content"] for s in fake.statements(r"^MERGE INTO scratch_files")]
    assert [type(c) for c in contents] == [FakeLob, FakeLob, str]  # '' would be NULL
    assert contents[0].type is oracledb.DB_TYPE_CLOB and contents[1].read() == "\u00e9" * 2001


def test_sub_second_times_round_trip_because_they_bind_as_timestamp(fake, backend):
    # python-oracledb binds a datetime as DATE (whole seconds) unless told TIMESTAMP: a breaker
    # would go half-open up to a second early. The fake drops the fraction as DATE would.
    retry_at = NOW + dt.timedelta(seconds=60.5)
    backend.breakers.put(
        {"tool_name": "t", "state": "open", "since": NOW, "retry_at": retry_at}, None
    )
    [merge] = fake.statements(r"^MERGE INTO tool_breakers")
    stored = merge.binds
    assert stored["retry_at"].microsecond == retry_at.microsecond
    assert merge.sizes["retry_at"] is oracledb.DB_TYPE_TIMESTAMP
    fake.answer(r"FROM tool_breakers", [{k.upper(): v for k, v in stored.items()}])
    row = backend.breakers.get("t")
    assert row["retry_at"] == retry_at and row["since"] == NOW
    backend.telemetry.record(
        {"gen_ai_tool_name": "t", "success": True, "duration_ms": 1.0, "started_at": NOW}
    )
    [record] = fake.statements(r"^INSERT INTO tool_telemetry")
    assert record.binds["started_at"].microsecond == NOW.microsecond
    rows = [{"at": None}, {"at": NOW}]  # executemany: a later row's datetime types the column
    backend.db.execute_many("UPDATE tool_transitions SET at = :at WHERE at IS NULL", rows)
    assert fake.sent[-1].binds["at"] == NOW
    with backend.db.conn.cursor() as cur:  # the same value bound plainly loses its fraction
        cur.execute("SELECT 1 AS one FROM dual WHERE :at IS NOT NULL", at=NOW)
    assert fake.sent[-1].binds["at"].microsecond == 0


def test_an_empty_setting_is_stored_as_null_and_read_back_as_empty(fake, backend):
    # set_policy(protected_categories=set()) stores "" -> NULL on Oracle; Policy.load must
    # still work for every registry call after it.
    Policy(protected_categories=frozenset()).save(backend.breakers, ["protected_categories"])
    [merge] = fake.statements(r"^MERGE INTO harness_settings")
    assert merge.binds == {"name": "registry.protected_categories", "value": None}
    fake.answer(
        r"FROM harness_settings WHERE SUBSTR",
        [
            {"NAME": "registry.protected_categories", "VALUE": None},
            {"NAME": "registry.min_calls", "VALUE": "5"},
        ],
    )
    policy = Policy.load(backend.breakers)
    assert policy.protected_categories == frozenset() and policy.min_calls == 5


# --- every role, through the driver, with typed canned rows -------------------------------------


def test_every_role_runs_through_the_driver_with_oracles_row_types(fake, backend):
    exercise_roles(backend)
    assert len({s.sql for s in fake.sent}) > 40


def test_memory_search_sends_one_statement_per_mode(fake, backend):
    store = MemoryStore(backend, Scope("u", "a"), lambda texts: np.stack([vector(9)] * len(texts)))
    for mode in ("vector", "keyword", "hybrid"):
        store.search("Rotterdam berth", k=3, mode=mode, kinds=["note"])
    searches = fake.statements(r"FROM memories")
    assert any("FETCH APPROX FIRST :per_list ROWS ONLY" in s.sql for s in searches)
    assert any("CONTAINS(mt.content, :q, 1) > 0" in s.sql for s in searches)


# --- connecting, describing, closing --------------------------------------------------------------


def test_a_wrong_password_fails_at_once_with_the_fix(fake, tmp_path):
    fake.refused["WORKSHOP"] = oracle_error("ORA-01017: invalid credential or not authorized")
    with pytest.raises(BackendError, match="ORA-01017.*WORKSHOP_ORACLE_\\*_USER"):
        OracleBackend(settings(tmp_path))


def test_connect_waits_while_the_database_opens(fake, tmp_path, monkeypatch):
    from agent_harness.backends.oracle import connection

    monkeypatch.setattr(connection, "STARTUP_POLL_S", 0.01)
    opening = oracle_error("DPY-6005: cannot connect\nDPY-6001: Service is not registered")
    attempts = []

    def connect(**params):
        attempts.append(params)
        if len(attempts) < 3:
            raise opening
        return fake.connect(**params)

    monkeypatch.setattr(oracledb, "connect", connect)
    conn = connect_user(settings(tmp_path), "workshop", "x", "harness owner", wait_s=5)
    assert len(attempts) == 3 and conn.user == "workshop"
    assert attempts[0]["tcp_connect_timeout"] == connection.CONNECT_TIMEOUT_S


def test_describe_and_close_every_connection(fake, backend):
    assert "Oracle AI Database 23.26.0.0.0 at localhost:1521/FREEPDB1 as WORKSHOP" in (
        backend.describe()
    )
    backend.readonly_query("SELECT name FROM ports")
    backend.supplychain.set_comment("ports", None, "Ports")
    backend.close()
    assert fake.connections and all(c.closed for c in fake.connections)
    backend.close()  # twice is harmless: python-oracledb's DPY-1001 is swallowed


# --- the whole `workshop setup` -------------------------------------------------------------------


@pytest.fixture
def empty_fake(monkeypatch):
    """The fake of a database where nothing is stored yet: unscripted queries get no rows."""
    yield from fake_driver(monkeypatch, canned=False)


def test_workshop_setup_runs_every_step_on_the_driver(empty_fake, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_ONNX_MODEL", "none")
    steps = prepare_on(empty_fake, tmp_path)
    assert steps == [
        "migrations",
        "embedding model",
        "SUPPLYCHAIN data",
        "catalog scan",
        "skills",
        "tools",
        "agents",
    ]
    assert empty_fake.statements(r"^GRANT SELECT ON vessels TO WORKSHOP_RO$")
    assert empty_fake.statements(r"^MERGE INTO toolbox")
    assert empty_fake.statements(r"^MERGE INTO agents ")
