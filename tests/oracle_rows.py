"""What an Oracle query returns, for the fakes that answer it (no checks here: those are in
``tests/oracle_floor.py``).

:func:`select_columns` gives the labels Oracle gives a query's columns and their kinds, from
the select list and the tables' own DDL; :func:`sample` a value of each kind of the Python type
python-oracledb 26 (thin mode) hands back ("Fetching Data" and "Using CLOB, BLOB, NCLOB and
BFILE Data" in its user guide): ``str`` for VARCHAR2, a LOB object for a CLOB unless the
statement runs with ``fetch_lobs=False`` (then ``str``), ``int`` for an integer NUMBER,
``decimal.Decimal`` where the application asks for decimals (mixed in here so code that reads
numbers must convert them), ``float`` for BINARY_DOUBLE, a naive ``datetime`` for DATE and
TIMESTAMP, ``dict`` for a JSON column and ``array.array('f')`` for a ``VECTOR(n, FLOAT32)``.
The fake driver (``tests/oracle_fake.py``) and :class:`RecordingConnection` (a ``Connection``)
answer with them.
"""

from __future__ import annotations

import array
import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from functools import cache
from typing import Any

import oracledb
from sqlglot import exp

from agent_harness.backends.connection import Connection
from agent_harness.backends.oracle.connection import used_binds
from agent_harness.backends.oracle.dialect import OracleDialect
from agent_harness.foundation.embeddings import DIMENSIONS
from tests.oracle_floor import not_parsed, oracle_parse

__all__ = [
    "DB_TYPES",
    "FakeLob",
    "RecordingConnection",
    "SAMPLE_TIME",
    "canned_row",
    "column_types",
    "one_row_always",
    "sample",
    "select_columns",
]

#: The time every canned TIMESTAMP holds: sub-second, so a lost fraction shows.
SAMPLE_TIME = dt.datetime(2026, 1, 1, 12, 0, 0, 123000)

#: The python-oracledb type a description reports for each kind of value.
DB_TYPES = {
    "text": oracledb.DB_TYPE_VARCHAR,
    "clob": oracledb.DB_TYPE_CLOB,
    "int": oracledb.DB_TYPE_NUMBER,
    "decimal": oracledb.DB_TYPE_NUMBER,
    "float": oracledb.DB_TYPE_BINARY_DOUBLE,
    "time": oracledb.DB_TYPE_TIMESTAMP,
    "iso": oracledb.DB_TYPE_VARCHAR,
    "json": oracledb.DB_TYPE_JSON,
    "vector": oracledb.DB_TYPE_VECTOR,
}


class FakeLob:
    """A LOB as python-oracledb hands it out: ``read()``, ``size()``, ``type``."""

    def __init__(self, kind: Any, value: str | bytes | None = None) -> None:
        self.type = kind
        self.value = value if value is not None else ("" if kind is oracledb.DB_TYPE_CLOB else b"")

    def read(self, offset: int = 1, amount: int | None = None):
        end = None if amount is None else offset - 1 + amount
        return self.value[offset - 1 : end]

    def size(self) -> int:
        return len(self.value)

    def __repr__(self) -> str:
        return f"<FakeLob {self.type.name} of {len(self.value)}>"


def sample(kind: str, label: str, lobs_as_text: bool) -> Any:
    """One value of ``kind`` (see :func:`select_columns`) for a column
    labelled ``label``.

    Args:
        kind: The column's kind.
        label: Its label (text values are ``<label>-1``).
        lobs_as_text: True when the statement ran with ``fetch_lobs=False``.
    """
    name = label.lower()
    if kind == "int":
        return 1
    if kind == "decimal":
        return Decimal("0.5")
    if kind == "float":
        return 0.5
    if kind == "time":
        return SAMPLE_TIME
    if kind == "iso":
        return "2026-01-01T12:00:00.123Z"
    if kind == "json":
        return {}
    if kind == "vector":
        return array.array("f", [1.0 / DIMENSIONS**0.5] * DIMENSIONS)
    text = "{}" if name in _JSON_TEXT else f"{name}-1"
    if kind == "clob":
        return text if lobs_as_text else FakeLob(oracledb.DB_TYPE_CLOB, text)
    return text


# Columns that hold JSON text (CLOB / VARCHAR2 with IS JSON, or JSON_SERIALIZE'd).
_JSON_TEXT = frozenset(
    {
        "metadata",
        "detail",
        "evidence",
        "parameters",
        "implementation",
        "config",
        "schema_extra",
        "default_value",
        "gen_ai_tool_call_arguments",
    }
)


@cache
def column_types() -> dict[str, dict[str, str]]:
    """Table -> column -> declared Oracle type, read from the migrations' and the demo
    schema's own CREATE TABLE statements (upper-case names)."""
    from agent_harness.backends.oracle.migrations import MIGRATIONS
    from agent_harness.backends.oracle.supplychain import create_table_sql
    from agent_harness.supplychain.schema import TABLES

    ddl = [s.sql for m in MIGRATIONS for s in m.steps if s.kind in ("table", "column")]
    ddl += [create_table_sql(t) for t in TABLES]
    tables: dict[str, dict[str, str]] = {}
    for statement in ddl:
        tree = oracle_parse(statement)
        table = tree.find(exp.Table).name.upper()
        for column in tree.find_all(exp.ColumnDef):
            declared = column.args["kind"].sql(dialect="oracle").upper()
            if "VECTOR" in statement and column.name.lower() == "embedding":
                declared = "VECTOR"
            tables.setdefault(table, {})[column.name.upper()] = declared
    tables["SCHEMA_MIGRATIONS"] = {"VERSION": "NUMBER", "NAME": "VARCHAR2", "APPLIED_AT": "TS"}
    return tables


def _kind_of_type(declared: str) -> str:
    if declared.startswith(("VARCHAR", "CHAR")):
        return "text"
    if declared == "CLOB":
        return "clob"
    if declared == "VECTOR":
        return "vector"
    if declared.startswith("TIMESTAMP") or declared in ("DATE", "TS"):
        return "time"
    if declared == "JSON":
        return "json"
    if declared in ("DOUBLE", "BINARY_DOUBLE", "FLOAT"):
        return "float"
    if declared.startswith(("NUMBER(", "DECIMAL(")) and "," in declared:
        return "decimal"
    return "int" if declared.startswith(("NUMBER", "INT", "DECIMAL")) else "text"


def _kind(projection: exp.Expression, tables: list[str]) -> str:
    node = projection.this if isinstance(projection, exp.Alias) else projection
    name = projection.alias_or_name.upper()
    if isinstance(node, (exp.Count, exp.RowNumber)):
        return "int"
    if isinstance(node, (exp.Sum, exp.Avg, exp.Div, exp.Sub, exp.Add, exp.Mul)):
        return "decimal"
    if isinstance(node, exp.Anonymous):
        function = node.name.upper()
        if function == "VECTOR_EMBEDDING":
            return "vector"
        if function in ("VECTOR_DISTANCE", "SCORE"):
            return "float"
        if function == "JSON_SERIALIZE":
            return "text"
    if isinstance(node, (exp.ToChar, exp.JSONFormat)):
        return "text"
    declared = [column_types().get(t, {}).get(name) for t in tables]
    declared = [d for d in declared if d]
    if declared:
        return _kind_of_type(declared[0])
    return _kind_by_name(name)


def _kind_by_name(name: str) -> str:
    """A computed column's kind by the name the statement gives it."""
    name = name.lower()
    if name in ("created_at", "updated_at"):
        return "iso"
    if name.endswith("_at") or name in ("since", "last_used", "last_called"):
        return "time"
    if name in (
        "similarity",
        "score",
        "keyword_score",
        "relevance",
        "success_rate",
        "p50_ms",
        "p95_ms",
        "text_score",
        "distance",
        "vector_score",
        "rrf_score",
    ):
        return "decimal"
    if name in (
        "n",
        "calls",
        "successes",
        "failures",
        "depth",
        "cycle",
        "known",
        "turns",
        "next_version",
        "r",
        "one",
        "ok",
        "r_vec",
        "r_txt",
    ):
        return "int"
    return "text"


def select_columns(sql: str) -> list[tuple[str, str]] | None:
    """``(label, kind)`` of each column a query returns, as Oracle labels them (unquoted names
    upper case, an unnamed expression as its text), or None for a statement without rows.

    Kinds: ``text``, ``clob``, ``int``, ``decimal``, ``float``, ``time``, ``iso`` (a time read
    back as ISO text), ``json``, ``vector``.
    """
    if not_parsed(sql):
        return None
    tree = oracle_parse(sql)
    select = tree if isinstance(tree, (exp.Select, exp.Union)) else None
    if select is None:
        return None
    while isinstance(select, exp.Union):
        select = select.left
    tables = [t.name.upper() for t in tree.find_all(exp.Table)]
    columns = []
    for projection in select.expressions:
        if isinstance(projection, exp.Star) or (
            isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
        ):
            for table in tables:
                for name, declared in column_types().get(table, {}).items():
                    columns.append((name, _kind_of_type(declared)))
            continue
        if isinstance(projection, (exp.Alias, exp.Column)):
            ident = projection.args.get("alias") or (
                projection.this if isinstance(projection, exp.Column) else None
            )
            quoted = isinstance(ident, exp.Identifier) and ident.quoted
            label = projection.alias_or_name
            label = label if quoted else label.upper()
        else:  # Oracle names an unnamed expression by its text, blanks left out
            label = re.sub(r"\s+", "", projection.sql(dialect="oracle").upper())
        columns.append((label, _kind(projection, tables)))
    return columns


def one_row_always(sql: str) -> dict | None:
    """The one row a query returns on empty tables when it has one whatever the tables hold
    (only aggregates in its select list, no GROUP BY: ``SELECT COUNT(*) FROM ...``), else
    None. COUNT is 0, an aggregate inside COALESCE a number, any other aggregate NULL."""
    if not_parsed(sql):
        return None
    tree = oracle_parse(sql)
    if not isinstance(tree, exp.Select) or tree.args.get("group"):
        return None
    projections = [p.this if isinstance(p, exp.Alias) else p for p in tree.expressions]
    if not all(p.find(exp.AggFunc) is not None for p in projections):
        return None
    row = {}
    for (label, _kind), node in zip(select_columns(sql), projections):
        if isinstance(node, exp.Count):
            row[label] = 0
        else:
            row[label] = 1 if node.find(exp.Coalesce) is not None else None
    return row


def canned_row(sql: str) -> dict | None:
    """One row shaped like the statement's select list, as ``OracleConnection.query`` returns
    it (lower-case keys, CLOBs read as text), or None for a statement without rows."""
    columns = select_columns(sql)
    if not columns:
        return None
    return {label.lower(): sample(kind, label, lobs_as_text=True) for label, kind in columns}


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
        self.sent.append((sql, used_binds(sql, dict(binds or {}))))
        if self.rows is not None:
            return [dict(r) for r in self.rows]
        row = canned_row(sql)
        return [row] if row else []

    def execute(self, sql: str, binds=None) -> int:
        self.sent.append((sql, used_binds(sql, dict(binds or {}))))
        return 1

    def insert(self, sql: str, binds=None) -> int:
        sql = f"{sql} RETURNING id INTO :new_id"
        self.sent.append((sql, used_binds(sql, {**(binds or {}), "new_id": 0})))
        return 7

    def close(self) -> None:
        return None
