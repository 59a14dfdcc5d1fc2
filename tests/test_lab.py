"""JupyterLab as the attendee gets it: no nbgrader instructor tools, and it stops when told.

* ``workshop lab`` starts JupyterLab with nbgrader's lab extension and server extensions off;
  ``workshop lab --instructor`` keeps them. Checked on the configuration files against the
  installed nbgrader, and on a running lab: the page configuration JupyterLab sends to the
  browser, and nbgrader's pages.
* Stopping: SIGTERM to ``workshop lab`` or to ``python3 setup/bootstrap.py`` stops JupyterLab
  and its kernels and frees the port (POSIX; on Windows a Job Object does it, not tested here).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

from agent_harness.interfaces.lab import ATTENDEE_CONFIG, lab_command
from tests.deadlines import PATIENCE_S
from tests.ports import free_port as _free_port

ROOT = Path(__file__).resolve().parent.parent
POSIX_ONLY = pytest.mark.skipif(os.name == "nt", reason="POSIX signals (Windows: Job Object)")


def _installed_nbgrader() -> tuple[str, set[str]]:
    """The installed nbgrader's lab extension name and the server extensions it enables."""
    labext = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
    packages = [*labext.glob("*/package.json"), *labext.glob("@*/*/package.json")]
    names = [json.loads(p.read_text("utf-8"))["name"] for p in packages]
    names = [name for name in names if "nbgrader" in name]
    assert len(names) == 1, names
    enabled = set()
    for path in (Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d").glob("*.json"):
        extensions = json.loads(path.read_text("utf-8"))["ServerApp"]["jpserver_extensions"]
        enabled |= {name for name, on in extensions.items() if on and "nbgrader" in name}
    assert enabled, "nbgrader enables no server extension: has it changed?"
    return names[0], enabled


def test_attendee_config_turns_off_everything_nbgrader_adds():
    labextension, server_extensions = _installed_nbgrader()
    page = json.loads((ATTENDEE_CONFIG / "labconfig" / "page_config.json").read_text("utf-8"))
    nbgrader_off = {k: v for k, v in page["disabledExtensions"].items() if "nbgrader" in k}
    assert nbgrader_off == {labextension: True}
    assert page["disabledExtensions"] == {labextension: True, NEWS: True}  # and the news pop-up
    server = json.loads((ATTENDEE_CONFIG / "jupyter_server_config.json").read_text("utf-8"))
    off = server["ServerApp"]["jpserver_extensions"]
    assert off == {name: False for name in server_extensions}


def test_attendees_get_the_config_folder_and_instructors_do_not():
    theirs = os.pathsep.join(["/somewhere/else", str(ATTENDEE_CONFIG)])
    command, env = lab_command(9999, env={"JUPYTER_CONFIG_PATH": theirs})
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [str(ATTENDEE_CONFIG), "/somewhere/else"]
    assert command[1:4] == ["-m", "jupyter", "lab"] and "--port=9999" in command
    assert f"--notebook-dir={ROOT / 'notebooks'}" in command
    _, env = lab_command(9999, instructor=True, env={"JUPYTER_CONFIG_PATH": theirs})
    assert env["JUPYTER_CONFIG_PATH"] == "/somewhere/else"
    _, env = lab_command(9999, instructor=True, env={})
    assert "JUPYTER_CONFIG_PATH" not in env


def _port_taken(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wait_for_port(port: int, process: subprocess.Popen, seconds: float = PATIENCE_S) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _port_taken(port):
            return
        if process.poll() is not None:
            raise AssertionError(f"exited with {process.returncode} before listening")
        time.sleep(0.2)
    raise AssertionError(f"nothing listened on {port} within {seconds} s")


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=PATIENCE_S) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, ""


def _stop(process: subprocess.Popen, *others: psutil.Process) -> None:
    """Kill what a test started, whatever the code under test left behind."""
    try:
        tree = [psutil.Process(process.pid), *psutil.Process(process.pid).children(True)]
    except psutil.NoSuchProcess:
        tree = []
    for proc in [*tree, *others]:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    process.wait(PATIENCE_S)


def _start_lab(
    tmp_path: Path, *extra: str, runtime: Path | None = None
) -> tuple[subprocess.Popen, int, str]:
    """``workshop lab`` on a free port, its own HOME, a known token."""
    port, token = _free_port(), "t" * 32
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(runtime or tmp_path / "jupyter-runtime"),
        "JUPYTER_TOKEN": token,
    }
    env.pop("JUPYTER_CONFIG_PATH", None)
    command = [sys.executable, "-m", "agent_harness.interfaces.cli", "lab", "--no-browser"]
    command += [f"--port={port}", *extra]
    log = (tmp_path / "lab.log").open("w")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    _wait_for_port(port, process)
    return process, port, token


#: JupyterLab's plugin that asks to fetch Jupyter news and shows it in a pop-up.
NEWS = "@jupyterlab/apputils-extension:announcements"


def _page_config(port: int, token: str) -> dict:
    status, html = _get(f"http://127.0.0.1:{port}/lab?token={token}")
    assert status == 200, status
    found = re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', html, re.DOTALL)
    return json.loads(found.group(1))


def _disabled(config: dict) -> set[str]:
    """The page config's disabledExtensions (a list, or a dict of name: true)."""
    disabled = config.get("disabledExtensions") or []
    if isinstance(disabled, dict):
        return {name for name, off in disabled.items() if off}
    return set(disabled)


@pytest.mark.slow
@pytest.mark.parametrize("instructor", [False, True], ids=["attendee", "instructor"])
def test_running_lab_shows_nbgrader_to_instructors_only(instructor, tmp_path):
    labextension, _ = _installed_nbgrader()
    process, port, token = _start_lab(tmp_path, *(["--instructor"] if instructor else []))
    try:
        config = _page_config(port, token)
        loaded = {e["name"] for e in config["federated_extensions"]}
        assert labextension in loaded  # installed either way ...
        disabled = _disabled(config)
        assert (labextension in disabled) is not instructor  # ... on for instructors only
        status, _ = _get(f"http://127.0.0.1:{port}/formgrader?token={token}")
        assert (status == 404) is not instructor, status
        status, _ = _get(f"http://127.0.0.1:{port}/assignments?token={token}")
        assert (status == 404) is not instructor, status
        assert "@jupyterlab/notebook-extension" not in disabled  # the lab itself works
        # issue 22, item 15: no Jupyter news pop-up over an attendee's notebook
        assert (NEWS in disabled) is not instructor, sorted(disabled)
    finally:
        _stop(process)


def _wait_gone(pids: list[int], seconds: float = PATIENCE_S) -> list[int]:
    deadline = time.monotonic() + seconds
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if psutil.pid_exists(p) and _not_zombie(p)]
        time.sleep(0.2)
    return alive


def _not_zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@POSIX_ONLY
@pytest.mark.slow
def test_sigterm_to_workshop_lab_stops_jupyterlab_and_its_kernels(tmp_path):
    process, port, token = _start_lab(tmp_path)
    everything = []
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/kernels?token={token}",
            data=b'{"name": "python3"}',
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=PATIENCE_S) as response:
            assert response.status == 201
        everything = psutil.Process(process.pid).children(recursive=True)
        assert everything, "a kernel process should be running"
        process.send_signal(signal.SIGTERM)
        process.wait(PATIENCE_S)
        assert _wait_gone([p.pid for p in everything]) == [], "kernels left running"
        assert not _port_taken(port), "the port is still taken"
    finally:
        _stop(process, *everything)


STAND_IN = """\
#!{python}
# Stands in for the venv's python: `-m agent_harness.interfaces.cli setup` succeeds at once,
# `-m agent_harness.interfaces.cli lab` behaves like JupyterLab: listens, runs a "kernel" child,
# and on
# SIGTERM stops the child and exits.
import os, signal, socket, subprocess, sys, time
if sys.argv[-1] == "setup":
    sys.exit(0)
kernel = subprocess.Popen([{python!r}, "-c", "import time; time.sleep(600)"])
server = socket.socket()
server.bind(("127.0.0.1", {port}))
server.listen()
open({pids!r} + ".tmp", "w").write(f"{{os.getpid()}} {{kernel.pid}}")
os.replace({pids!r} + ".tmp", {pids!r})
def stop(*_):
    kernel.terminate()
    kernel.wait()
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    time.sleep(1)
"""

DRIVER = """\
import importlib.util
spec = importlib.util.spec_from_file_location("bootstrap", {bootstrap!r})
bootstrap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bootstrap)
bootstrap.ensure_venv = lambda: None             # the environment is there already
bootstrap.ensure_installed = lambda *args: None
bootstrap.compile_bytecode = lambda: None         # (it would run the stand-in too)
bootstrap.PYTHON = {stand_in!r}
bootstrap.main(["start"])
"""


@POSIX_ONLY
def test_sigterm_to_bootstrap_stops_the_lab_and_frees_the_port(tmp_path):
    port, pids = _free_port(), tmp_path / "kernel.pid"
    stand_in = tmp_path / "python"
    stand_in.write_text(STAND_IN.format(python=sys.executable, port=port, pids=str(pids)))
    stand_in.chmod(0o755)
    driver = tmp_path / "driver.py"
    bootstrap = str(ROOT / "setup" / "bootstrap.py")
    driver.write_text(DRIVER.format(bootstrap=bootstrap, stand_in=str(stand_in)))
    process = subprocess.Popen([sys.executable, str(driver)], stdout=subprocess.DEVNULL)
    try:
        _wait_for_port(port, process)
        deadline = time.monotonic() + PATIENCE_S
        while not pids.exists() or not pids.read_text():
            assert time.monotonic() < deadline, "the stand-in never started its kernel"
            time.sleep(0.1)
        lab, kernel = (int(pid) for pid in pids.read_text().split())
        process.send_signal(signal.SIGTERM)  # what a process manager or `kill` does
        process.wait(PATIENCE_S)
        assert _wait_gone([lab, kernel]) == [], "the lab or its kernel is still running"
        deadline = time.monotonic() + PATIENCE_S
        while _port_taken(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _port_taken(port), "the lab still holds the port"
    finally:
        _stop(process)
        for pid in pids.read_text().split() if pids.exists() else []:
            if psutil.pid_exists(int(pid)):
                psutil.Process(int(pid)).kill()


@POSIX_ONLY
def test_kernels_use_local_sockets_where_the_socket_paths_fit():
    assert (
        "--KernelManager.transport=ipc"
        in lab_command(9999, env={"JUPYTER_RUNTIME_DIR": "/tmp/r"})[0]
    )
    deep = "/tmp/" + "d" * 80  # a socket path there would be too long: TCP, as before
    assert (
        "--KernelManager.transport=ipc"
        not in lab_command(9999, env={"JUPYTER_RUNTIME_DIR": deep})[0]
    )


@POSIX_ONLY
@pytest.mark.slow
def test_a_kernel_started_by_the_lab_runs_without_the_tcp_warning(tmp_path):
    """Issue 22, item 15: "Kernel is running over TCP without encryption" on every start."""
    import tempfile

    from jupyter_client import BlockingKernelClient

    runtime = Path(tempfile.mkdtemp(prefix="jr", dir="/tmp"))
    process, port, token = _start_lab(tmp_path, runtime=runtime)
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/kernels?token={token}",
            data=json.dumps({"name": "python3"}).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=PATIENCE_S) as response:
            kernel = json.loads(response.read())
        connection = runtime / f"kernel-{kernel['id']}.json"
        assert json.loads(connection.read_text("utf-8"))["transport"] == "ipc"
        client = BlockingKernelClient(connection_file=str(connection))
        client.load_connection_file()
        # No heartbeat channel: its ping waits 1 s for a pong, so a kernel starved of CPU on
        # a busy machine counts as dead ("Kernel died before replying to kernel_info") while
        # it is still starting. The test waits for the kernel's answer itself instead.
        client.start_channels(hb=False)
        try:
            client.wait_for_ready(timeout=PATIENCE_S)
            reply = client.execute_interactive("6 * 7", timeout=PATIENCE_S)
        finally:
            client.stop_channels()
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        _stop(process)
        shutil.rmtree(runtime, ignore_errors=True)
    log = (tmp_path / "lab.log").read_text("utf-8")
    assert "Kernel started" in log and "without encryption" not in log, log[-2000:]
