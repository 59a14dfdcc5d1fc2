"""The Oracle registry and provenance statements, checked without a database.

Each role method runs against a recording stand-in for the backend: every statement it sends
must bind every ``:name`` it uses (python-oracledb refuses a missing one) and hold no SQLite-only
syntax. The statements themselves run in the Oracle job (the backend-parametrised tests in
test_telemetry.py, test_breaker.py, test_tool_ranking.py, test_provenance.py,
test_data_tools.py).
"""

from __future__ import annotations

import datetime as dt
import re
from contextlib import contextmanager

import numpy as np
import pytest

from agent_harness.backends.oracle.boxes import Boxes
from agent_harness.backends.oracle.connection import used_binds
from agent_harness.backends.oracle.definitions import OracleToolDefinitions
from agent_harness.backends.oracle.migrations import EXISTS_SQL, MIGRATIONS
from agent_harness.backends.oracle.provenance import OracleProvenance
from agent_harness.backends.oracle.provenance_graph import PROPERTY_GRAPH_DDL
from agent_harness.backends.oracle.registry import OracleBreakers, OracleTelemetry
from agent_harness.backends.oracle.text_query import contains_query
from agent_harness.backends.oracle.tool_ranking import OracleToolRanking
from agent_harness.backends.roles import RankWeights

SQLITE_ONLY = re.compile(
    r"(?<!:)\bLIMIT\b|strftime|json_valid|printf|vec_distance|\bIFNULL\b|ON CONFLICT"
    r"|RETURNING id\b(?! INTO)|\|\| char\(",
    re.IGNORECASE,
)
NOW = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


class Cursor:
    def __init__(self, sent):
        self.sent, self.rowcount = sent, 0

    def var(self, _type):
        class Var:
            def getvalue(self):
                return [7]

        return Var()

    def execute(self, sql, binds=None, **_):
        self.sent.append((sql, binds or {}))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Recorder:
    """Stands in for OracleBackend: records (sql, binds); query returns ``rows``."""

    def __init__(self, rows=None):
        self.sent, self.rows = [], rows or []
        self.conn = self

    def cursor(self):
        return Cursor(self.sent)

    @contextmanager
    def transaction(self):
        yield

    def query(self, sql, binds=None):
        self.sent.append((sql, binds or {}))
        return [dict(r) for r in self.rows]

    def execute(self, sql, binds=None):
        self.sent.append((sql, binds or {}))

    def _clob(self, text):
        return text

    def vector_bind(self, vector):
        return list(vector)

    def text_query(self, text):
        return contains_query(text)


def _check(sent):
    assert sent
    for sql, binds in sent:
        names = {n.lower() for n in re.findall(r"(?<![:\w]):([A-Za-z_]\w*)", sql)}
        missing = names - {k.lower() for k in used_binds(sql, binds)}
        assert not missing, f"unbound {missing} in {sql[:200]}"
        assert not SQLITE_ONLY.search(sql), f"SQLite syntax in {sql[:200]}"


@pytest.mark.parametrize(
    "call",
    [
        lambda b: OracleTelemetry(b).record(
            {"gen_ai_tool_name": "t", "success": True, "duration_ms": 1.0, "started_at": NOW}
        ),
        lambda b: OracleTelemetry(b).stats(20, NOW),
        lambda b: OracleTelemetry(b).stats(20, NOW, tools=["a", "b"]),
        lambda b: OracleTelemetry(b).rows("t", 0, 10),
        lambda b: OracleTelemetry(b).rows(None, 5, 10),
        lambda b: OracleTelemetry(b).prune(NOW, 100),
        lambda b: OracleBreakers(b).get("t"),
        lambda b: OracleBreakers(b).put(
            {"tool_name": "t", "state": "open", "since": NOW, "reason": "r", "retry_at": NOW},
            {
                "from_state": "closed",
                "to_state": "open",
                "reason": "r",
                "actor": "breaker",
                "evidence": {"calls": 5},
            },
        ),
        lambda b: OracleBreakers(b).transitions("t", 5),
        lambda b: OracleBreakers(b).settings("registry."),
        lambda b: OracleBreakers(b).set_setting("registry.min_calls", "5"),
        lambda b: OracleToolRanking(b).rank(
            np.zeros(3),
            "q",
            window_calls=20,
            since=NOW,
            now=NOW,
            weights=RankWeights(),
            categories=["ports"],
            k=5,
        ),
        lambda b: OracleToolRanking(b).rank(
            np.zeros(3),
            "q",
            window_calls=20,
            since=NOW,
            now=NOW,
            weights=RankWeights(),
            include_open=True,
        ),
        *[
            lambda b, mode=mode, k=k: OracleToolRanking(b).rank(
                None if mode == "keyword" else np.zeros(3),
                "berth occupancy' OR 1=1 -- NEAR(a, b) {x}",
                window_calls=20,
                since=NOW,
                now=NOW,
                weights=RankWeights(),
                categories=["ports", "units"],
                k=k,
                mode=mode,
            )
            for mode in ("hybrid", "keyword")
            for k in (5, None)
        ],
        lambda b: OracleToolRanking(b).neighbours("t", 3, NOW),
        lambda b: Boxes.indexed_rows(b, "toolbox", ["a", "b"]),
        lambda b: Boxes.indexed_rows(b, "toolbox", [f"t{i}" for i in range(1001)]),
        lambda b: OracleProvenance(b).start_turn(
            {
                "turn_id": "x",
                "thread_id": "t",
                "user_id": "u",
                "agent_id": "a",
                "question": "q",
                "model": "m",
                "started_at": NOW,
            }
        ),
        lambda b: OracleProvenance(b).finish_turn("x", {"answer": "a", "status": "answered"}),
        lambda b: OracleProvenance(b).add_event(
            {"turn_id": "x", "seq": 1, "kind": "answer", "at": NOW}
        ),
        lambda b: OracleProvenance(b).events("x"),
        lambda b: OracleProvenance(b).turns(5),
        lambda b: OracleProvenance(b).turns_using("t", failed=True),
        lambda b: OracleProvenance(b).offered_never_called("x"),
        lambda b: OracleToolDefinitions(b).put(
            {
                "name": "t",
                "description": "d",
                "implementation_type": "sql",
                "implementation": "{}",
                "category": "general",
                "access_level": "read",
                "timeout_s": 5.0,
            },
            [
                {
                    "ordinal": 1,
                    "name": "a",
                    "json_type": "string",
                    "required": True,
                    "default_value": None,
                    "description": "x",
                    "schema_extra": "{}",
                }
            ],
        ),
        lambda b: OracleToolDefinitions(b).all(),
    ],
)
def test_every_statement_binds_what_it_uses_and_speaks_oracle(call):
    backend = Recorder(rows=[{"n": 0}])
    try:
        call(backend)
    except (KeyError, TypeError):
        pass  # canned rows do not fit every reader; the statements were recorded before
    _check(backend.sent)


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_hybrid_and_keyword_ranking_fuse_contains_and_vector_distance_in_one_statement(mode):
    backend = Recorder()
    OracleToolRanking(backend).rank(
        None if mode == "keyword" else np.zeros(3),
        "AND berth NEAR ACCUM",
        window_calls=20,
        since=NOW,
        now=NOW,
        weights=RankWeights(),
        k=5,
        mode=mode,
    )
    [(sql, binds)] = backend.sent
    assert "CONTAINS(t.search_text, :q, 1) > 0" in sql and "SCORE(1)" in sql
    assert "MAX(sc.text_score) OVER ()" in sql and "FETCH FIRST :k ROWS ONLY" in sql
    assert binds["q"] == "{berth} ACCUM {near} ACCUM {accum}"  # escaped word by word
    assert ("VECTOR_DISTANCE(x.embedding, :qv, COSINE)" in sql) == (mode == "hybrid")
    assert binds["w_vec"] == (0.7 if mode == "hybrid" else 0.0)


def test_the_vector_ranking_statement_is_notebook_06s_formula():
    backend = Recorder()
    OracleToolRanking(backend).rank(
        np.zeros(3), "q", window_calls=20, since=NOW, now=NOW, weights=RankWeights(), k=5
    )
    sql = " ".join(backend.sent[0][0].split())
    assert (
        "similarity - :w_success * (1 - (successes + 2) / (calls + 2))"
        " - :w_latency * (1 - :latency_ref / (:latency_ref + NVL(p50_ms, 0))) AS score" in sql
    )
    assert "1 - VECTOR_DISTANCE(x.embedding, :qv, COSINE) AS similarity" in sql
    assert "CONTAINS(" not in sql


def test_every_migration_step_kind_has_an_existence_check():
    kinds = {step.kind for migration in MIGRATIONS for step in migration.steps}
    assert kinds <= set(EXISTS_SQL)
    [search] = [m for m in MIGRATIONS if m.name == "m009_create_tool_search"]
    assert [s.name for s in search.steps] == ["TOOLBOX.SEARCH_TEXT", "TOOLBOX_TEXT"]
    assert "SYNC (ON COMMIT)" in search.steps[1].sql


def test_the_graph_questions_use_graph_table_and_the_tree_a_recursive_with():
    backend = Recorder()
    store = OracleProvenance(backend)
    store.turns_using("ais_live_position", failed=True)
    store.offered_never_called()
    store.events("turn_x")
    graph, never, tree = (
        sql for sql, _ in backend.sent if "agent_turns WHERE turn_id IN" not in sql
    )
    assert "GRAPH_TABLE (provenance_graph" in graph and "IS uses_tool" in graph
    assert "e.ok = :ok" in graph and "MATCH (t IS turn) <-[IS in_turn]- (e IS event)" in graph
    assert "o.kind = 'tool_offered'" in never and "GRAPH_TABLE" in never
    assert tree.lstrip().startswith("WITH tree (id, depth, path) AS") and "UNION ALL" in tree


def test_the_property_graph_names_its_vertices_and_edges():
    ddl = " ".join(PROPERTY_GRAPH_DDL.split())
    for vertex in (
        "agent_turns KEY (turn_id) LABEL turn",
        "turn_events KEY (id) LABEL event",
        "toolbox KEY (name) LABEL tool",
    ):
        assert vertex in ddl
    for edge in ("in_turn", "child_of", "uses_tool"):
        assert f"turn_events AS {edge} KEY (id)" in ddl and f"LABEL {edge} NO PROPERTIES" in ddl
    assert "CLOB" not in ddl and "question" not in ddl  # LOBs are not graph properties here


def test_times_cross_as_naive_utc_both_ways():
    from agent_harness.backends.oracle.registry import from_db_time, to_db_time

    local = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    stored = to_db_time(local)
    assert stored == dt.datetime(2026, 1, 1, 10, 0) and stored.tzinfo is None
    assert from_db_time(stored) == local and from_db_time(None) is None
