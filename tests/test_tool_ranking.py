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
    offered = [t["function"]["name"] for t in h.tools.retrieve("ship", k=3, categories=["ports"])]
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
