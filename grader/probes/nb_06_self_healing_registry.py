"""Probes of 06_self_healing_registry.

``tool_stats``: the probes write synthetic calls for fresh tool names (durations, outcomes,
refused rows, a row outside the time window) and record the student's row for each as plain
data (calls, success_rate, p50, p95, last_error) for several windows. Only the rows of the
probe's own tools are compared, so what the notebook ran before does not matter.

``decide``: the probes call the function on probe-only stats, states, policies and times and
record the decisions as a sorted list of [tool, to] pairs (reasons are free text; only that
each is a non-empty string is recorded).

``select_tools``: the probes replace ``h.tools.candidates`` with probe-only rows (restored
afterwards) and record the names returned for several k and category filters, and compare
with the library's one-statement ranking on real queries in the same run.
"""

from dataclasses import replace

from grader.probes import Probe

_STATS_SETUP = """
import datetime as _dt
import uuid as _uuid


def _write(tool, duration, success, error=None, minutes_ago=0.0):
    h.backend.telemetry.record({
        "gen_ai_tool_name": tool, "tool_category": "probe", "success": success,
        "error_type": None if success else "Probe", "error_message": error,
        "duration_ms": float(duration), "output_chars": 1,
        "started_at": h.tools.clock() - _dt.timedelta(minutes=minutes_ago)})


def _of(tool, **kwargs):
    found = plain(tool_stats(**kwargs))
    if type(found) is not list:
        return {"not a list": found}
    mine = [r for r in found if type(r) is dict and r.get("tool") == tool]
    if len(mine) != 1:
        return {"rows for the tool": len(mine)}
    row = mine[0]
    return [row.get("calls"), row.get("success_rate"), row.get("p50_ms"), row.get("p95_ms"),
            row.get("last_error")]


_t = "probe_" + _uuid.uuid4().hex[:8]
_pattern = [(13, 1, None), (2, 0, "e1"), (8, 1, None), (21, 0, "e2"), (5, 1, None),
            (34, 0, "e3"), (1, 1, None), (3, 1, None), (55, 1, None), (0.5, 0, "e4"),
            (89, 1, None)]
for _d, _ok, _err in _pattern:
    _write(_t, _d, _ok, _err)
_write(_t, 7, None, "refused")
_write(_t, 144, 0, "old", minutes_ago=90)
_u = "probe_u_" + _uuid.uuid4().hex[:8]  # newer calls of another tool: windows are per tool
for _i in range(6):
    _write(_u, 3 + _i, 1)
"""

_DECIDE_SETUP = """
import datetime as _dt
from agent_harness.breaker import Policy as _Policy

_now = _dt.datetime(2027, 3, 4, 5, 6, tzinfo=_dt.timezone.utc)


def _s(tool, calls, rate, category="ports"):
    return {"tool": tool, "category": category, "calls": calls, "success_rate": rate,
            "successes": round(calls * rate), "failures": calls - round(calls * rate),
            "p50_ms": 1.0, "p95_ms": 2.0, "last_error": None}


def _run(stats, states, policy):
    got = plain(decide(stats, states, policy, _now))
    if type(got) is not list:
        return {"not a list": got}
    pairs = sorted([d.get("tool"), d.get("to")] if type(d) is dict else ["?", d] for d in got)
    reasons = all(type(d) is dict and type(d.get("reason")) is str and d["reason"].strip()
                  for d in got)
    return [pairs, reasons]
"""

_SELECT_SETUP = """
def _c(name, similarity, calls=0, successes=0, p50_ms=None, state="closed", category="vessels"):
    return {"name": name, "category": category, "similarity": similarity, "calls": calls,
            "successes": successes, "p50_ms": p50_ms, "state": state}


_rows = [
    _c("p_alpha", 0.41, calls=20, successes=20, p50_ms=100),
    _c("p_beta", 0.40, calls=20, successes=19, p50_ms=10),
    _c("p_gamma", 0.43, calls=4, successes=0, p50_ms=2000),
    _c("p_delta", 0.39),
    _c("p_eps", 0.80, state="open"),
    _c("p_zeta", 0.38, state="half_open", calls=1, successes=1, p50_ms=1),
    _c("p_eta", 0.42, category="ports", calls=2, successes=1, p50_ms=700),
    _c("p_theta", 0.10, category="units"), _c("p_iota", 0.10, category="units"),
    # reliable but slow vs. fast but unreliable: the weights decide which comes first
    _c("p_kappa", 0.50, category="cargo", calls=20, successes=20, p50_ms=1000),
    _c("p_lambda", 0.50, category="cargo", calls=8, successes=4),
]


def _with(rows, calls):
    real = h.tools.candidates
    h.tools.candidates = lambda query: [dict(r) for r in rows]
    try:
        return [plain(select_tools("probe query", **kwargs)) for kwargs in calls]
    finally:
        h.tools.candidates = real
"""

PROBES = {
    "tool_stats_checks": [
        Probe(
            "windows",
            _STATS_SETUP + "value = [_of(_t, window_calls=n) for n in (1, 2, 4, 7, 11, 30)]\n",
            "tool_stats is wrong for some window size: each tool's window is its NEWEST "
            "window_calls calls that ran (success not NULL) since :since; calls, success_rate "
            "(a fraction), nearest-rank p50/p95 and the newest failure's error_message",
        ),
        Probe(
            "time window",
            _STATS_SETUP
            + "value = [_of(_t), _of(_t, window_minutes=120), _of(_t, window_minutes=30)]\n",
            "the time window is wrong: only calls with started_at >= now - window_minutes count",
        ),
        Probe(
            "many calls",
            _STATS_SETUP
            + """_m = "probe_m_" + _uuid.uuid4().hex[:8]
for _i in range(45):
    _write(_m, (_i * 7) % 45 + 1, 0 if _i % 9 == 0 else 1, f"m{_i}")
value = [_of(_m, window_calls=n) for n in (20, 21, 40, 45, 50)]
""",
            "with more than 20 calls the percentiles or the window are wrong: p95 of n "
            "durations is the smallest whose rank r satisfies 100 * r >= 95 * n (not the "
            "largest), and only the newest window_calls calls count",
        ),
    ],
    "decide_checks": [
        Probe(
            "closed",
            _DECIDE_SETUP
            + """_p = _Policy(min_calls=4, failure_rate=0.75, half_open_trials=3,
              protected_categories={"cargo"})
value = [
    _run([_s("a", 4, 0.25), _s("b", 4, 0.5), _s("c", 3, 0.0), _s("d", 40, 0.0, "cargo"),
          _s("e", 8, 0.2)], {}, _p),
    _run([_s("a", 4, 0.25)], {"a": {"state": "closed", "retry_at": None,
                                    "trial_successes": 0, "trial_failures": 0}}, _p),
    _run([], {}, _p),
]
""",
            "closed tools: open exactly when the category is not protected, calls >= "
            "min_calls and 1 - success_rate >= failure_rate (a missing state is closed)",
        ),
        Probe(
            "open and half-open",
            _DECIDE_SETUP
            + """_p = _Policy(min_calls=4, failure_rate=0.75, half_open_trials=3,
              protected_categories={"cargo"})
_at = lambda s: _now + _dt.timedelta(seconds=s)
value = _run(
    [_s(n, 1, 1.0) for n in ("o1", "o2", "o3", "o4", "h1", "h2", "h3", "h4")],
    {"o1": {"state": "open", "retry_at": _at(0)},
     "o2": {"state": "open", "retry_at": _at(-60)},
     "o3": {"state": "open", "retry_at": _at(5)},
     "o4": {"state": "open", "retry_at": None},
     "h1": {"state": "half_open", "trial_successes": 3, "trial_failures": 0},
     "h2": {"state": "half_open", "trial_successes": 2, "trial_failures": 0},
     "h3": {"state": "half_open", "trial_successes": 5, "trial_failures": 2},
     "h4": {"state": "half_open", "trial_successes": 0, "trial_failures": 1}},
    _p)
""",
            "open tools go half_open once retry_at <= now (never with retry_at None); "
            "half_open tools open again after a failed trial and close after "
            "half_open_trials successful ones",
        ),
    ],
    "select_tools_checks": [
        Probe(
            "scores",
            _SELECT_SETUP
            + """value = _with(_rows, [{"k": 10}, {"k": 3}, {"k": 1}, {"k": 0},
                       {"k": 5, "categories": ["units"]},
                       {"k": 5, "categories": ["ports", "vessels"]},
                       {"k": 5, "categories": []}, {"k": 2, "categories": ["cargo"]}])
""",
            "select_tools ranks wrong: score = similarity - 0.10 * (1 - (successes + 2) / "
            "(calls + 2)) - 0.05 * (1 - 1000 / (1000 + p50_ms)) (p50_ms None: no speed "
            "penalty), open tools dropped, categories filtered, equal scores by name",
        ),
        Probe(
            "real registry",
            """value = []
for _q, _k, _cats in [("ship position right now", 4, None), ("declared cargo value", 3, None),
                      ("convert knots", 2, ["units", "vessels"]), ("port traffic", 5, ["ports"])]:
    value.append(plain(select_tools(_q, k=_k, categories=_cats))
                 == [r["name"] for r in h.tools.rank(_q, k=_k, categories=_cats)])
""",
            "on the real registry select_tools does not give the library's ranking "
            "(h.tools.rank) for some query, k or categories",
        ),
    ],
}

# The sentences of the TODOs each probe enforces (tests/test_grading_fairness.py).
_WINDOW = (
    "A tool's window is its newest ``window_calls`` calls (newest = highest ``id``) among the "
    "rows that ran (``success`` is 1 or 0, not NULL) with ``started_at >= :since``."
)
_FIELDS = (
    "``success_rate`` (successes / calls, a fraction from 0 to 1), ``p50_ms`` and ``p95_ms`` "
    "(nearest-rank percentiles of duration_ms: the p-th percentile of n durations is the "
    "smallest one whose rank r, in ascending order, satisfies 100 * r >= p * n), "
    "``last_error`` (the error_message of the newest failed call in the window; None when no "
    "call in the window failed)."
)
_MINUTES = "window_minutes: Only calls that started within this many minutes count."
_RULES = "following the rules in the table above."
_CHANGE = 'Return one `{"tool": name, "to": state, "reason": "..."}` per change'
_MISSING = "a tool missing from `states` is `closed`"
_SCORE = "score = similarity - 0.10 * (1 - track) - 0.05 * (1 - speed)"
_TRACK = "track = (successes + 2) / (calls + 2)"
_SPEED = "speed = 1000 / (1000 + p50_ms) # p50_ms None: speed = 1.0"
_FILTERS = (
    "Keep only tools whose ``category`` is in ``categories`` (None keeps every category), drop "
    'tools whose ``state`` is "open" (switched off), score the rest with the formula above, and '
    "sort by score, highest first, equal scores by name (A to Z)."
)
_CANDIDATES = "Use the rows of ``h.tools.candidates(query)``."
_RELIES = {
    ("tool_stats_checks", "windows"): (_WINDOW, _FIELDS),
    ("tool_stats_checks", "time window"): (_WINDOW, _MINUTES),
    ("tool_stats_checks", "many calls"): (_WINDOW, _FIELDS),
    ("decide_checks", "closed"): (_RULES, _CHANGE, _MISSING),
    ("decide_checks", "open and half-open"): (_RULES, _CHANGE),
    ("select_tools_checks", "scores"): (_SCORE, _TRACK, _SPEED, _FILTERS),
    ("select_tools_checks", "real registry"): (_CANDIDATES, _SCORE, _FILTERS),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
