"""PL/SQL read by a real PL/SQL grammar: sqlfluff's Oracle dialect (PyPI, a project this one
did not write), for the blocks sqlglot cannot read (anonymous blocks, packages, procedures).

Chosen after trying three grammars from the package registries on every block the backend
sends (issue 26):

* **sqlfluff 4.5, ``oracle`` dialect** (PyPI): reads every block but one, which it reads after
  the rewrite in :data:`PLSQL_GAPS`; refuses a misspelt keyword, an ``IF`` without ``END IF``,
  a block without ``END``. Kept.
* **antlr-plsql 0.9.1** (PyPI, an ANTLR4 PL/SQL grammar from 2019): does not install (it pins
  PyYAML 5.4.1, which no longer builds); installed without it, its grammar has no anonymous
  blocks at the top level and took 14 s for the catalog-watch procedure.
* **antlr4ts-sql 1.1.0** (npm, the grammars-v4 ``PlSqlParser`` prebuilt): reads every block
  and is stricter than sqlfluff (it refuses ``BEGIN x(1) y(2); END;``, which sqlfluff
  accepts), but needs Node.js, an ``npm install`` and ``antlr4ts`` pinned to 0.5.0-alpha.4
  on every machine that runs the suite.

None of them reads 23ai's ``CREATE JSON RELATIONAL DUALITY VIEW ... SELECT JSON {...}``: those
two statements stay in ``oracle_floor.NOT_PARSED`` with that reason.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["PLSQL_GAPS", "is_plsql", "plsql_problems"]

#: Constructs sqlfluff's Oracle dialect cannot read, rewritten before parsing; each names the
#: documentation that settles the original.
PLSQL_GAPS: list[tuple[re.Pattern, str, str]] = [
    (
        re.compile(r"\bDBMS_LOB\.SESSION\b", re.IGNORECASE),
        "DBMS_LOB.SESSION_",
        "PL/SQL Packages and Types Reference 23, DBMS_LOB constants (SESSION, CALL: the"
        " duration of a temporary LOB): sqlfluff reads SESSION as a keyword after the dot",
    ),
]

_PLSQL = re.compile(
    r"^\s*(DECLARE|BEGIN|CREATE\s+(OR\s+REPLACE\s+)?(EDITIONABLE\s+)?"
    r"(PACKAGE|PROCEDURE|FUNCTION|TRIGGER|TYPE)\b)",
    re.IGNORECASE,
)


def is_plsql(sql: str) -> bool:
    """True for an anonymous block or the CREATE of a stored PL/SQL unit."""
    return bool(_PLSQL.match(sql))


@cache
def _linter():
    from sqlfluff.core import FluffConfig, Linter

    return Linter(config=FluffConfig(overrides={"dialect": "oracle"}))


@cache
def plsql_problems(sql: str) -> tuple[str, ...]:
    """What the PL/SQL grammar cannot read in ``sql`` (``()`` when it reads all of it).

    Each problem is ``"line L, column C: message"``, as USER_ERRORS would place it.
    """
    text = sql
    for pattern, replacement, _doc in PLSQL_GAPS:
        text = pattern.sub(replacement, text)
    if not text.rstrip().endswith(";"):
        text += ";"
    parsed = _linter().parse_string(text)
    problems = []
    for violation in parsed.violations:
        line = getattr(violation, "line_no", 0)
        column = getattr(violation, "line_pos", 0)
        problems.append(f"line {line}, column {column}: {violation.desc()[:200]}")
    return tuple(problems)
