"""setup/bootstrap.py installs the lock with hashes, with uv (given pip's sources) or pip."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deadlines import PATIENCE_S

ROOT = Path(__file__).resolve().parent.parent

PIP_CONFIG = """\
global.cert='/etc/ssl/certs/ca.crt'
global.extra-index-url='file:///mirror/a/simple file:///mirror/b/simple'
global.find-links='/global/wheels'
install.trusted-host='pypi.internal'
:env:.find-links='/env/wheels'
:env:.index-url='https://pypi.internal/simple'
"""


@pytest.fixture
def bootstrap(monkeypatch, tmp_path):
    """The bootstrap module with subprocess.run recorded (nothing is installed)."""
    spec = importlib.util.spec_from_file_location(
        "bootstrap_under_test", ROOT / "setup/bootstrap.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls = []

    def fake_run(command, **kwargs):
        calls.append(([str(c) for c in command], kwargs.get("env")))
        out = PIP_CONFIG if command[-2:] == ["config", "list"] else ""
        return subprocess.CompletedProcess(command, 0, stdout=out, stderr="")

    monkeypatch.setattr(module.subprocess, "run", fake_run)
    monkeypatch.setattr(module.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.delenv("WORKSHOP_INSTALLER", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    module.calls = calls
    return module


def test_uv_installs_the_lock_with_hashes_and_pips_sources(bootstrap):
    bootstrap.install()
    installs = [
        (c, env) for c, env in bootstrap.calls if c[:3] == ["/usr/bin/uv", "pip", "install"]
    ]
    assert len(installs) == 2, bootstrap.calls  # the lock, then the project (editable)
    command, env = installs[0]
    pairs = list(zip(command, command[1:]))
    assert ("--index-url", "https://pypi.internal/simple") in pairs
    assert ("--extra-index-url", "file:///mirror/a/simple") in pairs
    assert ("--extra-index-url", "file:///mirror/b/simple") in pairs
    assert ("--find-links", "/env/wheels") in pairs  # the variable beats the file
    assert ("--find-links", "/global/wheels") not in pairs
    assert ("--allow-insecure-host", "pypi.internal") in pairs
    assert ("--index-strategy", "unsafe-best-match") in pairs  # pip's rule: best version anywhere
    assert command[-3:] == ["--require-hashes", "-r", str(ROOT / "requirements.lock")]
    assert "--compile-bytecode" in command  # as pip does: no process compiles from source
    assert env["SSL_CERT_FILE"] == "/etc/ssl/certs/ca.crt"
    assert installs[1][0][-3:] == ["--no-deps", "-e", str(ROOT)]
    assert not any(c[1:4] == ["-m", "pip", "install"] for c, _ in bootstrap.calls)  # no pip


def test_pip_installs_the_same_lock_when_asked_or_when_uv_fails(bootstrap, monkeypatch):
    monkeypatch.setenv("WORKSHOP_INSTALLER", "pip")
    bootstrap.install()
    pips = [c for c, _ in bootstrap.calls]
    assert [c[1:4] for c in pips] == [["-m", "pip", "install"]] * 2
    assert pips[0][-3:] == ["--require-hashes", "-r", str(ROOT / "requirements.lock")]
    assert pips[1][-3:] == ["--no-deps", "-e", str(ROOT)]
    bootstrap.calls.clear()
    monkeypatch.delenv("WORKSHOP_INSTALLER")
    real = bootstrap.subprocess.run

    def uv_fails(command, **kwargs):
        result = real(command, **kwargs)
        if str(command[0]).endswith("uv"):
            result.returncode = 2
        return result

    monkeypatch.setattr(bootstrap.subprocess, "run", uv_fails)
    bootstrap.install()
    used = [c[0].rsplit("/", 1)[-1] + " " + c[1] for c, _ in bootstrap.calls]
    assert used[-2:] == [f"{Path(bootstrap.PYTHON).name} -m"] * 2, used


@pytest.mark.parametrize("mode", ["test", "setup"])
def test_the_project_is_compiled_before_anything_runs(bootstrap, monkeypatch, mode):
    """Issue 31: with PYTHONDONTWRITEBYTECODE (or a read-only checkout) every kernel, test
    process and grading sandbox compiled the project from source; bootstrap compiles it."""
    for step in ("ensure_venv", "ensure_sandbox", "ensure_installed"):
        monkeypatch.setattr(bootstrap, step, lambda *_: None)
    handed = []
    monkeypatch.setattr(bootstrap, "hand_over", lambda command, env: handed.append(command))
    bootstrap.main([mode])
    commands = [c for c, _ in bootstrap.calls]
    compiled = [c for c in commands if c[1:3] == ["-m", "compileall"]]
    assert compiled, commands
    assert compiled[0][-2:] == [str(ROOT / "agent_harness"), str(ROOT / "grader")]
    ran = handed[0] if handed else next(c for c in commands if "agent_harness.interfaces.cli" in c)
    assert ran[-1] in ("pytest", "setup") and commands.index(compiled[0]) == 0  # before it


def test_a_changed_lock_or_pyproject_installs_again(bootstrap, monkeypatch, tmp_path):
    monkeypatch.setattr(bootstrap, "STAMP", tmp_path / ".installed-lock")
    installs = []
    monkeypatch.setattr(bootstrap, "install", lambda: installs.append(1))
    bootstrap.ensure_installed()
    bootstrap.ensure_installed()
    assert installs == [1]  # the stamp records the lock and pyproject.toml
    lock = tmp_path / "requirements.lock"
    lock.write_bytes(bootstrap.LOCK.read_bytes() + b"# changed\n")
    monkeypatch.setattr(bootstrap, "LOCK", lock)
    bootstrap.ensure_installed()
    assert installs == [1, 1]


def test_ci_puts_the_same_uv_on_path_as_bootstrap_installs(bootstrap):
    workflow = (ROOT / ".github" / "workflows" / "tests.yml").read_text()
    versions = re.findall(r"astral-sh/setup-uv@\S+\s+with:\s+version: \"([^\"]+)\"", workflow)
    assert versions and set(versions) == {bootstrap.UV_REQUIREMENT.split("==")[1]}


def test_help_installs_nothing_and_readme_lists_every_mode(tmp_path):
    """Issue 22, item 15: `bootstrap.py --help` created .venv before printing usage (exit 1)."""
    root = Path(__file__).resolve().parent.parent
    copy = tmp_path / "setup" / "bootstrap.py"
    copy.parent.mkdir()
    copy.write_text((root / "setup" / "bootstrap.py").read_text("utf-8"), "utf-8")
    for flag in ("--help", "-h"):
        done = subprocess.run(
            [sys.executable, str(copy), flag], capture_output=True, text=True, timeout=PATIENCE_S
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: python3 setup/bootstrap.py"), done.stdout
    assert not (tmp_path / ".venv").exists()
    wrong = subprocess.run([sys.executable, str(copy), "strat"], capture_output=True, text=True)
    assert wrong.returncode != 0 and "unknown mode 'strat'" in wrong.stderr
    assert not (tmp_path / ".venv").exists()
    readme = (root / "README.md").read_text("utf-8")
    usage = done.stdout
    for word in ("start", "setup", "sandbox", "test", "--no-lab", "--instructor"):
        assert word in usage, word
        assert f"`{word}" in readme, f"README does not list {word}"


CLI = "agent_harness.interfaces.cli"  # what `workshop` runs (python -m)


@pytest.mark.parametrize(
    ("argv", "handed_over"),
    [
        ([], [CLI, "lab"]),
        (["start", "--port", "9", "--instructor"], [CLI, "lab", "--port", "9", "--instructor"]),
        (["start", "--help"], [CLI, "lab", "--help"]),  # `workshop lab`'s help
        (["start", "--no-lab"], None),
        (["setup"], None),
        (["test", "-h", "-x", "-k", "not slow"], ["pytest", "-h", "-x", "-k", "not slow"]),
        (["test", "--kit", "K", "tests/test_kit.py"], ["pytest", "tests/test_kit.py"]),
        (["--kit=K", "start", "--port", "9"], [CLI, "lab", "--port", "9"]),
    ],
)  # fmt: skip
def test_the_options_after_a_mode_are_handed_over_untouched(
    bootstrap, monkeypatch, argv, handed_over
):
    """argparse (issue 29 item 4) keeps the hand-written parser's behaviour: what follows the
    mode goes to `workshop lab` or pytest as it was written (even -h), --kit PATH is taken out
    wherever it is."""
    kits = []
    for step in ("ensure_venv", "ensure_sandbox", "ensure_installed", "compile_bytecode"):
        monkeypatch.setattr(bootstrap, step, lambda *_: None)
    monkeypatch.setattr(bootstrap, "check_kit", kits.append)
    handed = []
    monkeypatch.setattr(bootstrap, "hand_over", lambda command, env: handed.append(command))
    bootstrap.main(argv)
    assert [c[2:] for c in handed] == ([handed_over] if handed_over else [])
    assert kits == ([Path("K").resolve()] if any("K" in a for a in argv) else [])


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["strat"], "unknown mode 'strat'; the modes: start, setup, sandbox, test"),
        (["sandbox", "--kit", "K"], "--kit goes with start, setup or test"),
        (["start", "--kit"], "argument --kit: expected one argument"),
    ],
)
def test_a_wrong_command_line_says_what_is_wrong_and_installs_nothing(
    bootstrap, capsys, argv, says
):
    with pytest.raises(SystemExit) as exited:
        bootstrap.main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python3 setup/bootstrap.py [MODE] [OPTIONS]") and says in err, err
    assert bootstrap.calls == []


def test_install_says_what_it_does_in_short_lines_and_shows_progress(
    bootstrap, monkeypatch, capsys
):
    """Issue 22, item 15: two 330-character uv command lines, then nothing for 3-12 s."""
    import time

    recorded = bootstrap.subprocess.run

    def slow_run(command, **kwargs):
        if "install" in [str(c) for c in command]:
            time.sleep(0.3)
        return recorded(command, **kwargs)

    monkeypatch.setattr(bootstrap.subprocess, "run", slow_run)
    monkeypatch.setattr(bootstrap, "TICK_SECONDS", 0.05)
    bootstrap.install()
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    assert any(f"packages of {bootstrap.LOCK.name}" in line for line in lines), lines
    assert any(line.startswith("[bootstrap]   ... ") for line in lines), lines
