"""Instructors who use nbgrader directly: generate_assignment and autograde work on the course
layout as the README documents (one notebook, one correct and one untouched submission)."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader.notebook_folders import notebook_path

ROOT = Path(__file__).resolve().parent.parent
NBGRADER = [sys.executable, "-m", "nbgrader"]


def _run(args, cwd, env=None):
    env = dict(env or os.environ)
    # nbgrader's `db` commands call the `alembic` script: the venv's bin must be on PATH.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    result = subprocess.run(
        NBGRADER + args, cwd=cwd, capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result


def test_nbgrader_generate_assignment_and_autograde(tmp_path):
    course = tmp_path / "course"
    (course / "source" / "workshop").mkdir(parents=True)
    shutil.copy(ROOT / "grader" / "nbgrader_config.py", course)
    shutil.copy(notebook_path("00_setup"), course / "source" / "workshop")
    _run(["db", "assignment", "add", "workshop"], course)
    _run(["generate_assignment", "workshop", "--force"], course)
    released = course / "release" / "workshop" / "00_setup.ipynb"
    text = released.read_text()
    assert "BEGIN HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text
    for student, source in (("alice", notebook_path("00_setup").parent), ("bob", released.parent)):
        _run(["db", "student", "add", student], course)
        folder = course / "submitted" / student / "workshop"
        folder.mkdir(parents=True)
        shutil.copy(source / "00_setup.ipynb", folder)
    env = {**os.environ, "WORKSHOP_DATA_DIR": str(tmp_path / "data"), "WORKSHOP_LLM": "offline"}
    _run(["autograde", "workshop", "--force"], course, env)
    _run(["export"], course)
    with open(course / "grades.csv") as f:
        scores = {
            row["student_id"]: (float(row["score"]), float(row["max_score"]))
            for row in csv.DictReader(f)
        }
    assert scores["alice"][0] == scores["alice"][1] > 0
    assert scores["bob"][0] == 0
