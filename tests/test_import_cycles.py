"""No import cycles anywhere in the agent_harness package.

The rule (what counts as an import of module A by module B):

* every ``import agent_harness.x`` / ``from agent_harness.x import y`` statement in B's source,
  wherever it stands: at module level, inside a function or method, under ``if``/``try``. A
  function-local import that dodges a cycle at run time is still a cycle here: the two modules
  still need each other. A local import of a module of the package is fine when it closes no
  cycle (e.g. loading the LLM client or the MCP client only when used);
* ``from package import name`` is an import of ``package.name`` when that is a module, else of
  the package itself (its ``__init__``): a submodule that takes a name from its own package's
  ``__init__`` depends on that ``__init__``;
* imports of other distributions (``oracledb``, ``mcp``, ``openai``, ...) are not edges: a lazy
  import of an optional dependency cannot make a cycle in the package;
* a package being initialised before its submodules (Python imports ``agent_harness`` before
  ``agent_harness.tools.registry``) is not an edge: that is how packages load, whatever the code
  says. A package ``__init__`` that re-exports its submodules' names is therefore fine, as long
  as no submodule imports names back from it.

A cycle is a set of two or more modules each reachable from the others along these edges.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` (its ``__init__`` named as the package), by dotted name."""
    found = {}
    for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported_modules(name: str, path: Path, modules: Iterable[str]) -> set[str]:
    """The modules of the package that ``name`` (stored at ``path``) imports, by the rule in
    this file's docstring."""
    modules = set(modules)
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x, from ..y import z
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                for alias in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    modules = module_names(root, package)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: groups of modules that all reach each other, each sorted."""
    reach = {}
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                todo.extend(graph.get(module, ()))
        reach[start] = seen
    groups = {
        frozenset({m, *(n for n in reach[m] if m in reach[n])}) for m in graph if m in reach[m]
    }
    return sorted(sorted(group) for group in groups)


def test_agent_harness_has_no_import_cycles():
    graph = import_graph(ROOT, "agent_harness")
    assert len(graph) > 100  # the walk found the package
    found = cycles(graph)
    in_backends = [c for c in found if all(m.startswith("agent_harness.backends.") for m in c)]
    assert not found, (
        f"{len(found)} import cycle(s) in agent_harness ({len(in_backends)} inside backends/): "
        + "; ".join(" <-> ".join(c) for c in found)
        + ". Break each one: move what both modules need into a third module they both import"
    )


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write a small package tree for a test (``{relative path: text}``)."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_walk_finds_a_cycle_hidden_in_a_function(tmp_path):
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import f\n",
            "pkg/a.py": "def f():\n    from pkg import b\n    return b\n",
            "pkg/b.py": "from pkg.a import f\n",
            "pkg/c.py": "import pkg.b\nimport json\n",
        },
    )
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.c"] == {"pkg.b"}  # json is not in the package
    assert cycles(graph) == [["pkg.a", "pkg.b"]]  # the package's __init__ re-export is fine


def test_a_name_imported_back_from_the_package_init_is_a_cycle(tmp_path):
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.sub.x import X\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/x.py": "from pkg import helper\nX = 1\n",
            "pkg/helper.py": "def helper():\n    return 1\n",
        },
    )
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.sub.x"] == {"pkg.helper"}  # helper is a module: an edge to it
    write_files(tmp_path, {"pkg/sub/x.py": "from pkg import X as Y\nX = 1\n"})
    assert cycles(import_graph(tmp_path, "pkg")) == [["pkg", "pkg.sub.x"]]
