"""Probes of 03_tools_and_skills.

``run_sql`` is graded in four cells: ``_checks`` (the result: exactly columns, rows, row_count
== len(rows), truncated), ``_errors`` (hostile statements come back as ``{"error": message}``
and change nothing; broken statements too, never an exception), ``_max_rows`` (clamped to
1..1000, default 50) and ``_values`` (every value through ``to_json_value``, unicode readable).
The probes record the parsed JSON (or, for errors, only that it is a lone non-empty message:
the wording is free).
"""

from dataclasses import replace

from grader.value_checks import Probe

_CALL = """
import json as _json


def _answer(sql, **kw):
    # The parsed answer; an error becomes ["error", is it a lone non-empty message].
    try:
        raw = run_sql(sql, **kw)
    except Exception as e:
        return ["raised", type(e).__name__]
    if type(raw) is not str:
        return ["not text", type(raw).__name__]
    try:
        got = _json.loads(raw)
    except ValueError:
        return ["not JSON"]
    if type(got) is dict and "error" in got:
        return ["error", set(got) == {"error"} and type(got["error"]) is str and got["error"] != ""]
    return ["ok", got]
"""

_FINGERPRINT = """
_tables = ["carriers", "ports", "vessels", "voyages", "vessel_positions", "containers",
           "cargo_items"]


def _fingerprint():
    counts = {t: h.backend.query(f"SELECT COUNT(*) AS n FROM supplychain.{t}")[0]["n"]
              for t in _tables}
    schema = h.backend.query("SELECT type, name, sql FROM supplychain.sqlite_schema ORDER BY name")
    teu = h.backend.query("SELECT SUM(capacity_teu) AS s FROM supplychain.vessels")[0]["s"]
    names = h.backend.query("SELECT name FROM supplychain.carriers ORDER BY carrier_id")
    version = h.backend.query("PRAGMA supplychain.user_version")
    return [counts, schema, teu, names, version]
"""

PROBES = {
    "run_sql_checks": [
        Probe(
            "join",
            _CALL
            + """
_join = (
    "SELECT v.name, c.name AS carrier, v.capacity_teu FROM supplychain.vessels v"
    " JOIN supplychain.carriers c ON c.carrier_id = v.carrier_id"
    " ORDER BY v.capacity_teu DESC, v.name"
)
_raw = run_sql(_join, max_rows=7)
value = [_answer(_join, max_rows=7), type(_raw) is str and sorted(_json.loads(_raw))]
""",
            "for a join of vessels and carriers (max_rows=7) expected exactly "
            '{"columns", "rows", "row_count", "truncated"}: the column names and the rows of the '
            "read-only connection, row_count 7, truncated True",
        ),
        Probe(
            "exact fits and empty",
            _CALL
            + """
_ports = "SELECT port_code FROM supplychain.ports ORDER BY port_code"
_numbers = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)"
            " SELECT i FROM n")
value = [_answer(_ports, max_rows=25), _answer(_ports, max_rows=24),
         _answer(_numbers, max_rows=12), _answer(_numbers, max_rows=11),
         _answer("SELECT port_code, name FROM supplychain.ports WHERE port_code = 'NOWHERE'")]
""",
            "for results that fit max_rows exactly, miss it by one, or have no rows expected "
            "truncated False only when nothing was left out, and for no rows the columns, "
            "rows [] and row_count 0",
        ),
    ],
    "run_sql_errors": [
        Probe(
            "hostile statements",
            _CALL
            + _FINGERPRINT
            + """
import os as _os
import tempfile as _tempfile

_tmp = _tempfile.mkdtemp()
_attach, _vacuum = _os.path.join(_tmp, "evil.db"), _os.path.join(_tmp, "copy.db")
_hostile = [
    "WITH x AS (SELECT 1) DELETE FROM supplychain.ports",
    "WITH x AS (SELECT 1) DELETE FROM supplychain.cargo_items",
    "with x as (select 1) update supplychain.vessels set capacity_teu = 0",
    "WITH x AS (SELECT 1) INSERT INTO supplychain.carriers (carrier_id, name, scac_code)"
    " SELECT 999, 'Evil Lines', 'EVIL'",
    "INSERT INTO supplychain.carriers (carrier_id, name, scac_code) VALUES (998, 'Evil', 'EVL')",
    "DELETE FROM supplychain.cargo_items",
    "UPDATE supplychain.vessels SET capacity_teu = 0",
    "UPDATE supplychain.carriers SET name = 'x' WHERE carrier_id IN (SELECT 1)",
    "DROP TABLE supplychain.cargo_items",
    "CREATE TABLE supplychain.evil (x)",
    "CREATE TEMP TABLE evil AS SELECT * FROM supplychain.ports",
    f"ATTACH DATABASE '{_attach}' AS evil",
    "PRAGMA query_only = 0",
    "PRAGMA supplychain.user_version = 42",
    "PRAGMA supplychain.journal_mode = DELETE",
    "SELECT 1; DELETE FROM supplychain.cargo_items",
    "SELECT 1; DROP TABLE supplychain.cargo_items",
    "SELECT 1; SELECT 2",
    f"VACUUM INTO '{_vacuum}'",
    "BEGIN; DELETE FROM supplychain.cargo_items; COMMIT",
    "/* comment */ DELETE FROM supplychain.cargo_items",
    "-- a comment\\nDELETE FROM supplychain.cargo_items",
    "  \\n\\tdelete from supplychain.cargo_items",
    "REPLACE INTO supplychain.carriers (carrier_id, name, scac_code) VALUES (1, 'Evil', 'EVL')",
    "WITH RECURSIVE x(i) AS (SELECT 1) DELETE FROM supplychain.vessel_positions",
]
_fp = _fingerprint()
value = []
for _sql in _hostile:
    value.append(_answer(_sql))
    value.append(_fingerprint() == _fp)
value.append(_os.path.exists(_attach) or _os.path.exists(_vacuum))
""",
            "for other statements that write (behind WITH, comments or blanks too), change the "
            "schema or settings, attach or copy the database, or run several statements "
            'expected {"error": message} only and no change to the data or the files: run the '
            "SQL on h.backend.readonly_query",
        ),
        Probe(
            "broken statements",
            _CALL
            + """
value = [_answer(sql) for sql in ("", "   ", "SELECT * FROM no_such_table", "SELECT port_code FROM",
         "SELECT 'unterminated", "SELEC 1", "SELECT nope FROM supplychain.ports", ";")]
""",
            "for other statements that cannot run (empty, blank, syntax errors, an unknown "
            'table or column) expected {"error": message} only, never an exception',
        ),
    ],
    "run_sql_max_rows": [
        Probe(
            "max_rows",
            _CALL
            + """
_many = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
         " SELECT i FROM n")
value = []
for _asked in (3, 1, 0, -5, 49, 50, 51, 499, 500, 501, 999, 1000, 1001, 10**6):
    _got = _answer(_many, max_rows=_asked)
    if _got[0] == "ok" and type(_got[1]) is dict:
        _rows = _got[1].get("rows")
        value.append([_asked, _got[1].get("row_count"),
                      len(_rows) if type(_rows) is list else None,
                      _rows[-1] if type(_rows) is list and _rows else None,
                      _got[1].get("truncated")])
    else:
        value.append([_asked, _got])
""",
            "for a query of 5000 rows with other values of max_rows (negative, 0, 1 up to "
            "10**6) expected min(max(max_rows, 1), 1000) rows, row_count == len(rows) and "
            "truncated True",
        ),
        Probe(
            "default",
            _CALL
            + """
value = [_answer("SELECT port_code FROM supplychain.ports ORDER BY port_code"),
         _answer("SELECT voyage_id FROM supplychain.voyages ORDER BY voyage_id")]
""",
            "without max_rows, for tables with fewer and with more rows than 50 (ports, "
            "voyages) expected the default max_rows of 50",
        ),
    ],
    "run_sql_values": [
        Probe(
            "values",
            _CALL
            + """
value = [
    _answer("SELECT 1.5 AS f, NULL AS n, 7 AS i, x'414243' AS t, x'00ff' AS b"),
    _answer("SELECT -0.25 AS f, 12345678901234 AS big, '' AS empty, 'it''s' AS quote,"
            " 1.0 / 3 AS third, x'c3bc' AS u, x'' AS blank"),
    _answer("SELECT departure_date, eta_date FROM supplychain.voyages ORDER BY voyage_id",
            max_rows=3),
]
""",
            "for other values (negative and long floats, a large int, empty and quoted text, "
            "bytes that are UTF-8 or not, dates) expected each value as to_json_value gives "
            "it, unrounded, in column order",
        ),
        Probe(
            "unicode",
            _CALL
            + """
_text = "e\\u0301 漢字 Ωμέγα Zürich ☃ 🚢"
_raw = run_sql(f"SELECT '{_text}' AS s")
value = [_answer(f"SELECT '{_text}' AS s"), type(_raw) is str and _text in _raw]
""",
            "for other non-ASCII text (accents, CJK, Greek, emoji) expected it back unchanged "
            "and readable as is in the JSON text: json.dumps(..., ensure_ascii=False)",
        ),
    ],
}

# The sentences of the TODO each probe enforces (tests/test_grading_fairness.py).
_ERROR = "Never raises for a bad statement."
_GUARD = "The guard is the connection, not the text"
_ROWS = "Most rows to return, clamped to 1..MAX_ROWS (1000)."
_SHAPE = "with ``row_count == len(rows)``, values converted by ``to_json_value``"
_TRUNCATED = "`truncated` (True when more rows existed than `max_rows`)"
_UNICODE = "unicode kept as is (``ensure_ascii=False``)"
_RELIES = {
    "hostile statements": (_GUARD, _ERROR),
    "broken statements": (_ERROR,),
    "max_rows": (_ROWS,),
    "default": ("def run_sql(sql, max_rows=50):", _ROWS),
    "values": (_SHAPE,),
    "unicode": (_UNICODE,),
    "join": (_SHAPE,),
    "exact fits and empty": (_SHAPE, _TRUNCATED),
}
PROBES = {
    grade_id: [replace(p, relies_on=_RELIES[p.name]) for p in probes]
    for grade_id, probes in PROBES.items()
}
