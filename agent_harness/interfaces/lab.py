"""The JupyterLab that ``workshop lab`` starts: attendees without nbgrader's instructor tools.

nbgrader is installed for the instructor (``workshop grade``, formgrader), and it adds to
JupyterLab an "Nbgrader" menu, a "Create Assignment" sidebar, "Validate" buttons, the
formgrader and the assignment and course lists. Attendees need none of them, and seeing
them is confusing, so for attendees the lab starts with a project-owned Jupyter configuration
folder, ``setup/jupyter-attendee/``, put first on ``JUPYTER_CONFIG_PATH``:

* ``labconfig/page_config.json`` disables the ``@jupyter/nbgrader`` lab extension (all its
  plugins: menu, sidebars, buttons);
* ``jupyter_server_config.json`` turns off nbgrader's server extensions (formgrader, validate,
  assignment and course lists), so their pages and APIs do not exist either.

``workshop lab --instructor`` starts without that folder, so nbgrader's tools are there, at
the project's root, with the course folder ``course/`` (``grader/course.py``: nbgrader's
config, the sources, the gradebook, the release and the exchange) first on
``JUPYTER_CONFIG_PATH``, so formgrader finds its ``nbgrader_config.py`` and shows the
assignment. A user's own settings (``~/.jupyter``) still rank above the project's, as Jupyter
intends.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from agent_harness.foundation.config import PROJECT_ROOT

__all__ = ["ATTENDEE_CONFIG", "lab_command"]

ATTENDEE_CONFIG = PROJECT_ROOT / "setup" / "jupyter-attendee"


def lab_command(
    port: int = 8888,
    *,
    instructor: bool = False,
    no_browser: bool = False,
    notebook_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    course: Path | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment that start JupyterLab.

    Args:
        port: The port to listen on.
        instructor: Keep nbgrader's instructor extensions (attendees get them disabled).
        no_browser: Do not open a browser.
        notebook_dir: The folder the lab opens (default: the project's ``notebooks/``; with a
            ``course``, the project's root, which holds it).
        env: The environment to start from (default: this process's).
        course: An nbgrader course folder with its ``nbgrader_config.py`` (instructors), put
            first on ``JUPYTER_CONFIG_PATH``.

    Returns:
        (command, environment).
    """
    env = dict(os.environ if env is None else env)
    if notebook_dir is None:
        notebook_dir = PROJECT_ROOT if course is not None else PROJECT_ROOT / "notebooks"
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        f"--notebook-dir={notebook_dir}",
        f"--port={int(port)}",
    ]
    if no_browser:
        command.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers often run as root
        command.append("--allow-root")
    if ipc_fits(env):  # kernels over local sockets: no "running over TCP without encryption"
        command.append("--KernelManager.transport=ipc")
    paths = [p for p in env.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p]
    paths = [p for p in paths if Path(p) != ATTENDEE_CONFIG]
    if not instructor:
        paths.insert(0, str(ATTENDEE_CONFIG))
    elif course is not None:
        paths.insert(0, str(course))
    if paths:
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    else:
        env.pop("JUPYTER_CONFIG_PATH", None)
    return command, env


#: Longest path of a Unix domain socket (108 bytes on Linux, 104 on macOS, the terminating NUL
#: included), and what a kernel adds to the runtime folder: "/kernel-<uuid>-ipc-<n>".
_SOCKET_PATH_MAX, _KERNEL_SOCKET_NAME = 103, 50


def ipc_fits(env: Mapping[str, str]) -> bool:
    """Whether kernels can talk to the lab over local (ipc) sockets: not on Windows (zmq has
    no ipc there), and only where the runtime folder's path leaves room for the socket names
    (else TCP on 127.0.0.1, as before, with ipykernel's warning)."""
    if os.name == "nt":
        return False
    runtime = env.get("JUPYTER_RUNTIME_DIR")
    if not runtime:
        from jupyter_core.paths import jupyter_runtime_dir

        runtime = jupyter_runtime_dir()
    return len(os.fsencode(os.path.abspath(runtime))) + _KERNEL_SOCKET_NAME <= _SOCKET_PATH_MAX
