#!/usr/bin/env python3
"""The workshop's two commands, for any OS with Python 3.10-3.13 (standard library only).

    python3 setup/bootstrap.py          # install into .venv, prepare the database, open JupyterLab
    python3 setup/bootstrap.py test     # install what tests need and run the whole test suite

On Linux, ``test`` and ``sandbox`` also install bubblewrap (the grader's sandbox) when it is
missing and the system allows it (root or password-less sudo, apt-get); elsewhere the grader
runs with process limits only and says so.

Both are idempotent: the virtual environment is reused, and pip runs only when a requirements
file changed since the last successful install (a stamp in .venv records their hash). Where
constraints/pyXY.txt exists for the running Python, every transitive package is pinned too.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def say(message: str) -> None:
    print(f"[bootstrap] {message}", flush=True)


def run(*command: str | Path, env: dict | None = None) -> None:
    say(" ".join(str(c) for c in command))
    result = subprocess.run([str(c) for c in command], cwd=ROOT, env=env)
    if result.returncode != 0:
        sys.exit(f"[bootstrap] failed (exit {result.returncode}): {' '.join(map(str, command))}")


def ensure_venv() -> None:
    if not (3, 10) <= sys.version_info[:2] <= (3, 13):
        sys.exit(
            f"[bootstrap] Python {sys.version.split()[0]} is not supported: use 3.10 to 3.13 "
            "(e.g. python3.12 setup/bootstrap.py)."
        )
    if not PYTHON.exists():
        say(f"creating virtual environment {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)


def constraints_file() -> Path | None:
    """The full lock of every package for this Python version, if the project has one."""
    path = ROOT / "constraints" / f"py{sys.version_info[0]}{sys.version_info[1]}.txt"
    return path if path.exists() else None


def ensure_installed(requirements: str) -> None:
    constraints = constraints_file()
    files = [ROOT / requirements, ROOT / "requirements.txt", ROOT / "pyproject.toml"]
    files += [constraints] if constraints else []
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()
    stamp = VENV / f".installed-{requirements}"
    if stamp.exists() and stamp.read_text() == digest:
        say(f"{requirements} already installed")
        return
    pip = (PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check")
    run(*pip, "-r", ROOT / requirements, *(("-c", constraints) if constraints else ()))
    run(*pip, "--no-deps", "-e", ROOT)
    stamp.write_text(digest)


def ensure_sandbox() -> None:
    """Install bubblewrap for `workshop grade` on Debian/Ubuntu when missing (best effort)."""
    if not sys.platform.startswith("linux") or shutil.which("bwrap"):
        return
    apt = shutil.which("apt-get")
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    sudo = [] if root else ["sudo", "-n"]
    if not apt or (not root and not shutil.which("sudo")):
        say("bubblewrap not installed: `workshop grade` will use process limits only")
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*sudo, apt, "install", "-y", "-qq", "bubblewrap"]
    say("installing bubblewrap (the grader's sandbox): " + " ".join(install))
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run([*sudo, apt, "update", "-qq"], env=env, capture_output=True)
        subprocess.run(install, env=env, capture_output=True)
    if not shutil.which("bwrap"):
        say("could not install bubblewrap: `workshop grade` will use process limits only")


def main(argv: list[str]) -> None:
    mode = argv[0] if argv else "start"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    ensure_venv()
    if mode == "test":
        ensure_sandbox()
        ensure_installed("requirements-dev.txt")
        run(PYTHON, "-m", "pytest", *argv[1:], env=env)
    elif mode in ("start", "setup"):
        ensure_installed("requirements.txt")
        run(PYTHON, "-m", "agent_harness.cli", "setup", env=env)
        if mode == "start" and "--no-lab" not in argv:
            run(PYTHON, "-m", "agent_harness.cli", "lab", env=env)
    elif mode == "sandbox":
        ensure_sandbox()
    else:
        sys.exit(
            "usage: python3 setup/bootstrap.py [start [--no-lab] | setup | sandbox"
            " | test [pytest args]]"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
