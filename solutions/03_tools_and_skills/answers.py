"""Plausible wrong implementations of the TODOs in solutions/03_tools_and_skills.ipynb.

Each entry replaces the whole source of the solution cell with that ``grade_id``; the TODO's
grade cell covering the broken behaviour (``COVERED_BY``, default: the TODO's first grade
cell) must then score 0 while the untouched solution passes.
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
