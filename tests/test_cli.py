"""The workshop CLI: setup (idempotent), doctor, call, search, help for every command."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from agent_harness.interfaces.cli import cli


@pytest.fixture
def runner(harness, monkeypatch):
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(harness.settings.data_dir))
    monkeypatch.setenv("WORKSHOP_LLM", "offline")
    return CliRunner()


@pytest.mark.parametrize("command", ["setup", "lab", "doctor", "call", "search", "ooda", "skills"])
def test_every_command_has_help(command):
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0 and "Usage" in result.output


def test_setup_is_idempotent(runner):
    result = runner.invoke(cli, ["setup"])
    assert result.exit_code == 0, result.output
    assert "already loaded" in result.output and "0 added" in result.output
    assert "ready:" in result.output


def test_call_and_errors(runner):
    result = runner.invoke(cli, ["call", "run_sql", '{"sql": "SELECT COUNT(*) AS n FROM ports"}'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["row_count"] == 1
    bad = runner.invoke(cli, ["call", "no_such_tool", "{}"])
    assert bad.exit_code != 0 and "unknown tool" in bad.output


def test_search_modes(runner):
    for mode in ("hybrid", "vector", "keyword"):
        result = runner.invoke(cli, ["search", "capacity in TEU", "--mode", mode, "-k", "2"])
        assert result.exit_code == 0, result.output
        assert "CAPACITY_TEU" in result.output


def test_doctor_passes_on_a_prepared_database(runner):
    result = runner.invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output and "offline replay" in result.output


def test_doctor_reports_a_fix_when_data_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path / "empty"))
    result = CliRunner().invoke(cli, ["doctor", "--no-llm"])
    assert result.exit_code == 1
    assert "FAIL SUPPLYCHAIN data" in result.output and "fix: workshop setup" in result.output


def test_ooda_reports_decides_and_acts(tmp_path, monkeypatch):
    from conftest import make_tool

    import agent_harness

    h = agent_harness.connect(backend="embedded", data_dir=tmp_path)
    with h:
        h.tools.set_policy(min_calls=50)  # the per-call breaker stays out of the way
        tool = make_tool("cli_flaky_tool", lambda n: (_ for _ in ()).throw(OSError("down")))
        h.tools.add(tool)
        for i in range(6):
            h.tools.call("cli_flaky_tool", {"n": i})
        h.tools.set_policy(min_calls=5)
        from agent_harness.tools import REGISTERED

        REGISTERED["cli_flaky_tool"] = tool  # the CLI's own harness must know the tool
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(tmp_path))
    try:
        dry = CliRunner().invoke(cli, ["ooda", "--dry-run"])
        assert dry.exit_code == 0, dry.output
        assert dry.output.startswith("OODA (dry run)")
        line = next(x for x in dry.output.splitlines() if x.startswith("cli_flaky_tool"))
        assert "failing" in line and "-> open (not applied: dry run)" in line
        real = CliRunner().invoke(cli, ["ooda", "--json"])
        report = json.loads(real.output)
        decision = next(d for d in report["decisions"] if d["tool"] == "cli_flaky_tool")
        assert decision["to"] == "open" and decision["applied"] is True
        again = CliRunner().invoke(cli, ["ooda"])
        assert "-> open" not in again.output  # already open: nothing more to decide
    finally:
        REGISTERED.pop("cli_flaky_tool", None)


def test_doctor_names_broken_skill_links(template, tmp_path, monkeypatch):
    import shutil

    import agent_harness

    data = tmp_path / "data"
    shutil.copytree(template, data)
    skills = tmp_path / "skills"
    skills.mkdir()
    for stem, front in {"p": "tools: [no_such_tool]\nrequires: [q]", "q": "requires: [p]"}.items():
        (skills / f"{stem}.md").write_text(f"---\n{front}\n---\n# {stem}\n\nUse when testing.\n")
    with agent_harness.connect(data_dir=data) as h:
        h.skills.ingest(skills, source="doc")
        h.agents.define("doc-agent", "Tests the doctor.", "You test.", ["doc-p"])
    monkeypatch.setenv("WORKSHOP_DATA_DIR", str(data))
    result = CliRunner().invoke(cli, ["doctor", "--no-llm"])
    assert result.exit_code == 1, result.output
    assert "FAIL skills and agents" in result.output
    assert "doc-p maps unknown tool no_such_tool" in result.output
    assert "dependency cycle doc-p -> doc-q -> doc-p" in result.output


@pytest.mark.parametrize("group", [[], ["skills"]], ids=["workshop", "workshop skills"])
def test_help_lists_each_command_with_a_whole_sentence(group):
    """Issue 22, item 15: the command list cut help lines mid-phrase ("... (e.g.")."""
    result = CliRunner().invoke(cli, [*group, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    listing = result.output.split("Commands:", 1)[1]
    assert "..." not in listing, listing
    entries = re.split(r"\n  (?=\S)", listing.strip("\n"))
    for entry in entries:
        text = " ".join(entry.split()[1:])
        assert text.endswith((".", ")")), f"cut: {entry!r}"


@pytest.mark.parametrize("command", ["setup", "chat"])
def test_backend_choices_are_config_backends(command):
    """A new backend is named once, in config.BACKENDS; the CLI's --backend choices follow it."""
    from agent_harness.foundation.config import BACKENDS

    option = next(p for p in cli.commands[command].params if p.name == "backend")
    assert tuple(option.type.choices) == BACKENDS
    assert option.type.choices is BACKENDS  # the list itself, not a copy written out again


# --- the grader's commands: entry points, never an import of grader/ (issue 29) -------------


def _imported_modules(path) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_agent_harness_never_imports_the_grader():
    """The grader's commands come through the workshop.commands entry points (pyproject.toml),
    so no module of agent_harness names grader in an import, even inside a function."""
    from agent_harness.foundation.config import PROJECT_ROOT

    importing = sorted(
        str(path.relative_to(PROJECT_ROOT))
        for path in (PROJECT_ROOT / "agent_harness").rglob("*.py")
        if any(m == "grader" or m.startswith("grader.") for m in _imported_modules(path))
    )
    assert importing == []


def test_the_installed_metadata_names_the_grader_commands_and_the_cli_lists_them():
    """The environment's install (editable here; tests/test_kit.py installs the wheel) carries
    the entry points, and `workshop --help` lists each of their commands."""
    from agent_harness.interfaces.cli import COMMANDS_GROUP, COURSE_GROUP, _entry_points

    names = [point.name for point in _entry_points(COMMANDS_GROUP)]
    assert names == ["check", "export", "grade", "release"]
    assert [p.value for p in _entry_points(COURSE_GROUP)] == ["grader.course:prepare_course"]
    listed = CliRunner().invoke(cli, ["--help"]).output
    assert all(re.search(rf"^  {name} ", listed, re.M) for name in names), listed


def test_a_command_whose_module_does_not_import_says_so_and_the_others_work(monkeypatch):
    """An install without the grader: its commands are listed as not available, running one
    says why (exit 1), and the CLI's own commands are untouched."""
    from importlib.metadata import EntryPoint

    import click

    import agent_harness.interfaces.cli as cli_module

    absent = EntryPoint("grade", "no_such_grader_package.commands:grade", "workshop.commands")
    monkeypatch.setattr(cli_module, "_entry_points", lambda group: [absent])
    group = click.Group("workshop", commands={"doctor": cli.commands["doctor"]})
    cli_module._register_commands(group)
    listed = CliRunner().invoke(group, ["--help"]).output
    assert "grade" in listed and "Not available here" in listed and "doctor" in listed
    result = CliRunner().invoke(group, ["grade", "submissions/", "--out", "results"])
    assert result.exit_code == 1
    assert "`workshop grade` comes with the grader" in result.output
    assert "No module named 'no_such_grader_package'" in result.output
