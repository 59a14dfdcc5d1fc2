"""The instructor's JupyterLab opens a working nbgrader course (issue 22, item 14).

`start --instructor` once warned "No nbgrader_config.py file found" twice and formgrader showed
no assignment and a missing exchange folder. Now `workshop lab --instructor` prepares
course/ (grader/course.py) and starts the lab at the project's root with course/ first on
JUPYTER_CONFIG_PATH; formgrader lists the assignment and finds its exchange.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request

import pytest

from agent_harness.interfaces.lab import ATTENDEE_CONFIG, lab_command
from grader.course import ASSIGNMENT, prepare_course
from grader.notebook_folders import notebook_paths
from grader.release import ROOT
from tests.deadlines import PATIENCE_S
from tests.jupyterlab_browser import TOKEN, running_lab

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="nbgrader's exchange: POSIX")
NOTEBOOKS = sorted(p.name for p in notebook_paths())


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return prepare_course(tmp_path_factory.mktemp("project") / "course")


def test_the_course_folder_has_what_formgrader_needs(course):
    from nbgrader.api import Gradebook

    assert course.generated
    config = (course.root / "nbgrader_config.py").read_text()
    assert f"c.CourseDirectory.root = {str(course.root)!r}" in config
    assert f"c.Exchange.root = {str(course.exchange)!r}" in config and course.exchange.is_dir()
    assert (
        sorted(p.name for p in (course.root / "source" / ASSIGNMENT).glob("*.ipynb")) == NOTEBOOKS
    )
    assert (
        sorted(p.name for p in (course.root / "release" / ASSIGNMENT).glob("*.ipynb")) == NOTEBOOKS
    )
    with Gradebook(f"sqlite:///{course.gradebook}") as gradebook:
        assignment = gradebook.find_assignment(ASSIGNMENT)
        assert sorted(n.name + ".ipynb" for n in assignment.notebooks) == NOTEBOOKS


def test_preparing_again_changes_nothing(course):
    again = prepare_course(course.root)
    assert not again.generated


def test_the_instructor_lab_opens_the_project_with_the_course_config(course):
    command, env = lab_command(9999, instructor=True, course=course.root, env={})
    assert f"--notebook-dir={ROOT}" in command
    paths = env["JUPYTER_CONFIG_PATH"].split(os.pathsep)
    assert paths[0] == str(course.root) and str(ATTENDEE_CONFIG) not in paths
    command, env = lab_command(9999, instructor=False, env={})
    assert f"--notebook-dir={ROOT / 'notebooks'}" in command


@POSIX_ONLY
def test_formgrader_lists_the_assignment_and_finds_the_exchange(course, tmp_path):
    log = tmp_path / "lab.log"
    project = course.root.parent
    with running_lab(project, log, instructor=True, course=course.root, with_browser=False) as lab:

        def get(path):
            with urllib.request.urlopen(
                f"{lab.url}{path}?token={TOKEN}", timeout=PATIENCE_S
            ) as answer:
                return answer.read().decode("utf-8")

        assignments = json.loads(get("/formgrader/api/assignments"))
        page = get("/formgrader/manage_assignments")
    assert [a["name"] for a in assignments] == [ASSIGNMENT]
    assert assignments[0]["num_submissions"] == 0
    assert "warning-exchange" not in page and "does not exist" not in page
    assert "not a subdirectory of the notebook server root" not in log.read_text()
    assert "No nbgrader_config.py file found" not in log.read_text()
