"""The circuit breaker and the OODA pass: transitions, protection, refusals, fault injection."""

from __future__ import annotations

import json
import random
import re
import uuid

import pytest
from conftest import FakeClock, make_tool

from agent_harness.tools.breaker import BreakerError
from agent_harness.tools.ooda import decide
from agent_harness.tools.policy import Policy


@pytest.fixture(scope="module")
def h(fresh_harness):
    fresh_harness.tools.set_policy(
        min_calls=5,
        failure_rate=0.5,
        window_calls=20,
        cooldown_seconds=60,
        half_open_trials=2,
        ooda_every_calls=0,
    )
    yield fresh_harness
    fresh_harness.tools.set_policy(
        **{k: v for k, v in Policy().model_dump().items() if k != "protected_categories"}
    )


@pytest.fixture
def clock(h):
    fake = FakeClock()
    saved = h.tools.clock
    h.tools.clock = fake
    yield fake
    h.tools.clock = saved


class Switch:
    """A tool body that fails while ``failing`` is True."""

    def __init__(self, failing: bool = True):
        self.failing = failing

    def __call__(self, n):
        if self.failing:
            raise ConnectionError("feed down")
        return {"n": n}


def _tool(h, behaviour, category="testing", name=None):
    name = name or f"brk_{uuid.uuid4().hex[:8]}"
    h.tools.add(make_tool(name, behaviour, category=category))
    return name


def _state(h, name):
    row = h.tools.states().get(name)
    return row["state"] if row else "closed"


def test_a_tool_failing_every_time_opens_within_min_calls_plus_one(h, clock):
    name = _tool(h, Switch(failing=True))
    results = [h.tools.call_detailed(name, {"n": i}) for i in range(6)]
    assert [r.error_type for r in results[:5]] == ["upstream_error"] * 5
    assert results[5].error_type == "circuit_open" and results[5].success is None
    assert _state(h, name) == "open"
    transition = h.tools.transitions(name)[0]
    assert (transition["from_state"], transition["to_state"], transition["actor"]) == (
        "closed",
        "open",
        "breaker",
    )
    assert transition["evidence"]["calls"] == 5 and transition["evidence"]["failures"] == 5


def test_the_full_cycle_closed_open_half_open_closed_and_open_again(h, clock):
    switch = Switch(failing=True)
    name = _tool(h, switch)
    for i in range(5):
        h.tools.call(name, {"n": i})
    assert _state(h, name) == "open"
    clock.advance(59)
    assert h.tools.call_detailed(name, {"n": 9}).error_type == "circuit_open"
    clock.advance(2)  # the 60 s cool-down is over: the next call is a trial
    switch.failing = False
    first = h.tools.call_detailed(name, {"n": 10})
    assert first.ok and _state(h, name) == "half_open"
    assert h.tools.call_detailed(name, {"n": 11}).ok
    assert _state(h, name) == "closed"  # 2 successful trials
    # a fresh window: the 5 old failures no longer count, one new failure does not reopen
    switch.failing = True
    h.tools.call(name, {"n": 12})
    assert _state(h, name) == "closed"
    for i in range(4):
        h.tools.call(name, {"n": 13 + i})
    assert _state(h, name) == "open"
    path = [(t["from_state"], t["to_state"]) for t in reversed(h.tools.transitions(name))]
    assert path == [
        ("closed", "open"),
        ("open", "half_open"),
        ("half_open", "closed"),
        ("closed", "open"),
    ]
    # the second opening waits twice as long (backoff)
    row = h.tools.states()[name]
    assert (row["retry_at"] - row["since"]).total_seconds() == pytest.approx(120)


def test_a_failed_trial_opens_it_again(h, clock):
    name = _tool(h, Switch(failing=True))
    for i in range(5):
        h.tools.call(name, {"n": i})
    clock.advance(61)
    assert h.tools.call_detailed(name, {"n": 5}).error_type == "upstream_error"
    assert _state(h, name) == "open"
    assert [t["to_state"] for t in h.tools.transitions(name)][:2] == ["open", "half_open"]


@pytest.mark.parametrize("category", ["core", "knowledge", "skills"])
def test_protected_categories_are_never_opened(h, clock, category):
    name = _tool(h, Switch(failing=True), category=category)
    for i in range(30):
        h.tools.call(name, {"n": i})
    assert _state(h, name) == "closed"
    report = h.tools.ooda(decide=lambda *a: [{"tool": name, "to": "open", "reason": "try"}])
    decision = report.decisions[0]
    assert not decision["applied"] and "protected" in decision["note"]
    assert _state(h, name) == "closed"
    assert any(f.tool == name and f.kind == "failing" for f in report.findings)


def test_an_open_tool_is_never_retrieved_and_its_error_names_alternatives(h, clock):
    h.tools.disable("vessel_position", reason="maintenance")
    try:
        for query in ["where is the ship now", "vessel position latitude longitude", ""]:
            for k in (3, 10, 1000):
                offered = [t["function"]["name"] for t in h.tools.retrieve(query, k=k)]
                assert "vessel_position" not in offered
        assert "vessel_position" not in [r["name"] for r in h.tools.rank("ship position", k=50)]
        error = json.loads(h.tools.call("vessel_position", {"vessel": "EVER GIVEN"}))["error"]
        assert "switched off" in error and "maintenance" in error and "Use instead:" in error
        alternatives = error.split("Use instead:")[1]
        assert "ais_live_position" in alternatives or "find_vessel" in alternatives
        assert "stays off until someone enables it" in error  # no automatic retry by hand
        clock.advance(10_000)
        assert "vessel_position" not in [
            t["function"]["name"] for t in h.tools.retrieve("ship position", k=5)
        ]
    finally:
        h.tools.enable("vessel_position")
    assert "vessel_position" in [
        t["function"]["name"] for t in h.tools.retrieve("where is the ship now", k=5)
    ]


def test_an_always_on_tool_switched_off_is_not_offered_either(h, clock):
    h.tools.disable("exec_js", reason="sandbox upgrade")
    try:
        assert "exec_js" not in [t["function"]["name"] for t in h.tools.retrieve("x", k=3)]
    finally:
        h.tools.enable("exec_js")
    assert "exec_js" in [t["function"]["name"] for t in h.tools.retrieve("x", k=3)]


def test_a_thousand_calls_at_ten_percent_failure_open_nothing(h, clock):
    rng = random.Random(2026)
    pattern = [rng.random() < 0.10 for _ in range(1000)]
    name = _tool(h, lambda n: (_ for _ in ()).throw(OSError("flaky")) if pattern[n] else {"n": n})
    outcomes = [h.tools.call_detailed(name, {"n": i}) for i in range(1000)]
    assert 80 <= sum(r.success is False for r in outcomes) <= 120
    assert all(r.error_type != "circuit_open" for r in outcomes)
    assert _state(h, name) == "closed" and h.tools.transitions(name) == []


def test_manual_disable_needs_a_reason_and_a_known_tool(h):
    with pytest.raises(BreakerError, match="say why"):
        h.tools.disable("find_vessel", reason=" ")
    with pytest.raises(BreakerError, match="unknown tool"):
        h.tools.disable("no_such_tool", reason="x")


def test_policy_is_validated_and_stored(h):
    with pytest.raises(BreakerError, match="unknown policy"):
        h.tools.set_policy(min_cals=3)
    with pytest.raises(BreakerError, match="failure_rate"):
        h.tools.set_policy(failure_rate=2)
    assert h.tools.set_policy(min_calls=5).min_calls == 5
    assert h.tools.policy().min_calls == 5


def test_ooda_dry_run_decides_without_acting_and_the_report_reads_well(h, clock):
    name = _tool(h, Switch(failing=True))
    h.tools.set_policy(min_calls=50)  # the per-call breaker will not act
    try:
        for i in range(8):
            h.tools.call(name, {"n": i})
        h.tools.set_policy(min_calls=5)
        dry = h.tools.ooda(dry_run=True)
        mine = [d for d in dry.decisions if d["tool"] == name]
        assert [(d["to"], d["applied"], d["note"]) for d in mine] == [("open", False, "dry run")]
        assert _state(h, name) == "closed" and dry.pruned == 0
        real = h.tools.ooda()
        assert _state(h, name) == "open"
        row = next(r for r in real.rows() if r["tool"] == name)
        assert "failing" in row["findings"] and "-> open" in row["decision"]
        assert real.summary().startswith("OODA at") and "(1 applied)" in real.summary()
        # issue 22, item 15: "1 decision", not "1 decisions"
        assert re.search(r"\b1 decisions\b|\b1 findings\b|\b1 tools\b", real.summary()) is None
        assert re.search(r"\b(\d+) decisions?\b", real.summary()), real.summary()
        assert h.tools.transitions(name)[0]["actor"] == "ooda"
    finally:
        h.tools.set_policy(min_calls=5)


def test_ooda_finds_slow_unused_and_flapping_tools(h, clock):
    import time as _time

    slow = _tool(h, lambda n: (_time.sleep(0.06), {"n": n})[1])
    unused = _tool(h, lambda n: {"n": n})
    flapping = _tool(h, Switch(failing=True))
    h.tools.set_policy(slow_p95_ms=50, flapping_opens=2)
    try:
        for _ in range(2):  # open, wait, fail the trial: opened twice
            for i in range(5):
                h.tools.call(flapping, {"n": i})
            clock.advance(1_000)
            h.tools.call(flapping, {"n": 0})
        for i in range(3):
            h.tools.call(slow, {"n": i})
        kinds = {(f.tool, f.kind) for f in h.tools.ooda(dry_run=True).findings}
        assert (slow, "slow") in kinds and (unused, "unused") in kinds
        assert (flapping, "flapping") in kinds
    finally:
        h.tools.set_policy(slow_p95_ms=2000, flapping_opens=3)


def test_the_auto_ooda_pass_runs_every_n_calls(h, clock, monkeypatch):
    import agent_harness.tools.breaker as breaker

    runs = []
    real = breaker.run_ooda
    monkeypatch.setattr(
        breaker, "run_ooda", lambda registry, **kw: runs.append(1) or real(registry)
    )
    h.tools.set_policy(ooda_every_calls=7)
    try:
        for i in range(21):
            h.tools.call("convert_units", {"value": i, "from_unit": "nm", "to_unit": "km"})
    finally:
        h.tools.set_policy(ooda_every_calls=0)
    assert len(runs) == 3


@pytest.mark.parametrize(
    "row, state, expected",
    [
        ({"calls": 5, "success_rate": 0.5}, None, "open"),
        ({"calls": 4, "success_rate": 0.0}, None, None),
        ({"calls": 10, "success_rate": 0.6}, None, None),
        ({"calls": 10, "success_rate": 0.0}, {"state": "open", "retry_at": None}, None),
        ({"calls": 10, "success_rate": 0.0}, {"state": "open", "retry_at": "past"}, "half_open"),
        ({"calls": 10, "success_rate": 0.0}, {"state": "open", "retry_at": "future"}, None),
        (
            {"calls": 1, "success_rate": 1.0},
            {"state": "half_open", "trial_successes": 2, "trial_failures": 0},
            "closed",
        ),
        (
            {"calls": 1, "success_rate": 1.0},
            {"state": "half_open", "trial_successes": 1, "trial_failures": 0},
            None,
        ),
        (
            {"calls": 1, "success_rate": 0.0},
            {"state": "half_open", "trial_successes": 1, "trial_failures": 1},
            "open",
        ),
    ],
)
def test_decide_rules(row, state, expected):
    import datetime as dt

    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    if state and isinstance(state.get("retry_at"), str):
        state = {
            **state,
            "retry_at": now + dt.timedelta(seconds=-1 if state["retry_at"] == "past" else 1),
        }
    policy = Policy(min_calls=5, failure_rate=0.5, half_open_trials=2)
    stats = [{"tool": "t", "category": "vessels", **row}]
    got = decide(stats, {"t": state} if state else {}, policy, now)
    assert [d["to"] for d in got] == ([expected] if expected else [])
    assert all(d["reason"] for d in got)


def test_listeners_hear_of_every_change_to_the_tool_set(h, clock):
    heard = []
    stop = h.tools.on_change(lambda tool, what: heard.append((tool, what)))
    try:
        name = _tool(h, Switch(failing=True))
        for i in range(5):
            h.tools.call(name, {"n": i})
        h.tools.enable(name)
        h.tools.remove(name)
    finally:
        stop()
    assert heard == [
        (name, "added"),
        (name, "closed->open"),
        (name, "open->closed"),
        (name, "removed"),
    ]


def test_enabling_a_closed_tool_records_no_transition(h, clock):
    """Issue 22, item 10: notebook 06 ends with enable() on a tool already closed, which used to
    record closed -> closed."""
    name = _tool(h, Switch(failing=False))
    before = h.tools.transitions(name)
    h.tools.enable(name, reason="already on")
    assert h.tools.transitions(name) == before
    h.tools.disable(name, reason="maintenance")
    h.tools.enable(name)
    assert [(t["from_state"], t["to_state"]) for t in h.tools.transitions(name)] == [
        ("open", "closed"),
        ("closed", "open"),
    ]
    h.tools.enable(name)
    assert len(h.tools.transitions(name)) == 2
