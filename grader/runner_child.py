"""The student's process: runs one notebook's cells and value checks, one step at a time.

Part of the grading runner (``runner.py`` forks this process from its warm state and loads
this file by path; it imports nothing from the ``grader`` package). Before any of the
notebook's code runs, every descriptor the process inherited is replaced by /dev/null but its
two pipes: the steps it reads and the answers it writes (see ``runner.py`` for the protocol).
Each step's answer carries the step's nonce; the cells the attendee added run inside
``runner_guard.Guard`` (see there).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import select
import shutil

# Own references, taken before any notebook code runs: a notebook that rebinds json.dumps or
# os.write (for its own checks) does not break how this process answers.
_dumps, _loads, _write = json.dumps, json.loads, os.write

MAX_MESSAGE = 2000
MAX_ITEMS = 200_000


# --- plain data ----------------------------------------------------------------------------
class _Budget:
    def __init__(self, n: int):
        self.left = n

    def take(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise ValueError("value too large")


def plain(value, _budget: _Budget | None = None, _depth: int = 0):
    """Turn a value into plain JSON data using exact types only.

    Subclasses of built-in types and unknown objects become ``{"__object__": type name}``,
    so an object that claims to equal anything is never equal to an expected value.
    """
    budget = _budget or _Budget(MAX_ITEMS)
    budget.take()
    if _depth > 50:
        return {"__object__": "too deep"}
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if kind is list or kind is tuple:
        return [plain(item, budget, _depth + 1) for item in value]
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) not in (str, int, float, bool) and key is not None:
                return {"__object__": "dict with non-plain keys"}
            out[str(key)] = plain(item, budget, _depth + 1)
        return out
    if kind is bytes:
        return {"__bytes__": value.hex()}
    if kind in (_dt.date, _dt.datetime):
        return value.isoformat()
    module = getattr(kind, "__module__", "")
    if module == "numpy" and hasattr(value, "item") and getattr(value, "shape", None) == ():
        return plain(value.item(), budget, _depth + 1)
    if module.startswith("agent_harness") and hasattr(kind, "__dataclass_fields__"):
        fields = kind.__dataclass_fields__
        return {"__type__": kind.__name__} | {
            name: plain(object.__getattribute__(value, name), budget, _depth + 1) for name in fields
        }
    return {"__object__": getattr(kind, "__qualname__", "object")}


def outcome(fn, *args, **kwargs):
    """Call ``fn``: ``["ok", plain value]`` or ``["raised", exception type name]``."""
    try:
        return ["ok", plain(fn(*args, **kwargs))]
    except Exception as e:  # the probe records what a student's function raised
        return ["raised", type(e).__name__]


def _short(text) -> str:
    text = str(text)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


# --- the student's process: one notebook -------------------------------------------------------
def _isolate_descriptors(keep: set[int]) -> None:
    """Replace every descriptor but ``keep`` by /dev/null (0-2 included).

    Replaced rather than closed: a library that kept a descriptor number from before the fork
    then writes into /dev/null, never into a file the notebook opens later under that number.
    """
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        numbers = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc (macOS): every number up to the limit
        numbers = list(range(min(os.sysconf("SC_OPEN_MAX"), 1 << 16)))
    for fd in numbers:
        if fd in keep or fd == devnull:
            continue
        try:
            os.fstat(fd)  # open? (the listing's own descriptor is gone already)
        except OSError:
            continue
        os.dup2(devnull, fd)
    os.close(devnull)


def _error_of(result) -> list[str] | None:
    error = result.error_before_exec or result.error_in_exec
    if error is None:
        return None
    try:
        return [type(error).__name__, _short(error)]
    except Exception:  # a hostile __str__
        return [type(error).__name__, ""]


def _shell():
    """A fresh IPython shell: no history database (nothing to keep, and it costs a thread)."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    return InteractiveShell.instance(config=config)


def run_child(command: dict, steps_fd: int, answers_fd: int, work_root: str, template, guard):
    """Run one notebook's steps as the runner sends them (in the forked child).

    Args:
        command: The runner's ``run`` command (the notebook's name and its cells).
        steps_fd, answers_fd: The two pipes this process keeps.
        work_root: Where the notebook's folder is made (with its copy of the database).
        template: The prepared database folder to copy ("" for none).
        guard: The ``runner_guard`` module.
    """
    _isolate_descriptors({steps_fd, answers_fd})
    os.setsid()
    work = os.path.join(work_root, command["notebook"])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data_dir = os.path.join(work, ".workshop")
    if template:
        shutil.copytree(template, data_dir)
    os.chdir(work)
    os.environ["WORKSHOP_DATA_DIR"] = data_dir
    os.environ["HOME"] = work
    shell = _shell()
    guard = guard.Guard(shell)
    exits: list = []

    def on_exit(shell, etype, value, tb, tb_offset=None):  # IPython swallows SystemExit
        exits.append(["SystemExit", f"the cell called exit ({_short(value)})"])

    shell.set_custom_exc((SystemExit,), on_exit)
    guard.keep_handlers()
    steps = os.fdopen(steps_fd, "r", encoding="utf-8")
    cells = command["cells"]
    for line in steps:  # until the runner closes the pipe
        try:
            step = _loads(line)
        except ValueError:
            continue
        if not isinstance(step, dict):
            continue  # a line the notebook wrote into its own step pipe (through /proc)
        nonce = step.get("nonce")
        if step.get("step") == "cell" and step.get("index") in range(len(cells)):
            cell = cells[step["index"]]
            exits.clear()
            kind = cell.get("kind")
            before = guard.before(kind)
            result = shell.run_cell(cell["source"], store_history=False)
            undone = guard.after(kind, before)
            answer = {"error": _error_of(result) or (exits[0] if exits else None)}
            if undone:
                answer["undone"] = undone
        elif step.get("step") == "probe" and isinstance(step.get("code"), str):
            answer = {"value": _probe(shell, step["code"], step.get("index"))}
        elif step.get("step") == "embeddings":
            answer = embedded_texts()
        else:
            continue
        try:
            data = _dumps({"nonce": nonce, **answer}) + "\n"
        except (TypeError, ValueError):
            data = _dumps({"nonce": nonce, "value": ["unsendable", ""]}) + "\n"
        write_all(answers_fd, data.encode("utf-8"))


def _probe(shell, code: str, index) -> list:
    scope = dict(shell.user_ns)
    scope.update({"plain": plain, "outcome": outcome})
    try:
        exec(compile(code, f"<probe {index}>", "exec"), scope)
        return ["ok", plain(scope.get("value"))]
    except BaseException as e:  # a student's function may raise anything, even SystemExit
        return ["raised", type(e).__name__]


def write_all(fd: int, data: bytes) -> None:
    """Write everything, even if the notebook made the descriptor non-blocking."""
    view = memoryview(data)
    while view:
        try:
            view = view[_write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [], 1.0)


def embedded_texts() -> dict:
    """The texts this process embedded and their vectors (base64 float32 rows), for the
    grader's cache of an untouched notebook's embeddings (see grader/caches.py); only asked of
    runs of released notebooks with no answer in them."""
    import base64
    import sys

    module = sys.modules.get("agent_harness.foundation.embeddings")
    cache = getattr(module.get_embedder(), "_cache", None) if module else None
    if not isinstance(cache, dict) or not cache:
        return {"texts": [], "vectors": ""}
    import numpy

    texts = list(cache)
    rows = numpy.stack([numpy.asarray(cache[t], dtype=numpy.float32) for t in texts])
    return {"texts": texts, "vectors": base64.b64encode(rows.tobytes()).decode("ascii")}
