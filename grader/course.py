"""The nbgrader course folder the instructor's JupyterLab opens with (``workshop lab
--instructor``, ``python3 setup/bootstrap.py start --instructor``).

nbgrader's formgrader needs a course: an ``nbgrader_config.py`` it can find, the source
notebooks under ``source/<assignment>/``, a gradebook that knows the assignment, and an
exchange folder. :func:`prepare_course` makes them inside the project, in ``course/``
(git-ignored), from ``solutions/``:

1. ``course/nbgrader_config.py``: ``grader/nbgrader_config.py`` plus the course's own root and
   exchange folder (absolute paths), so nbgrader finds them from any working directory once
   ``course/`` is on ``JUPYTER_CONFIG_PATH`` (``agent_harness.interfaces.lab.lab_command`` puts it
   there);
2. ``course/source/workshop/NN_name.ipynb``: copies of the notebooks of ``solutions/``
   (``solutions/NN_name/NN_name.ipynb``, refreshed when a solution is newer; edit
   ``solutions/``, not the copies; the folders' probes and answers stay out of the course);
3. ``course/gradebook.db`` and ``course/release/workshop/``: ``nbgrader generate_assignment
   workshop`` (run only when a source changed or the release is missing);
4. ``course/exchange/``: the exchange folder (formgrader warns when it is missing).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.notebook_folders import SOLUTIONS, notebook_paths

__all__ = ["ASSIGNMENT", "Course", "prepare_course"]

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENT = "workshop"


@dataclass(frozen=True)
class Course:
    """A prepared course folder.

    Attributes:
        root: The course folder (``nbgrader_config.py``, ``source/``, ``release/``,
            ``gradebook.db``, ``exchange/``).
        generated: Whether ``nbgrader generate_assignment`` ran this time.
    """

    root: Path
    generated: bool

    @property
    def exchange(self) -> Path:
        """The nbgrader exchange folder."""
        return self.root / "exchange"

    @property
    def gradebook(self) -> Path:
        """The nbgrader gradebook (``workshop grade --gradebook`` writes into it)."""
        return self.root / "gradebook.db"


def _config(root: Path) -> str:
    base = (ROOT / "grader" / "nbgrader_config.py").read_text(encoding="utf-8")
    return (
        base.rstrip()
        + "\n\n# Written by `workshop lab --instructor` (grader/course.py) for this folder.\n"
        + f"c.CourseDirectory.root = {str(root)!r}\n"
        + f"c.Exchange.root = {str(root / 'exchange')!r}\n"
    )


def _copy_sources(source: Path, into: Path) -> bool:
    """Copy each numbered solution that is missing or newer; True when anything changed."""
    into.mkdir(parents=True, exist_ok=True)
    changed = False
    names = set()
    for path in notebook_paths(source):
        names.add(path.name)
        copy = into / path.name
        if not copy.exists() or copy.read_bytes() != path.read_bytes():
            shutil.copy2(path, copy)
            changed = True
    for old in into.glob("[0-9][0-9]_*.ipynb"):
        if old.name not in names:
            old.unlink()
            changed = True
    return changed


def prepare_course(root: Path = ROOT / "course", source: Path = SOLUTIONS) -> Course:
    """Make (or bring up to date) the course folder formgrader works on.

    Args:
        root: Where the course folder goes.
        source: The instructor notebooks.

    Returns:
        The course.

    Raises:
        RuntimeError: ``nbgrader generate_assignment`` failed (its output is in the message).
    """
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    config = root / "nbgrader_config.py"
    text = _config(root)
    if not config.exists() or config.read_text(encoding="utf-8") != text:
        config.write_text(text, encoding="utf-8")
    changed = _copy_sources(Path(source), root / "source" / ASSIGNMENT)
    (root / "exchange").mkdir(exist_ok=True)
    released = root / "release" / ASSIGNMENT
    missing = not released.is_dir() or not (root / "gradebook.db").exists()
    if changed or missing:
        env = {
            **os.environ,
            "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        }
        done = subprocess.run(
            [sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(
                "nbgrader generate_assignment failed in "
                f"{root}:\n{(done.stdout + done.stderr)[-2000:]}"
            )
    return Course(root, changed or missing)
