"""agent_harness and grader, together: no import cycle, and no import against the layer table.

The layer table is the one in docs/architecture.md (the first Markdown table whose first header
cell is ``layer``), read from the doc here, so the doc and the code cannot drift apart:

* a row is a layer, from the bottom up; its second cell names, in backticks, the folders and
  modules of that layer (``backends/``, ``memory.py``), relative to ``agent_harness/``, or to
  the project's root (``grader/``); a module belongs to the most specific entry that holds it;
* a module may import modules of its own layer and of the layers below it, never above;
* every module of both packages is in a layer (a new module is placed in the doc first).

What counts as an import is the rule of ``tests/test_import_cycles.py`` (function-local imports
included), applied to the two packages as one graph.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from tests.test_import_cycles import cycles, imported_modules, module_names, write_files

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent_harness", "grader")


@dataclass(frozen=True)
class Layer:
    name: str
    entries: tuple[str, ...]  # paths from the project's root: "agent_harness/backends/", ...


def layer_table(doc: Path, root: Path) -> list[Layer]:
    """The layers of the doc's table, bottom first. A backticked name that is no file or folder
    under ``agent_harness/`` or the root is prose, not an entry."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    start = next(
        (i for i, line in enumerate(lines) if re.match(r"\|\s*layer\s*\|", line)),
        None,
    )
    assert start is not None, f"{doc}: no table whose first header cell is 'layer'"
    layers = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        entries = []
        for name in re.findall(r"`([^`]+)`", cells[1]):
            for candidate in (f"agent_harness/{name}", name):
                if (root / candidate).exists():
                    folder = (root / candidate).is_dir()
                    entries.append(candidate.rstrip("/") + ("/" if folder else ""))
                    break
        layers.append(Layer(cells[0].strip("*").strip(), tuple(entries)))
    return layers


def layer_of(path: str, layers: list[Layer]) -> int | None:
    """The index of the layer whose most specific entry holds the file ``path``."""
    best, found = -1, None
    for index, layer in enumerate(layers):
        for entry in layer.entries:
            holds = path.startswith(entry) if entry.endswith("/") else path == entry
            if holds and len(entry) > best:
                best, found = len(entry), index
    return found


def graph_of(root: Path, packages: tuple[str, ...]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Module -> the modules of ``packages`` it imports; and module -> its file from the root."""
    modules: dict[str, Path] = {}
    for package in packages:
        modules.update(module_names(root, package))
    graph = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    files = {name: path.relative_to(root).as_posix() for name, path in modules.items()}
    return graph, files


def layer_problems(
    root: Path, doc: Path, packages: tuple[str, ...] = PACKAGES, allowed: frozenset = frozenset()
) -> tuple[list[str], list[str]]:
    """(modules in no layer, imports that run upward; each a sentence) of ``packages``."""
    layers = layer_table(doc, root)
    graph, files = graph_of(root, packages)
    where = {name: layer_of(path, layers) for name, path in files.items()}
    unplaced = sorted(f"{files[m]} ({m})" for m, index in where.items() if index is None)
    upward = sorted(
        f"{m} ({layers[where[m]].name}) imports {d} ({layers[where[d]].name})"
        for m, deps in graph.items()
        for d in deps
        if where[m] is not None
        and where[d] is not None
        and where[d] > where[m]
        and (m, d) not in allowed
    )
    return unplaced, upward


def test_no_import_cycle_in_agent_harness_and_grader_together():
    graph, _ = graph_of(ROOT, PACKAGES)
    assert len(graph) > 150  # the walk found both packages
    found = cycles(graph)
    assert not found, (
        f"{len(found)} import cycle(s) across agent_harness and grader: "
        + "; ".join(" <-> ".join(c) for c in found)
        + ". Break each one: move what both modules need into a third module they both import"
    )


def test_every_module_is_in_a_layer_of_docs_architecture():
    unplaced, _ = layer_problems(ROOT, ROOT / "docs" / "architecture.md")
    assert not unplaced, (
        f"{len(unplaced)} module(s) in no layer of docs/architecture.md's table: "
        + ", ".join(unplaced)
        + ". Name each one (or its folder) in the row of the layer it belongs to"
    )


def test_no_import_runs_against_the_layer_table():
    _, upward = layer_problems(ROOT, ROOT / "docs" / "architecture.md")
    assert not upward, (
        f"{len(upward)} import(s) run upward against docs/architecture.md's layer table: "
        + "; ".join(upward)
        + ". Move what the lower module needs down, or the importing module up"
    )


TABLE = """# Layers

| layer | folders and modules | what |
|---|---|---|
| **base** | `pkg/base/`, `pkg/low.py`, `not-a-file.py` | the bottom |
| **top** | `pkg/` | the rest |

Prose after the table: `pkg/base/` again.
"""


def test_the_table_is_read_from_the_doc_and_the_most_specific_entry_wins(tmp_path):
    write_files(
        tmp_path,
        {
            "doc.md": TABLE,
            "pkg/__init__.py": "",
            "pkg/base/__init__.py": "",
            "pkg/base/a.py": "",
            "pkg/low.py": "",
            "pkg/high.py": "",
        },
    )
    layers = layer_table(tmp_path / "doc.md", tmp_path)
    assert layers == [Layer("base", ("pkg/base/", "pkg/low.py")), Layer("top", ("pkg/",))]
    assert layer_of("pkg/base/a.py", layers) == 0
    assert layer_of("pkg/low.py", layers) == 0
    assert layer_of("pkg/high.py", layers) == 1
    assert layer_of("other/x.py", layers) is None


def test_an_upward_import_hidden_in_a_function_is_found(tmp_path):
    write_files(
        tmp_path,
        {
            "doc.md": TABLE,
            "pkg/__init__.py": "",
            "pkg/base/__init__.py": "",
            "pkg/base/a.py": "def f():\n    from pkg import high\n    return high\n",
            "pkg/low.py": "from pkg.base import a\n",
            "pkg/high.py": "import pkg.low\n",
        },
    )
    unplaced, upward = layer_problems(tmp_path, tmp_path / "doc.md", ("pkg",))
    assert unplaced == []
    assert upward == ["pkg.base.a (base) imports pkg.high (top)"]
    allowed = frozenset({("pkg.base.a", "pkg.high")})
    assert layer_problems(tmp_path, tmp_path / "doc.md", ("pkg",), allowed) == ([], [])


def test_a_module_in_no_layer_is_reported(tmp_path):
    write_files(
        tmp_path,
        {
            "doc.md": TABLE.replace("| **top** | `pkg/` | the rest |\n", ""),
            "pkg/__init__.py": "",
            "pkg/base/__init__.py": "",
            "pkg/low.py": "",
            "pkg/high.py": "",
        },
    )
    unplaced, _ = layer_problems(tmp_path, tmp_path / "doc.md", ("pkg",))
    assert unplaced == ["pkg/__init__.py (pkg)", "pkg/high.py (pkg.high)"]


#: Names that meant two things (issue 29): each is now defined in one module of agent_harness.
ONE_MEANING = ("ALWAYS_ON", "STARTER_TOOLS", "Provenance", "ToolCall", "ToolResult", "STAGES")


def _top_level_definitions(package: str) -> dict[str, list[str]]:
    """Public name -> the modules that define it at their top level (imports are not
    definitions: a re-export is the same object under the same name)."""
    found: dict[str, list[str]] = {}
    for name, path in module_names(ROOT, package).items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            else:
                continue
            for defined in names:
                found.setdefault(defined, []).append(name)
    return found


def test_the_names_that_meant_two_things_have_one_definition_each():
    found = _top_level_definitions("agent_harness")
    twice = {name: found[name] for name in ONE_MEANING if len(found.get(name, [])) > 1}
    assert not twice, f"defined in more than one module: {twice}"
    policies = sorted(
        p.relative_to(ROOT).as_posix() for p in ROOT.glob("agent_harness/**/policy.py")
    )
    assert policies == ["agent_harness/tools/policy.py"], policies  # the breaker's thresholds
    clients = sorted(
        p.relative_to(ROOT).as_posix() for p in ROOT.glob("agent_harness/**/client*.py")
    )
    assert clients == ["agent_harness/agent/llm/client.py"], clients  # mcp/client.py vs clients.py
