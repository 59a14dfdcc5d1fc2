"""The grading runner: executes one student's notebooks inside the sandbox.

This file runs as a plain script (``python runner.py IN OUT WORK TEMPLATE LIMITS``) in the
per-submission sandbox and imports nothing from the ``grader`` package but its two sibling
files, ``runner_child.py`` (the student's process), ``runner_guard.py`` (what an added cell
may not change) and ``runner_warm_up.py`` (what it imports before forking notebooks), so the
sandbox needs only these four files, the Python environment and
``agent_harness``: never the solutions, the probes or other submissions.

Two channels, one JSON object per line:

* **grader <-> runner**: the descriptors ``IN`` (commands) and ``OUT`` (events), handed over by
  number (the sandbox's stdin, stdout and stderr are /dev/null). Only the runner writes to
  ``OUT``; the runner makes itself non-dumpable, so no other process of the sandbox can open
  its descriptors through /proc or trace it. ``{"op": "run", "notebook": name, "cells":
  [{"source", "grade_id", "kind"}, ...], "timeout_cell": s, "timeout_notebook": s}`` runs a
  notebook: one ``cell_end`` event per cell, then ``cells_done``; the grader answers
  ``{"op": "probes", "probes": [{"code": ...}, ...]}`` and gets one ``probe_end`` per probe,
  then ``{"event": "notebook_done", "status": ok|timeout|crashed, ...}``.
* **runner <-> student's process**: each notebook runs in a child forked from the warm runner
  (imports done once). The child holds exactly two descriptors besides 0-2 (/dev/null): the
  step pipe it reads and the answer pipe it writes; every descriptor it inherited is replaced
  by /dev/null before any of the notebook's code runs. The runner sends one step at a time
  (``{"step": "cell"|"probe", "index", "nonce", ...}``; a probe's code travels with its own
  step, so the student's process sees a probe only while it runs) and accepts only the
  answer line that carries that step's fresh random nonce. A line the notebook forges,
  into any descriptor, is ignored: it cannot know the nonce of a step not sent yet, so it can
  answer at most the step that is running its code, which it could equally answer by
  returning a value or raising. Everything the child sends is plain data the grader compares
  in its own process.
"""

from __future__ import annotations

import gc
import json
import os
import secrets
import select
import shutil
import signal
import sys
import time


def _load(name: str):
    """A sibling file the sandbox mounts beside this one, loaded by path (the runner's folder
    is not put on ``sys.path``, where a notebook could import from it)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner_child = _load("runner_child")
runner_guard = _load("runner_guard")
warm_up = _load("runner_warm_up")

GRACE_S = 2.0
MAX_ANSWER = 64 << 20


def _send(stream, event: dict) -> None:
    stream.write(json.dumps(event) + "\n")
    stream.flush()


# --- the runner: one child per notebook, one step at a time --------------------------------------
class _Child:
    """The runner's side of one notebook's child: send a step, wait for its answer."""

    def __init__(self, pid: int, steps_fd: int, answers_fd: int, timeout_cell: float, deadline):
        self.pid, self.steps_fd, self.answers_fd = pid, steps_fd, answers_fd
        self.timeout_cell, self.deadline = timeout_cell, deadline
        self.buffer = b""
        self.ignored = 0  # lines without the expected nonce: forged or garbage
        self.status, self.reason = "ok", ""
        self.interrupted = False

    def step(self, label: str, message: dict) -> dict | None:
        """Send one step and return its answer (None: the child died or ran out of time)."""
        nonce = secrets.token_hex(16)
        try:
            runner_child.write_all(
                self.steps_fd, (json.dumps({**message, "nonce": nonce}) + "\n").encode()
            )
        except OSError:
            self.status, self.reason = "crashed", "the kernel died"
            return None
        started, self.interrupted = time.monotonic(), False
        while True:
            answer = self._answer(nonce)
            if answer is not None:
                return answer
            if self.status != "ok":
                return None
            now = time.monotonic()
            if now - started > self.timeout_cell and not self.interrupted:
                os.kill(self.pid, signal.SIGINT)  # like Jupyter's interrupt: the cell may go on
                self.interrupted = True
            late = self.interrupted and now - started > self.timeout_cell + GRACE_S
            if late or now > self.deadline:
                self.status = "timeout"
                self.reason = (
                    f"{label} exceeded the time limit"
                    if now <= self.deadline
                    else "the notebook exceeded its time limit"
                )
                _kill(self.pid)
                return None

    def _answer(self, nonce: str) -> dict | None:
        """The answer to the current step if it came within 0.2 s (extra lines are dropped)."""
        ready, _, _ = select.select([self.answers_fd], [], [], 0.2)
        if ready:
            chunk = os.read(self.answers_fd, 1 << 16)
            if not chunk:
                self.status, self.reason = "crashed", "the kernel died"
            self.buffer += chunk
            if len(self.buffer) > MAX_ANSWER:
                self.buffer, self.ignored = b"", self.ignored + 1
        *lines, self.buffer = self.buffer.split(b"\n")
        found = None
        for line in lines:
            try:
                answer = json.loads(line)
            except ValueError:
                answer = None
            if found is None and isinstance(answer, dict) and answer.get("nonce") == nonce:
                found = answer
            else:
                self.ignored += 1
        return found


_REPORTED_CPU = [0.0]


def _runner_cpu() -> float:
    """The runner's own CPU seconds since it last reported them (its warm-up included)."""
    times = os.times()
    now = times.user + times.system
    spent, _REPORTED_CPU[0] = now - _REPORTED_CPU[0], now
    return spent


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def _run_notebook(command: dict, work_root: str, template: str, out, commands) -> None:
    steps_r, steps_w = os.pipe()
    answers_r, answers_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(steps_w)
            os.close(answers_r)
            runner_child.run_child(command, steps_r, answers_w, work_root, template, runner_guard)
        except BaseException:
            code = 70
        os._exit(code)
    os.close(steps_r)
    os.close(answers_w)
    deadline = time.monotonic() + float(command.get("timeout_notebook", 600))
    child = _Child(pid, steps_w, answers_r, float(command.get("timeout_cell", 60)), deadline)
    try:
        _run_steps(child, command, out, commands)
    finally:
        _kill(pid)
        try:
            _, wait_status, usage = os.wait4(pid, 0)
            cpu = usage.ru_utime + usage.ru_stime
        except ChildProcessError:
            wait_status, cpu = 0, 0.0
        for fd in (answers_r, steps_w):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(os.path.join(work_root, command["notebook"]), ignore_errors=True)
    status, reason = child.status, child.reason
    if status == "crashed" and os.WIFSIGNALED(wait_status):
        reason = f"the kernel died (signal {os.WTERMSIG(wait_status)})"
    elif status == "crashed" and os.WIFEXITED(wait_status):
        reason = f"the kernel exited (code {os.WEXITSTATUS(wait_status)})"
    cpu += _runner_cpu()
    done = {"event": "notebook_done", "status": status, "reason": reason, "cpu_s": round(cpu, 3)}
    _send(out, done | {"ignored_lines": child.ignored})


def _run_steps(child: _Child, command: dict, out, commands) -> None:
    """Every cell, then every probe the grader sends, one step at a time."""
    for index, cell in enumerate(command["cells"]):
        label = str(cell.get("label") or f"code cell {index + 1}")
        answer = child.step(label, {"step": "cell", "index": index})
        if answer is None:
            return
        error = answer.get("error")
        event = {"event": "cell_end", "index": index, "error": error}
        if child.interrupted:
            event["timed_out"] = True
        if isinstance(answer.get("undone"), list):
            event["undone"] = [str(u)[:200] for u in answer["undone"][:50]]
        _send(out, event)
    _send(out, {"event": "cells_done"})
    request = json.loads(commands.readline() or "{}")
    for index, probe in enumerate(request.get("probes", [])):
        step = {"step": "probe", "index": index, "code": probe.get("code", "")}
        answer = child.step(f"value check {index + 1}", step)
        if answer is None:
            return
        event = {"event": "probe_end", "index": index, "value": answer.get("value")}
        if child.interrupted:
            event["timed_out"] = True
        _send(out, event)
    if command.get("collect_embeddings"):
        answer = child.step("collecting embeddings", {"step": "embeddings"})
        if answer is not None:
            texts, vectors = answer.get("texts"), answer.get("vectors")
            _send(out, {"event": "embeddings", "texts": texts, "vectors": vectors})


# --- start-up -----------------------------------------------------------------------------------
def _protect_runner() -> None:
    """Make this process non-dumpable (Linux): processes of the sandbox, the notebooks' own
    included, can then neither trace it nor open its descriptors through /proc/<pid>/fd."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 4
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def _set_limits(limits: dict) -> None:
    """Resource limits for the runner and every notebook it forks (set here, not in a
    ``preexec_fn`` of the grader, which can deadlock a threaded grader between fork and exec)."""
    try:
        import resource
    except ImportError:  # Windows: the watchdog's limits only
        return
    mb = 1 << 20
    for name, value in (
        ("RLIMIT_DATA", limits.get("memory_mb", 2048) * mb),
        ("RLIMIT_FSIZE", limits.get("file_size_mb", 512) * mb),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_CPU", limits.get("cpu_seconds", 1800)),
        ("RLIMIT_NPROC", limits.get("nproc")),
    ):
        limit = getattr(resource, name, None)
        if limit is not None and value is not None:
            try:
                resource.setrlimit(limit, (int(value), int(value)))
            except (ValueError, OSError):
                pass  # a hard limit already lower, or not allowed here


def main(argv: list[str]) -> int:
    """Serve the grader's commands until they end (``--warm-up-only``: import, then exit; the
    grader runs that outside the sandbox to compile the bytecode, see grader/caches.py)."""
    if argv[1:] == ["--warm-up-only"]:
        warm_up.matplotlib_config(None)
        warm_up.warm_up()
        print(json.dumps({"without_bytecode": warm_up.without_bytecode()}))
        return 0
    commands_fd, events_fd, work_root, template = int(argv[1]), int(argv[2]), argv[3], argv[4]
    _protect_runner()
    settings = json.loads(argv[5]) if len(argv) > 5 else {}
    _set_limits(settings)
    out = os.fdopen(events_fd, "w", encoding="utf-8")
    commands = os.fdopen(commands_fd, "r", encoding="utf-8")
    os.makedirs(work_root, exist_ok=True)
    warm_up.matplotlib_config(work_root)
    groups = settings.get("warm_up")
    warm_up.warm_up(groups)
    if groups is None or "agent_harness" in groups:  # else nothing here embeds
        warm_up.preload_embeddings(settings.get("embeddings"))
    # What the warm-up made is shared with every notebook's process until either writes to
    # it; the collector visiting it all in a child would copy every page it sits on.
    gc.collect()
    gc.freeze()
    _send(out, {"event": "ready"})
    for line in commands:
        command = json.loads(line)
        if command.get("op") == "run":
            _run_notebook(command, work_root, template, out, commands)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
