"""Performance-aware tool selection: meaning first, track record second, in one statement."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import make_tool


@pytest.fixture(scope="module")
def h(fresh_harness):
    return fresh_harness


def _twins(h, suffix):
    """Two tools with the same description whose names differ by one letter: near-equal
    similarity (fixed names, so the small gap between them is the same on every run)."""
    names = [f"berth_lookup_a{suffix}", f"berth_lookup_b{suffix}"]
    for name in names:
        tool = make_tool(name, lambda n: {"n": n}, category="ports")
        tool.description = "Look up the berths of a container port and their occupancy."
        h.tools.add(tool)
    return names


def _history(h, name, calls, successes, duration_ms):
    now = h.tools.clock()
    for i in range(calls):
        h.backend.telemetry.record(
            {
                "gen_ai_tool_name": name,
                "tool_category": "ports",
                "success": i < successes,
                "duration_ms": float(duration_ms),
                "output_chars": 10,
                "started_at": now - dt.timedelta(seconds=calls - i),
            }
        )


def _score(row):
    track = (row["successes"] + 2) / (row["calls"] + 2)
    speed = 1.0 if row["p50_ms"] is None else 1000 / (1000 + row["p50_ms"])
    return row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)


def _order(h, query, names):
    return [r for r in h.tools.rank(query, k=None) if r["name"] in names]


def test_near_equal_tools_are_ordered_by_track_record(h):
    twins = _twins(h, 1)
    query = "which berths of the port are occupied"
    before = _order(h, query, twins)
    assert abs(before[0]["similarity"] - before[1]["similarity"]) < 0.02  # near-equal meaning
    leader, runner_up = before[0]["name"], before[1]["name"]
    _history(h, leader, calls=10, successes=4, duration_ms=50)
    _history(h, runner_up, calls=10, successes=10, duration_ms=50)
    assert [r["name"] for r in _order(h, query, twins)] == [runner_up, leader]


def test_speed_breaks_a_tie_of_equal_success(h):
    twins = _twins(h, 2)
    query = "berth occupancy of a port"
    before = _order(h, query, twins)
    assert abs(before[0]["similarity"] - before[1]["similarity"]) < 0.02
    leader, runner_up = before[0]["name"], before[1]["name"]
    _history(h, leader, calls=5, successes=5, duration_ms=5000)
    _history(h, runner_up, calls=5, successes=5, duration_ms=20)
    ranked = _order(h, query, twins)
    assert [r["name"] for r in ranked] == [runner_up, leader]
    assert ranked[0]["p50_ms"] == pytest.approx(20) and ranked[1]["p50_ms"] == pytest.approx(5000)


def test_meaning_still_comes_first(h):
    twin, _ = _twins(h, 3)
    _history(h, twin, calls=20, successes=0, duration_ms=5000)
    rows = h.tools.rank("berth occupancy of a port", k=None)
    mine = next(r for r in rows if r["name"] == twin)
    assert mine["similarity"] - mine["score"] == pytest.approx(0.10 * 20 / 22 + 0.05 * 5 / 6)
    position = [r["name"] for r in rows].index(twin)
    far_below = [r["name"] for r in rows if r["similarity"] < mine["similarity"] - 0.15]
    assert far_below and all([r["name"] for r in rows].index(n) > position for n in far_below)


def test_the_score_is_the_documented_formula(h):
    rows = h.tools.rank("where is the ship now", k=None, include_open=True)
    assert len(rows) == len(h.tools.names())
    for row in rows:
        assert row["score"] == pytest.approx(_score(row), abs=1e-9)
        assert -1.0 <= row["similarity"] <= 1.0
        assert row["similarity"] - row["score"] <= 0.15 + 1e-9
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_category_filter_is_applied_in_sql(h):
    ranked = h.tools.rank("ship", k=50, categories=["cargo", "units"])
    assert ranked and {r["category"] for r in ranked} <= {"cargo", "units"}
    # floor=-1: the relevance floor is not under test (with it, "ship" reaches only two of the
    # three ports tools of a fresh registry, and a third only when another test of this module
    # had added its "ports" twins first)
    offered = [
        t["function"]["name"] for t in h.tools.retrieve("ship", k=3, categories=["ports"], floor=-1)
    ]
    picked = [n for n in offered if n not in h.tools.always_on]
    assert len(picked) == 3 and all(h.tools.get(n).category == "ports" for n in picked)
    assert h.tools.rank("ship", k=5, categories=[]) == []
    assert h.tools.rank("ship", k=5, categories=["no-such-category"]) == []


def test_candidates_hold_every_tool_and_the_inputs_of_the_score(h):
    rows = h.tools.candidates("container on customs hold")
    assert [r["name"] for r in rows] == sorted(h.tools.names())
    assert set(rows[0]) == {
        "name",
        "category",
        "similarity",
        "calls",
        "successes",
        "p50_ms",
        "state",
    }


@pytest.mark.parametrize(
    "query",
    ["", "'; DROP TABLE toolbox; --", "\u00e9t\u00e9 \U0001f6a2", "x" * 20_000, 'NEAR(a b) OR "c"'],
)
def test_odd_queries_rank_without_error(h, query):
    assert len(h.tools.rank(query, k=3)) == 3


# --- keyword and hybrid ranking (m009_create_tool_search) ---------------------------------------
def _names(h, query, mode, k=5):
    return [r["name"] for r in h.tools.rank(query, k=k, mode=mode)]


def test_hybrid_finds_a_tool_by_an_exact_argument_name_that_vector_misses(h):
    h.tools.define(
        "sanctions_screen",
        "Check a counterparty against watch lists before a deal.",
        {
            "type": "object",
            "properties": {"lei_code": {"type": "string", "description": "Legal Entity Id"}},
            "required": ["lei_code"],
        },
        {"type": "javascript", "source": "return 1;"},
        category="testing",
    )
    query = "lei_code 5493001KJTIIGC8Y1R12"
    assert "sanctions_screen" not in _names(h, query, "vector")
    assert _names(h, query, "keyword", k=1) == ["sanctions_screen"]
    assert "sanctions_screen" in _names(h, query, "hybrid")
    offered = [t["function"]["name"] for t in h.tools.retrieve(query, k=5)]  # hybrid default
    assert "sanctions_screen" in offered


def test_a_paraphrase_is_found_by_meaning_where_no_word_matches(h):
    query = "whereabouts of the boat at this moment"
    assert "vessel_position" in _names(h, query, "vector", k=3)
    assert "vessel_position" not in _names(h, query, "keyword", k=None)
    assert "vessel_position" in _names(h, query, "hybrid", k=3)


def test_hybrid_near_equal_tools_are_ordered_by_track_record(h):
    twins = _twins(h, 4)
    query = "which berths of the port are occupied"
    before = [r for r in h.tools.rank(query, k=None, mode="hybrid") if r["name"] in twins]
    assert abs(before[0]["relevance"] - before[1]["relevance"]) < 0.02
    assert before[0]["keyword_score"] == pytest.approx(before[1]["keyword_score"])
    leader, runner_up = before[0]["name"], before[1]["name"]
    _history(h, leader, calls=10, successes=4, duration_ms=50)
    _history(h, runner_up, calls=10, successes=10, duration_ms=50)
    after = [r["name"] for r in h.tools.rank(query, k=None, mode="hybrid") if r["name"] in twins]
    assert after == [runner_up, leader]


def test_hybrid_speed_breaks_a_tie_of_equal_success(h):
    twins = _twins(h, 5)
    query = "berth occupancy of a port"
    before = [r for r in h.tools.rank(query, k=None, mode="hybrid") if r["name"] in twins]
    leader, runner_up = before[0]["name"], before[1]["name"]
    _history(h, leader, calls=5, successes=5, duration_ms=5000)
    _history(h, runner_up, calls=5, successes=5, duration_ms=20)
    after = [r["name"] for r in h.tools.rank(query, k=None, mode="hybrid") if r["name"] in twins]
    assert after == [runner_up, leader]


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_track_record_never_lifts_an_irrelevant_tool_above_a_relevant_one(h, mode):
    twin, _ = _twins(h, 6 if mode == "hybrid" else 7)
    _history(h, twin, calls=20, successes=0, duration_ms=5000)
    rows = h.tools.rank("berth occupancy of a port", k=None, mode=mode)
    mine = next(r for r in rows if r["name"] == twin)
    assert mine["relevance"] - mine["score"] == pytest.approx(0.10 * 20 / 22 + 0.05 * 5 / 6)
    position = [r["name"] for r in rows].index(twin)
    far_below = [r["name"] for r in rows if r["relevance"] < mine["relevance"] - 0.15]
    assert far_below and all([r["name"] for r in rows].index(n) > position for n in far_below)


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_the_fused_score_is_the_documented_formula(h, mode):
    rows = h.tools.rank("where is the ship now", k=None, include_open=True, mode=mode)
    assert rows
    for row in rows:
        track = (row["successes"] + 2) / (row["calls"] + 2)
        speed = 1.0 if row["p50_ms"] is None else 1000 / (1000 + row["p50_ms"])
        assert row["score"] == pytest.approx(
            row["relevance"] - 0.10 * (1 - track) - 0.05 * (1 - speed), abs=1e-9
        )
        assert -1e-9 <= row["relevance"] <= 1 + 1e-9 and 0 <= row["keyword_score"] <= 1 + 1e-9
        if mode == "keyword":
            assert row["keyword_score"] > 0 and row["relevance"] == pytest.approx(
                row["keyword_score"]
            )
    assert max(r["keyword_score"] for r in rows) == pytest.approx(1.0)
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    if mode == "hybrid":
        assert len(rows) == len(h.tools.rank("x", k=None, include_open=True))  # every tool


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_category_and_open_filters_apply_in_every_mode(h, mode):
    ranked = h.tools.rank("ship cargo container", k=50, categories=["cargo", "units"], mode=mode)
    assert ranked and {r["category"] for r in ranked} <= {"cargo", "units"}
    assert h.tools.rank("ship", k=5, categories=[], mode=mode) == []
    tool = make_tool(f"hold_checker_{mode}", lambda n: {"n": n}, category="cargo")
    tool.description = "Containers held by customs and why they are on hold."
    h.tools.add(tool)
    query = "containers held by customs"
    assert tool.name in _names(h, query, mode, k=None)
    h.tools.disable(tool.name, reason="test")
    try:
        assert tool.name not in _names(h, query, mode, k=None)
        assert tool.name in [
            r["name"] for r in h.tools.rank(query, k=None, include_open=True, mode=mode)
        ]
        offered = [t["function"]["name"] for t in h.tools.retrieve(query, k=50, mode=mode)]
        assert tool.name not in offered
    finally:
        h.tools.enable(tool.name)


@pytest.mark.parametrize("mode", ["vector", "keyword", "hybrid"])
@pytest.mark.parametrize(
    "query",
    [
        "",
        "   ",
        "'; DROP TABLE toolbox; --",
        '"unbalanced quote',
        'NEAR(a b) OR "c" AND NOT d* ^e {f} ACCUM g $h ?i !j',
        "column:value -minus +plus",
        "\u00e9t\u00e9 \U0001f6a2 \u8239\u306e\u4f4d\u7f6e",
        "x" * 20_000,
        "ship " * 5_000,
        "\x00\x1f control",
    ],
    ids=range(10),
)
def test_odd_queries_never_raise_in_any_mode(h, mode, query):
    rows = h.tools.rank(query, k=3, mode=mode)
    assert len(rows) <= 3
    if mode != "keyword":
        assert len(rows) == 3


def test_an_unknown_mode_is_refused_with_the_choices(h):
    with pytest.raises(ValueError, match="vector.*keyword.*hybrid"):
        h.tools.rank("ship", mode="semantic")
