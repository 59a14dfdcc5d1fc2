"""Plausible wrong implementations of the TODOs in solutions/06_self_healing_registry.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO's
grade cell covering the broken behaviour (``COVERED_BY``, default: the TODO's first grade
cell) must then score 0 while the untouched solution passes. Issue 9 asks for at least eight
plausible wrong answers per TODO of this notebook (tests/test_notebooks.py checks it).
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
