"""The Oracle registry and provenance statements, checked without a database.

Each role method runs against a recording stand-in for the backend: every statement it sends
must bind every ``:name`` it uses (python-oracledb refuses a missing one) and hold no SQLite-only
syntax. The statements themselves run in the Oracle job (the backend-parametrised tests in
test_telemetry.py, test_breaker.py, test_tool_ranking.py, test_provenance.py,
test_data_tools.py); tests/oracle_floor.py holds the checks.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from agent_harness.backends.oracle.boxes import OracleBoxes
from agent_harness.backends.oracle.disclosure import OracleSkillGraph
from agent_harness.backends.oracle.memory import OracleMemories
from agent_harness.backends.oracle.migrations import EXISTS_SQL, MIGRATIONS
from agent_harness.backends.oracle.provenance import OracleProvenance
from agent_harness.backends.oracle.provenance_graph import PROPERTY_GRAPH_DDL
from agent_harness.backends.oracle.registry import OracleTelemetry, OracleToolRanking
from agent_harness.backends.roles import (
    Agents,
    Breakers,
    RankWeights,
    Scope,
    ScratchFiles,
    TextTooLong,
    ToolDefinitions,
)
from tests.oracle_floor import check_statement
from tests.oracle_rows import RecordingConnection

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
SCOPE = Scope("u", "a")
MEMORY = {
    "user_id": "u",
    "agent_id": "a",
    "thread_id": None,
    "kind": "note",
    "subject": "s",
    "content": "c",
    "metadata": "{}",
    "content_hash": "h",
}


def Recorder(rows=None):  # noqa: N802 - reads like the class it stands in for
    return RecordingConnection(rows)


def _ranking(db):
    return OracleToolRanking(db, OracleTelemetry(db))


def _check(sent):
    assert sent
    for sql, binds in sent:
        problems = check_statement(sql, binds)
        assert not problems, f"{problems} in {sql[:300]}"


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
        lambda b: Breakers(b).get("t"),
        lambda b: Breakers(b).put(
            {"tool_name": "t", "state": "open", "since": NOW, "reason": "r", "retry_at": NOW},
            {
                "from_state": "closed",
                "to_state": "open",
                "reason": "r",
                "actor": "breaker",
                "evidence": {"calls": 5},
            },
        ),
        lambda b: Breakers(b).transitions("t", 5),
        lambda b: Breakers(b).settings("registry."),
        lambda b: Breakers(b).set_setting("registry.min_calls", "5"),
        lambda b: _ranking(b).rank(
            np.full(384, 0.05),
            "q",
            window_calls=20,
            since=NOW,
            now=NOW,
            weights=RankWeights(),
            categories=["ports"],
            k=5,
        ),
        lambda b: _ranking(b).rank(
            np.full(384, 0.05),
            "q",
            window_calls=20,
            since=NOW,
            now=NOW,
            weights=RankWeights(),
            include_open=True,
        ),
        *[
            lambda b, mode=mode, k=k: _ranking(b).rank(
                None if mode == "keyword" else np.full(384, 0.05),
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
        lambda b: _ranking(b).neighbours("t", 3, NOW),
        lambda b: Breakers(b).all(),
        lambda b: OracleTelemetry(b).last_id(),
        lambda b: ToolDefinitions(b).delete("t"),
        lambda b: OracleMemories(b, lambda: False).insert(MEMORY, np.full(384, 0.05)),
        lambda b: OracleMemories(b, lambda: True).insert(MEMORY, None),
        lambda b: OracleMemories(b, lambda: False).update(7, MEMORY, np.full(384, 0.05)),
        lambda b: OracleMemories(b, lambda: False).delete(SCOPE, 7),
        lambda b: OracleMemories(b, lambda: False).list(
            SCOPE,
            [
                ("column", "kind", ["note", None]),
                ("metadata", "source", "x"),
                ("metadata", "n", 3),
                ("metadata", "flag", True),
            ],
            10,
        ),
        lambda b: ScratchFiles(b).put(SCOPE, "notes.md", "x", append=True),
        lambda b: ScratchFiles(b).put(SCOPE, "notes.md", "x", append=False),
        lambda b: ScratchFiles(b).paths(SCOPE),
        lambda b: OracleBoxes(b).upsert(
            "toolbox",
            "t",
            {"description": "d", "parameters": "{}", "search_text": "s"},
            np.full(384, 0.05),
        ),
        lambda b: OracleBoxes(b).delete("skillbox", ["a", "b"]),
        lambda b: OracleBoxes(b).nearest_names("skillbox", np.full(384, 0.05), 3),
        lambda b: Agents(b).put(
            {
                "name": "a",
                "description": "d",
                "system_prompt": "p",
                "source": "s",
                "content_hash": "h",
            },
            [{"skill_name": "s", "priority": 1, "sequence": 1, "config": "{}"}],
        ),
        lambda b: Agents(b).get("a"),
        lambda b: Agents(b).names(),
        lambda b: Agents(b).delete("a"),
        lambda b: Agents(b).note_loaded("t", "a", "s", "turn"),
        lambda b: Agents(b).loaded("t", "a"),
        lambda b: OracleSkillGraph(b).replace_links("s", [("t", "read")], [("d", True)], None),
        lambda b: OracleSkillGraph(b).resolve("s"),
        lambda b: OracleSkillGraph(b).links(),
        lambda b: OracleSkillGraph(b).dependencies(),
        lambda b: OracleSkillGraph(b).parents(),
        lambda b: OracleBoxes(b).rows("toolbox", ["a", "b"]),
        lambda b: OracleBoxes(b).rows("toolbox", [f"t{i}" for i in range(1001)]),
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
        lambda b: ToolDefinitions(b).put(
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
        lambda b: ToolDefinitions(b).all(),
    ],
)
def test_every_statement_binds_what_it_uses_and_speaks_oracle(call):
    backend = Recorder()
    call(backend)  # canned rows shaped like each select list: the row mapping runs too
    _check(backend.sent)


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_hybrid_and_keyword_ranking_fuse_contains_and_vector_distance_in_one_statement(mode):
    backend = Recorder()
    _ranking(backend).rank(
        None if mode == "keyword" else np.full(384, 0.05),
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
    # CONTAINS kept in its own query block (merged into the outer join: ORA-29908)
    assert "SELECT /*+ NO_MERGE */ t.id, SCORE(1) AS text_score" in sql
    assert "MAX(sc.text_score) OVER ()" in sql and "FETCH FIRST :k ROWS ONLY" in sql
    assert binds["q"] == "{berth} ACCUM {near} ACCUM {accum}"  # escaped word by word
    assert ("VECTOR_DISTANCE(x.embedding, :qv, COSINE)" in sql) == (mode == "hybrid")
    assert binds["w_vec"] == (0.7 if mode == "hybrid" else 0.0)


def test_the_vector_ranking_statement_is_notebook_06s_formula():
    backend = Recorder()
    _ranking(backend).rank(
        np.full(384, 0.05), "q", window_calls=20, since=NOW, now=NOW, weights=RankWeights(), k=5
    )
    sql = " ".join(backend.sent[0][0].split())
    assert (
        "similarity - :w_success * (1.0 - (successes + 2.0) / (calls + 2.0))"
        " - :w_latency * (1.0 - :latency_ref / (:latency_ref + COALESCE(p50_ms, 0.0)))"
        " AS score" in sql
    )
    assert "1.0 - VECTOR_DISTANCE(x.embedding, :qv, COSINE) AS similarity" in sql
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
    graph, never, tree = (sql for sql, _ in backend.sent)
    # The tool is matched by the event's name, not through the uses_tool edge: calls of tools
    # that left the toolbox (or never were in it) count, as on the embedded backend.
    assert "GRAPH_TABLE (provenance_graph" in graph and "uses_tool" not in graph
    assert "e.ok = :ok" in graph and "MATCH (t IS turn) <-[IS in_turn]- (e IS event)" in graph
    assert "e.name = :tool" in graph
    assert "o.kind = 'tool_offered'" in never and "GRAPH_TABLE" in never
    assert tree.lstrip().startswith("WITH tree (id, depth, path) AS") and "UNION ALL" in tree
    assert "CAST(SUBSTR('000000' || seq, -6) AS VARCHAR(4000))" in tree  # the anchor types it


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


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(
            lambda b: Agents(b).put(
                {
                    "name": "a",
                    "description": "\u00e9" * 2001,
                    "system_prompt": "p",
                    "source": "s",
                    "content_hash": "h",
                },
                [],
            ),
            id="agent-description",
        ),
        pytest.param(
            lambda b: Agents(b).put(
                {
                    "name": "a",
                    "description": "d",
                    "system_prompt": "p",
                    "source": "s",
                    "content_hash": "h",
                },
                [
                    {
                        "skill_name": "s",
                        "priority": 1,
                        "sequence": 1,
                        "config": '{"note": "' + "\u00fc" * 2000 + '"}',
                    }
                ],
            ),
            id="agent-skill-config",
        ),
        pytest.param(
            lambda b: Breakers(b).set_setting("registry.protected_categories", "\u00e9" * 2001),
            id="setting",
        ),
        pytest.param(
            lambda b: ToolDefinitions(b).put(
                {
                    "name": "t",
                    "description": "\u4e2d" * 1334,
                    "implementation_type": "sql",
                    "implementation": "{}",
                    "category": "general",
                    "access_level": "read",
                    "timeout_s": 5.0,
                },
                [],
            ),
            id="tool-description",
        ),
    ],
)
def test_free_text_over_4000_bytes_is_refused_before_anything_is_written(call):
    # VARCHAR2(4000 CHAR) holds 4000 bytes with MAX_STRING_SIZE=STANDARD: 2001 accented or
    # 1334 CJK characters do not fit (ORA-12899 on Oracle); both backends refuse them alike.
    backend = Recorder()
    with pytest.raises(TextTooLong, match="bytes in UTF-8.*shorten it"):
        call(backend)
    assert backend.sent == []


def test_times_cross_as_naive_utc_both_ways():
    from agent_harness.backends.oracle.dialect import OracleDialect

    dialect = OracleDialect()
    local = dt.datetime(2026, 1, 1, 12, 0, 0, 250000, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    stored = dialect.time(local)
    assert stored == dt.datetime(2026, 1, 1, 10, 0, 0, 250000) and stored.tzinfo is None
    assert dialect.read_time(stored) == local and dialect.read_time(None) is None
