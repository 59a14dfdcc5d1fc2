"""Start the grading runner for one submission in a sandbox, with limits and a watchdog.

What a submission gets (Linux with bubblewrap):

* a new mount namespace with a read-only view of the system libraries, the Python
  installation, the virtual environment and the ``agent_harness`` package only (a ``grader``
  or ``solutions`` folder inside them, as a non-editable install puts ``grader`` in
  site-packages, is covered by an empty folder); a private ``/tmp`` of bounded size where
  every notebook runs in a fresh copy of the read-only prepared database. The solutions, the
  probes, the gradebook, the results and other submissions are not mounted;
* new PID, network (loopback only), IPC, UTS and user namespaces; no capabilities; the whole
  sandbox dies with the grader;
* a scrubbed environment (no API keys, no grader paths); stdin, stdout and stderr are
  /dev/null: the grader and the runner talk over two pipes only the runner holds;
* resource limits, set by the runner itself before any notebook runs: data segment (memory),
  file size, core dumps, processes, CPU time; and a watchdog that kills the sandbox when its
  processes together exceed the memory or process budget or the submission's deadline.

Without bubblewrap (macOS, Windows, a Linux box without it) only the process limits, the
scrubbed environment, the separate job folder and the watchdog apply: say so to the user
(:func:`isolation`), and use ``--require-sandbox`` to refuse to grade without it.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from grader.cache_paths import harness_dir, ready_embeddings, ready_matplotlib, ready_pycache

__all__ = [
    "Limits",
    "Sandbox",
    "bwrap_available",
    "isolation",
    "RUNNER",
    "RUNNER_FILES",
    "HIDDEN_NAMES",
    "SANDBOXES_PER_CPU",
]

RUNNER = Path(__file__).with_name("runner.py")
#: The runner and the sibling files it loads: all the sandbox mounts of the grader.
RUNNER_FILES = tuple(
    Path(__file__).with_name(f"{n}.py")
    for n in ("runner", "runner_child", "runner_guard", "runner_warm_up")
)
#: Folders covered by an empty one wherever they sit inside a folder the sandbox mounts.
HIDDEN_NAMES = ("grader", "solutions")
#: Parallel sandboxes per CPU when grading is not told (``--workers``): notebooks also wait
#: (tool time-outs, 06's cool-down), so more sandboxes than cores keep the cores busy.
#: bench/bench_grade.py --n 10 on 2 cores, quiet: 3 sandboxes 117-119 s, 4 sandboxes
#: 110-111 s, 5 sandboxes 127 s (more CPU per submission).
SANDBOXES_PER_CPU = 2
_SYSTEM_DIRS = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache"]


@dataclass(frozen=True)
class Limits:
    """Per-submission limits."""

    memory_mb: int = 2048
    processes: int = 64
    file_size_mb: int = 512
    cpu_seconds: int = 1800
    deadline_s: float = 1800.0

    @classmethod
    def for_grading(cls, memory_mb: int = 2048, timeout_notebook: float = 300.0) -> Limits:
        """The limits ``workshop grade`` and ``workshop check`` give a submission."""
        return cls(memory_mb=memory_mb, deadline_s=timeout_notebook * 8 + 60)


@functools.lru_cache(maxsize=1)
def bwrap_available() -> bool:
    """True when ``bwrap`` exists and can create the namespaces we use."""
    exe = shutil.which("bwrap")
    if not exe or not sys.platform.startswith("linux"):
        return False
    probe = [exe, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@functools.lru_cache(maxsize=1)
def _bwrap_has_size() -> bool:
    """bubblewrap 0.8 and later can bound a tmpfs (``--size``)."""
    try:
        help_text = subprocess.run(
            [shutil.which("bwrap") or "bwrap", "--help"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return "--size" in help_text.stdout + help_text.stderr


def isolation() -> str:
    """One line saying which isolation grading uses on this machine."""
    if bwrap_available():
        return (
            "bubblewrap sandbox (own filesystem view, no network, own PID namespace) "
            "+ process limits"
        )
    return (
        "process limits only: bubblewrap is not available, so a submission could read files "
        "the grader can read (install it: apt-get install bubblewrap)"
    )


def _python_paths() -> list[str]:
    """Folders the runner's Python needs: installation, environment, agent_harness."""
    paths = {
        sys.prefix,
        sys.base_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        str(harness_dir()),
    }
    return sorted(p for p in paths if p and os.path.exists(p))


def _hidden_paths(mounted: list[str]) -> list[str]:
    """Folders of the grader inside mounted folders (a non-editable install's site-packages
    holds ``grader``): the sandbox covers each with an empty read-only folder."""
    found = []
    for path in mounted:
        for name in HIDDEN_NAMES:
            candidate = os.path.join(path, name)
            if os.path.isdir(candidate):
                found.append(candidate)
    return found


def _package_root() -> str:
    """The folder holding the ``agent_harness`` package the grader imported.

    It goes on the runner's ``PYTHONPATH``, so the sandbox imports that same package: an
    editable install's import hook points at the checkout it was installed from, which is
    not the one graded from a git worktree (and is not mounted in the sandbox)."""
    return str(harness_dir().parent)


def _environment(home: str) -> dict[str, str]:
    """The scrubbed environment of the runner."""
    return {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": _package_root(),
        "HOME": home,
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "WORKSHOP_EMBED_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "WORKSHOP_BACKEND": "embedded",
        "WORKSHOP_LLM": "offline",
        "WORKSHOP_USER": "workshop",
        "WORKSHOP_AGENT": "supplychain-agent",
    }


def _same_user(proc) -> bool:
    uids = proc.info.get("uids")
    return uids is not None and hasattr(os, "getuid") and uids.real == os.getuid()


class Sandbox:
    """One runner process for one submission; use as a context manager.

    The grader writes commands to :attr:`commands` and reads events from :attr:`events`
    (see :mod:`grader.runner`).

    Args:
        job_dir: The submission's own writable folder (created empty by the caller); without
            bubblewrap the notebooks run in it, with bubblewrap in the sandbox's private /tmp.
        template: A prepared embedded database folder, copied for every notebook.
        limits: The resource limits.
        use_bwrap: None = use bubblewrap when available.
        warm_up: The runner's warm-up groups (``grader/runner_warm_up.py``, ``WARM_UP``);
            None = all.
        embeddings: The embeddings file the runner preloads (None: the one grading prepared,
            ``grader.cache_paths.ready_embeddings``).
    """

    def __init__(
        self,
        job_dir: Path,
        template: Path,
        limits: Limits,
        use_bwrap: bool | None = None,
        warm_up: list[str] | None = None,
        embeddings: Path | None = None,
    ):
        self.job_dir = Path(job_dir).resolve()
        self.warm_up = warm_up
        self.embeddings = embeddings
        self.template = Path(template).resolve()
        self.limits = limits
        self.use_bwrap = bwrap_available() if use_bwrap is None else use_bwrap
        self.process: subprocess.Popen | None = None
        self.commands = None
        self.events = None
        self.killed_because = ""
        self._stop = threading.Event()
        self._nproc = 0
        self._fds = (0, 1)

    # --- command -------------------------------------------------------------------------
    def command(self, python_args: list[str] | None = None) -> list[str]:
        """The command line that starts the runner (or, with ``python_args``, runs Python with
        those arguments in the same sandbox: the tests look around in it)."""
        commands_fd, events_fd = (str(fd) for fd in self._fds)
        embeddings = self.embeddings or ready_embeddings()
        inside = "/embeddings.json" if self.use_bwrap else str(embeddings)
        settings = json.dumps(
            {
                "memory_mb": self.limits.memory_mb,
                "file_size_mb": self.limits.file_size_mb,
                "cpu_seconds": self.limits.cpu_seconds,
                "nproc": self._nproc or None,
                "embeddings": inside if embeddings else None,
                "warm_up": self.warm_up,
            }
        )
        pycache = ready_pycache()
        if not self.use_bwrap:
            work, template = str(self.job_dir), str(self.template)
            runner = [str(RUNNER), commands_fd, events_fd, work, template, settings]
            return [sys.executable, *(runner if python_args is None else python_args)]
        # Mount order matters: the private /tmp first, so binds of folders that live under
        # /tmp (a project cloned there, pytest's folders) are mounted on top of it.
        cmd = [shutil.which("bwrap") or "bwrap"]
        if _bwrap_has_size():
            cmd += ["--size", str(self.limits.file_size_mb << 20)]
        cmd += ["--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"]
        for path in _SYSTEM_DIRS:
            cmd += ["--ro-bind-try", path, path]
        mounted = _python_paths()
        for path in mounted:
            cmd += ["--ro-bind", path, path]
        for path in _hidden_paths(mounted):
            cmd += ["--tmpfs", path, "--remount-ro", path]
        if pycache is not None:
            cmd += ["--ro-bind", str(pycache), str(pycache)]
            grader_dir = Path(__file__).resolve().parent
            compiled = pycache / grader_dir.relative_to(grader_dir.anchor)
            if compiled.is_dir():  # bytecode of the grader itself: never in the sandbox
                cmd += ["--tmpfs", str(compiled), "--remount-ro", str(compiled)]
        if embeddings is not None:
            cmd += ["--ro-bind", str(embeddings), "/embeddings.json"]
        matplotlib = ready_matplotlib()
        if matplotlib is not None:
            cmd += ["--ro-bind", str(matplotlib), str(matplotlib)]
        cmd += ["--ro-bind", str(self.template), "/template"]
        for path in RUNNER_FILES:
            cmd += ["--ro-bind", str(path), f"/runner/{path.name}"]
        cmd += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        cmd += ["--clearenv", "--chdir", "/tmp"]
        for key, value in self._env("/tmp").items():
            cmd += ["--setenv", key, value]
        runner = ["/runner/runner.py", commands_fd, events_fd, "/tmp/work", "/template", settings]
        return [*cmd, sys.executable, *(runner if python_args is None else python_args)]

    @staticmethod
    def _env(home: str) -> dict[str, str]:
        env = _environment(home)
        pycache = ready_pycache()
        if pycache is not None:  # compiled outside, read-only here (grader/caches.py)
            env["PYTHONPYCACHEPREFIX"] = str(pycache)
        matplotlib = ready_matplotlib()
        if matplotlib is not None:  # its font list, read-only here (grader/caches.py)
            env["WORKSHOP_MATPLOTLIB"] = str(matplotlib)
        return env

    # --- life cycle ----------------------------------------------------------------------
    def __enter__(self) -> Sandbox:
        # RLIMIT_NPROC counts every process of the user (root is exempt): allow what the
        # user already runs plus the submission's budget; the watchdog counts exactly.
        mine = sum(1 for p in psutil.process_iter(["uids"]) if _same_user(p))
        self._nproc = mine + 4 * self.limits.processes
        env = self._env(str(self.job_dir))
        if not self.use_bwrap:
            env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")  # Windows needs it
        commands_r, commands_w = os.pipe()
        events_r, events_w = os.pipe()
        self._fds = (commands_r, events_w)
        try:
            # No preexec_fn: the runner sets its own limits (a preexec_fn can deadlock a
            # threaded grader between fork and exec).
            self.process = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=str(self.job_dir),
                env=env,
                pass_fds=(commands_r, events_w),
                start_new_session=True,
            )
        finally:
            os.close(commands_r)
            os.close(events_w)
        self.commands = os.fdopen(commands_w, "w", encoding="utf-8")
        self.events = os.fdopen(events_r, "r", encoding="utf-8", errors="replace")
        self._watchdog = threading.Thread(target=self._watch, daemon=True)
        self._started = time.monotonic()
        self._watchdog.start()
        return self

    def __exit__(self, *exc) -> None:
        self.kill()

    def kill(self, reason: str = "") -> None:
        """Kill the runner and everything it started."""
        if reason and not self.killed_because:
            self.killed_because = reason
        self._stop.set()
        process = self.process
        if process is None:
            return
        try:
            victims = psutil.Process(process.pid).children(recursive=True)
        except psutil.Error:
            victims = []
        for victim in [*victims]:
            try:
                victim.kill()
            except psutil.Error:
                pass
        try:
            os.killpg(process.pid, 9) if os.name == "posix" else process.kill()
        except OSError:
            pass
        try:
            process.kill()
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for stream in (self.commands, self.events):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass

    def _watch(self) -> None:
        """Kill the sandbox when it outgrows its memory or process budget or deadline."""
        budget = (self.limits.memory_mb + 512) << 20
        while not self._stop.wait(0.2):
            try:
                root = psutil.Process(self.process.pid)
                tree = [root, *root.children(recursive=True)]
            except psutil.Error:
                return
            # Forked processes share pages, so a sum of RSS over-counts: watch the largest
            # process against the budget and the sum against a looser bound.
            sizes = []
            for proc in tree:
                try:
                    sizes.append(proc.memory_info().rss)
                except psutil.Error:
                    pass
            if len(tree) > self.limits.processes:
                self.kill(f"more than {self.limits.processes} processes")
            elif max(sizes, default=0) > budget or sum(sizes) > 4 * budget:
                self.kill(f"more than {self.limits.memory_mb} MB of memory")
            elif time.monotonic() - self._started > self.limits.deadline_s:
                self.kill(f"the submission ran longer than {self.limits.deadline_s:.0f} s")
