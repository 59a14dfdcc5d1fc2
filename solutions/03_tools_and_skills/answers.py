"""Other answers to the TODOs of 03_tools_and_skills.ipynb (beside this file), for the tests.

Wrong ones: ``MUTANTS`` (each scores 0 on the grade cell of ``COVERED_BY``, default the TODO's
first), ``WRONG`` and ``ALWAYS_EQUAL`` (pass the visible checks; a value check must catch
them) and ``VISIBLE`` (once passed the visible checks; now fail them). Correct ones:
``CORRECT`` and ``MORE_CORRECT`` (each scores full marks). What each table holds and which test
reads it: docs/notebook-authoring.md, "A notebook's folder".
"""

_HEAD = '''def run_sql(sql, max_rows=50):
    """Wrong on purpose: see the mutant's description."""
'''

_OK_RESULT = """    rows = [[to_json_value(v) for v in row] for row in result.rows]
    return json.dumps(
        {"columns": list(result.columns), "rows": rows, "row_count": len(rows),
         "truncated": bool(result.truncated)},
        ensure_ascii=False,
    )
"""

MUTANTS = {
    "run_sql": [
        (
            "regex-only guard, then the writable connection h.backend.query",
            _HEAD
            + """    if not naive_is_read_only(sql):
        return json.dumps({"error": "only SELECT or WITH statements are allowed"})
    try:
        found = h.backend.query(sql)
    except Exception as e:
        return json.dumps({"error": str(e)})
    limit = max(1, min(int(max_rows), MAX_ROWS))
    columns = list(found[0]) if found else []
    rows = [[to_json_value(r[c]) for c in columns] for r in found[:limit]]
    return json.dumps(
        {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": len(found) > limit},
        ensure_ascii=False,
    )
""",
        ),
        (
            "ignores max_rows (the read-only connection's default of 50 rows)",
            _HEAD
            + """    try:
        result = h.backend.readonly_query(sql)
    except BackendError as e:
        return json.dumps({"error": str(e)})
"""
            + _OK_RESULT,
        ),
        (
            "does not cap max_rows at MAX_ROWS (nor at least 1)",
            _HEAD
            + """    try:
        result = h.backend.readonly_query(sql, max_rows=int(max_rows))
    except BackendError as e:
        return json.dumps({"error": str(e)})
"""
            + _OK_RESULT,
        ),
        (
            "raises the BackendError instead of returning {'error'}",
            _HEAD
            + """    limit = max(1, min(int(max_rows), MAX_ROWS))
    result = h.backend.readonly_query(sql, max_rows=limit)
"""
            + _OK_RESULT,
        ),
        (
            "wrong keys: data and count instead of rows and row_count",
            _HEAD
            + """    try:
        result = h.backend.readonly_query(sql, max_rows=max(1, min(int(max_rows), MAX_ROWS)))
    except BackendError as e:
        return json.dumps({"error": str(e)})
    rows = [[to_json_value(v) for v in row] for row in result.rows]
    return json.dumps({"columns": result.columns, "data": rows, "count": len(rows)})
""",
        ),
        (
            "returns a dict, not JSON text",
            _HEAD
            + """    try:
        result = h.backend.readonly_query(sql, max_rows=max(1, min(int(max_rows), MAX_ROWS)))
    except BackendError as e:
        return {"error": str(e)}
    rows = [[to_json_value(v) for v in row] for row in result.rows]
    return {"columns": result.columns, "rows": rows, "row_count": len(rows),
            "truncated": result.truncated}
""",
        ),
        (
            "values not converted with to_json_value (bytes break json.dumps)",
            _HEAD
            + """    try:
        result = h.backend.readonly_query(sql, max_rows=max(1, min(int(max_rows), MAX_ROWS)))
    except BackendError as e:
        return json.dumps({"error": str(e)})
    return json.dumps({"columns": result.columns, "rows": result.rows,
                       "row_count": len(result.rows), "truncated": result.truncated})
""",
        ),
        (
            "error wrapped with extra keys ({'error', 'rows': []})",
            _HEAD
            + """    try:
        result = h.backend.readonly_query(sql, max_rows=max(1, min(int(max_rows), MAX_ROWS)))
    except BackendError as e:
        return json.dumps({"error": str(e), "columns": [], "rows": [], "row_count": 0})
"""
            + _OK_RESULT,
        ),
    ],
}

#: The grade cell covering each mutant's broken behaviour (default: run_sql_checks).
COVERED_BY = {
    "regex-only guard, then the writable connection h.backend.query": "run_sql_errors",
    "ignores max_rows (the read-only connection's default of 50 rows)": "run_sql_max_rows",
    "does not cap max_rows at MAX_ROWS (nor at least 1)": "run_sql_max_rows",
    "raises the BackendError instead of returning {'error'}": "run_sql_errors",
    "values not converted with to_json_value (bytes break json.dumps)": "run_sql_values",
    "error wrapped with extra keys ({'error', 'rows': []})": "run_sql_errors",
}


# --- Answers at the visible checks' edge (WRONG, ALWAYS_EQUAL, VISIBLE) and correct ones

_RUN_SQL = """def run_sql(sql, max_rows=50):
    limit = {limit}
    try:
        result = h.backend.readonly_query(sql, max_rows=limit)
    except BackendError as e:
        return json.dumps({{"error": str(e)}}, ensure_ascii=False)
    rows = [[to_json_value(value) for value in row] for row in result.rows]
    return json.dumps(
        {{"columns": list(result.columns), "rows": rows, "row_count": len(rows),
          "truncated": {truncated}}},
        ensure_ascii={ascii},
    )
"""


def _run_sql(
    limit: str = "max(1, min(int(max_rows), MAX_ROWS))",
    truncated: str = "bool(result.truncated)",
    ascii: str = "False",
) -> str:
    """run_sql with the correct parts, some replaced.

    Args:
        limit: The expression of the clamped max_rows.
        truncated: The expression of the truncated flag.
        ascii: The ensure_ascii argument of json.dumps.
    """
    return _RUN_SQL.format(limit=limit, truncated=truncated, ascii=ascii)


_RUN_SQL_OTHER = """def run_sql(sql, max_rows=50):
    wanted = sorted([1, int(max_rows), MAX_ROWS])[1]
    try:
        answer = h.backend.readonly_query(sql, None, max_rows=wanted)
    except Exception as problem:  # any failure goes back to the model as text
        return json.dumps({"error": f"{type(problem).__name__}: {problem}"}, ensure_ascii=False)
    data = []
    for row in answer.rows:
        data.append([to_json_value(cell) for cell in row])
    payload = {"columns": [str(c) for c in answer.columns], "rows": data}
    payload.update(row_count=len(data), truncated=answer.truncated is True)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
"""


_RUN_SQL_DEFAULT = """def run_sql(sql, max_rows=50):
    if max_rows < 1:
        limit = 1
    elif max_rows > MAX_ROWS:
        limit = MAX_ROWS
    else:
        limit = int(max_rows)
    try:
        result = h.backend.readonly_query(sql, max_rows=limit)
    except ReadOnlyViolation as refused:
        return json.dumps({"error": f"refused: {refused}"}, ensure_ascii=False)
    except BackendError as failed:
        return json.dumps({"error": f"failed: {failed}"}, ensure_ascii=False)
    answer = {"columns": result.columns, "rows": result.rows, "row_count": len(result.rows),
              "truncated": result.truncated}
    # json.dumps calls to_json_value for every value it cannot write itself
    return json.dumps(answer, ensure_ascii=False, default=to_json_value)
"""


_RUN_SQL_MAP = """def run_sql(sql, max_rows=50):
    import json as _json

    limit = min(MAX_ROWS, max(1, int(max_rows)))
    try:
        result = h.backend.readonly_query(sql, None, limit)
    except BackendError as e:
        return _json.dumps(dict(error=str(e) or type(e).__name__), ensure_ascii=False)
    rows = [list(map(to_json_value, row)) for row in result.rows]
    parts = [("truncated", result.truncated is True), ("row_count", len(rows)),
             ("rows", rows), ("columns", [*result.columns])]
    return _json.dumps(dict(parts), ensure_ascii=False, indent=1, sort_keys=True)
"""


WRONG = {
    "run_sql": [
        (
            "negative max_rows taken as its absolute value",
            _run_sql(limit="max(1, min(abs(int(max_rows)), MAX_ROWS))"),
        ),
        (
            "floats rounded to 2 places (for readability)",
            _RUN_SQL.replace(
                "[to_json_value(value) for value in row]",
                "[round(v, 2) if isinstance(v, float) else to_json_value(v) for v in row]",
            ).format(
                limit="max(1, min(int(max_rows), MAX_ROWS))",
                truncated="bool(result.truncated)",
                ascii="False",
            ),
        ),
    ],
}
#: Answers that passed the visible checks before issue 11 and now fail them (each behaviour
#: that is graded has a visible check of its own): grade_id -> [(label, source)].
VISIBLE = {
    "run_sql": [
        ("caps max_rows at 500", _run_sql(limit="max(1, min(int(max_rows), 500))")),
        ("unicode escaped (ensure_ascii=True)", _run_sql(ascii="True")),
        (
            "truncated when the rows fill max_rows, even if nothing was left out",
            _run_sql(truncated="len(rows) == limit"),
        ),
        ("no lower bound: max_rows=0 is passed on", _run_sql(limit="min(int(max_rows), 1000)")),
    ],
}
CORRECT = {"run_sql": _RUN_SQL_OTHER}
#: More correct answers, each run on its own: [(label, {solution grade_id: source})].
#: Each must score full marks (with CORRECT: several styles per TODO).
MORE_CORRECT = [
    (
        "if/elif clamp, two except clauses, json.dumps(default=to_json_value)",
        {"run_sql": _RUN_SQL_DEFAULT},
    ),
    (
        "map(to_json_value), positional readonly_query, sorted pretty JSON",
        {"run_sql": _RUN_SQL_MAP},
    ),
]
#: The grade cell covering each of these cases.
COVERED_BY.update(
    {
        "caps max_rows at 500": "run_sql_max_rows",
        "no lower bound: max_rows=0 is passed on": "run_sql_max_rows",
        "negative max_rows taken as its absolute value": "run_sql_max_rows",
        "unicode escaped (ensure_ascii=True)": "run_sql_values",
        "floats rounded to 2 places (for readability)": "run_sql_values",
    }
)
