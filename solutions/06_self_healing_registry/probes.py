"""Probes of 06_self_healing_registry.

``tool_stats`` is graded in three cells: ``_checks`` (calls, success_rate, last_error; refused
rows left out), ``_percentiles`` (nearest-rank p50/p95) and ``_window`` (the newest
window_calls calls per tool, within window_minutes). The probes write synthetic calls for fresh
tool names (durations, outcomes, refused rows, a row outside the time window) and record the
student's row for each as plain data; only the rows of the probe's own tools are compared, so
what the notebook ran before does not matter. The counts and percentile probes use windows
that hold every call of their tools, so a window bug costs the ``_window`` cell only.

``decide``: ``_checks`` (closed tools: thresholds of the policy, protected categories, a
missing state is closed), ``_open`` and ``_half_open``. The probes call the function on
probe-only stats, states, policies and times and record the decisions as a sorted list of
[tool, to] pairs (reasons are free text; only that each is a non-empty string is recorded).

``select_tools``: ``_checks`` (the score and the order), ``_filters`` (categories, open tools
dropped, half-open kept) and ``_ties`` (equal scores by name). The probes replace
``h.tools.candidates`` with probe-only rows (restored afterwards) and record the names returned
for several k and category filters, and compare with the library's one-statement ranking on
real queries in the same run.
"""

from dataclasses import replace

from grader.value_checks import Probe

_STATS_SETUP = """
import datetime as _dt
import uuid as _uuid


def _write(tool, duration, success, error=None, minutes_ago=0.0):
    h.backend.telemetry.record({
        "gen_ai_tool_name": tool, "tool_category": "probe", "success": success,
        "error_type": None if success else "Probe", "error_message": error,
        "duration_ms": float(duration), "output_chars": 1,
        "started_at": h.tools.clock() - _dt.timedelta(minutes=minutes_ago)})


_ALL = ("calls", "success_rate", "p50_ms", "p95_ms", "last_error")


def _of(tool, fields=_ALL, **kwargs):
    found = plain(tool_stats(**kwargs))
    if type(found) is not list:
        return {"not a list": found}
    mine = [r for r in found if type(r) is dict and r.get("tool") == tool]
    if len(mine) != 1:
        return {"rows for the tool": len(mine)}
    return [mine[0].get(field) for field in fields]


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
from agent_harness.tools.policy import Policy as _Policy

_now = _dt.datetime(2027, 3, 4, 5, 6, tzinfo=_dt.timezone.utc)


def _s(tool, calls, rate, category="ports"):
    if not calls:  # as h.tools.stats() lists a tool without calls in its window
        return {"tool": tool, "category": category, "calls": 0, "success_rate": None,
                "successes": 0, "failures": 0, "p50_ms": None, "p95_ms": None,
                "last_error": None}
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
            "counts",
            _STATS_SETUP
            + """_v = "probe_v_" + _uuid.uuid4().hex[:8]
for _err in ("v-b", "v-d", "v-a", "v-c"):  # the newest failure's text is neither max nor min
    _write(_v, 2, 0, _err)
_z = "probe_z_" + _uuid.uuid4().hex[:8]
_write(_z, 3, None, "refused")
_counts = ("calls", "success_rate", "last_error")
_every = {"window_calls": 100, "window_minutes": 1000}  # windows that hold every call
value = [_of(_t, _counts, **_every), _of(_u, _counts, **_every), _of(_v, _counts, **_every),
         type(plain(tool_stats())) is list
         and not [r for r in plain(tool_stats()) if type(r) is dict and r.get("tool") == _z]]
""",
            "for other synthetic tools (11 calls with four failures and a refused row; six "
            "successful calls; four failed calls; a tool with only a refused row) expected "
            "calls (int), success_rate (a fraction) and the error_message of the newest "
            "failure (by id, whatever its text sorts like), and no row for the tool without a "
            "call",
        ),
    ],
    "tool_stats_percentiles": [
        Probe(
            "percentiles",
            _STATS_SETUP
            + """_m = "probe_m_" + _uuid.uuid4().hex[:8]
for _i in range(45):
    _write(_m, (_i * 7) % 45 + 1, 1)
_e = "probe_e_" + _uuid.uuid4().hex[:8]
for _d in (8, 8, 8, 1):
    _write(_e, _d, 0, "e")
_p = ("p50_ms", "p95_ms")
_every = {"window_calls": 100, "window_minutes": 1000}  # windows that hold every call
value = [_of(_t, _p, **_every), _of(_u, _p, **_every), _of(_m, _p, **_every),
         _of(_e, _p, **_every)]
""",
            "for other duration sets (11 spread-out durations, 6 close ones, 45 durations, "
            "4 with repeats) expected the nearest-rank p50 and p95: the smallest duration "
            "whose rank r satisfies 100 * r >= p * n (not averaged, not the largest)",
        ),
    ],
    "tool_stats_window": [
        Probe(
            "windows",
            _STATS_SETUP + "value = [_of(_t, window_calls=n) for n in (1, 2, 4, 7, 11, 30)]\n",
            "for other window sizes (window_calls 1 up to 30) expected each tool's window to "
            "be its NEWEST window_calls calls that ran (success not NULL), counted per tool",
        ),
        Probe(
            "time window",
            _STATS_SETUP
            + "value = [_of(_t), _of(_t, window_minutes=120), _of(_t, window_minutes=30)]\n",
            "for other time windows (30, 60 and 120 minutes, with a call 90 minutes old) "
            "expected only calls with started_at >= now - window_minutes to count",
        ),
        Probe(
            "many calls",
            _STATS_SETUP
            + """_m = "probe_m_" + _uuid.uuid4().hex[:8]
for _i in range(45):
    _write(_m, (_i * 7) % 45 + 1, 0 if _i % 9 == 0 else 1, f"m{_i}")
value = [_of(_m, window_calls=n) for n in (20, 21, 40, 45, 50)]
""",
            "for a tool with 45 calls and windows of 20 up to 50 calls expected only the "
            "newest window_calls calls to count (calls, success_rate, percentiles, last error)",
        ),
    ],
    "decide_checks": [
        Probe(
            "closed",
            _DECIDE_SETUP
            + """_p = _Policy(min_calls=4, failure_rate=0.75, half_open_trials=3,
              protected_categories={"cargo"})
_q = _Policy(min_calls=1, failure_rate=0.1, half_open_trials=1,
             protected_categories={"ports", "units"})
value = [
    _run([_s("a", 4, 0.25), _s("b", 4, 0.5), _s("c", 3, 0.0), _s("d", 40, 0.0, "cargo"),
          _s("e", 8, 0.2)], {}, _p),
    _run([_s("a", 4, 0.25)], {"a": {"state": "closed", "retry_at": None,
                                    "trial_successes": 0, "trial_failures": 0}}, _p),
    _run([_s("f", 1, 0.9), _s("g", 1, 0.95), _s("h", 5, 0.0), _s("i", 5, 0.0, "cargo")], {}, _q),
    _run([], {}, _p),
    _run([_s("j", 0, None), _s("k", 0, None, "cargo"), _s("l", 2, 0.0)], {}, _q),
]
""",
            "for closed tools under other policies (min_calls 4 and 1, failure_rate 0.75 and "
            "0.1, other protected categories; a missing state; tools without calls, "
            "success_rate None) expected open exactly when the category is not protected, "
            "calls >= min_calls and 1 - success_rate >= failure_rate (no error for None)",
        ),
    ],
    "decide_open": [
        Probe(
            "open",
            _DECIDE_SETUP
            + """_p = _Policy(min_calls=4, failure_rate=0.75, half_open_trials=3,
              protected_categories={"cargo"})
_at = lambda s: _now + _dt.timedelta(seconds=s)
value = _run(
    [_s(n, 1, 1.0) for n in ("o1", "o2", "o3", "o4", "o5")],
    {"o1": {"state": "open", "retry_at": _at(0)},
     "o2": {"state": "open", "retry_at": _at(-60)},
     "o3": {"state": "open", "retry_at": _at(5)},
     "o4": {"state": "open", "retry_at": None},
     "o5": {"state": "open", "retry_at": _at(-86400 * 30)}},
    _p)
""",
            "for open tools with other retry times (exactly now, a minute and a month ago, "
            "in 5 seconds, None) expected half_open once retry_at <= now, never with "
            "retry_at None",
        ),
    ],
    "decide_half_open": [
        Probe(
            "half-open",
            _DECIDE_SETUP
            + """_p = _Policy(min_calls=4, failure_rate=0.75, half_open_trials=3,
              protected_categories={"cargo"})
_q = _Policy(min_calls=4, failure_rate=0.75, half_open_trials=1)
_states = {"h1": {"state": "half_open", "trial_successes": 3, "trial_failures": 0},
           "h2": {"state": "half_open", "trial_successes": 2, "trial_failures": 0},
           "h3": {"state": "half_open", "trial_successes": 5, "trial_failures": 2},
           "h4": {"state": "half_open", "trial_successes": 0, "trial_failures": 1},
           "h5": {"state": "half_open", "trial_successes": 0, "trial_failures": 0}}
_stats = [_s(n, 1, 1.0) for n in _states]
value = [_run(_stats, _states, _p), _run(_stats, _states, _q)]
""",
            "for half-open tools with other trial counts and half_open_trials 3 and 1 "
            "expected open again after any failed trial, closed after half_open_trials "
            "successful ones, otherwise no change",
        ),
    ],
    "select_tools_checks": [
        Probe(
            "scores",
            _SELECT_SETUP
            + """_scored = [r for r in _rows if r["state"] == "closed" and r["name"] not in
           ("p_theta", "p_iota")]
value = _with(_scored, [{"k": 10}, {"k": 3}, {"k": 1}, {"k": 0}])
""",
            "for other candidates (histories from none to 20 calls, p50 from none to 2000 ms, "
            "similarities close together) and k from 0 to 10 expected the names by score = "
            "similarity - 0.10 * (1 - (successes + 2) / (calls + 2)) - 0.05 * (1 - 1000 / "
            "(1000 + p50_ms)) (p50_ms None: no speed penalty), highest first, at most k",
        ),
        Probe(
            "real registry",
            """value = []
for _q, _k in [("ship position right now", 4), ("declared cargo value", 3),
               ("port congestion and berths", 6)]:
    value.append(plain(select_tools(_q, k=_k))
                 == [r["name"] for r in h.tools.rank(_q, k=_k)])
""",
            "on the real registry, for other queries and k (no category filter) expected the "
            "library's ranking (h.tools.rank)",
        ),
    ],
    "select_tools_filters": [
        Probe(
            "filters",
            _SELECT_SETUP
            + """_filtered = [r for r in _rows if r["name"] != "p_iota"]
value = _with(_filtered, [{"k": 10}, {"k": 5, "categories": ["units"]},
                          {"k": 5, "categories": ["ports", "vessels"]},
                          {"k": 5, "categories": []}, {"k": 2, "categories": ["cargo"]},
                          {"k": 10, "categories": ["vessels"]}])
""",
            "for other candidates (an open tool with the best similarity, a half-open one, "
            "several categories) expected open tools dropped, half-open ones kept, and only "
            "the categories asked for (None: all; []: none)",
        ),
        Probe(
            "real registry",
            """value = []
for _q, _k, _cats in [("convert knots", 2, ["units", "vessels"]),
                      ("port traffic", 5, ["ports"]), ("cargo on board", 4, ["cargo", "units"])]:
    value.append(plain(select_tools(_q, k=_k, categories=_cats))
                 == [r["name"] for r in h.tools.rank(_q, k=_k, categories=_cats)])
""",
            "on the real registry, for other queries with a category filter expected the "
            "library's ranking (h.tools.rank with the same categories)",
        ),
    ],
    "select_tools_ties": [
        Probe(
            "ties",
            _SELECT_SETUP
            + """_tied = [_c("t_gamma", 0.3), _c("t_alpha", 0.3), _c("t_beta", 0.3),
          _c("t_top", 0.6), _c("t_omega", 0.1),
          _c("u_b", 0.45, calls=4, successes=3, p50_ms=50),
          _c("u_a", 0.45, calls=4, successes=3, p50_ms=50)]
value = _with(_tied, [{"k": 7}, {"k": 2}, {"k": 4}, {"k": 5}])
""",
            "for other candidates with equal scores (three with no history, two with the same "
            "history) and k cutting inside a tie, expected equal scores by name, A to Z",
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
_COUNTS = (
    "``calls`` (int: calls in the window), ``success_rate`` (successes / calls, a fraction "
    "from 0 to 1)"
)
_LAST_ERROR = (
    "``last_error`` (the error_message of the newest failed call in the window; None when no "
    "call in the window failed)."
)
_PERCENTILES = (
    "``p50_ms`` and ``p95_ms`` (nearest-rank percentiles of duration_ms: the p-th percentile "
    "of n durations is the smallest one whose rank r, in ascending order, satisfies "
    "100 * r >= p * n)"
)
_RULES = "following the rules in the table above."
_CHANGE = 'Return one `{"tool": name, "to": state, "reason": "..."}` per change'
_MISSING = "a tool missing from `states` is `closed`"
_SCORE = "score = similarity - 0.10 * (1 - track) - 0.05 * (1 - speed)"
_TRACK = "track = (successes + 2) / (calls + 2)"
_SPEED = "speed = 1000 / (1000 + p50_ms) # p50_ms None: speed = 1.0"
_FILTERS = (
    "Keep only tools whose ``category`` is in ``categories`` (None keeps every category; an "
    'empty list keeps none), drop tools whose ``state`` is "open" (switched off)'
)
_UNUSED = "``success_rate`` is None for a tool with no calls in its window, ``calls`` 0)."
_CANDIDATES = "Use the rows of ``h.tools.candidates(query)``."
_SORTED = "sort by score, highest first"
_TIES = "equal scores by name (A to Z)."
_RELIES = {
    ("tool_stats_checks", "counts"): (_WINDOW, _COUNTS, _LAST_ERROR),
    ("tool_stats_percentiles", "percentiles"): (_PERCENTILES,),
    ("tool_stats_window", "windows"): (_WINDOW, _FIELDS),
    ("tool_stats_window", "time window"): (_WINDOW, _MINUTES),
    ("tool_stats_window", "many calls"): (_WINDOW, _FIELDS),
    ("decide_checks", "closed"): (_RULES, _CHANGE, _MISSING, _UNUSED),
    ("decide_open", "open"): (_RULES, _CHANGE),
    ("decide_half_open", "half-open"): (_RULES, _CHANGE),
    ("select_tools_checks", "scores"): (_SCORE, _TRACK, _SPEED, _SORTED),
    ("select_tools_checks", "real registry"): (_CANDIDATES, _SCORE),
    ("select_tools_filters", "filters"): (_FILTERS,),
    ("select_tools_filters", "real registry"): (_CANDIDATES, _FILTERS),
    ("select_tools_ties", "ties"): (_TIES,),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[grade_id, p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
