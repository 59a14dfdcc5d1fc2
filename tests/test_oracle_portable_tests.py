"""Tests that run on Oracle send SQL that Oracle reads, and no Oracle variant is a dead one.

A test runs under ``-m oracle`` (the GitHub Actions Oracle job) when it carries the ``oracle``
mark, directly or through a parametrisation, or uses a fixture that depends on
``backend_name`` (parametrised over both backends in conftest.py) or ``oracle_harness``. The
SQL such a test sends must run on both backends: no ``LIMIT``, ``ON CONFLICT``, ``strftime``
or any other syntax of :data:`tests.oracle_floor.SQLITE_ONLY` in the text it builds. And none
of them may skip itself on the Oracle variant (``if backend != "embedded": pytest.skip``): such
a variant is collected everywhere and can run nowhere.

Read statically (the source of each test, the fixtures it depends on and the module's
constants and helpers it names), so this runs in a second; collecting the suite with ``-m
oracle`` would take a minute.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.oracle_floor import SQLITE_ONLY

TESTS = Path(__file__).resolve().parent
ORACLE_FIXTURES = {"backend_name", "oracle_harness"}
# Corpora of statements sent to be refused (run_sql's hostile SQL): SQLite syntax on purpose.
REFUSED_ON_PURPOSE = {"HOSTILE", "ORACLE_HOSTILE"}
# A parametrised argument of this name holds values bound as data, never sent as SQL.
BOUND_AS_DATA = "hostile"
_LOOKS_LIKE_SQL = re.compile(
    r"\b(SELECT|INSERT|UPDATE|DELETE|MERGE|FROM|WHERE|VALUES|ORDER BY)\b|(?<![:\w]):[A-Za-z_]\w*",
    re.IGNORECASE,
)


@dataclass
class Module:
    """One test module's top-level names."""

    path: Path
    tree: ast.Module
    fixtures: dict[str, ast.FunctionDef] = field(default_factory=dict)
    helpers: dict[str, ast.AST] = field(default_factory=dict)
    tests: list[ast.FunctionDef] = field(default_factory=list)
    oracle_module: bool = False


def _is_fixture(node: ast.FunctionDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Attribute) and target.attr == "fixture":
            return True
    return False


def _mentions_oracle_mark(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr == "oracle":
            return True
        if isinstance(n, ast.Name) and n.id in ("ORACLE", "BACKENDS"):
            return True
    return False


def _module(path: Path, source: str | None = None) -> Module:
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    module = Module(path, tree)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _is_fixture(node):
                module.fixtures[node.name] = node
            elif node.name.startswith("test_"):
                module.tests.append(node)
            else:
                module.helpers[node.name] = node
        elif isinstance(node, ast.ClassDef):
            module.tests += [
                n
                for n in node.body
                if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")
            ]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    module.helpers[target.id] = node
                    if target.id == "pytestmark" and _mentions_oracle_mark(node):
                        module.oracle_module = True
    return module


CONFTEST = _module(TESTS / "conftest.py")
MODULES = [_module(p) for p in sorted(TESTS.glob("test_*.py"))]


def _fixture(module: Module, name: str) -> ast.FunctionDef | None:
    return module.fixtures.get(name) or CONFTEST.fixtures.get(name)


def _args(node: ast.FunctionDef) -> list[str]:
    return [a.arg for a in node.args.args]


def _runs_on_oracle(module: Module, name: str, seen: frozenset = frozenset()) -> bool:
    """True when fixture ``name`` is (or depends on) an Oracle-parametrised fixture."""
    if name in ORACLE_FIXTURES:
        return True
    node = _fixture(module, name)
    if node is None or name in seen:
        return False
    return any(_runs_on_oracle(module, a, seen | {name}) for a in _args(node))


def _closure(module: Module, node: ast.FunctionDef) -> list[ast.AST]:
    """The test, the fixtures it depends on and the module-level names they use."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = [node]
    names_seen: set[str] = set()
    while todo:
        current = todo.pop()
        found.append(current)
        names = {n.id for n in ast.walk(current) if isinstance(n, ast.Name)}
        if isinstance(current, ast.FunctionDef):
            names |= set(_args(current))
        for name in names - names_seen - REFUSED_ON_PURPOSE:
            names_seen.add(name)
            target = _fixture(module, name) or module.helpers.get(name)
            if target is not None:
                todo.append(target)
    return found


def _data_only(node: ast.AST) -> set[int]:
    """Ids of the nodes of ``@pytest.mark.parametrize(BOUND_AS_DATA, [...])`` values."""
    found = set()
    for call in ast.walk(node):
        if (
            isinstance(call, ast.Call)
            and ast.unparse(call.func).endswith("parametrize")
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == BOUND_AS_DATA
        ):
            found |= {id(n) for a in call.args[1:] for n in ast.walk(a)}
    return found


def _strings(nodes: list[ast.AST]) -> list[str]:
    docstrings = {
        id(n.body[0].value)
        for n in nodes
        if isinstance(n, ast.FunctionDef) and ast.get_docstring(n) is not None
    }
    docstrings |= {i for node in nodes for i in _data_only(node)}
    return [
        n.value
        for node in nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]


def _skips_on_a_backend(node: ast.FunctionDef) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.If):
            compared = {c.value for c in ast.walk(n.test) if isinstance(c, ast.Constant)}
            skips = any(
                isinstance(c, ast.Call) and ast.unparse(c.func).endswith("skip")
                for s in n.body
                for c in ast.walk(s)
            )
            if skips and compared & {"embedded", "oracle"}:
                return True
    return False


def _oracle_tests() -> list[tuple[Module, ast.FunctionDef]]:
    return [
        (module, test)
        for module in MODULES
        for test in module.tests
        if module.oracle_module
        or _mentions_oracle_mark(ast.Module(body=test.decorator_list, type_ignores=[]))
        or any(_runs_on_oracle(module, a) for a in _args(test))
    ]


def test_the_scan_finds_the_oracle_variants():
    found = {f"{m.path.name}::{t.name}" for m, t in _oracle_tests()}
    assert "test_memory.py::test_delete_removes_text_vector_and_keyword_entries" in found  # seeded
    assert "test_oracle_backend.py::test_exec_js_runs_on_mle" in found  # the oracle mark
    assert "test_data_tools.py::test_hostile_text_is_only_ever_data" in found  # fresh_harness
    assert "test_oracle_portable_tests.py::test_the_scan_finds_the_oracle_variants" not in found
    assert len(found) > 100


def test_the_scan_sees_sqlite_only_text_and_dead_variants():
    source = """
import pytest
@pytest.fixture
def h(fresh_harness, backend_name):
    if backend_name != "embedded":
        pytest.skip("embedded only")
    return fresh_harness
LIMITED = "SELECT name FROM t ORDER BY name"
def test_x(h):
    h.query(LIMITED + " LIMIT :n")
"""
    module = _module(Path("test_example.py"), source)
    [test] = module.tests
    assert _runs_on_oracle(module, "h")
    assert [s for s in _strings(_closure(module, test)) if SQLITE_ONLY.search(s)] == [" LIMIT :n"]
    assert _skips_on_a_backend(module.fixtures["h"])


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.path.name)
def test_no_test_that_runs_on_oracle_sends_sqlite_only_sql(module):
    found = []
    for m, test in _oracle_tests():
        if m is not module:
            continue
        for text in _strings(_closure(module, test)):
            match = SQLITE_ONLY.search(text)
            if match and _LOOKS_LIKE_SQL.search(text):
                found.append(f"{test.name}: {match.group(0)!r} in {text[:120]!r}")
    assert not found, "SQL only SQLite reads, in tests that also run on Oracle:\n" + "\n".join(
        found
    )


def test_no_oracle_variant_skips_itself():
    dead = []
    for module in [CONFTEST, *MODULES]:
        for name, node in module.fixtures.items():
            if _runs_on_oracle(module, name) and _skips_on_a_backend(node):
                dead.append(f"{module.path.name}: fixture {name}")
        for test in module.tests:
            oracle = any(_runs_on_oracle(module, a) for a in _args(test))
            if oracle and _skips_on_a_backend(test):
                dead.append(f"{module.path.name}: {test.name}")
    assert not dead, (
        "these Oracle variants are collected and skip themselves (they can run nowhere):"
        f" {dead}; take the fixture off backend_name or make the test run on both"
    )
