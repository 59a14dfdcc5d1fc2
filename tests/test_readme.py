"""README promises that code can check: the tool table and the CLI commands are complete."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_tool_table_lists_exactly_the_registered_tools(harness):
    table = README.split("<!-- tools-table")[1].split("<!-- end tools-table")[0]
    names = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`(\w+)`", line.split("|")[1]))
    assert names == set(harness.tools.names())


def test_every_cli_command_is_documented():
    from agent_harness.cli import cli

    for name in cli.commands:
        assert f"`workshop {name}" in README, name


def test_readme_names_the_two_commands():
    assert "python3 setup/bootstrap.py test" in README
    assert "python3 setup/bootstrap.py " in README
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    assert "setup/bootstrap.py test" in ci
