"""One folder per notebook (issue 29, item 1): ``solutions/NN_name/`` holds the notebook, its
value checks and its other answers, and every tool and test finds the notebooks from the
folders (grader/notebook_folders.py), so adding a notebook is adding its folder and the README's
row (tests/test_readme.py holds the README's table to the notebooks)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat

from grader.check import instructor_source
from grader.course import _copy_sources
from grader.notebook_folders import (
    ANSWERS,
    PROBES,
    SOLUTIONS,
    answers,
    notebook_names,
    notebook_paths,
)
from grader.release import ROOT, release_all, stale_notebooks
from grader.sources import load_sources


def _folders(root: Path = SOLUTIONS) -> list[str]:
    """The numbered folders of ``root``, whatever they hold."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and re.match(r"\d\d_", p.name))


def test_each_folder_holds_its_notebook_probes_and_answers_and_nothing_else():
    assert not list(SOLUTIONS.glob("*.ipynb")), "notebooks live in their folders now"
    for name in _folders():
        files = {p.name for p in (SOLUTIONS / name).iterdir() if p.name != "__pycache__"}
        assert files == {f"{name}.ipynb", PROBES, ANSWERS}, name


def test_every_tool_sees_exactly_the_folders(tmp_path):
    folders = _folders()
    assert notebook_names() == folders
    assert [source.name for source in load_sources()] == folders  # workshop grade
    released = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert released == folders and stale_notebooks() == []  # workshop release
    for name in folders:  # workshop check
        assert instructor_source(ROOT / "notebooks" / f"{name}.ipynb").name == name
    course = tmp_path / "source" / "workshop"  # the nbgrader course (workshop lab --instructor)
    _copy_sources(SOLUTIONS, course)
    assert sorted(p.name for p in course.iterdir()) == [f"{name}.ipynb" for name in folders]
    # the CI's papermill loop (.github/workflows/tests.yml)
    assert sorted(ROOT.glob("solutions/*/*.ipynb")) == notebook_paths()
    for name in folders:  # the tests' tables (test_notebooks.py, test_grader_probes.py)
        assert answers(name).MUTANTS, name


def test_a_new_notebook_is_one_folder(tmp_path):
    """A throwaway notebook 10 (a copy of 00's folder under a new name) in a copy of
    solutions/: grading, release, check, the nbgrader course and the tests' tables find it and
    its files with no other change."""
    source, target = tmp_path / "solutions", tmp_path / "notebooks"
    shutil.copytree(SOLUTIONS / "00_setup", source / "00_setup")
    new = source / "10_extra"
    shutil.copytree(SOLUTIONS / "00_setup", new)
    (new / "00_setup.ipynb").rename(new / "10_extra.ipynb")

    assert notebook_names(source) == ["00_setup", "10_extra"]
    graded = {s.name: s for s in load_sources(source)}
    assert list(graded) == ["00_setup", "10_extra"]
    assert graded["10_extra"].probes and graded["10_extra"].probes == graded["00_setup"].probes
    report = release_all(source, target)
    assert [p.name for p in report.written] == ["00_setup.ipynb", "10_extra.ipynb"]
    assert nbformat.read(target / "10_extra.ipynb", as_version=4).cells
    checked = instructor_source(target / "10_extra.ipynb", source_dir=source)
    assert checked.name == "10_extra" and checked.probes
    course = tmp_path / "course" / "source" / "workshop"
    _copy_sources(source, course)
    assert sorted(p.name for p in course.iterdir()) == ["00_setup.ipynb", "10_extra.ipynb"]
    assert answers("10_extra", source).MUTANTS == answers("00_setup").MUTANTS


def test_a_copy_of_a_notebook_on_its_own_still_finds_the_projects_probes(tmp_path):
    """A ``--source`` folder (or a test) may hold bare copies NN_name.ipynb: the notebook's
    probes are then its folder's in solutions/."""
    shutil.copy(SOLUTIONS / "00_setup" / "00_setup.ipynb", tmp_path)
    [source] = load_sources(tmp_path)
    assert source.name == "00_setup"
    assert source.probes == {s.name: s for s in load_sources()}["00_setup"].probes
