"""Stored PL/SQL and views: compilation errors raised, unchanged source not created again.

python-oracledb does not raise when ``CREATE PROCEDURE`` / ``PACKAGE [BODY]`` / ``VIEW``
succeeds *with compilation errors*: the statement returns and ``cursor.warning`` holds
DPY-7000 ("creation succeeded with compilation errors"); the lines are in ``USER_ERRORS``
(python-oracledb 26 user guide, "PL/SQL Compilation Warnings",
https://python-oracledb.readthedocs.io/en/latest/user_guide/plsql_execution.html; Database
Reference 23, USER_ERRORS: NAME, TYPE, SEQUENCE, LINE, POSITION, TEXT). An invalid identity
package would break every query on the protected tables, an invalid catalog-watch procedure
would fail at every run of its job, unseen: :func:`run_ddl` raises instead.

``CREATE OR REPLACE PACKAGE [BODY]`` discards the state of every session that holds the
package: its next call raises ORA-04068 ("existing state of packages has been discarded",
PL/SQL Language Reference 23, "Package State"), and the identity a read-only session bound is
gone. :func:`create_unless_unchanged` skips the statement when ``USER_SOURCE`` (Database
Reference 23, USER_SOURCE: NAME, TYPE, LINE, TEXT, the stored unit from its ``PACKAGE`` /
``PROCEDURE`` keyword on) already holds the same text.
"""

from __future__ import annotations

import re

from agent_harness.backends.errors import BackendError

__all__ = [
    "CompilationFailed",
    "ERRORS_SQL",
    "SOURCE_SQL",
    "compiled_unit",
    "create_unless_unchanged",
    "run_ddl",
    "same_source",
]

#: The compiler's messages for one unit, in order (USER_ERRORS).
ERRORS_SQL = (
    "SELECT line, position, text FROM user_errors WHERE name = :name AND type = :kind"
    " ORDER BY sequence"
)
#: The stored text of one unit, line by line (USER_SOURCE).
SOURCE_SQL = "SELECT text FROM user_source WHERE name = :name AND type = :kind ORDER BY line"

_UNIT = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:NON)?EDITIONABLE\s+)?"
    r"(?P<kind>PACKAGE\s+BODY|PACKAGE|PROCEDURE|FUNCTION|TRIGGER|TYPE\s+BODY|TYPE"
    r"|(?:FORCE\s+)?(?:JSON\s+RELATIONAL\s+DUALITY\s+)?VIEW)\s+"
    r"(?:IF\s+NOT\s+EXISTS\s+)?(?:(?P<schema>\w+)\.)?(?P<name>\w+)",
    re.IGNORECASE,
)


class CompilationFailed(BackendError):
    """A PL/SQL unit or a view was created with compilation errors (DPY-7000)."""


def compiled_unit(sql: str) -> tuple[str, str] | None:
    """``(TYPE, NAME)`` as USER_ERRORS / USER_SOURCE name the unit a DDL creates (a view,
    duality views included, is TYPE ``VIEW``), or None for any other statement."""
    found = _UNIT.match(sql)
    if found is None:
        return None
    kind = " ".join(found.group("kind").upper().split())
    if kind.endswith("VIEW"):
        kind = "VIEW"
    return kind, found.group("name").upper()


def run_ddl(cur, sql: str) -> None:
    """Run one DDL statement or PL/SQL block; raise when it compiled with errors.

    Raises:
        CompilationFailed: ``cursor.warning`` is DPY-7000; the message lists USER_ERRORS.
    """
    cur.execute(sql)
    warning = cur.warning
    if warning is None or getattr(warning, "full_code", "") != "DPY-7000":
        return
    unit = compiled_unit(sql)
    kind, name = unit or ("", "")
    lines = []
    if unit is not None:
        cur.execute(ERRORS_SQL, {"name": name, "kind": kind})
        lines = [f"line {ln}, column {col}: {text}" for ln, col, text in cur.fetchall()]
    where = f"{kind.lower()} {name}" if unit else "the statement"
    raise CompilationFailed(
        f"{where} was created with compilation errors ({warning}): "
        + ("; ".join(lines) or "USER_ERRORS lists nothing")
        + ". It is stored but INVALID: fix the source and run `workshop setup --backend"
        " oracle` again."
    )


def _normal(text: str) -> str:
    """Text compared without its layout: whitespace collapsed, case folded."""
    return " ".join(text.split()).upper()


def same_source(stored_lines: list[str], sql: str) -> bool:
    """True when USER_SOURCE's lines hold the unit ``sql`` creates (layout and case aside;
    USER_SOURCE starts at the ``PACKAGE`` / ``PROCEDURE`` keyword, without ``CREATE OR
    REPLACE``)."""
    unit = _UNIT.match(sql)
    if unit is None or not stored_lines:
        return False
    created = sql[unit.start("kind") :]
    return _normal("".join(stored_lines)) == _normal(created)


def create_unless_unchanged(cur, sql: str) -> bool:
    """Run ``CREATE OR REPLACE`` of a stored unit only when USER_SOURCE differs; True when
    it ran. Sessions bound to the package keep their state when nothing changed."""
    unit = compiled_unit(sql)
    if unit is not None:
        kind, name = unit
        cur.execute(SOURCE_SQL, {"name": name, "kind": kind})
        if same_source([row[0] for row in cur.fetchall()], sql):
            return False
    run_ddl(cur, sql)
    return True
