"""A pool of JavaScript worker processes (:mod:`agent_harness.foundation.js_worker`): ``exec_js``
and the javascript tool type run their code there, never inside the harness's own process.

* **Concurrent and safe**: each worker owns one V8 engine and runs one program at a time; up
  to :data:`MAX_WORKERS` programs run at once, in as many processes. More callers wait for a
  free worker (at most :data:`WAIT_S`).
* **A crash stays in the worker**: a worker that dies (a V8 crash, ``kill``, running out of
  memory) answers the call it was running with :class:`JsEngineError` and is replaced on the
  next call; the server, the notebook kernel or ``workshop chat`` that asked goes on.
* **Stuck code is stopped**: V8 stops a program at its time limit; a worker that still has not
  answered :data:`GRACE_S` seconds later is killed.

Workers start on first use (about a tenth of a second each), are kept for the next call and end
with the process that started them (their input closes).
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from agent_harness.foundation.errors import UpstreamError

__all__ = ["JsWorkers", "JsEngineError", "workers", "MAX_WORKERS", "GRACE_S", "WAIT_S"]

#: Programs that run at once (one worker process each): as many as the MCP server's slow lane
#: holds calls (:mod:`agent_harness.mcp.lanes`).
MAX_WORKERS = 8
#: How long a program waits for a free worker before it is refused.
WAIT_S = 60.0
#: How long a new worker may take to load V8 (about 0.1 s on a quiet machine).
STARTUP_S = 60.0
#: How long past its own time limit a program may take to answer before its worker is killed
#: (a fresh worker also loads V8 in this time).
GRACE_S = 10.0
_SCRIPT = Path(__file__).with_name("js_worker.py")


class JsEngineError(UpstreamError):
    """The JavaScript engine stopped while running a program (its worker crashed or was
    killed, or did not answer): a failure of the engine, not of the caller's code."""


class _Worker:
    """One worker process and the thread that reads its answers."""

    def __init__(self) -> None:
        # -I: the worker needs the standard library and mini-racer only; no user site, no
        # PYTHON* variables, no current folder on its path
        self.process = subprocess.Popen(
            [sys.executable, "-I", str(_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.answers: queue.Queue = queue.Queue()
        self.ready = False
        threading.Thread(target=self._read, name="js-worker-reader", daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.answers.put(line)
        self.answers.put(None)  # the process ended

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def start(self) -> None:
        """Wait until the worker has loaded the engine (a busy machine may take seconds)."""
        try:
            line = self.answers.get(timeout=STARTUP_S)
        except queue.Empty:
            line = None
        if line is None or not json.loads(line).get("ready"):
            self.kill()
            raise JsEngineError(
                f"the JavaScript engine did not start within {STARTUP_S:g} s; try again"
            )
        self.ready = True

    def run(self, code: str, timeout_ms: int, deadline: float) -> dict:
        try:
            self.process.stdin.write(json.dumps({"code": code, "timeout_ms": timeout_ms}) + "\n")
            self.process.stdin.flush()
            line = self.answers.get(timeout=max(0.0, deadline - time.monotonic()))
        except (OSError, ValueError):  # the pipe broke: the worker is gone
            line = None
        except queue.Empty:
            self.kill()
            raise JsEngineError(
                f"the JavaScript engine did not stop at the time limit ({timeout_ms} ms) and"
                " was restarted; simplify the code or raise timeout_ms"
            ) from None
        if line is None:
            code_ = self.process.wait(5)
            raise JsEngineError(
                f"the JavaScript engine stopped while running this code ({_exit(code_)}); it is"
                " restarted for the next call: try again"
            )
        return json.loads(line)

    def kill(self) -> None:
        if self.alive:
            self.process.kill()
        self.process.wait(5)
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:
                pass


def _exit(code: int | None) -> str:
    if code is not None and code < 0:
        return f"signal {-code}"
    return f"exit code {code}"


class JsWorkers:
    """The pool.

    Args:
        size: The most worker processes (and programs running at once).
    """

    def __init__(self, size: int = MAX_WORKERS) -> None:
        self.size = size
        self._free = threading.BoundedSemaphore(size)
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def pids(self) -> list[int]:
        """The process ids of the live workers (idle and busy)."""
        with self._lock:
            return [w.process.pid for w in [*self._idle, *self._busy] if w.alive]

    def run(self, code: str, timeout_ms: int) -> dict:
        """Run a program in a worker: ``{"result", "console"}`` or ``{"error", "console"}``.

        Raises:
            JsEngineError: The engine stopped or hung; no worker came free in time.
        """
        if not self._free.acquire(timeout=WAIT_S):
            raise JsEngineError(
                f"all {self.size} JavaScript workers stayed busy for {WAIT_S:g} s; try again"
            )
        try:
            worker = self._take()
            try:
                if not worker.ready:
                    worker.start()
                deadline = time.monotonic() + timeout_ms / 1000 + GRACE_S
                answer = worker.run(code, timeout_ms, deadline)
            except BaseException:
                worker.kill()
                with self._lock:
                    self._busy.discard(worker)
                raise
            with self._lock:
                self._busy.discard(worker)
                self._idle.append(worker)
            return answer
        finally:
            self._free.release()

    def _take(self) -> _Worker:
        with self._lock:
            if os.getpid() != self._pid:  # a forked child: its parent's workers are not its own
                self._idle, self._busy, self._pid = [], set(), os.getpid()
            while self._idle:
                worker = self._idle.pop()
                if worker.alive:
                    break
                worker.kill()
            else:
                worker = None
        worker = worker or _Worker()
        with self._lock:
            self._busy.add(worker)
        return worker

    def close(self) -> None:
        """Stop every worker (they also stop by themselves when this process ends)."""
        with self._lock:
            every, self._idle, self._busy = [*self._idle, *self._busy], [], set()
        for worker in every:
            worker.kill()


_POOL = JsWorkers()
atexit.register(_POOL.close)


def workers() -> JsWorkers:
    """The process's pool."""
    return _POOL
