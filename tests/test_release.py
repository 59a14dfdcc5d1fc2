"""`workshop release` never destroys an attendee's work (issue 22, item 13).

Attendees work in notebooks/. Opening a notebook in JupyterLab once rewrote the kernelspec and
language_info metadata and autosave wrote it, so the up-to-date check called the notebook stale
and `release` overwrote the attendee's TODO cells. Now released notebooks carry the metadata
JupyterLab writes, the check compares only what release owns, and release refuses to replace
a notebook holding work (with --force it backs it up first). The same walk in a real JupyterLab
in headless Chromium is tests/test_attendee_lab.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner

from agent_harness.interfaces.cli import cli
from grader.notebook_folders import notebook_path
from grader.release import (
    BACKUPS,
    ROOT,
    attendee_work,
    differences,
    jupyterlab_metadata,
    release_all,
    release_notebook,
    stale_notebooks,
)

MARKER = "# my own work, line 4711"


@pytest.fixture
def project(tmp_path) -> tuple[Path, Path]:
    """A copy of solutions/ (two notebooks, each in its folder) and a notebooks/ released from
    it."""
    source, target = tmp_path / "solutions", tmp_path / "notebooks"
    for name in ("00_setup", "05_tool_output_offload"):
        (source / name).mkdir(parents=True)
        shutil.copy(notebook_path(name), source / name)
    report = release_all(source, target)
    assert [p.name for p in report.written] == ["00_setup.ipynb", "05_tool_output_offload.ipynb"]
    return source, target


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _save(path: Path, nb: dict) -> None:
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def _as_jupyterlab_saves(nb: dict) -> dict:
    """What a JupyterLab save can change without the attendee typing anything: another
    Python's language_info, sources stored as lists of lines, outputs of the cells run."""
    nb["metadata"]["language_info"]["version"] = "3.13.1"
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"]).splitlines(keepends=True)
        if cell["cell_type"] == "code":
            cell["execution_count"] = 3
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}]
    return nb


def _fill_todo(nb: dict) -> dict:
    todo = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))
    todo["source"] = "".join(todo["source"]) + "\n" + MARKER
    return nb


def _add_cell(nb: dict) -> dict:
    cell = nbformat.v4.new_code_cell("x = 1  # exploring")
    nb["cells"].insert(3, json.loads(json.dumps(cell)))
    return nb


def _edit_solution_markdown(source: Path, name: str) -> None:
    """The instructor changes a pre-built markdown cell (notebooks/ becomes out of date)."""
    path = source / Path(name).stem / name
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown")
    cell.source += "\n\nA sentence the instructor added."
    nbformat.write(nb, path)


def test_released_notebooks_carry_the_metadata_jupyterlab_writes():
    expected = jupyterlab_metadata()
    assert expected["kernelspec"]["display_name"] == "Python 3 (ipykernel)"
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        meta = _load(path)["metadata"]
        assert meta["kernelspec"] == expected["kernelspec"], path.name
        info = dict(meta["language_info"])
        assert info.pop("version") and {**info, "version": ""} == {
            **expected["language_info"],
            "version": "",
        }, path.name
        assert not attendee_work(_load(path)), path.name


def test_opening_running_and_filling_in_a_notebook_is_not_out_of_date(project):
    source, target = project
    for name, edit in (
        ("00_setup.ipynb", lambda nb: _fill_todo(_as_jupyterlab_saves(nb))),
        ("05_tool_output_offload.ipynb", lambda nb: _add_cell(_as_jupyterlab_saves(nb))),
    ):
        _save(target / name, edit(_load(target / name)))
    before = {p.name: p.read_text() for p in target.glob("*.ipynb")}
    assert stale_notebooks(source, target) == []
    report = release_all(source, target)
    assert report.written == [] and report.refused == {} and len(report.up_to_date) == 2
    assert {p.name: p.read_text() for p in target.glob("*.ipynb")} == before
    assert MARKER in before["00_setup.ipynb"]


def test_only_jupyterlab_metadata_and_outputs_changed_is_no_work(project):
    source, target = project
    path = target / "00_setup.ipynb"
    _save(path, _as_jupyterlab_saves(_load(path)))
    assert attendee_work(_load(path)) == []
    _edit_solution_markdown(source, "00_setup.ipynb")
    assert stale_notebooks(source, target) == ["00_setup.ipynb"]
    report = release_all(source, target)
    assert report.written == [path] and report.backups == []
    assert "A sentence the instructor added." in path.read_text()


def test_out_of_date_with_work_is_refused_and_force_backs_it_up(project):
    source, target = project
    path = target / "00_setup.ipynb"
    _save(path, _fill_todo(_load(path)))
    _edit_solution_markdown(source, "00_setup.ipynb")
    assert stale_notebooks(source, target) == ["00_setup.ipynb"]
    mine = path.read_text()

    report = release_all(source, target)
    assert list(report.refused) == ["00_setup.ipynb"] and report.written == []
    assert path.read_text() == mine, "a refused notebook is left exactly as it was"

    report = release_all(source, target, force=True)
    (backup,) = report.backups
    assert backup.parent == target / BACKUPS and backup.read_text() == mine
    assert report.written == [path] and MARKER not in path.read_text()
    assert "A sentence the instructor added." in path.read_text()
    assert stale_notebooks(source, target) == []


def test_the_cli_refuses_with_exit_1_and_names_the_notebook(project, monkeypatch):
    source, target = project
    path = target / "00_setup.ipynb"
    _save(path, _add_cell(_load(path)))
    _edit_solution_markdown(source, "00_setup.ipynb")
    import grader.release as release

    monkeypatch.setattr(release, "ROOT", source.parent)
    monkeypatch.setattr(
        release, "release_all", lambda force=False: release_all(source, target, force)
    )
    result = CliRunner().invoke(cli, ["release"])
    assert result.exit_code == 1, result.output
    assert "kept notebooks/00_setup.ipynb" in result.output
    assert "--force" in result.output and "x = 1  # exploring" in path.read_text()
    result = CliRunner().invoke(cli, ["release", "--force"])
    assert result.exit_code == 0, result.output
    assert "backed up notebooks/backups/00_setup." in result.output


def test_a_notebook_without_source_is_removed_only_without_work(project):
    source, target = project
    shutil.rmtree(source / "05_tool_output_offload")
    path = target / "05_tool_output_offload.ipynb"
    _save(path, _fill_todo(_load(path)))
    report = release_all(source, target)
    assert path.exists() and "05_tool_output_offload.ipynb" in report.refused
    report = release_all(source, target, force=True)
    assert not path.exists() and report.removed == [path] and len(report.backups) == 1


def test_an_old_release_without_digest_counts_filled_todos_as_work(project):
    source, target = project
    path = target / "00_setup.ipynb"
    old = _load(path)
    del old["metadata"]["workshop"]
    released = release_notebook(nbformat.read(source / "00_setup" / "00_setup.ipynb", as_version=4))
    assert attendee_work(old, released) == []
    # the same cells; only what it records about its release is missing (issue 28: the cells'
    # digests, which workshop check reads in a student distribution): rewritten, nothing lost
    assert differences(old, released) == [
        "what it records about its release (metadata.workshop) is out of date"
    ]
    assert attendee_work(_fill_todo(old), released) == ["TODO top_carriers_by_teu filled in"]
    assert attendee_work(_add_cell(_load(path)), released)


def test_the_check_still_catches_a_forgotten_release(project):
    """An untouched notebook is compared whole: a changed TODO docstring is out of date."""
    source, target = project
    nb = nbformat.read(source / "00_setup" / "00_setup.ipynb", as_version=4)
    todo = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    todo.source = todo.source.replace('"""The n carriers', '"""The n carriers (changed)')
    nbformat.write(nb, source / "00_setup" / "00_setup.ipynb")
    assert stale_notebooks(source, target) == ["00_setup.ipynb"]


def test_release_help_says_what_it_writes():
    text = CliRunner().invoke(cli, ["release", "--help"]).output
    for words in ("Instructors", "notebooks/NN_name.ipynb", "never overwritten", "backups/"):
        assert words in " ".join(text.split()), words


def test_a_stub_names_its_todo():
    """Item 12: a pre-built cell that calls an unfilled TODO says which TODO to fill first."""
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in _load(path)["cells"]:
            info = cell["metadata"].get("nbgrader", {})
            if not info.get("solution"):
                continue
            scope: dict = {}
            exec("".join(cell["source"]), scope)
            with pytest.raises(NotImplementedError) as raised:
                scope[info["grade_id"]](*[None] * scope[info["grade_id"]].__code__.co_argcount)
            assert f"TODO {info['grade_id']} is not done yet" in str(raised.value), path.name
