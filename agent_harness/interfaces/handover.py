"""Hand this process over to a long-running command, so stopping this process stops it.

The last step of ``python3 setup/bootstrap.py`` and of ``workshop lab`` is JupyterLab, which
runs until someone stops it. Whoever stops it (Ctrl+C, ``kill``, a process manager's SIGTERM,
closing the terminal) signals the process they started, so that process must not be a parent
left waiting while JupyterLab and its kernels keep running and keep the port.

* Linux and macOS: the command **replaces** this process (``os.execvpe``): same PID, so every
  signal sent to what the user started reaches the command itself. JupyterLab answers SIGTERM
  by shutting down its kernels and freeing the port.
* Windows: ``os.exec*`` there starts a *new* process and ends this one, which would give the
  console back while JupyterLab keeps running, so it is not used. The command runs as a child,
  and this process first puts itself into a Job Object with ``KILL_ON_JOB_CLOSE``: children
  inherit the job, and when this process ends for any reason (Ctrl+C, Ctrl+Break, Task
  Manager, ``taskkill``), Windows closes the job and ends the whole tree, kernels included.
  Ctrl+C reaches the child through the shared console; this process waits for it and exits
  with its code.

Standard library only: ``setup/bootstrap.py`` loads this file by path before anything is
installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import NoReturn

__all__ = ["hand_over"]


def hand_over(command: Sequence[str], env: Mapping[str, str] | None = None) -> NoReturn:
    """Run ``command`` as this process's last step; never returns.

    Args:
        command: The program and its arguments (the program is looked up on PATH if it has no
            directory part).
        env: The command's environment (default: this process's).
    """
    command = [str(c) for c in command]
    env = dict(os.environ if env is None else env)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name != "nt":
        os.execvpe(command[0], command, env)  # does not return
    _kill_children_with_this_process()
    child = subprocess.Popen(command, env=env)
    while True:
        try:
            raise SystemExit(child.wait())
        except KeyboardInterrupt:  # the child got the same Ctrl+C; let it finish
            continue


def _kill_children_with_this_process() -> bool:
    """Windows: put this process in a job that ends every process in it when this one ends.

    Returns:
        Whether the job is in place (False on Windows versions that refuse nested jobs; then a
        killed parent can leave the child running, as before).
    """
    import ctypes
    from ctypes import wintypes

    class BasicLimits(ctypes.Structure):
        _fields_ = [
            ("PerProcessUserTimeLimit", ctypes.c_int64),
            ("PerJobUserTimeLimit", ctypes.c_int64),
            ("LimitFlags", wintypes.DWORD),
            ("MinimumWorkingSetSize", ctypes.c_size_t),
            ("MaximumWorkingSetSize", ctypes.c_size_t),
            ("ActiveProcessLimit", wintypes.DWORD),
            ("Affinity", ctypes.c_size_t),
            ("PriorityClass", wintypes.DWORD),
            ("SchedulingClass", wintypes.DWORD),
        ]

    class IoCounters(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_uint64)
            for name in ("Read", "Write", "Other", "ReadBytes", "WriteBytes", "OtherBytes")
        ]

    class ExtendedLimits(ctypes.Structure):
        _fields_ = [
            ("BasicLimitInformation", BasicLimits),
            ("IoInfo", IoCounters),
            ("ProcessMemoryLimit", ctypes.c_size_t),
            ("JobMemoryLimit", ctypes.c_size_t),
            ("PeakProcessMemoryUsed", ctypes.c_size_t),
            ("PeakJobMemoryUsed", ctypes.c_size_t),
        ]

    job_object_extended_limit_information = 9
    job_object_limit_kill_on_job_close = 0x2000
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.CreateJobObjectW.restype = wintypes.HANDLE
    kernel32.CreateJobObjectW.argtypes = [ctypes.c_void_p, wintypes.LPCWSTR]
    kernel32.SetInformationJobObject.argtypes = [
        wintypes.HANDLE,
        ctypes.c_int,
        ctypes.c_void_p,
        wintypes.DWORD,
    ]
    kernel32.GetCurrentProcess.restype = wintypes.HANDLE
    kernel32.AssignProcessToJobObject.argtypes = [wintypes.HANDLE, wintypes.HANDLE]
    job = kernel32.CreateJobObjectW(None, None)  # kept open until this process ends
    if not job:
        return False
    limits = ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = job_object_limit_kill_on_job_close
    ok = kernel32.SetInformationJobObject(
        job, job_object_extended_limit_information, ctypes.byref(limits), ctypes.sizeof(limits)
    )
    return bool(ok and kernel32.AssignProcessToJobObject(job, kernel32.GetCurrentProcess()))
