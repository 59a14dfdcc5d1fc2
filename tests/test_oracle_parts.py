"""The Oracle-only parts on the recording fake of python-oracledb (tests/oracle_fake.py).

The demo schema's load, comments and grants as SUPPLYCHAIN; ``run_sql`` as the read-only user
and every error it turns into a message; the in-database embedding model; ``exec_js`` on MLE
(the wrapper's outcome computed by running it in V8, as MLE would); the doctor's checks. The
statements each one sends are checked by :func:`tests.oracle_floor.check_statement` when the
test ends; that the database answers them as documented is for the Oracle job to show.
"""

from __future__ import annotations

import array
import re
import types

import numpy as np
import oracledb
import pytest

from agent_harness.backends import BackendError, ReadOnlyViolation
from agent_harness.backends.oracle import OracleBackend
from agent_harness.backends.oracle.embeddings import (
    CLIENT_MODE,
    DATABASE_MODE,
    MODEL_NAME,
    ModelSourceError,
)
from agent_harness.backends.oracle.supplychain import LOCATED, identifier
from agent_harness.foundation.embeddings import DIMENSIONS
from agent_harness.supplychain.schema import TABLES
from tests.oracle_fake import oracle_error
from tests.oracle_flows import (
    answer_healthy,
    doctor_results,
    fake_driver,
    few_rows,
    mle_outcome,
    settings,
)
from tests.oracle_rows import FakeLob


@pytest.fixture
def fake(monkeypatch):
    yield from fake_driver(monkeypatch)


def _backend(fake, tmp_path, **overrides) -> OracleBackend:
    return OracleBackend(settings(tmp_path, **{"onnx_model": "none", **overrides}))


@pytest.fixture
def backend(fake, tmp_path):
    b = _backend(fake, tmp_path)
    yield b
    b.close()


# --- the demo schema ----------------------------------------------------------------------------


def test_the_demo_schema_is_replaced_commented_loaded_and_granted(fake, backend):
    fake.answer(r"^SELECT table_name FROM user_tables$", [{"TABLE_NAME": "PORTS"}])
    counts = backend.load_supplychain(TABLES, few_rows())
    assert counts == {t.name: len(few_rows()[t.name]) for t in TABLES}
    owner = [s.sql for s in fake.sent if s.user == "supplychain"]
    assert owner[0] == "ALTER SESSION SET recyclebin = OFF"  # a dropped table goes at once
    assert owner[2] == "DROP TABLE ports CASCADE CONSTRAINTS PURGE"  # only what exists
    for table in TABLES:
        assert fake.statements(rf"^CREATE TABLE {table.name} \(")
        assert fake.statements(rf"^COMMENT ON TABLE {table.name} IS '")
        for reader in ("WORKSHOP", "WORKSHOP_RO"):
            assert fake.statements(rf"^GRANT SELECT ON {table.name} TO {reader}$")
        inserts = fake.statements(rf"^INSERT INTO {table.name} \(")
        assert [s.binds for s in inserts] == [tuple(r) for r in few_rows()[table.name]]
        assert all(len(s.sizes) == len(table.columns) for s in inserts)
    assert {s.sql.split()[1] for s in fake.statements(r"SET location = SDO_GEOMETRY")} == LOCATED
    assert fake.connections[-1].user == "supplychain" and fake.connections[-1].commits == 1


def test_loaded_reads_the_dictionary_then_the_vessels(fake, backend):
    fake.answer(r"FROM all_tables WHERE owner", [{"N": 0}], times=1)
    assert backend.supplychain_loaded() is False
    fake.answer(r"FROM supplychain\.vessels", [{"N": 12}])
    assert backend.supplychain_loaded() is True


def test_comments_are_literals_with_quotes_doubled_and_names_checked(fake, backend):
    backend.set_comment("ports", "name", "The port's name")
    assert fake.sent[-1].sql == "COMMENT ON COLUMN PORTS.NAME IS 'The port''s name'"
    with pytest.raises(ValueError, match="not a plain identifier"):
        backend.set_comment("ports; DROP TABLE x", None, "x")
    assert identifier("Vessels") == "VESSELS"


# --- run_sql as the read-only user --------------------------------------------------------------


class FakeGeometry(oracledb.DbObject):
    """An SDO_GEOMETRY point as python-oracledb hands it out (a DbObject)."""

    def __init__(self, x, y, type_name="SDO_GEOMETRY"):
        object.__setattr__(self, "_impl", None)
        object.__setattr__(self, "_point", (x, y, type_name))

    def __getattr__(self, name):
        x, y, _ = object.__getattribute__(self, "_point")
        if name == "SDO_POINT":
            return None if x is None else types.SimpleNamespace(X=x, Y=y)
        raise AttributeError(name)

    @property
    def type(self):
        return types.SimpleNamespace(
            name=object.__getattribute__(self, "_point")[2], schema="MDSYS"
        )


def test_run_sql_runs_as_the_read_only_user_with_its_limits(fake, backend):
    fake.answer(
        r"^SELECT port_code",
        [{"PORT_CODE": f"P{i}", "Where": FakeGeometry(4.5, 51.9)} for i in range(4)]
        + [{"PORT_CODE": "Q", "Where": FakeGeometry(None, None)}],
    )
    result = backend.readonly_query(
        'SELECT port_code, location AS "Where" FROM ports WHERE country = :c;',
        {"c": "Netherlands", "unused": 1},
        max_rows=3,
        timeout_s=2.5,
    )
    assert result.columns == ["port_code", "Where"] and result.truncated is True
    assert result.rows[0] == ["P0", "POINT (4.5 51.9)"] and len(result.rows) == 3
    ro = [c for c in fake.connections if c.user == "workshop_ro"]
    assert len(ro) == 1 and ro[0].call_timeout == 2500 and ro[0].rollbacks == 1
    first, bind, query = [s for s in fake.sent if s.user == "workshop_ro"]
    assert first.sql == "ALTER SESSION SET CURRENT_SCHEMA = SUPPLYCHAIN"
    # the session is bound to the owner's identity (every region, unmasked) by a ticket that
    # SUPPLYCHAIN wrote just before (issue 21)
    ticket = fake.statements(r"^INSERT INTO identity_tickets")[-1]
    assert ticket.user == "supplychain" and ticket.binds["app_user"] == "workshop"
    assert ticket.binds["roles"] == "finance" and ticket.binds["regions"].count(",") == 3
    assert "bind_session" in bind.sql and bind.binds == {"ticket": ticket.binds["ticket"]}
    assert query.binds == {"c": "Netherlands"} and not query.sql.endswith(";")
    backend.readonly_query("SELECT COUNT(*) AS n FROM vessels")
    assert len([c for c in fake.connections if c.user == "workshop_ro"]) == 1  # kept open


@pytest.mark.parametrize(
    ("error", "kind", "phrase", "reconnects"),
    [
        ("DPY-4024: call timeout of 5000 ms exceeded", BackendError, "time limit", True),
        ("ORA-01013: user requested cancel of current operation", BackendError, "time limit", True),
        ("ORA-01031: insufficient privileges", ReadOnlyViolation, "Only SELECT", False),
        ("ORA-00942: table or view does not exist", BackendError, "supplychain.<table>", False),
        ("ORA-01745: invalid host/bind variable name", BackendError, "rename it", False),
        ("DPY-1001: not connected to database", BackendError, "SQL error: DPY-1001", True),
    ],
)
def test_run_sql_errors_say_what_to_do_and_a_broken_session_is_replaced(
    fake, backend, error, kind, phrase, reconnects
):
    fake.answer(r"^SELECT 1", error=oracle_error(error), times=1)
    with pytest.raises(kind, match=re.escape(phrase)):
        backend.readonly_query("SELECT 1 AS x FROM dual")
    backend.readonly_query("SELECT 2 AS x FROM dual")
    ro = [c for c in fake.connections if c.user == "workshop_ro"]
    assert len(ro) == (2 if reconnects else 1)


def test_run_sql_refuses_writes_before_the_database_sees_them(fake, backend):
    with pytest.raises(ReadOnlyViolation):
        backend.readonly_query("DELETE FROM ports")
    assert not [s for s in fake.sent if s.user == "workshop_ro"]


# --- embeddings -------------------------------------------------------------------------------


def test_the_mode_is_client_side_until_setup_records_one(fake, backend):
    fake.answer(r"FROM harness_settings WHERE name = 'embedding_mode'", [], times=1)
    assert backend.embeddings.mode().key == CLIENT_MODE  # not set up yet: asked again
    fake.answer(r"FROM harness_settings", error=oracle_error("ORA-00942: no table"), times=1)
    assert "not set up" in backend.embeddings.mode().reason
    fake.answer(r"FROM harness_settings", [{"VALUE": DATABASE_MODE}])
    assert backend.embeds_in_database and "VECTOR_EMBEDDING" in backend.describe()


def test_in_database_embeddings_come_from_vector_embedding_normalised(fake, backend):
    fake.answer(r"FROM harness_settings", [{"VALUE": DATABASE_MODE}])
    vectors = backend.embed_texts(["a", ""])
    assert vectors.shape == (2, DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    sent = fake.statements(rf"^SELECT VECTOR_EMBEDDING\({MODEL_NAME} USING :text AS DATA\)")
    assert [s.binds["text"] for s in sent] == ["a", " "]  # '' would be NULL


def test_no_database_embeddings_in_client_mode(fake, backend):
    fake.answer(r"FROM harness_settings", [{"VALUE": CLIENT_MODE}])
    assert backend.embed_texts(["a"]) is None


def test_the_model_is_loaded_once_from_a_file_with_the_blob_overload(fake, tmp_path):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"ONNX" * 10)
    backend = _backend(fake, tmp_path, onnx_model=str(model))
    fake.answer(r"FROM user_mining_models", [{"N": 0}], times=1)
    assert backend.load_onnx_model().startswith(f"loaded {MODEL_NAME}")
    [load] = fake.statements(r"DBMS_VECTOR\.LOAD_ONNX_MODEL")
    assert load.binds["data"].type is oracledb.DB_TYPE_BLOB
    assert load.binds["data"].read() == b"ONNX" * 10
    assert backend.load_onnx_model() == f"{MODEL_NAME} already in the database"
    with pytest.raises(ModelSourceError, match="none"):
        fake.answer(r"FROM user_mining_models", [{"N": 0}])
        backend.load_onnx_model("none")
    fake.answer(r"DBMS_VECTOR", error=oracle_error("ORA-01031: insufficient privileges"))
    with pytest.raises(BackendError, match="LOAD_ONNX_MODEL failed: ORA-01031.*DB_DEVELOPER"):
        backend.load_onnx_model()
    backend.close()


def test_a_model_with_other_dimensions_is_refused(fake, backend):
    fake.answer(r"VECTOR_EMBEDDING", [(array.array("f", [0.5] * 8),)])
    with pytest.raises(BackendError, match="8 dimensions"):
        backend.embeddings.check_model()


@pytest.mark.parametrize("to_database", [True, False])
def test_changing_the_mode_reembeds_every_memory_and_empties_the_boxes(fake, tmp_path, to_database):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"ONNX")
    backend = _backend(fake, tmp_path, onnx_model=str(model) if to_database else "none")
    fake.answer(r"FROM user_mining_models", [{"N": 1}])
    recorded = CLIENT_MODE if to_database else DATABASE_MODE
    fake.answer(r"FROM harness_settings WHERE name", [{"VALUE": recorded}])
    fake.answer(
        r"FROM memories ORDER BY id", [{"ID": i, "SUBJECT": "s", "CONTENT": "c"} for i in (1, 2)]
    )
    client = lambda texts: np.ones((len(texts), DIMENSIONS), dtype=np.float32)  # noqa: E731
    note = backend.setup_embeddings(client)
    assert f"switched from {recorded}: re-embedded 2 memories" in note
    updates = fake.statements(r"^UPDATE memories SET embedding")
    assert len(updates) == 2 and ("VECTOR_EMBEDDING" in updates[0].sql) == to_database
    assert fake.statements(r"^DELETE FROM toolbox$") and fake.statements(r"^DELETE FROM skillbox$")
    [mode] = fake.statements(r"^MERGE INTO harness_settings")
    assert mode.binds["value"] == (DATABASE_MODE if to_database else CLIENT_MODE)
    backend.close()


# --- exec_js on MLE ---------------------------------------------------------------------------


def test_exec_js_runs_in_a_pure_mle_context(fake, backend):
    fake.answer(r"DBMS_MLE\.eval", out=mle_outcome)
    out = backend.run_js("console.log('hi'); 6 * 7", 250)
    assert out == {"result": 42, "console": ["hi"]}
    [env] = fake.statements(r"^CREATE MLE ENV")
    assert env.sql == "CREATE MLE ENV IF NOT EXISTS WORKSHOP_JS_PURE PURE"
    [call] = fake.statements(r"DBMS_MLE\.eval")
    assert (
        call.binds["env"] == "WORKSHOP_JS_PURE"
        and call.binds["source"].type is oracledb.DB_TYPE_CLOB
    )
    assert [c for c in fake.connections if c.call_timeout == 2250]
    assert backend.run_js("", 100) is None  # the client-side sandbox words that error


def test_a_repl_quoted_result_is_read_too(fake, backend):
    fake.answer(
        r"DBMS_MLE\.eval",
        out={"result": FakeLob(oracledb.DB_TYPE_CLOB, '\'{"result": "it\\\'s", "console": []}\'')},
    )
    assert backend.run_js('"it\'s"', 100) == {"result": "it's", "console": []}


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ("DPY-4024: call timeout of 2100 ms exceeded", "timed out after 100 ms"),
        ("ORA-04036: PGA memory used by the instance exceeds", "ran out of memory"),
    ],
)
def test_a_time_or_memory_limit_is_the_codes_outcome(fake, backend, error, expected):
    fake.answer(r"DBMS_MLE\.eval", error=oracle_error(error))
    assert expected in backend.run_js("while (true) {}", 100)["error"]
    assert backend.javascript.unavailable is None


def test_when_mle_itself_fails_code_runs_in_v8_with_a_note(fake, backend):
    fake.answer(r"DBMS_MLE\.eval", error=oracle_error("ORA-04102: no MLE"))
    out = backend.run_js("1 + 1", 500)
    assert out["result"] == 2 and "ORA-04102" in out["note"]
    assert "ORA-04102" in backend.run_js("2 + 2", 500)["note"]
    assert len(fake.statements(r"DBMS_MLE\.eval")) == 1  # not asked again


def test_no_pure_environment_means_v8_with_a_note(fake, backend):
    fake.answer(r"^CREATE MLE ENV", error=oracle_error("ORA-01031: insufficient privileges"))
    out = backend.run_js("3", 500)
    assert out["result"] == 3 and "no PURE MLE environment" in out["note"]


def test_an_unreachable_database_leaves_exec_js_to_the_client(fake, backend, monkeypatch):
    from agent_harness.backends.oracle import connection

    monkeypatch.setattr(connection, "STARTUP_WAIT_S", 0)
    fake.refused["WORKSHOP"] = oracle_error("DPY-6005: cannot connect to database")
    assert backend.run_js("1", 100) is None


# --- the doctor -----------------------------------------------------------------------------------


def test_the_doctor_passes_a_healthy_database(fake, backend):
    answer_healthy(fake)
    results = doctor_results(backend)
    assert all(status == "ok" for status, _ in results.values()), results
    assert results["vector pool"][1] == "vector_memory_size = 512 MB"
    assert results["read-only user"][1] == "refused INSERT: ORA-01031, CREATE TABLE: ORA-01031"


def test_the_doctor_names_what_is_wrong(fake, backend):
    answer_healthy(fake)
    fake.answer(r"FROM v\$parameter", [{"VALUE": "0"}])
    fake.answer(
        r"FROM user_indexes$",
        [
            {
                "INDEX_NAME": "MEMORIES_TEXT",
                "INDEX_TYPE": "DOMAIN",
                "STATUS": "VALID",
                "DOMIDX_STATUS": "VALID",
                "DOMIDX_OPSTATUS": "FAILED",
            }
        ],
    )
    # a read-only user someone granted too much: the database lets it write
    fake.world.privileges.grant_object("WORKSHOP_RO", "SUPPLYCHAIN", "PORTS", ["INSERT"], False)
    fake.world.privileges.grant_system("WORKSHOP_RO", ["CREATE TABLE"])
    fake.answer(r"^(INSERT|CREATE TABLE)", [], user="workshop_ro")
    fake.answer(r"FROM harness_settings", [{"VALUE": DATABASE_MODE}])
    fake.answer(r"FROM user_mining_models", [{"N": 0}])
    results = doctor_results(backend)
    assert results["vector pool"] == (
        "failed",
        "vector_memory_size is 0: HNSW indexes cannot be built",
    )
    assert "not valid: ['MEMORIES_TEXT']" in results["Oracle indexes"][1]
    assert "could run INSERT" in results["read-only user"][1]
    assert "is missing" in results["in-database model"][1]


def test_the_doctor_reads_the_pool_from_the_indexes_when_v_parameter_is_hidden(fake, backend):
    answer_healthy(fake)
    fake.answer(r"FROM v\$parameter", error=oracle_error("ORA-00942: table or view does not exist"))
    fake.answer(r"user_indexes WHERE index_name = :name", [{"COUNT(*)": 1}], times=1)
    assert "HNSW indexes exist" in doctor_results(backend)["vector pool"][1]
    fake.answer(r"user_indexes WHERE index_name = :name", [{"COUNT(*)": 0}])
    assert doctor_results(backend)["vector pool"][0] == "failed"
