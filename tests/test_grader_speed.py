"""Where grading's time went (issue 22, item 4), pinned so it does not come back.

A profile of one batch (10 submissions of the series) showed, per submission: SQLite's
commits syncing the job folder on disk, the sandbox compiling pandas, matplotlib, IPython and
the MCP SDK from source (the sandbox cannot write ``__pycache__`` and the environment had no
compiled bytecode), an IPython history database per notebook, and about 8 s of grader start-up
(nbgrader's import for the released notebooks, jsonschema's IRI grammars). The figures are in
README ("Grading", Speed) and printed by ``bench/bench_grade.py``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.answers import AddedCell, Answers
from grader.sandbox import bwrap_available
from tests.deadlines import PATIENCE_S

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="workshop grade runs on Linux and macOS (WSL on Windows)"
)


def test_grading_starts_without_importing_nbgrader_or_lark_grammars():
    """Released notebooks and nbgrader's markers come from the cache once built; nbformat's
    jsonschema is imported without rfc3987_syntax."""
    from grader.sources import load_sources

    load_sources()  # builds the cache if needed
    code = (
        "import sys\n"
        "from grader.grade import load_sources\n"
        "load_sources()\n"
        "print(sorted(m for m in ('nbgrader', 'rfc3987_syntax', 'lark') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE_S
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.skipif(not bwrap_available(), reason="needs bubblewrap (Linux)")
def test_notebooks_run_in_the_private_tmp_with_compiled_bytecode(tmp_path):
    """The notebook's folder and its database copy are in the sandbox's own /tmp (memory: no
    disk syncs), with compiled bytecode mounted read-only (the environment's own, or compiled
    outside into the cache), no history file."""
    from grader.caches import prepare_bytecode

    assert prepare_bytecode() is not None
    check = textwrap.dedent(
        """
        import importlib.util, os, sys
        import pandas
        assert os.getcwd().startswith("/tmp/"), os.getcwd()
        assert os.environ["WORKSHOP_DATA_DIR"].startswith("/tmp/"), os.environ
        cached = importlib.util.cache_from_source(pandas.__file__)  # the prefix's, if set
        assert os.path.exists(cached), ("no bytecode", cached, sys.pycache_prefix)
        assert not os.access(os.path.dirname(cached), os.W_OK), "the bytecode is writable"
        assert not get_ipython().history_manager.enabled
        """
    )
    run = _tiny_check(tmp_path, check)
    assert run.status == "ok" and run.errors == {}, run.errors


def _tiny_check(tmp_path, check: str):
    import nbformat

    from grader.execute import run_notebooks
    from grader.release import release_notebook
    from grader.sandbox import Limits
    from grader.sources import Source

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("assert True")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "speed", "points": 1.0}
    nb.cells = [nbformat.v4.new_code_cell("x = 1"), cell]
    source = Source("98_speed", nb, release_notebook(nb), [("speed", 1.0)], {}, set())
    template = tmp_path / "template"
    template.mkdir()
    answers = Answers(added=[AddedCell(1, check, 3)])
    (run,) = run_notebooks([(source, answers)], tmp_path, template, Limits(), 30, 120)
    return run


def _constants(code: str) -> set[str]:
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        node.value.strip()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and len(node.value.strip()) >= 12
    }


def test_shared_embeddings_hold_nothing_hidden_or_from_a_solution():
    """The texts every sandbox gets embedded in advance come from the untouched released
    notebooks: none is an input of a value check or a string of a solution that the released
    notebooks do not show (a run that collects embeddings runs no value check: when it did,
    the skills a probe of 07 ingests ended up in the file)."""
    import json

    from grader.caches import prepare_embeddings, shared_template
    from grader.sources import load_sources, meta

    sources = load_sources()
    path = prepare_embeddings(sources, shared_template())
    assert path is not None
    texts = set(json.loads(path.read_text(encoding="utf-8"))["texts"])
    assert len(texts) > 50
    hidden = set()
    for source in sources:
        for probes in source.probes.values():
            for probe in probes:
                hidden |= _constants(probe.code)
        for cell in source.notebook.cells:
            if meta(cell).get("solution") and "### BEGIN SOLUTION" in cell.source:
                region = cell.source.split("### BEGIN SOLUTION", 1)[1]
                hidden |= _constants(region.split("### END SOLUTION", 1)[0])
    public = "\n".join(c.source for source in sources for c in source.released.cells)
    # The library is public too: a tool's name a probe mentions is in its code and its outputs.
    library = Path(__file__).resolve().parent.parent / "agent_harness"
    public += "\n".join(p.read_text(encoding="utf-8") for p in library.rglob("*.py"))
    hidden = {h for h in hidden if h not in public}  # demo questions a probe reuses are public
    assert hidden
    leaked = {t for t in texts for h in hidden if h in t}
    assert not leaked, sorted(leaked)[:5]
