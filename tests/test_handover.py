"""hand_over: stopping the process a user started stops the long-running command it handed
over to (JupyterLab), on every OS. A small stand-in command (a sleeping Python) is used, so the
test is cheap; tests/test_lab.py checks the real JupyterLab on POSIX.

Windows has no exec: the command runs as a child of a process that put itself into a Job
Object with KILL_ON_JOB_CLOSE. The Windows test runs in the GitHub Actions windows-latest job
(`.github/workflows/tests.yml`); it is skipped on Linux and macOS.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.deadlines import PATIENCE_S

HANDOVER = Path(__file__).resolve().parent.parent / "agent_harness" / "interfaces" / "handover.py"
# The parent loads handover.py by path, as setup/bootstrap.py does, and hands over to a sleeper
# that writes its PID first.
PARENT = (
    "import importlib.util, sys\n"
    "spec = importlib.util.spec_from_file_location('handover', sys.argv[1])\n"
    "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
    "module.hand_over([sys.executable, '-c', "
    "'import os, sys, time; open(sys.argv[1], \"w\").write(str(os.getpid())); time.sleep(120)',"
    " sys.argv[2]])\n"
)


def _start(tmp_path: Path) -> tuple[subprocess.Popen, int]:
    pid_file = tmp_path / "sleeper.pid"
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(HANDOVER), str(pid_file)])
    deadline = time.monotonic() + PATIENCE_S
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.1)
    return parent, int(pid_file.read_text())


def _gone(pid: int, seconds: float = PATIENCE_S) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(os.name == "nt", reason="POSIX: the command replaces the process (exec)")
def test_posix_the_command_is_the_process_so_sigterm_stops_it(tmp_path):
    parent, pid = _start(tmp_path)
    try:
        assert pid == parent.pid  # exec: the same process
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(PATIENCE_S) != 0
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.skipif(os.name != "nt", reason="Windows only (GitHub Actions windows-latest)")
def test_windows_ending_the_parent_ends_the_command(tmp_path):
    parent, pid = _start(tmp_path)
    try:
        assert pid != parent.pid  # no exec on Windows: a child in the parent's job
        psutil.Process(parent.pid).kill()  # TerminateProcess, like Task Manager or taskkill
        assert _gone(pid), "the command outlived the process that started it"
    finally:
        for p in (parent.pid, pid):
            try:
                psutil.Process(p).kill()
            except psutil.NoSuchProcess:
                pass
