"""Will a statement written on the embedded backend also run on Oracle? An offline check.

The workshop's TODO statements run on SQLite here and must also run on Oracle (the target
backend), so their TODO text asks for portable SQL: no ``LIMIT``, no ``RECURSIVE`` keyword,
the recursive anchor's growing path ``CAST`` to ``VARCHAR(4000)``, ``CASE`` and 1/0 rather
than boolean values. SQLite accepts all of those, so nothing told an attendee when a
statement would fail on Oracle. :func:`oracle_problems` parses the statement with an Oracle SQL
parser (sqlglot's ``oracle`` dialect: a parser this project did not write, the one the Oracle
backend's offline tests use) and names each construct Oracle rejects, with what to write
instead; :func:`assert_portable` turns them into one check a notebook can run.

It checks what the workshop's statements can get wrong, not all of Oracle's grammar: a clean
result does not prove a statement runs on Oracle (only Oracle can), a problem it names does
not run there.
"""

from __future__ import annotations

import re
import warnings

import sqlglot
import sqlglot.dialects.oracle  # noqa: F401 - loaded now (a warm grader runner imports this)
from sqlglot import exp

__all__ = ["assert_portable", "oracle_problems"]

#: SQLite functions and syntax Oracle does not have, and what Oracle offers instead.
SQLITE_ONLY: tuple[tuple[str, str], ...] = (
    (r"\bIFNULL\s*\(", "IFNULL is SQLite's: use COALESCE"),
    (r"\bstrftime\s*\(", "strftime is SQLite's: compare the timestamps themselves"),
    (r"\bjulianday\s*\(", "julianday is SQLite's: subtract timestamps instead"),
    (r"\bprintf\s*\(", "printf is SQLite's: build text with || or TO_CHAR"),
    (r"\bGLOB\b", "GLOB is SQLite's: use LIKE"),
    (r"\bjson_extract\s*\(", "json_extract is SQLite's: use JSON_VALUE"),
    (r"\bdatetime\s*\(\s*'now'", "datetime('now') is SQLite's: use a bind value"),
    (r"\bsqlite_\w+", "sqlite_* tables and functions exist only in SQLite"),
)


def _code(sql: str) -> str:
    """The statement without string literals, quoted names and comments."""
    return re.sub(r"'(?:[^']|'')*'|\"[^\"]*\"|--[^\n]*|/\*.*?\*/", "''", sql, flags=re.S)


def oracle_problems(sql: str) -> list[str]:
    """The constructs of ``sql`` that Oracle rejects, each named with what to write instead
    ([] when the parser finds none).

    Args:
        sql: One statement as sent to ``h.backend.query`` (bind variables ``:name`` allowed).
    """
    problems = [why for pattern, why in SQLITE_ONLY if re.search(pattern, _code(sql), re.I)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sqlglot warns before falling back to Command
            tree = sqlglot.parse_one(sql, read="oracle")
    except sqlglot.errors.SqlglotError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        return [*problems, f"an Oracle SQL parser cannot read it ({first})"]
    if not isinstance(tree, (exp.Query, exp.DML)):
        return [*problems, "an Oracle SQL parser does not read it as one statement"]
    if tree.find(exp.Limit) is not None or tree.find(exp.Offset) is not None:
        problems.append(
            "LIMIT: Oracle has no LIMIT (keep the rows you want with ROW_NUMBER() or a WHERE "
            "clause, or the backend's TOP_K piece where the TODO offers one)"
        )
    for with_ in tree.find_all(exp.With):
        if with_.args.get("recursive"):
            problems.append(
                "WITH RECURSIVE: Oracle rejects the RECURSIVE keyword; write the column list "
                "instead, e.g. WITH walk (skill, path) AS (...)"
            )
            break
    if tree.find(exp.GroupConcat) is not None:
        problems.append("GROUP_CONCAT is SQLite's: use LISTAGG")
    problems += _untyped_anchors(tree)
    problems += _boolean_values(tree)
    return problems


def _untyped_anchors(tree) -> list[str]:
    """Recursive WITH columns that grow with ``||`` while their anchor is not CAST long:
    Oracle types the column from the anchor, and the growing path no longer fits."""
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
            built = built.this if isinstance(built, exp.Alias) else built
            if not isinstance(built, exp.DPipe) or position >= len(anchor.expressions):
                continue  # only a column built by || (a path that grows) needs the room
            start = anchor.expressions[position]
            start = start.this if isinstance(start, exp.Alias) else start
            if not (isinstance(start, exp.Cast) and _long_enough(start.to)):
                found.append(
                    f"the recursive WITH {name}: column {position + 1} grows with || but its "
                    f"anchor {start.sql(dialect='oracle')} is not CAST(... AS VARCHAR(4000)) "
                    "(Oracle gives the column the anchor's type and the longer path no longer "
                    "fits)"
                )
    return found


def _long_enough(to) -> bool:
    if to.this == exp.DataType.Type.TEXT:
        return True
    sizes = [int(e.name) for e in to.expressions if e.name.isdigit()]
    return bool(sizes) and sizes[0] >= 4000


def _boolean_values(tree) -> list[str]:
    """TRUE/FALSE literals, and comparisons used as a value (a selected column), which
    Oracle before 23ai rejects: the TODOs ask for CASE and 1/0."""
    found = []
    if tree.find(exp.Boolean) is not None:
        found.append("TRUE/FALSE: use 1 and 0 (Oracle before 23ai has no boolean values)")
    for select in tree.find_all(exp.Select):
        for column in select.expressions:
            value = column.this if isinstance(column, exp.Alias) else column
            if isinstance(value, (exp.Predicate, exp.Not, exp.And, exp.Or)):
                found.append(
                    f"the condition {value.sql(dialect='oracle')} as a selected value: use "
                    "CASE WHEN ... THEN 1 ELSE 0 END (Oracle before 23ai has no boolean values)"
                )
    return found


def assert_portable(sql: str, what: str = "your statement") -> None:
    """Raise an AssertionError naming every construct of ``sql`` that Oracle rejects.

    Args:
        sql: The statement.
        what: How the message names it (e.g. ``"tool_stats's statement"``).
    """
    problems = oracle_problems(sql)
    assert not problems, (
        f"{what} runs on SQLite but not on Oracle, the workshop's other backend: "
        + "; ".join(problems)
    )
