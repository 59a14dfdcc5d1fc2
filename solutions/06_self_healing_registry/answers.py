"""Other answers to the TODOs of 06_self_healing_registry.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".

Issue 9 asks for at least eight plausible wrong answers per TODO of this notebook
(tests/test_notebooks.py checks it).
"""

_STATS = '''def tool_stats(window_calls=20, window_minutes=60):
    """Wrong on purpose: see the mutant's description."""
    sql = """
    WITH ran AS (
        SELECT gen_ai_tool_name AS tool, id, success, duration_ms, error_message,
               ROW_NUMBER() OVER (PARTITION BY gen_ai_tool_name ORDER BY id DESC) AS recency
        FROM tool_telemetry
        WHERE success IS NOT NULL AND started_at >= :since
    ), windowed AS (
        SELECT tool, id, success, duration_ms, error_message,
               ROW_NUMBER() OVER (PARTITION BY tool ORDER BY duration_ms, id) AS speed_rank,
               COUNT(*) OVER (PARTITION BY tool) AS n,
               ROW_NUMBER() OVER (PARTITION BY tool, success ORDER BY id DESC) AS newest
        FROM ran
        WHERE recency <= :window_calls
    )
    SELECT tool,
           COUNT(*) AS calls,
           1.0 * SUM(success) / COUNT(*) AS success_rate,
           MIN(CASE WHEN 100 * speed_rank >= 50 * n THEN duration_ms END) AS p50_ms,
           MIN(CASE WHEN 100 * speed_rank >= 95 * n THEN duration_ms END) AS p95_ms,
           MAX(CASE WHEN success = 0 AND newest = 1 THEN error_message END) AS last_error
    FROM windowed
    GROUP BY tool
    """
    rows = h.backend.query(sql, window_binds(h, window_calls, window_minutes))
    return [
        {"tool": r["tool"], "calls": int(r["calls"]), "success_rate": float(r["success_rate"]),
         "p50_ms": float(r["p50_ms"]), "p95_ms": float(r["p95_ms"]),
         "last_error": r["last_error"]}
        for r in rows
    ]
'''


def _stats(old: str, new: str) -> str:
    assert old in _STATS, old
    return _STATS.replace(old, new)


_P50 = "MIN(CASE WHEN 100 * speed_rank >= 50 * n THEN duration_ms END) AS p50_ms"
_P95 = "MIN(CASE WHEN 100 * speed_rank >= 95 * n THEN duration_ms END) AS p95_ms"
_RECENCY = "ROW_NUMBER() OVER (PARTITION BY gen_ai_tool_name ORDER BY id DESC) AS recency"

_DECIDE = '''def decide(stats, states, policy, now):
    """Wrong on purpose: see the mutant's description."""
    changes = []
    for row in stats:
        name = row["tool"]
        state = states.get(name) or {"state": "closed"}
        if state["state"] == "closed":
            if row["category"] in policy.protected_categories or row["calls"] < policy.min_calls:
                continue
            if 1 - row["success_rate"] >= policy.failure_rate:
                changes.append({"tool": name, "to": "open", "reason": "failing"})
        elif state["state"] == "open":
            if state.get("retry_at") is not None and state["retry_at"] <= now:
                changes.append({"tool": name, "to": "half_open", "reason": "cool-down over"})
        elif state["state"] == "half_open":
            if state.get("trial_failures", 0) > 0:
                changes.append({"tool": name, "to": "open", "reason": "a trial failed"})
            elif state.get("trial_successes", 0) >= policy.half_open_trials:
                changes.append({"tool": name, "to": "closed", "reason": "trials succeeded"})
    return changes
'''


def _decide(old: str, new: str) -> str:
    assert old in _DECIDE, old
    return _DECIDE.replace(old, new)


_SELECT = '''def select_tools(query, k=5, categories=None):
    """Wrong on purpose: see the mutant's description."""
    scored = []
    for row in h.tools.candidates(query):
        if categories is not None and row["category"] not in categories:
            continue
        if row["state"] == "open":
            continue
        track = (row["successes"] + 2) / (row["calls"] + 2)
        speed = 1.0 if row["p50_ms"] is None else 1000 / (1000 + row["p50_ms"])
        score = row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)
        scored.append((-score, row["name"]))
    return [name for _, name in sorted(scored)[:k]]
'''


def _select(old: str, new: str) -> str:
    assert old in _SELECT, old
    return _SELECT.replace(old, new)


MUTANTS = {
    "tool_stats": [
        ("p50 as the average duration", _stats(_P50, "AVG(duration_ms) AS p50_ms")),
        (
            "floor rank for the percentiles",
            _stats(_P50, "MIN(CASE WHEN speed_rank >= n / 2 THEN duration_ms END) AS p50_ms"),
        ),
        ("p95 as the largest duration", _stats(_P95, "MAX(duration_ms) AS p95_ms")),
        (
            "the OLDEST window_calls calls",
            _stats(_RECENCY, _RECENCY.replace("ORDER BY id DESC", "ORDER BY id ASC")),
        ),
        ("no time window", _stats("AND started_at >= :since", "AND :since IS NOT NULL")),
        (
            "refused calls (success NULL) counted",
            _stats("WHERE success IS NOT NULL AND started_at", "WHERE started_at"),
        ),
        (
            "success rate in percent",
            _stats(
                "1.0 * SUM(success) / COUNT(*) AS success_rate",
                "100.0 * SUM(success) / COUNT(*) AS success_rate",
            ),
        ),
        (
            "last_error of the oldest failure",
            _stats(
                "PARTITION BY tool, success ORDER BY id DESC",
                "PARTITION BY tool, success ORDER BY id",
            ),
        ),
        (
            "one window for the whole table, not per tool",
            _stats(_RECENCY, "ROW_NUMBER() OVER (ORDER BY id DESC) AS recency"),
        ),
        (
            "median interpolated between the middle two",
            _stats(
                _P50,
                "(MIN(CASE WHEN 2 * speed_rank >= n THEN duration_ms END)"
                " + MIN(CASE WHEN 2 * speed_rank >= n + 1 THEN duration_ms END)) / 2.0"
                " AS p50_ms",
            ),
        ),
    ],
    "decide": [
        (
            "protected categories opened too",
            _decide('row["category"] in policy.protected_categories or ', ""),
        ),
        (
            "strict > for the failure rate",
            _decide(
                '1 - row["success_rate"] >= policy.failure_rate',
                '1 - row["success_rate"] > policy.failure_rate',
            ),
        ),
        ("min_calls ignored", _decide(' or row["calls"] < policy.min_calls', "")),
        (
            "strict > for min_calls",
            _decide('row["calls"] < policy.min_calls', 'row["calls"] <= policy.min_calls'),
        ),
        (
            "success rate compared instead of failure rate",
            _decide(
                '1 - row["success_rate"] >= policy.failure_rate',
                'row["success_rate"] >= policy.failure_rate',
            ),
        ),
        (
            "a tool switched off by hand (retry_at None) is retried",
            _decide(
                'state.get("retry_at") is not None and state["retry_at"] <= now',
                'state.get("retry_at") is None or state["retry_at"] <= now',
            ),
        ),
        (
            "half-open before retry_at",
            _decide('state["retry_at"] <= now', 'state["retry_at"] >= now'),
        ),
        ("a failed trial ignored", _decide('if state.get("trial_failures", 0) > 0:', "if False:")),
        (
            "closed after one successful trial",
            _decide(
                'state.get("trial_successes", 0) >= policy.half_open_trials',
                'state.get("trial_successes", 0) >= 1',
            ),
        ),
        (
            "a tool missing from states is skipped",
            _decide(
                'state = states.get(name) or {"state": "closed"}',
                'state = states.get(name) or {"state": "unknown"}',
            ),
        ),
    ],
    "select_tools": [
        (
            "no category filter",
            _select(
                'if categories is not None and row["category"] not in categories:', "if False:"
            ),
        ),
        ("open tools kept", _select('if row["state"] == "open":', "if False:")),
        (
            "half-open tools dropped too",
            _select('if row["state"] == "open":', 'if row["state"] != "closed":'),
        ),
        (
            "similarity only",
            _select(
                'score = row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)',
                'score = row["similarity"]',
            ),
        ),
        (
            "raw success rate, no smoothing",
            _select(
                'track = (row["successes"] + 2) / (row["calls"] + 2)',
                'track = row["successes"] / row["calls"] if row["calls"] else 0.0',
            ),
        ),
        ("speed ignored", _select(" - 0.05 * (1 - speed)", "")),
        (
            "p50 None punished as slow",
            _select(
                'speed = 1.0 if row["p50_ms"] is None else',
                'speed = 0.0 if row["p50_ms"] is None else',
            ),
        ),
        (
            "ties by name reversed",
            _select(
                "return [name for _, name in sorted(scored)[:k]]",
                "return [name for _, name in sorted(scored, key=lambda s: (s[0], "
                "[-ord(c) for c in s[1]]))[:k]]",
            ),
        ),
        (
            "lowest score first",
            _select('scored.append((-score, row["name"]))', 'scored.append((score, row["name"]))'),
        ),
        (
            "weights swapped",
            _select(
                "- 0.10 * (1 - track) - 0.05 * (1 - speed)",
                "- 0.05 * (1 - track) - 0.10 * (1 - speed)",
            ),
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: the TODO's first one).
COVERED_BY = {
    "p50 as the average duration": "tool_stats_percentiles",
    "floor rank for the percentiles": "tool_stats_percentiles",
    "p95 as the largest duration": "tool_stats_percentiles",
    "median interpolated between the middle two": "tool_stats_percentiles",
    "the OLDEST window_calls calls": "tool_stats_window",
    "no time window": "tool_stats_window",
    "one window for the whole table, not per tool": "tool_stats_window",
    "a tool switched off by hand (retry_at None) is retried": "decide_open",
    "half-open before retry_at": "decide_open",
    "a failed trial ignored": "decide_half_open",
    "closed after one successful trial": "decide_half_open",
    "no category filter": "select_tools_filters",
    "open tools kept": "select_tools_filters",
    "half-open tools dropped too": "select_tools_filters",
    "ties by name reversed": "select_tools_ties",
}


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_DECIDE_CONSTANTS = """def decide(stats, states, policy, now):
    changes = []
    for row in stats:
        state = states.get(row["tool"]) or {"state": "closed"}
        if state["state"] == "closed":
            if row["category"] in policy.protected_categories or row["calls"] < policy.min_calls:
                continue
            if 1 - row["success_rate"] >= __RATE__:
                changes.append({"tool": row["tool"], "to": "open", "reason": "failing"})
        elif state["state"] == "open":
            if state.get("retry_at") is not None and state["retry_at"] <= now:
                changes.append({"tool": row["tool"], "to": "half_open", "reason": "retry"})
        elif state["state"] == "half_open":
            if state.get("trial_failures", 0) > 0:
                changes.append({"tool": row["tool"], "to": "open", "reason": "trial failed"})
            elif state.get("trial_successes", 0) >= __TRIALS__:
                changes.append({"tool": row["tool"], "to": "closed", "reason": "recovered"})
    return changes
"""


_STATS_SUBQUERIES = '''def tool_stats(window_calls=20, window_minutes=60):
    # The same window with nested subqueries; ranks for the percentiles written out.
    sql = """
    SELECT w.tool AS tool, COUNT(*) AS calls,
           SUM(CASE WHEN w.success = 1 THEN 1.0 ELSE 0.0 END) / COUNT(*) AS success_rate,
           MIN(CASE WHEN w.speed_rank * 2 >= w.n THEN w.duration_ms END) AS p50_ms,
           MIN(CASE WHEN w.speed_rank * 100 >= w.n * 95 THEN w.duration_ms END) AS p95_ms,
           MAX(CASE WHEN w.success = 0 AND w.fail_order = 1 THEN w.error_message END)
               AS last_error
    FROM (
        SELECT r.*,
               ROW_NUMBER() OVER (PARTITION BY r.tool ORDER BY r.duration_ms) AS speed_rank,
               COUNT(*) OVER (PARTITION BY r.tool) AS n,
               ROW_NUMBER() OVER (PARTITION BY r.tool, r.success ORDER BY r.id DESC)
                   AS fail_order
        FROM (
            SELECT t.gen_ai_tool_name AS tool, t.id, t.success, t.duration_ms,
                   t.error_message,
                   ROW_NUMBER() OVER (PARTITION BY t.gen_ai_tool_name ORDER BY t.id DESC)
                       AS age
            FROM tool_telemetry t
            WHERE t.started_at >= :since AND t.success IN (0, 1)
        ) r
        WHERE r.age <= :window_calls
    ) w
    GROUP BY w.tool
    """
    stats = []
    for r in h.backend.query(sql, window_binds(h, window_calls, window_minutes)):
        stats.append(dict(tool=r["tool"], calls=r["calls"], success_rate=r["success_rate"],
                          p50_ms=r["p50_ms"], p95_ms=r["p95_ms"], last_error=r["last_error"]))
    return stats
'''


_DECIDE_TABLE = """def decide(stats, states, policy, now):
    def closed(row, state):
        if row["category"] in policy.protected_categories:
            return None
        if row["calls"] >= policy.min_calls and 1 - row["success_rate"] >= policy.failure_rate:
            return "open", f"failure rate {1 - row['success_rate']:.2f}"
        return None

    def opened(row, state):
        retry = state.get("retry_at")
        return ("half_open", "time to try again") if retry is not None and now >= retry else None

    def half_open(row, state):
        if state.get("trial_failures", 0):
            return "open", "trial failed"
        if state.get("trial_successes", 0) >= policy.half_open_trials:
            return "closed", "trials passed"
        return None

    rules = {"closed": closed, "open": opened, "half_open": half_open}
    out = []
    for row in stats:
        state = states.get(row["tool"], {"state": "closed"})
        change = rules[state["state"]](row, state)
        if change:
            out.append({"tool": row["tool"], "to": change[0], "reason": change[1]})
    return out
"""


_SELECT_KEYED = """def select_tools(query, k=5, categories=None):
    def score(row):
        track = (row["successes"] + 2) / (row["calls"] + 2)
        p50 = row["p50_ms"]
        speed = 1.0 if p50 is None else 1000.0 / (1000.0 + p50)
        return row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)

    wanted = None if categories is None else set(categories)
    rows = [r for r in h.tools.candidates(query)
            if r["state"] != "open" and (wanted is None or r["category"] in wanted)]
    rows.sort(key=lambda r: (-score(r), r["name"]))
    return [r["name"] for r in rows][:k]
"""


_STATS_CUME_DIST = '''def tool_stats(window_calls=20, window_minutes=60):
    # Percentiles from CUME_DIST: the smallest duration whose cumulative share reaches p;
    # the last error from FIRST_VALUE over the failures first, newest first.
    sql = """
    WITH ran AS (
        SELECT gen_ai_tool_name AS tool, id, success, duration_ms, error_message,
               COUNT(*) OVER (PARTITION BY gen_ai_tool_name ORDER BY id DESC
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS recency
        FROM tool_telemetry
        WHERE success IS NOT NULL AND started_at >= :since
    ), win AS (
        SELECT tool, success, duration_ms,
               CUME_DIST() OVER (PARTITION BY tool ORDER BY duration_ms) AS share,
               FIRST_VALUE(CASE WHEN success = 0 THEN error_message END) OVER (
                   PARTITION BY tool ORDER BY CASE WHEN success = 0 THEN 0 ELSE 1 END, id DESC
               ) AS newest_error
        FROM ran
        WHERE recency <= :window_calls
    )
    SELECT tool, COUNT(*) AS calls, AVG(CASE WHEN success = 1 THEN 1.0 ELSE 0.0 END) AS rate,
           MIN(CASE WHEN share >= 0.5 THEN duration_ms END) AS p50,
           MIN(CASE WHEN share >= 0.95 THEN duration_ms END) AS p95,
           MAX(newest_error) AS last_error
    FROM win
    GROUP BY tool
    """
    out = []
    for r in h.backend.query(sql, window_binds(h, window_calls, window_minutes)):
        out.append({"tool": r["tool"], "calls": int(r["calls"]), "success_rate": r["rate"],
                    "p50_ms": r["p50"], "p95_ms": r["p95"], "last_error": r["last_error"]})
    return out
'''


_STATS_JOIN = """def tool_stats(window_calls=20, window_minutes=60):
    binds = window_binds(h, window_calls=window_calls, window_minutes=window_minutes)
    sql = (
        "SELECT w.tool, COUNT(*) AS calls, SUM(w.success) AS ok,"
        " MIN(CASE WHEN 100 * w.by_speed >= 50 * n.total THEN w.duration_ms END) AS p50_ms,"
        " MIN(CASE WHEN 100 * w.by_speed >= 95 * n.total THEN w.duration_ms END) AS p95_ms,"
        " MAX(CASE WHEN w.success = 0 AND w.fail_rank = 1 THEN w.error_message END) AS last_error"
        " FROM (SELECT t.*, ROW_NUMBER() OVER (PARTITION BY t.tool ORDER BY t.duration_ms, t.id)"
        "         AS by_speed,"
        "       ROW_NUMBER() OVER (PARTITION BY t.tool, t.success ORDER BY t.id DESC) AS fail_rank"
        "       FROM (SELECT gen_ai_tool_name AS tool, id, success, duration_ms, error_message,"
        "             ROW_NUMBER() OVER (PARTITION BY gen_ai_tool_name ORDER BY id DESC) AS age"
        "             FROM tool_telemetry"
        "             WHERE success IS NOT NULL AND started_at >= :since) t"
        "       WHERE t.age <= :window_calls) w"
        " JOIN (SELECT gen_ai_tool_name AS tool, COUNT(*) AS total FROM ("
        "         SELECT gen_ai_tool_name, ROW_NUMBER() OVER ("
        "           PARTITION BY gen_ai_tool_name ORDER BY id DESC) AS age"
        "         FROM tool_telemetry WHERE success IS NOT NULL AND started_at >= :since) a"
        "       WHERE a.age <= :window_calls GROUP BY gen_ai_tool_name) n ON n.tool = w.tool"
        " GROUP BY w.tool"
    )
    rows = h.backend.query(sql, binds)
    return [dict(tool=r["tool"], calls=int(r["calls"]), success_rate=r["ok"] / r["calls"],
                 p50_ms=float(r["p50_ms"]), p95_ms=float(r["p95_ms"]),
                 last_error=r["last_error"]) for r in rows]
"""


_DECIDE_MATCH = """def decide(stats, states, policy, now):
    def change(row, state):
        match state.get("state", "closed"):
            case "closed":
                if (row["category"] not in policy.protected_categories
                        and row["calls"] >= policy.min_calls
                        and (failing := 1 - row["success_rate"]) >= policy.failure_rate):
                    return "open", f"{failing:.0%} of {row['calls']} calls failed"
            case "open":
                retry = state.get("retry_at")
                if retry is not None and not retry > now:
                    return "half_open", "cool-down over, let a trial through"
            case "half_open":
                if state.get("trial_failures", 0):
                    return "open", "a trial call failed"
                if state.get("trial_successes", 0) >= policy.half_open_trials:
                    return "closed", "enough trial calls succeeded"
        return None

    decisions = []
    for row in stats:
        found = change(row, states.get(row["tool"]) or {})
        if found is not None:
            decisions.append({"tool": row["tool"], "to": found[0], "reason": found[1]})
    return decisions
"""


_DECIDE_COMPREHENSION = """def decide(stats, states, policy, now):
    closed = {"state": "closed", "retry_at": None, "trial_successes": 0, "trial_failures": 0}

    def target(row):
        s = {**closed, **states.get(row["tool"], {})}
        if s["state"] == "closed":
            opens = (row["category"] not in policy.protected_categories
                     and row["calls"] >= policy.min_calls
                     and 1 - row["success_rate"] >= policy.failure_rate)
            return "open" if opens else None
        if s["state"] == "open":
            return "half_open" if s["retry_at"] is not None and s["retry_at"] <= now else None
        if s["state"] == "half_open":
            if s["trial_failures"] > 0:
                return "open"
            return "closed" if s["trial_successes"] >= policy.half_open_trials else None
        return None

    why = {"open": "too many failures", "half_open": "retry time reached",
           "closed": "trial calls passed"}
    targets = [(row["tool"], target(row)) for row in stats]
    return [{"tool": tool, "to": to, "reason": why[to]} for tool, to in targets if to]
"""


_SELECT_HEAP = """def select_tools(query, k=5, categories=None):
    import heapq

    keep = set(categories) if categories is not None else None
    ranked = []
    for row in h.tools.candidates(query):
        if row["state"] == "open" or (keep is not None and row["category"] not in keep):
            continue
        track = (row["successes"] + 2) / (row["calls"] + 2)
        speed = 1.0 if row["p50_ms"] is None else 1000 / (1000 + row["p50_ms"])
        ranked.append((-(row["similarity"] - 0.10 * (1 - track) - 0.05 * (1 - speed)),
                       row["name"]))
    return [name for _, name in heapq.nsmallest(max(k, 0), ranked)]
"""


_SELECT_TWO_SORTS = """def select_tools(query, k=5, categories=None):
    def score(row):
        penalty = 0.10 * (1 - (row["successes"] + 2) / (row["calls"] + 2))
        if row["p50_ms"] is not None:
            penalty += 0.05 * (1 - 1000 / (1000 + row["p50_ms"]))
        return row["similarity"] - penalty

    rows = [row for row in h.tools.candidates(query) if row["state"] != "open"]
    if categories is not None:
        rows = [row for row in rows if row["category"] in categories]
    rows.sort(key=lambda row: row["name"])            # names A to Z first ...
    rows.sort(key=score, reverse=True)                # ... a stable sort keeps them for ties
    return [row["name"] for row in rows[:k]]
"""


_WRONG_ON_PURPOSE = '    """Wrong on purpose: see the mutant\'s description."""\n'
_LAST_ERROR = "MAX(CASE WHEN success = 0 AND newest = 1 THEN error_message END)"


def _as_written(source: str) -> str:
    """A template above as the solution writes it (without the mutants' docstring)."""
    assert source.count(_WRONG_ON_PURPOSE) == 1
    return source.replace(_WRONG_ON_PURPOSE, "")


def _solution_stats(last_error: str = _LAST_ERROR, window: str = "recency <= :window_calls") -> str:
    """tool_stats as the solution writes it, with the last error or the window replaced."""
    return _as_written(_stats(_LAST_ERROR, last_error)).replace("recency <= :window_calls", window)


_STATS_LIMIT = _solution_stats(
    window="id IN (SELECT u.id FROM tool_telemetry u WHERE u.gen_ai_tool_name = ran.tool"
    " AND u.success IS NOT NULL AND u.started_at >= :since ORDER BY u.id DESC"
    " LIMIT :window_calls)"
)


_DECIDE_POLICY = _DECIDE_CONSTANTS.replace("__RATE__", "policy.failure_rate").replace(
    "__TRIALS__", "policy.half_open_trials"
)


#: Wrong only on inputs the visible checks do not use (a value check must catch them).
WRONG = {
    "tool_stats": [
        (
            "last_error: the failure message that sorts first, not the newest",
            _solution_stats(last_error="MIN(CASE WHEN success = 0 THEN error_message END)"),
        ),
    ],
}
#: Issue 22, item 6: these passed every visible check of 06 and lost points only at grading;
#: each now meets a visible case at the boundary its TODO sentence states.
VISIBLE = {
    "tool_stats": [
        (
            "last_error: the failure message that sorts last, not the newest",
            _solution_stats(last_error="MAX(CASE WHEN success = 0 THEN error_message END)"),
        ),
        ("the window cut with LIMIT (runs on SQLite only)", _STATS_LIMIT),
    ],
    "decide": [
        (
            "the failure-rate threshold fixed at 0.5, not the policy's",
            _DECIDE_CONSTANTS.replace("__RATE__", "0.5").replace(
                "__TRIALS__", "policy.half_open_trials"
            ),
        ),
        (
            "two successful trials always close it, whatever half_open_trials says",
            _DECIDE_CONSTANTS.replace("__RATE__", "policy.failure_rate").replace("__TRIALS__", "2"),
        ),
        (
            "open tools go half_open only once retry_at is strictly past",
            _DECIDE_POLICY.replace('state["retry_at"] <= now', 'state["retry_at"] < now'),
        ),
        (
            "1 - success_rate computed before calls is checked (None for an unused tool)",
            _DECIDE_POLICY.replace(
                '        if state["state"] == "closed":\n',
                '        failing = 1 - row["success_rate"]\n'
                '        if state["state"] == "closed":\n',
            ).replace(
                'if 1 - row["success_rate"] >= policy.failure_rate',
                "if failing >= policy.failure_rate",
            ),
        ),
    ],
    "select_tools": [
        (
            "if categories: (an empty list keeps every tool)",
            _as_written(_select("categories is not None and", "categories and")),
        ),
    ],
}
CORRECT = {
    "tool_stats": _STATS_SUBQUERIES,
    "decide": _DECIDE_TABLE,
    "select_tools": _SELECT_KEYED,
}
MORE_CORRECT = [
    (
        "CUME_DIST and FIRST_VALUE; match/case; heapq.nsmallest",
        {"tool_stats": _STATS_CUME_DIST, "decide": _DECIDE_MATCH, "select_tools": _SELECT_HEAP},
    ),
    (
        "a join with the window's counts; a comprehension; two stable sorts",
        {
            "tool_stats": _STATS_JOIN,
            "decide": _DECIDE_COMPREHENSION,
            "select_tools": _SELECT_TWO_SORTS,
        },
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "last_error: the failure message that sorts first, not the newest": "tool_stats_checks",
        "last_error: the failure message that sorts last, not the newest": "tool_stats_checks",
        "the window cut with LIMIT (runs on SQLite only)": "tool_stats_checks",
        "open tools go half_open only once retry_at is strictly past": "decide_open",
        "the failure-rate threshold fixed at 0.5, not the policy's": "decide_checks",
        "two successful trials always close it, whatever half_open_trials says": "decide_half_open",
        "1 - success_rate computed before calls is checked (None for an unused tool)": (
            "decide_checks"
        ),
        "if categories: (an empty list keeps every tool)": "select_tools_filters",
    }
)
