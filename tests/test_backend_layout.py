"""One package per SQL dialect: every dialect-only statement lives in its backend's package, and
no module there outgrows the house limit. Static checks (run everywhere)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agent_harness"
BACKENDS = PACKAGE / "backends"

# Constructs only one dialect has (case-sensitive, as the code writes them).
DIALECT_ONLY = {
    "oracle": [
        r"FETCH APPROX",
        r"\bVECTOR_DISTANCE\(",
        r"\bVECTOR_EMBEDDING\(",
        r"\bCTXSYS\.",
        r"\bCTX_DDL\.",
        r"\bDBMS_[A-Z]+",
        r"\bCONTAINS\(",
        r"\bSCORE\(1\)",
        r"\bSYSTIMESTAMP\b",
        r"\bJSON_SERIALIZE\(",
        r"\bSDO_GEOMETRY\b",
        r"\bMERGE INTO\b",
        r"\bFROM dual\b",
        r"\bMLE ENV\b",
        r"\buser_tables\b",
    ],
    "embedded": [
        r"\bsqlite_schema\b",
        r"\bvec0\b",
        r"\bUSING fts5\(",
        r"\bMATCH :q",
        r"\bjson_extract\(",
        r"\bstrftime\(",
        r"\bPRAGMA\b(?! AUTONOMOUS_TRANSACTION)",  # PL/SQL has pragmas too
        r"\bATTACH DATABASE\b",
        r"\bpragma_table_info\(",
        r"\bLIMIT :",
    ],
}


def _docstring_ids(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def code_strings(path: Path) -> str:
    """Every string literal of a module but its docstrings (SQL is written as literals)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstring_ids(tree)
    return "\n".join(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
    )


def _hits(paths, patterns) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}: {pattern}"
        for path in paths
        for pattern in patterns
        if re.search(pattern, code_strings(path))
    ]


@pytest.mark.parametrize("dialect", sorted(DIALECT_ONLY))
def test_dialect_sql_lives_only_in_its_package(dialect):
    home = BACKENDS / dialect
    inside = sorted(home.rglob("*.py"))
    outside = [p for p in sorted(PACKAGE.rglob("*.py")) if home not in p.parents]
    assert inside and len(outside) > 20
    # Not vacuous: every pattern is found in the dialect's own package.
    found = {p.split(": ", 1)[1] for p in _hits(inside, DIALECT_ONLY[dialect])}
    assert found == set(DIALECT_ONLY[dialect]), set(DIALECT_ONLY[dialect]) - found
    offenders = _hits(outside, DIALECT_ONLY[dialect])
    assert not offenders, f"{dialect} SQL belongs in backends/{dialect}/: " + ", ".join(offenders)


def test_the_check_sees_sql_in_code_but_not_in_docstrings(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        '"""Docs may name VECTOR_DISTANCE( freely."""\n'
        "def f():\n"
        '    """Nor here: FETCH APPROX."""\n'
        '    return f"SELECT 1 FROM t ORDER BY VECTOR_DISTANCE(v, :qv, COSINE)"\n',
        encoding="utf-8",
    )
    assert re.search(r"\bVECTOR_DISTANCE\(", code_strings(module))
    assert "FETCH APPROX" not in code_strings(module)


@pytest.mark.parametrize("path", sorted(BACKENDS.rglob("*.py")), ids=lambda p: p.name)
def test_backend_modules_stay_small(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 400, f"{path.relative_to(ROOT)} has {lines} lines: split it by concern"


@pytest.mark.parametrize("dialect", ["embedded", "oracle"])
def test_each_dialect_package_has_the_same_concerns(dialect):
    modules = {p.stem for p in (BACKENDS / dialect).glob("*.py")}
    assert {"__init__", "backend", "connection", "migrations", "memory", "boxes"} <= modules
    assert {"supplychain", "readonly"} <= modules
