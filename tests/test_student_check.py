"""``workshop check`` where an attendee works (issue 28, item 1).

A graded course hands out the released notebooks only: a clone without ``solutions/`` (each
notebook's folder: its solution, value checks and other answers), ``tests/`` and ``bench/``, or
a folder holding the released notebooks beside the installed package (a wheel). There the
check runs the visible checks of the released notebook itself, says that the hidden checks run
at grading, and needs nothing the attendee does not have (no instructor notebook, no value
check, no nbgrader). Both layouts are built here and ``workshop check`` runs in each as an
attendee runs it (a command in a terminal); the in-process tests read notebooks the way the
check does (added, edited and deleted cells).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.check import check_notebook, format_report
from grader.from_release import source_from_release
from grader.notebook_folders import notebook_path
from grader.release import ROOT, release_notebook
from grader.sources import GradingError

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="workshop check runs on Linux and macOS (WSL on Windows)"
)

SOLUTION = nbformat.read(notebook_path("00_setup"), as_version=4)
ANSWER = next(c.source for c in SOLUTION.cells if c.metadata.get("nbgrader", {}).get("solution"))
#: What a student distribution leaves out of the project (plus what a checkout never has).
INSTRUCTORS = ("solutions", "tests", "bench")
NOT_IN_A_CLONE = (".git", ".venv", ".workshop", "course", "results", "build", "*.egg-info")


def _released(**edits) -> nbformat.NotebookNode:
    """Notebook 00 as released, its TODO filled in (``answer``), optionally with a cell added
    before the first check (``added``), a check cell edited (``edit_check``) or deleted
    (``delete_check``)."""
    nb = release_notebook(SOLUTION, "00_setup")
    cells = nb.cells
    todo = next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("solution"))
    checks = [i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade")]
    if edits.get("answer", True):
        cells[todo].source = ANSWER
    if edits.get("edit_check"):
        cells[checks[0]].source = "pass  # my version\n" + cells[checks[0]].source
    if edits.get("delete_check"):
        del cells[checks[-1]]
    if edits.get("added"):
        cells.insert(checks[0], nbformat.v4.new_code_cell(edits["added"]))
    return nb


def _write(nb, folder: Path, name: str = "00_setup.ipynb") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / name)
    return folder / name


def _attendee_env(pythonpath: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKSHOP_", "OPENAI_"))}
    env["PYTHONPATH"] = str(pythonpath)  # the copy's packages, not the project's
    return env


#: `workshop check` as a terminal runs it, where nbgrader cannot be imported at all.
CHECK = (
    "import sys; sys.modules['nbgrader'] = None\n"
    "from agent_harness.interfaces.cli import cli\n"
    "cli.main(['check', *sys.argv[1:]], prog_name='workshop')\n"
)


def _check(python: str, pythonpath: Path, cwd: Path, notebook: str):
    return subprocess.run(
        [python, "-c", CHECK, notebook],
        cwd=cwd,
        env=_attendee_env(pythonpath),
        capture_output=True,
        text=True,
        timeout=900,
    )


def _says_it_checked_its_own_cells(done) -> None:
    out = done.stdout + done.stderr
    assert "ModuleNotFoundError" not in out and "no instructor notebooks" not in out, out
    assert "00_setup: visible checks of your notebook itself" in done.stdout, out
    assert "hidden checks run at grading: they test the same behaviours" in done.stdout, out


@pytest.mark.slow
def test_check_runs_in_a_clone_without_the_instructors_material(tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE, "__pycache__"))
    for folder in INSTRUCTORS:
        shutil.rmtree(clone / folder)
    assert not (clone / "grader" / "probes").exists() and (clone / "notebooks").is_dir()
    untouched = _check(sys.executable, clone, clone, "notebooks/00_setup.ipynb")
    _says_it_checked_its_own_cells(untouched)
    assert untouched.returncode == 1 and "not implemented yet" in untouched.stdout, untouched
    _write(_released(), clone / "notebooks", "00_setup.ipynb")
    done = _check(sys.executable, clone, clone, "notebooks/00_setup.ipynb")
    _says_it_checked_its_own_cells(done)
    assert done.returncode == 0 and "visible checks pass in 2 of 2" in done.stdout, done


def _wheel(tmp_path: Path) -> Path:
    """The project built into a wheel (offline: the environment's own setuptools)."""
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE, "__pycache__"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    built = subprocess.run(
        [*command, "--quiet", "--wheel-dir", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("agent_harness_workshop-*.whl")
    return wheel


@pytest.mark.slow
def test_check_runs_beside_the_released_notebooks_with_the_installed_wheel(tmp_path):
    """A folder holding only the released notebooks; the package installed from its wheel
    (not the project's editable install), with the environment's dependencies."""
    site = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
        + ["--target", str(site), str(_wheel(tmp_path))],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (site / "agent_harness").is_dir() and (site / "grader" / "check.py").is_file()
    assert not (site / "solutions").exists() and not (site / "grader" / "probes").exists()
    course = tmp_path / "my-course"
    course.mkdir()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        shutil.copy(path, course / path.name)
    assert sorted(p.suffix for p in course.iterdir()) == [".ipynb"] * 10
    _write(_released(added="mine = top_carriers_by_teu(3)\n"), course)
    done = _check(sys.executable, site, course, "00_setup.ipynb")
    _says_it_checked_its_own_cells(done)
    assert done.returncode == 0 and "visible checks pass in 2 of 2" in done.stdout, done


# --- how the released notebook is read ------------------------------------------------------


def test_a_released_notebook_records_its_cells_and_name():
    nb = release_notebook(SOLUTION, "00_setup")
    info = nb.metadata["workshop"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    todo = [c for c in code if c.metadata.get("nbgrader", {}).get("solution")]
    assert info["notebook"] == "00_setup" and todo
    assert set(info["cells"]) == {c.id for c in code} - {c.id for c in todo}
    shipped = nbformat.read(ROOT / "notebooks" / "00_setup.ipynb", as_version=4)
    assert shipped.metadata["workshop"] == info


def test_cells_added_edited_and_deleted_are_told_apart(tmp_path):
    nb = _released(added="print('mine')\n", edit_check=True, delete_check=True)
    source, notes = source_from_release(_write(nb, tmp_path))
    assert source.name == "00_setup" and source.probes == {}
    assert "print('mine')\n" not in [c.source for c in source.released.cells]  # runs as added
    assert [g for g, _ in source.grade_cells] == ["top_carriers_by_teu_checks"]
    assert any("check cell top_carriers_by_teu_checks was edited" in n for n in notes), notes
    assert any("is missing from your notebook" in n for n in notes), notes


def test_an_untouched_released_notebook_reads_without_notes(tmp_path):
    source, notes = source_from_release(_write(_released(answer=False), tmp_path))
    assert notes == [] and len(source.grade_cells) == 2


def test_an_older_release_runs_every_cell_and_says_so(tmp_path):
    nb = _released()
    del nb.metadata["workshop"]["cells"]
    source, notes = source_from_release(_write(nb, tmp_path))
    assert len(source.released.cells) == len(nb.cells)
    assert any("older release" in n for n in notes), notes


def test_a_notebook_that_is_no_released_one_is_refused(tmp_path):
    nb = nbformat.v4.new_notebook()
    with pytest.raises(GradingError, match="not one of the workshop's released notebooks"):
        source_from_release(_write(nb, tmp_path, "00_setup.ipynb"))


@pytest.fixture
def without_solutions(tmp_path, monkeypatch):
    """This process as in a student distribution: no solutions/ beside the grader."""
    import grader.check

    monkeypatch.setattr(grader.check, "SOLUTIONS", tmp_path / "no-instructor-material")


def test_an_added_cell_is_watched_and_an_edit_is_named(tmp_path, template, without_solutions):
    """The check of a released notebook runs an attendee's added cell as grading does (a cell
    that silences the asserts is undone after it ran, so the wrong answer still fails) and
    names an edited check cell."""
    tamper = "call_todo = lambda fn, *a, **k: fn(*a, **k)\n"
    nb = _released(added=tamper, edit_check=True)
    wrong = ANSWER.replace("DESC, c.name", "ASC, c.name")
    nb.cells[next(i for i, c in enumerate(nb.cells) if c.source == ANSWER)].source = wrong
    report = check_notebook(_write(nb, tmp_path / "nb"), template=template)
    text = format_report(report)
    assert report.from_release and not report.passed, text
    assert "changed what the checks rely on" in text and "call_todo" in text, text
    assert "top_carriers_by_teu_checks was edited in your notebook" in text, text
