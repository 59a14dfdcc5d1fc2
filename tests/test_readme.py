"""README promises that code can check: the tool table and the CLI commands are complete."""

from __future__ import annotations

import re
from pathlib import Path

from grader.notebook_folders import notebook_paths

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_tool_table_lists_exactly_the_registered_tools(harness):
    table = README.split("<!-- tools-table")[1].split("<!-- end tools-table")[0]
    names = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`(\w+)`", line.split("|")[1]))
    assert names == set(harness.tools.names())


def test_tool_table_gives_each_tool_its_registered_category(harness):
    table = README.split("<!-- tools-table")[1].split("<!-- end tools-table")[0]
    documented = {}
    for line in table.splitlines():
        if line.startswith("| `"):
            cells = line.split("|")
            for name in re.findall(r"`(\w+)`", cells[1]):
                documented[name] = cells[2].strip()
    assert documented == {n: harness.tools.get(n).category for n in harness.tools.names()}


def _tool_rows() -> dict[str, list[str]]:
    table = README.split("<!-- tools-table")[1].split("<!-- end tools-table")[0]
    return {
        re.findall(r"`(\w+)`", line.split("|")[1])[0]: [c.strip() for c in line.split("|")]
        for line in table.splitlines()
        if line.startswith("| `")
    }


def test_tool_table_gives_each_tool_its_access_and_the_skills_that_unlock_it(harness):
    from agent_harness.agent.disclosure import STARTER_TOOLS

    rows = _tool_rows()
    assert {n: r[3] for n, r in rows.items()} == {
        n: harness.tools.get(n).access_level for n in harness.tools.names()
    }
    for name, row in rows.items():
        skills = harness.skills.unlockers(name)
        expected = ", ".join(skills) or ("(always on)" if name in STARTER_TOOLS else "—")
        assert row[4] == expected, (name, row[4], expected)


def test_every_cli_command_is_documented():
    from agent_harness.interfaces.cli import cli

    for name in cli.commands:
        assert f"`workshop {name}" in README, name


def test_readme_names_the_two_commands():
    assert "python3 setup/bootstrap.py test" in README
    assert "python3 setup/bootstrap.py " in README
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert "setup/bootstrap.py test" in ci


def test_notebook_table_lists_every_notebook_and_its_todos():
    import nbformat

    table = README.split("<!-- notebooks-table")[1].split("<!-- end notebooks-table")[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 5 and cells[1].startswith("`"):
            rows[cells[1].strip("`")] = set(re.findall(r"`(\w+)`", cells[3]))
    root = Path(__file__).resolve().parent.parent
    expected = {}
    for path in notebook_paths(root / "solutions"):
        nb = nbformat.read(path, as_version=4)
        expected[path.stem] = {
            c.metadata["nbgrader"]["grade_id"]
            for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")
        }
    assert rows == expected


def _solution_notebooks():
    import nbformat

    root = Path(__file__).resolve().parent.parent
    for path in notebook_paths(root / "solutions"):
        yield path.stem, nbformat.read(path, as_version=4)


def test_notebook_times_agree_with_the_readme_table():
    table = README.split("<!-- notebooks-table")[1].split("<!-- end notebooks-table")[0]
    readme = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 5 and cells[1].startswith("`"):
            readme[cells[1].strip("`")] = int(cells[4])
    notebooks = {}
    for name, nb in _solution_notebooks():
        title = nb.cells[0].source
        times = re.findall(r"\*\*Time:\*\* about (\d+) minutes", title)
        assert len(times) == 1, f"{name}: the title cell must say '**Time:** about N minutes'"
        notebooks[name] = int(times[0])
    assert notebooks == readme


def test_notebooks_say_what_the_reference_workshop_is():
    """'the reference workshop' means nothing to an attendee: a cell that mentions it names it."""
    for name, nb in _solution_notebooks():
        for cell in nb.cells:
            text = " ".join(cell.source.split())
            if re.search(r"reference workshop", text, re.IGNORECASE):
                assert "Oracle's public *enterprise data agent harness* workshop" in text, (
                    name,
                    text[:200],
                )
