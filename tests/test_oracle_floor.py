"""The floor itself: its checks catch what they are for, and every statement the Oracle backend
sends passes them.

:func:`statement_inventory` runs the Oracle backend on the python-oracledb fake through
everything it can do (every migration step, every role, ``workshop setup``, run_sql, the
embedding model, exec_js, the doctor) and collects each distinct statement sent. Each must pass
:func:`tests.oracle_floor.check_statement`; each rewrite of ``PARSER_GAPS`` and each exception
of ``NOT_PARSED`` must be needed by at least one of them (no stale exception hides a
statement).
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import oracledb
import pytest

from agent_harness.backends import BackendError, Scope
from agent_harness.backends.oracle import OracleBackend
from agent_harness.backends.oracle.disclosure import RESOLVE_SQL
from agent_harness.backends.oracle.embeddings import CLIENT_MODE, DATABASE_MODE
from agent_harness.backends.oracle.migrations import MIGRATIONS
from agent_harness.parts.memory import MemoryStore
from agent_harness.supplychain.schema import TABLES
from tests import oracle_flows as flows
from tests.oracle_fake import FakeOracle, oracle_error, setup_statements
from tests.oracle_floor import (
    NOT_PARSED,
    PARSER_GAPS,
    PLSQL_READ,
    check_statement,
    not_parsed,
    oracle_parse,
    text_problems,
    unread,
    untyped_recursive_anchors,
)
from tests.oracle_plsql import PLSQL_GAPS, plsql_problems


@cache
def statement_inventory() -> tuple[str, ...]:
    """Every distinct statement the Oracle backend sends while it does everything it can."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="oracle-inventory-") as name:
        return _everything(Path(name))


def _everything(folder) -> tuple[str, ...]:
    """Drive the backend on the fake through every path; the distinct statements sent."""
    model = folder / "model.onnx"
    model.write_bytes(b"ONNX")
    fake = FakeOracle()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(oracledb, "connect", fake.connect)
        backend = OracleBackend(flows.settings(folder, onnx_model=str(model)))
        fake.answer(flows.EXISTS, [{"COUNT(*)": 0}])
        fake.answer(r"FROM schema_migrations ORDER BY version", [])
        backend.migrate()
        step = next(s for m in MIGRATIONS for s in m.steps if s.kind == "text index")
        fake.answer(re.escape(step.sql), error=oracle_error("ORA-29855: failed"))
        fake.answer(r"user_indexes WHERE index_name", [{"COUNT(*)": 1}], times=1)
        fake.answer(r"user_indexes WHERE index_name", [{"COUNT(*)": 0}], times=1)
        with pytest.raises(BackendError):
            backend.run_migration_step(step)
        with backend.transaction(), pytest.raises(ValueError), backend.transaction():
            raise ValueError("rolled back to its savepoint")
        flows.exercise_roles(backend)
        store = MemoryStore(
            backend, Scope("u", "a"), lambda t: np.stack([flows.vector(1)] * len(t))
        )
        for mode in ("vector", "keyword", "hybrid"):
            store.search("berth", k=3, mode=mode, kinds=["note", "table"])
        backend.load_supplychain(TABLES, flows.few_rows())
        backend.set_comment("ports", "name", "x")
        backend.readonly_query("SELECT name FROM ports WHERE port_code = :code", {"code": "x"})
        fake.answer(r"FROM harness_settings WHERE name", [{"VALUE": DATABASE_MODE}])
        backend.embed_texts(["a"])
        fake.answer(r"FROM user_mining_models", [{"N": 0}], times=1)
        backend.load_onnx_model()
        for recorded in (CLIENT_MODE, DATABASE_MODE):
            fake.answer(r"FROM harness_settings WHERE name", [{"VALUE": recorded}])
            fake.answer(r"FROM memories ORDER BY id", [{"ID": 1, "SUBJECT": "s", "CONTENT": "c"}])
            backend.settings = backend.settings.model_copy(
                update={"onnx_model": "none" if recorded == DATABASE_MODE else str(model)}
            )
            backend.embeddings.settings = backend.settings
            backend.setup_embeddings(lambda texts: np.ones((len(texts), 384), np.float32))
        fake.answer(r"DBMS_MLE\.eval", out=flows.mle_outcome)
        backend.run_js("1 + 1", 100)
        flows.exercise_guardrails(fake, backend, folder)
        flows.answer_healthy(fake)
        flows.doctor_results(backend)
        backend.close()
    with pytest.MonkeyPatch.context() as mp:
        whole = FakeOracle(canned=False)
        mp.setattr(oracledb, "connect", whole.connect)
        mp.setenv("WORKSHOP_ONNX_MODEL", "none")
        flows.prepare_on(whole, folder / "setup")
    first = setup_statements()  # the first load and install, from the start-up grants on
    sent = [s.sql for s in first + fake.sent + whole.sent]
    assert not fake.problems() + whole.problems()
    return tuple(dict.fromkeys(sent))


def _needs(pattern: re.Pattern, replacement: str, sql: str) -> bool:
    return pattern.sub(replacement, sql.strip()) != sql.strip()


def test_every_statement_the_backend_sends_passes_the_floor():
    statements = statement_inventory()
    assert len(statements) > 150  # binds were checked as they were sent (fake.problems())
    for sql in statements:
        assert not text_problems(sql), f"{text_problems(sql)} in {sql[:300]}"


@pytest.mark.parametrize(
    ("pattern", "replacement", "doc"),
    PARSER_GAPS,
    ids=[doc.split(",")[0] + ": " + doc.split(":")[-1].strip()[:30] for *_, doc in PARSER_GAPS],
)
def test_every_parser_rewrite_is_needed_by_a_statement_sent(pattern, replacement, doc):
    assert any(_needs(pattern, replacement, s) for s in statement_inventory()), (
        f"no statement needs the rewrite for {doc}: remove it"
    )


@pytest.mark.parametrize(
    ("pattern", "doc"), NOT_PARSED + PLSQL_READ, ids=[d[:40] for _, d in NOT_PARSED + PLSQL_READ]
)
def test_every_unparsed_exception_covers_a_statement_sent(pattern, doc):
    assert any(pattern.match(s) for s in statement_inventory()), (
        f"no statement needs the exception for {doc}: remove it"
    )


@pytest.mark.parametrize(
    ("pattern", "replacement", "doc"), PLSQL_GAPS, ids=[d[:50] for *_, d in PLSQL_GAPS]
)
def test_every_plsql_rewrite_is_needed_by_a_block_sent(pattern, replacement, doc):
    assert any(_needs(pattern, replacement, s) for s in statement_inventory()), (
        f"no block needs the rewrite for {doc}: remove it"
    )


def test_the_unparsed_statements_are_few_and_named():
    # 18 before issue 26, which reads the 11 PL/SQL blocks with a PL/SQL grammar and adds
    # ALTER SESSION SET recyclebin: the property graph, the two duality views (no grammar of
    # the registries knows 23ai's JSON {...}), CREATE MLE ENV, two ALTER SESSION, SAVEPOINTs.
    statements = statement_inventory()
    unparsed = [s for s in statements if unread(s)]
    starts = sorted({" ".join(s.split()[:3]) for s in unparsed})
    assert len(unparsed) <= 8, starts
    plsql = [s for s in statements if any(p.match(s) for p, _ in PLSQL_READ)]
    assert len(plsql) >= 11 and all(plsql_problems(s) == () for s in plsql)


@pytest.mark.parametrize(
    "block",
    [
        "BEGIN IF g_bound THEN RETURN; END; END;",  # IF closed by END instead of END IF
        "BEGIN SELEC COUNT(*) INTO n FROM dual; END;",  # a misspelt keyword
        "CREATE OR REPLACE PROCEDURE p AS BEGIN DELET FROM t; END p;",
        "BEGIN x(1);",  # no END
    ],
)
def test_the_plsql_grammar_refuses_broken_blocks(block):
    assert plsql_problems(block), block
    assert any("does not parse as PL/SQL" in p for p in text_problems(block))


# --- the checks catch what they are for ---------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "binds", "problem"),
    [
        ("SELECT a FROM t WHERE b = :b", {}, "unbound ['b']"),
        ("SELECT a FROM t WHERE b = :b", {"b": 1, "c": 2}, "values for no placeholder ['c']"),
        ("INSERT INTO t (a, b) VALUES (:1, :2)", (1,), "2 placeholders, 1 values"),
        ("SELECT a FROM t WHERE d = :date", {"date": 1}, "reserved bind names ['date']"),
        ("SELECT a FROM t WHERE d = :_x", {"_x": 1}, "reserved bind names ['_x']"),
        ("SELECT a FROM t ORDER BY a LIMIT :n", {"n": 1}, "SQLite syntax 'LIMIT'"),
        ("INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING", None, "SQLite syntax"),
        ("SELECT a FROM t WHERE b = IFNULL(c, 0)", None, "SQLite syntax 'IFNULL'"),
        ("SELECT size FROM t", None, "reserved words as unquoted names ['SIZE']"),
        ("SELECT a AS level FROM t", None, "reserved words as unquoted names ['LEVEL']"),
        ("CREATE FOO BAR baz", None, "does not parse as Oracle SQL"),
        ("SELECT FROM WHERE", None, "does not parse as Oracle SQL"),
    ],
)
def test_the_floor_catches(sql, binds, problem):
    assert any(problem in p for p in check_statement(sql, binds)), check_statement(sql, binds)


def test_pseudocolumns_and_quoted_names_are_not_reserved_names():
    assert check_statement('SELECT USER, SYSDATE, "size" FROM dual', None) == []


def test_a_recursive_anchor_must_type_the_column_it_grows():
    # Issue 19, item 2: the provenance tree's anchor gave ``path`` the type of LPAD(seq, 6, '0')
    # while the recursive member appends to it; the skill walk CASTs for it.
    issue = """WITH tree (id, depth, path) AS (
        SELECT id, 0, LPAD(seq, 6, '0') FROM turn_events WHERE turn_id = :turn_id
        UNION ALL
        SELECT e.id, t.depth + 1, t.path || '.' || LPAD(e.seq, 6, '0')
        FROM turn_events e JOIN tree t ON e.parent_id = t.id)
    SELECT id FROM tree ORDER BY path"""
    [found] = untyped_recursive_anchors(oracle_parse(issue))
    assert "column 3 grows with ||" in found
    fixed = issue.replace(
        "LPAD(seq, 6, '0') FROM", "CAST(LPAD(seq, 6, '0') AS VARCHAR2(4000)) FROM"
    )
    assert untyped_recursive_anchors(oracle_parse(fixed)) == []
    assert untyped_recursive_anchors(oracle_parse(RESOLVE_SQL)) == []
    short = RESOLVE_SQL.replace("AS VARCHAR2(4000))", "AS VARCHAR2(40))")
    assert untyped_recursive_anchors(oracle_parse(short))


def test_the_fake_refuses_what_python_oracledb_refuses():
    fake = FakeOracle()
    with fake.connect(user="u").cursor() as cur:
        with pytest.raises(oracledb.DatabaseError, match="ORA-01745"):
            cur.execute("SELECT a FROM t WHERE d = :size", size=1)
        with pytest.raises(oracledb.DatabaseError, match="ORA-01008"):
            cur.execute("SELECT a FROM t WHERE d = :d")
        with pytest.raises(oracledb.DatabaseError, match="DPY-4008"):
            cur.execute("SELECT a FROM t WHERE d = :d", d=1, e=2)
        with pytest.raises(oracledb.NotSupportedError, match="DPY-3002"):
            cur.execute("SELECT a FROM t WHERE d = :d", d=np.float32(1.0))
        cur.execute("SELECT a FROM t WHERE d = :d", d=np.float64(1.0))  # a float subclass
        cur.execute("SELECT a FROM t ORDER BY a LIMIT 5")  # sent: the floor reports it
    # sqlglot reads LIMIT even in its Oracle dialect: the SQLite-only list catches it
    assert fake.problems() == ["SQLite syntax 'LIMIT' in SELECT a FROM t ORDER BY a LIMIT 5"]


def test_readme_and_docs_give_the_inventorys_numbers():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    statements = statement_inventory()
    unparsed = [s for s in statements if unread(s)]
    plsql = [s for s in statements if any(p.match(s) for p, _ in PLSQL_READ)]
    rewritten = [
        s
        for s in statements
        if not not_parsed(s) and any(_needs(p, r, s) for p, r, _ in PARSER_GAPS)
    ]
    for doc in ("README.md", "docs/oracle.md"):
        text = " ".join((root / doc).read_text(encoding="utf-8").split())
        assert f"({len(statements)} distinct)" in text, doc
        assert f"the {len(unparsed)} that sqlglot cannot read" in text or (
            f"{len(unparsed)} are not parsed at all" in text
        ), doc
        assert f"{len(rewritten)} it reads only after a rewrite" in text or (
            f"{len(rewritten)} statements parse only after a rewrite" in text
        ), doc
        assert f"{len(plsql)} PL/SQL blocks" in text, doc
