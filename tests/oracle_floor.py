"""The offline floor under the Oracle statements: check them, and say what each one returns.

No Oracle database runs here, so every statement the Oracle backend sends is checked without
one (:func:`check_statement`):

* **binds**: every placeholder it uses is matched by exactly one value (python-oracledb refuses
  a missing one with ORA-01008 and an unknown name with DPY-4008; positional ``:1, :2`` count
  too) and no bind name is an Oracle reserved word (ORA-01745);
* **names**: no unquoted identifier (a column, a table, an alias) is an Oracle reserved word;
* **syntax**: it holds no SQLite-only syntax and parses with sqlglot's Oracle dialect (a parser
  this project did not write), after the rewrites in :data:`PARSER_GAPS` for constructs sqlglot
  does not know; PL/SQL (:data:`PLSQL_READ`: anonymous blocks, packages, procedures) parses
  with a PL/SQL grammar instead (sqlfluff's Oracle dialect, ``tests/oracle_plsql.py``); a
  statement no grammar reads must be one of :data:`NOT_PARSED`. A fallback of sqlglot to an
  unparsed ``Command`` counts as not read. Each rewrite and each exception names the
  documentation section that settles the original.

What a statement returns, for the fakes that answer it, is in ``tests/oracle_rows.py``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any

import sqlglot
from sqlglot import exp

from tests.oracle_plsql import plsql_problems

__all__ = [
    "NOT_PARSED",
    "ORACLE_RESERVED",
    "PLSQL_READ",
    "PARSER_GAPS",
    "SQLITE_ONLY",
    "bind_names",
    "check_statement",
    "not_parsed",
    "oracle_parse",
    "text_problems",
    "unread",
    "untyped_recursive_anchors",
]

SQLITE_ONLY = re.compile(
    r"(?<!:)\bLIMIT\b|strftime|json_valid|json_extract|printf|vec_distance|\bIFNULL\b"
    r"|ON CONFLICT|\bexcluded\.|RETURNING id\b(?! INTO)|\|\| char\(|\bMATERIALIZED\b"
    r"|WITH RECURSIVE|\bMATCH :q|\bINSERT OR\b|\bREPLACE INTO\b|\bGLOB\b"
    r"|\bPRAGMA\b(?! AUTONOMOUS_TRANSACTION)"
    r"|\bAUTOINCREMENT\b|sqlite_|\bjulianday\(|datetime\('now",
    re.IGNORECASE,
)

# SQL Language Reference 23, "Oracle SQL Reserved Words" (Appendix D): the words ORA-01745
# refuses as bind names and ORA-00904 as unquoted names.
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
# Reserved words that are also pseudocolumns or functions a statement may use as such.
_PSEUDOCOLUMNS = frozenset({"USER", "SYSDATE", "ROWNUM", "ROWID", "LEVEL", "UID"})

#: Constructs sqlglot's Oracle dialect cannot read, rewritten before parsing; each keeps the
#: statement's shape and names the documentation that settles the original.
PARSER_GAPS: list[tuple[re.Pattern, str, str]] = [
    (
        re.compile(r"FETCH APPROX FIRST", re.IGNORECASE),
        "FETCH FIRST",
        "SQL Language Reference 23, SELECT, row_limiting_clause: FETCH APPROX FIRST",
    ),
    (
        re.compile(
            r"\s+RETURNING\s+(CLOB|NUMBER(?:\s+NULL\s+ON\s+ERROR)?"
            r"|VARCHAR2\(\d+\)(?:\s+NULL\s+ON\s+ERROR)?)\)",
            re.IGNORECASE,
        ),
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
    (
        re.compile(r"\bVECTOR\(\d+, FLOAT32\)"),
        "VECTOR",
        "SQL Language Reference 23, Data Types: VECTOR (number_of_dimensions, FLOAT32)",
    ),
    (
        re.compile(r"^CREATE VECTOR INDEX (.*?)\s+ORGANIZATION INMEMORY NEIGHBOR GRAPH.*$", re.S),
        r"CREATE INDEX \1",
        "SQL Language Reference 23, CREATE VECTOR INDEX (ORGANIZATION INMEMORY NEIGHBOR GRAPH,"
        " DISTANCE, WITH TARGET ACCURACY)",
    ),
    (
        re.compile(r"\s+INDEXTYPE IS CTXSYS\.CONTEXT PARAMETERS \('[^']*'\)$"),
        "",
        "Oracle Text Reference 26, CREATE INDEX: CONTEXT index type, PARAMETERS clause",
    ),
    (
        re.compile(r"\s+INVISIBLE\b"),
        "",
        "SQL Language Reference 23, CREATE TABLE, column_definition: VISIBLE | INVISIBLE",
    ),
    (
        re.compile(r"(?<![:\w]):(\d+)\b"),
        r":b\1",
        "python-oracledb 26, Using Bind Variables: binding by position (:1, :2, ...)",
    ),
]

#: PL/SQL, which sqlglot does not read: read instead by a PL/SQL grammar (sqlfluff's Oracle
#: dialect, ``tests/oracle_plsql.py``), after its own rewrites (``PLSQL_GAPS`` there).
PLSQL_READ: list[tuple[re.Pattern, str]] = [
    (
        re.compile(r"^\s*(DECLARE|BEGIN)\b"),
        "PL/SQL Language Reference 23, Blocks (anonymous PL/SQL calling CTX_DDL: Oracle Text"
        " Reference 26, CTX_DDL Package; DBMS_VECTOR.LOAD_ONNX_MODEL and DBMS_MLE: PL/SQL"
        " Packages and Types Reference 23; m011's cursor FOR LOOP)",
    ),
    (
        re.compile(r"^\s*CREATE OR REPLACE (PACKAGE|PACKAGE BODY|PROCEDURE)\b"),
        "PL/SQL Language Reference 23, CREATE PACKAGE, CREATE PACKAGE BODY, CREATE PROCEDURE"
        " (issue 21: the identity package behind the VPD policies, the catalog watch)",
    ),
]

#: Statements no grammar of the package registries reads (not even after a rewrite), by their
#: start; their binds and SQLite-only syntax are still checked.
NOT_PARSED: list[tuple[re.Pattern, str]] = [
    (
        re.compile(r"^\s*CREATE PROPERTY GRAPH\b"),
        "SQL Language Reference 26, CREATE PROPERTY GRAPH",
    ),
    (re.compile(r"^\s*CREATE MLE ENV\b"), "SQL Language Reference 23, CREATE MLE ENV"),
    (
        re.compile(r"^\s*ALTER SESSION SET (CURRENT_SCHEMA|recyclebin)\b"),
        "SQL Language Reference 23, ALTER SESSION: CURRENT_SCHEMA; Database Reference 23,"
        " RECYCLEBIN (session-modifiable)",
    ),
    (
        re.compile(r"^\s*CREATE OR REPLACE JSON RELATIONAL DUALITY VIEW\b"),
        "SQL Language Reference 26, CREATE JSON RELATIONAL DUALITY VIEW (SELECT JSON {...}"
        " with WITH UPDATE / WITH NOUPDATE annotations)",
    ),
    (
        re.compile(r"^\s*SAVEPOINT \w+$"),
        "SQL Language Reference 23, SAVEPOINT (sqlglot reads it as a column alias)",
    ),
]

_STATEMENTS = (
    exp.Select,
    exp.Union,
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.Comment,
    exp.Grant,
    exp.Rollback,
    exp.Commit,
)


def _rewritten(sql: str) -> str:
    sql = sql.strip()
    for pattern, replacement, _doc in PARSER_GAPS:
        sql = pattern.sub(replacement, sql)
    return sql


def not_parsed(sql: str) -> str | None:
    """The documentation entry of :data:`NOT_PARSED` or :data:`PLSQL_READ` that covers this
    statement, if any: sqlglot does not read it."""
    return next((doc for pattern, doc in NOT_PARSED + PLSQL_READ if pattern.match(sql)), None)


def unread(sql: str) -> str | None:
    """The entry of :data:`NOT_PARSED` that covers this statement: no grammar reads it."""
    return next((doc for pattern, doc in NOT_PARSED if pattern.match(sql)), None)


def oracle_parse(sql: str) -> exp.Expression:
    """The statement as sqlglot's Oracle dialect reads it (after :data:`PARSER_GAPS`).

    Raises:
        sqlglot.errors.ParseError: sqlglot cannot read it, or fell back to a ``Command``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sqlglot warns before falling back to Command
        tree = sqlglot.parse_one(_rewritten(sql), read="oracle")
    if not isinstance(tree, _STATEMENTS):
        raise sqlglot.errors.ParseError(
            f"read as {type(tree).__name__}, not as a statement: sqlglot does not know it"
        )
    return tree


def bind_names(sql: str) -> list[str]:
    """The statement's placeholders in order of first use, lower case (``1`` for ``:1``).

    Placeholders inside string literals, quoted names and comments do not count, nor do
    PL/SQL's ``:=`` and the ``::`` of a cast.
    """
    code = re.sub(r"'(?:[^']|'')*'|\"[^\"]*\"|--[^\n]*|/\*.*?\*/", "''", sql, flags=re.S)
    found = re.findall(r"(?<![:\w]):([A-Za-z_]\w*|\d+)", code)
    return list(dict.fromkeys(n.lower() for n in found))


def _unquoted_names(tree: exp.Expression) -> set[str]:
    names = set()
    for ident in tree.find_all(exp.Identifier):
        if ident.quoted:
            continue
        parent = ident.parent
        if isinstance(parent, exp.Column) and ident.name.upper() in _PSEUDOCOLUMNS:
            continue
        names.add(ident.name.upper())
    return names


def check_statement(sql: str, binds: Any) -> list[str]:
    """What is wrong with one statement and its bind values ([] when nothing is).

    Args:
        sql: The statement as sent.
        binds: Its values: a mapping by name, a sequence by position, or None.
    """
    problems = []
    names = bind_names(sql)
    if isinstance(binds, Mapping):
        given = [str(k).lower() for k in binds]
        if missing := [n for n in names if n not in given]:
            problems.append(f"unbound {missing}")
        if extra := [g for g in given if g not in names]:
            problems.append(f"values for no placeholder {extra} (DPY-4008)")
        if len(set(given)) != len(given):
            problems.append(f"one placeholder bound twice {given}")
    elif binds is not None:
        if len(names) != len(binds):
            problems.append(f"{len(names)} placeholders, {len(binds)} values")
    elif names:
        problems.append(f"unbound {names}")
    return problems + list(text_problems(sql))


@cache
def text_problems(sql: str) -> tuple[str, ...]:
    """What is wrong with a statement's text, whatever its values (cached: a statement sent
    once per row is read once)."""
    problems = []
    names = bind_names(sql)
    if reserved := [n for n in names if n.upper() in ORACLE_RESERVED or n.startswith("_")]:
        problems.append(f"reserved bind names {reserved} (ORA-01745)")
    if found := SQLITE_ONLY.search(sql):
        problems.append(f"SQLite syntax {found.group(0)!r}")
    if any(pattern.match(sql) for pattern, _doc in PLSQL_READ):
        problems += [f"does not parse as PL/SQL: {p}" for p in plsql_problems(sql)]
        return tuple(problems)
    if not_parsed(sql):
        return tuple(problems)
    try:
        tree = oracle_parse(sql)
    except sqlglot.errors.SqlglotError as e:
        problems.append(f"does not parse as Oracle SQL: {str(e).splitlines()[0]}")
        return tuple(problems)
    if reserved := sorted(_unquoted_names(tree) & ORACLE_RESERVED):
        problems.append(f"reserved words as unquoted names {reserved}")
    problems += untyped_recursive_anchors(tree)
    return tuple(problems)


def untyped_recursive_anchors(tree: exp.Expression) -> list[str]:
    """Recursive WITH columns whose anchor leaves their type to a short expression.

    A recursive WITH takes its column types from the anchor member (SQL Language Reference 23,
    SELECT, subquery_factoring_clause: "the data types of the columns of the recursive member
    must match those of the anchor"), so a column the recursive member builds longer with
    ``||`` must be CAST to a long enough type in the anchor (ORA-01489 / ORA-12899 otherwise).
    """
    found = []
    for cte in tree.find_all(exp.CTE):
        union = cte.this
        if not isinstance(union, exp.Union):
            continue
        name = cte.alias_or_name.lower()
        recursive = union.right
        if not any(t.name.lower() == name for t in recursive.find_all(exp.Table)):
            continue
        anchor = union.left
        while isinstance(anchor, exp.Union):
            anchor = anchor.left
        for position, built in enumerate(recursive.expressions):
            if built.find(exp.DPipe) is None or position >= len(anchor.expressions):
                continue
            start = anchor.expressions[position]
            start = start.this if isinstance(start, exp.Alias) else start
            if not (isinstance(start, exp.Cast) and _long_enough(start.to)):
                found.append(
                    f"recursive WITH {name}: column {position + 1} grows with || but its anchor"
                    f" {start.sql(dialect='oracle')} is not CAST to VARCHAR2(4000)"
                )
    return found


def _long_enough(to: exp.DataType) -> bool:
    if to.this in (exp.DataType.Type.TEXT,):
        return True
    sizes = [int(e.name) for e in to.expressions if e.name.isdigit()]
    return bool(sizes) and sizes[0] >= 4000
