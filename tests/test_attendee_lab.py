"""An attendee's afternoon in JupyterLab (headless Chromium): open a notebook, fill in a TODO,
save; then the instructor's release check and release (issue 22, item 13). Nothing of the
attendee's is lost: opening a released notebook changes nothing (JupyterLab's metadata is
already there), the filled-in notebook is not out of date, release leaves it alone, and when
the sources did change release refuses to replace it (and --force backs it up first).

Skipped without Chromium, chromedriver and selenium (tests/jupyterlab_browser.py).
"""

from __future__ import annotations

import shutil
import sys

import nbformat
import pytest

from grader.release import BACKUPS, ROOT, release_all, stale_notebooks
from tests.deadlines import wait_for
from tests.jupyterlab_browser import MISSING, running_lab

pytestmark = [
    pytest.mark.skipif(bool(MISSING), reason="needs " + ", ".join(MISSING)),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX here"),
]

MARKER = "# ATTENDEE WORK 4711"


@pytest.fixture
def classroom(tmp_path):
    """A copy of solutions/ and the notebooks/ released from it, as in a clone used in class."""
    source, target = tmp_path / "solutions", tmp_path / "notebooks"
    shutil.copytree(ROOT / "solutions", source)
    release_all(source, target)
    return source, target


def test_open_fill_in_save_then_release_keeps_the_work(classroom, tmp_path):
    source, target = classroom
    untouched = {p.name: p.read_text() for p in target.glob("*.ipynb")}
    with running_lab(target, tmp_path / "lab.log") as lab:
        lab.open("06_self_healing_registry.ipynb")
        assert not lab.dirty(), "opening a released notebook must change nothing"
        lab.open("00_setup.ipynb")
        assert not lab.dirty(), "opening a released notebook must change nothing"
        lab.type_at_end_of_cell("def top_carriers_by_teu", MARKER)
        wait_for(lab.dirty, "the typed line marking the notebook changed")
        lab.save()
        lab.screenshot(tmp_path / "saved.png")
    saved = (target / "00_setup.ipynb").read_text()
    assert saved.count(MARKER) == 1, "the typed line was saved"
    assert (target / "06_self_healing_registry.ipynb").read_text() == untouched[
        "06_self_healing_registry.ipynb"
    ], "a notebook only opened is byte for byte as released"

    assert stale_notebooks(source, target) == [], "filled-in TODO cells are not out of date"
    report = release_all(source, target)
    assert report.written == [] and report.refused == {}
    assert (target / "00_setup.ipynb").read_text() == saved

    # the instructor changes the notebook's text: release refuses, then backs up with force
    nb = nbformat.read(source / "00_setup" / "00_setup.ipynb", as_version=4)
    nb.cells[0].source += "\n\nOne more sentence."
    nbformat.write(nb, source / "00_setup" / "00_setup.ipynb")
    assert stale_notebooks(source, target) == ["00_setup.ipynb"]
    report = release_all(source, target)
    assert list(report.refused) == ["00_setup.ipynb"]
    assert (target / "00_setup.ipynb").read_text() == saved
    report = release_all(source, target, force=True)
    (backup,) = report.backups
    assert backup.parent == target / BACKUPS and backup.read_text().count(MARKER) == 1
