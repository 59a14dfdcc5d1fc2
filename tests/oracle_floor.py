"""The offline floor under the Oracle statements: record them, parse them, answer them.

No Oracle database runs here, so every statement the Oracle dialect sends is checked three
ways without one:

* **binds**: every ``:name`` it uses has a value (python-oracledb refuses a missing one) and no
  bind name is an Oracle reserved word (ORA-01745);
* **syntax**: it parses with sqlglot's Oracle dialect (a parser this project did not write),
  after the rewrites in :data:`PARSER_GAPS` for constructs sqlglot does not know, each with the
  documentation section that settles it; and it holds no SQLite-only syntax;
* **rows**: queries are answered with canned rows whose column names are the statement's own
  select list, with values of the types python-oracledb returns, so the Python that maps the
  rows runs too.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

from agent_harness.backends.connection import Connection
from agent_harness.backends.oracle.dialect import OracleDialect

__all__ = [
    "ORACLE_RESERVED",
    "PARSER_GAPS",
    "SQLITE_ONLY",
    "RecordingConnection",
    "canned_row",
    "check_statement",
    "oracle_parse",
]

SQLITE_ONLY = re.compile(
    r"(?<!:)\bLIMIT\b|strftime|json_valid|json_extract|printf|vec_distance|\bIFNULL\b"
    r"|ON CONFLICT|\bexcluded\.|RETURNING id\b(?! INTO)|\|\| char\(|\bMATERIALIZED\b"
    r"|WITH RECURSIVE|\bMATCH :q",
    re.IGNORECASE,
)

# SQL Language Reference 23/26, "Oracle SQL Reserved Words" (the words ORA-01745 refuses as
# bind names, plus the ones the issue saw: DATE, SIZE, LEVEL, MODE, START, USER, COMMENT,
# NUMBER, ROWS).
ORACLE_RESERVED = frozenset(
    """ACCESS ADD ALL ALTER AND ANY AS ASC AUDIT BETWEEN BY CHAR CHECK CLUSTER COLUMN COMMENT
    COMPRESS CONNECT CREATE CURRENT DATE DECIMAL DEFAULT DELETE DESC DISTINCT DROP ELSE
    EXCLUSIVE EXISTS FILE FLOAT FOR FROM GRANT GROUP HAVING IDENTIFIED IMMEDIATE IN INCREMENT
    INDEX INITIAL INSERT INTEGER INTERSECT INTO IS LEVEL LIKE LOCK LONG MAXEXTENTS MINUS
    MLSLABEL MODE MODIFY NOAUDIT NOCOMPRESS NOT NOWAIT NULL NUMBER OF OFFLINE ON ONLINE OPTION
    OR ORDER PCTFREE PRIOR PUBLIC RAW RENAME RESOURCE REVOKE ROW ROWID ROWNUM ROWS SELECT
    SESSION SET SHARE SIZE SMALLINT START SUCCESSFUL SYNONYM SYSDATE TABLE THEN TO TRIGGER
    UID UNION UNIQUE UPDATE USER VALIDATE VALUES VARCHAR VARCHAR2 VIEW WHENEVER WHERE
    WITH""".split()
)

#: Constructs sqlglot's Oracle dialect cannot read, rewritten before parsing; each keeps the
#: statement's shape and names the documentation that settles the original.
PARSER_GAPS: list[tuple[re.Pattern, str, str]] = [
    (
        re.compile(r"FETCH APPROX FIRST", re.IGNORECASE),
        "FETCH FIRST",
        "SQL Language Reference 23, SELECT, row_limiting_clause: FETCH APPROX FIRST",
    ),
    (
        re.compile(r"\s+RETURNING\s+(CLOB|NUMBER(?:\s+NULL\s+ON\s+ERROR)?"
                   r"|VARCHAR2\(\d+\)(?:\s+NULL\s+ON\s+ERROR)?)\)", re.IGNORECASE),
        ")",
        "JSON Developer's Guide 23: JSON_SERIALIZE / JSON_VALUE RETURNING clause",
    ),
    (
        re.compile(r"GRAPH_TABLE\s*\(.*?COLUMNS\s*\((?P<cols>[^()]*)\)\s*\)", re.S),
        r"(SELECT \g<cols> FROM dual)",
        "SQL Language Reference 26, GRAPH_TABLE operator (SQL/PGQ MATCH ... COLUMNS)",
    ),
    (
        re.compile(r"\)\s*CYCLE\s+\w+\s+SET\s+\w+\s+TO\s+'Y'\s+DEFAULT\s+'N'", re.I),
        ")",
        "SQL Language Reference 23, SELECT, subquery_factoring_clause: cycle_clause",
    ),
    (
        re.compile(r"VECTOR_EMBEDDING\((\w+) USING (.+?) AS DATA\)"),
        r"VECTOR_EMBEDDING(\1, \2)",
        "SQL Language Reference 23, VECTOR_EMBEDDING (model USING expr AS DATA)",
    ),
    (
        re.compile(r"/\*\+.*?\*/", re.S),
        "",
        "SQL Language Reference 23, Comments: hints (NO_MERGE)",
    ),
    (
        re.compile(r"\s+RETURNING id INTO :new_id$"),
        "",
        "SQL Language Reference 23, INSERT, returning_clause",
    ),
]


def _rewritten(sql: str) -> str:
    for pattern, replacement, _doc in PARSER_GAPS:
        sql = pattern.sub(replacement, sql)
    return sql


def oracle_parse(sql: str) -> exp.Expression:
    """The statement as sqlglot's Oracle dialect reads it (after :data:`PARSER_GAPS`)."""
    return sqlglot.parse_one(_rewritten(sql), read="oracle")


def _bind_names(sql: str) -> set[str]:
    # Binds outside string literals; ``:=`` (PL/SQL) and ``::`` are not binds.
    code = re.sub(r"'(?:[^']|'')*'", "''", sql)
    return {n.lower() for n in re.findall(r"(?<![:\w]):([A-Za-z_]\w*)", code)}


def check_statement(sql: str, binds: Mapping[str, Any] | None) -> list[str]:
    """What is wrong with one recorded statement ([] when nothing is)."""
    problems = []
    names = _bind_names(sql)
    given = {k.lower() for k in (binds or {})}
    if missing := names - given:
        problems.append(f"unbound {sorted(missing)}")
    if reserved := {n for n in names if n.upper() in ORACLE_RESERVED}:
        problems.append(f"reserved bind names {sorted(reserved)} (ORA-01745)")
    if found := SQLITE_ONLY.search(sql):
        problems.append(f"SQLite syntax {found.group(0)!r}")
    try:
        oracle_parse(sql)
    except sqlglot.errors.SqlglotError as e:
        problems.append(f"does not parse as Oracle SQL: {str(e).splitlines()[0]}")
    return problems


def _sample(column: str) -> Any:
    """A value of the type python-oracledb returns for a column of this name."""
    name = column.lower()
    if name in ("metadata", "detail", "evidence", "parameters", "implementation", "config",
                "schema_extra"):
        return "{}"
    if name == "default_value":
        return None
    if name in ("created_at", "updated_at"):
        return "2026-01-01T00:00:00.000Z"  # read as ISO text (TO_CHAR)
    if name.endswith("_at") or name in ("since", "retry_at", "at", "last_used",
                                        "last_called"):
        return dt.datetime(2026, 1, 1, 12, 0, 0, 123000)
    if name in ("id", "n", "calls", "successes", "failures", "seq", "depth", "cycle", "known",
                "turns", "ordinal", "required", "priority", "sequence", "trial_successes",
                "trial_failures", "window_start_id", "opened_count", "parent_id",
                "telemetry_id", "output_chars", "always_on", "enabled", "ok", "version"):
        return 1
    if name in ("similarity", "score", "keyword_score", "relevance", "success_rate", "p50_ms",
                "p95_ms", "duration_ms", "timeout_s", "text_score", "distance"):
        return Decimal("0.5")
    return f"{name}-1"


def canned_row(sql: str) -> dict | None:
    """One row shaped like the statement's select list, or None for a statement without rows."""
    tree = oracle_parse(sql)
    if not isinstance(tree, (exp.Select, exp.Union)) and not tree.find(exp.Select):
        return None
    if not isinstance(tree, (exp.Select, exp.Union, exp.With)):
        return None
    names = [n for n in tree.named_selects if n != "*"]
    return {n.lower(): _sample(n) for n in names} if names else None


class RecordingConnection(Connection):
    """A :class:`Connection` in the Oracle dialect that records every statement and answers
    queries with :func:`canned_row` (or with ``rows`` when given)."""

    dialect = OracleDialect()

    def __init__(self, rows: list[dict] | None = None) -> None:
        super().__init__()
        self.sent: list[tuple[str, dict]] = []
        self.rows = rows

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self.lock:
            yield

    def query(self, sql: str, binds=None) -> list[dict]:
        self.sent.append((sql, dict(binds or {})))
        if self.rows is not None:
            return [dict(r) for r in self.rows]
        row = canned_row(sql)
        return [row] if row else []

    def execute(self, sql: str, binds=None) -> int:
        self.sent.append((sql, dict(binds or {})))
        return 1

    def insert(self, sql: str, binds=None) -> int:
        self.sent.append((f"{sql} RETURNING id INTO :new_id", {**(binds or {}), "new_id": 0}))
        return 7

    def close(self) -> None:
        return None
