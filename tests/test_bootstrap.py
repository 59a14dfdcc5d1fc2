"""setup/bootstrap.py installs with uv, given the package sources pip is configured with."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

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


def test_uv_installs_with_pips_sources_and_the_same_pins(bootstrap):
    constraints = ROOT / "constraints" / "py311.txt"
    bootstrap.install(ROOT / "requirements.txt", constraints)
    installs = [
        (c, env) for c, env in bootstrap.calls if c[:3] == ["/usr/bin/uv", "pip", "install"]
    ]
    assert len(installs) == 2, bootstrap.calls  # the requirements, then the project (editable)
    command, env = installs[0]
    pairs = list(zip(command, command[1:]))
    assert ("--index-url", "https://pypi.internal/simple") in pairs
    assert ("--extra-index-url", "file:///mirror/a/simple") in pairs
    assert ("--extra-index-url", "file:///mirror/b/simple") in pairs
    assert ("--find-links", "/env/wheels") in pairs  # the variable beats the file
    assert ("--find-links", "/global/wheels") not in pairs
    assert ("--allow-insecure-host", "pypi.internal") in pairs
    assert ("--index-strategy", "unsafe-best-match") in pairs  # pip's rule: best version anywhere
    assert ("-r", str(ROOT / "requirements.txt")) in pairs and ("-c", str(constraints)) in pairs
    assert env["SSL_CERT_FILE"] == "/etc/ssl/certs/ca.crt"
    assert installs[1][0][-3:] == ["--no-deps", "-e", str(ROOT)]
    assert not any(c[1:4] == ["-m", "pip", "install"] for c, _ in bootstrap.calls)  # no pip


def test_pip_installs_when_asked_or_when_uv_fails(bootstrap, monkeypatch):
    monkeypatch.setenv("WORKSHOP_INSTALLER", "pip")
    bootstrap.install(ROOT / "requirements.txt", None)
    assert [c[1:4] for c, _ in bootstrap.calls] == [["-m", "pip", "install"]] * 2
    bootstrap.calls.clear()
    monkeypatch.delenv("WORKSHOP_INSTALLER")
    real = bootstrap.subprocess.run

    def uv_fails(command, **kwargs):
        result = real(command, **kwargs)
        if str(command[0]).endswith("uv"):
            result.returncode = 2
        return result

    monkeypatch.setattr(bootstrap.subprocess, "run", uv_fails)
    bootstrap.install(ROOT / "requirements.txt", None)
    used = [c[0].rsplit("/", 1)[-1] + " " + c[1] for c, _ in bootstrap.calls]
    assert used[-2:] == [f"{Path(bootstrap.PYTHON).name} -m"] * 2, used
