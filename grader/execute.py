"""Run assembled notebooks in a submission's sandbox and collect what happened.

The grader's side of the runner protocol (:mod:`grader.runner`): send a notebook's cells, read
one ``cell_end`` per cell, send its probes' code after ``cells_done``, read one ``probe_end``
per probe, until ``notebook_done``. Events are checked against what was asked (an index out of
range, a second answer for a cell, a probe value before the probes were sent: ignored).
"""

from __future__ import annotations

import json
import queue
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader.answers import Answers
from grader.assembly import assemble
from grader.results import Status
from grader.sandbox import Limits, Sandbox
from grader.sources import Source

__all__ = ["NotebookRun", "WarmRunner", "run_notebooks", "run_submission", "prepare_template"]


@dataclass
class NotebookRun:
    """What happened when one notebook ran.

    Attributes:
        status: ok, timeout or crashed.
        reason: Why it stopped early ("" when it did not).
        cells: The assembled cells that ran (their ``grade_id``, ``kind`` and ``label``).
        errors: Cells that raised: index -> [exception name, message].
        limit_hits: Cells stopped by a limit: index -> "timeout" or "memory".
        executed: Indexes of the cells that finished.
        undone: Added cells whose changes to what the checks rely on were undone: index ->
            what (see :mod:`grader.runner_guard`).
        probe_values: ``(probe index, value)`` in the order they came.
        cpu_s: CPU seconds the notebook's process used, plus the runner's own since the
            previous notebook (its start-up for the first): summed over a submission's runs,
            the sandbox's CPU.
        ignored_lines: Lines the notebook wrote into the runner's answer pipe without the
            step's nonce (forged or garbage), all ignored.
        embeddings: The texts the run embedded and their vectors, when asked for
            (``collect_embeddings``: grading asks it only of runs of untouched released
            notebooks; the tests also of the solutions', tests/conftest.py).
    """

    status: Status = Status.CRASHED
    reason: str = ""
    cells: list[dict] = field(default_factory=list)
    errors: dict[int, list[str]] = field(default_factory=dict)
    limit_hits: dict[int, str] = field(default_factory=dict)
    executed: set[int] = field(default_factory=set)
    undone: dict[int, list[str]] = field(default_factory=dict)
    probe_values: list = field(default_factory=list)
    cpu_s: float = 0.0
    ignored_lines: int = 0
    embeddings: dict | None = None


class _Runner:
    """Talks to one sandboxed runner process (commands in, events out)."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox
        self.events: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.sandbox.events:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict):
                    self.events.put(event)
        except (OSError, ValueError):
            pass
        self.events.put(None)

    def send(self, command: dict) -> bool:
        try:
            self.sandbox.commands.write(json.dumps(command) + "\n")
            self.sandbox.commands.flush()
            return True
        except (OSError, ValueError):
            return False

    def next(self, timeout: float) -> dict | None:
        try:
            return self.events.get(timeout=max(0.1, timeout))
        except queue.Empty:
            return {"event": "stalled"}


def _stopped(run: NotebookRun, runner: _Runner) -> NotebookRun:
    run.status = Status.CRASHED
    run.reason = runner.sandbox.killed_because or "the kernel stopped answering"
    if "longer than" in run.reason:
        run.status = Status.TIMEOUT
    return run


def _run_one(runner: _Runner, source: Source, cells: list[dict], limits: dict) -> NotebookRun:
    run = NotebookRun(cells=cells)
    sent = [{k: c[k] for k in ("source", "kind", "label")} for c in cells]
    if not runner.send({"op": "run", "notebook": source.name, "cells": sent, **limits}):
        run.reason = runner.sandbox.killed_because or "the sandbox stopped"
        return run
    probes = [p for grade_id, _ in source.grade_cells for p in source.probes.get(grade_id, [])]
    if limits.get("collect_embeddings") and not limits.get("collect_value_checks"):
        probes = []  # a run whose embeddings are shared runs no value check: nothing hidden
    wait, probes_sent = limits["timeout_notebook"] + 30, False
    while True:
        event = runner.next(wait)
        if event is None or event.get("event") == "stalled":
            return _stopped(run, runner)
        kind, index = event.get("event"), event.get("index")
        if kind == "cell_end" and isinstance(index, int) and 0 <= index < len(cells):
            if index in run.executed:
                continue  # one answer per cell
            run.executed.add(index)
            error = event.get("error")
            if isinstance(error, list) and len(error) == 2:
                run.errors[index] = [str(error[0])[:200], str(error[1])[:2000]]
                if event.get("timed_out"):
                    run.limit_hits[index] = "timeout"
                elif run.errors[index][0] == "MemoryError":
                    run.limit_hits[index] = "memory"
            if isinstance(event.get("undone"), list) and cells[index]["kind"] == "added":
                run.undone[index] = [str(u)[:200] for u in event["undone"][:50]]
        elif kind == "cells_done" and not probes_sent:
            probes_sent = True
            runner.send({"op": "probes", "probes": [{"code": p.code} for p in probes]})
        elif kind == "probe_end" and probes_sent and isinstance(index, int):
            if 0 <= index < len(probes) and index not in dict(run.probe_values):
                run.probe_values.append((index, event.get("value")))
        elif kind == "embeddings" and limits.get("collect_embeddings"):
            run.embeddings = {"texts": event.get("texts"), "vectors": event.get("vectors")}
        elif kind == "notebook_done":
            reported = event.get("status")
            run.status = Status(reported) if reported in ("ok", "timeout") else Status.CRASHED
            run.reason = str(event.get("reason", ""))[:300]
            run.cpu_s = float(event.get("cpu_s") or 0.0)
            run.ignored_lines = int(event.get("ignored_lines") or 0)
            if run.status == Status.CRASHED and runner.sandbox.killed_because:
                run.reason = runner.sandbox.killed_because
            return run


def _warm_up_for(sources) -> list[str]:
    """The runner's warm-up groups these notebooks call for (their code, hidden tests and
    probes included; ``grader/runner_warm_up.py``'s ``WARM_UP``)."""
    from grader.runner_warm_up import warm_up_groups

    code = []
    for source in sources:
        code += [cell.source for cell in source.notebook.cells if cell.cell_type == "code"]
        code += [probe.code for probes in source.probes.values() for probe in probes]
    return warm_up_groups("\n".join(code))


class WarmRunner:
    """A sandboxed runner kept warm for several calls of :meth:`run` (its imports, the
    embedding model and the preloaded vectors are paid once), started on first use and
    started again when it dies. ``workshop grade`` uses one per submission; the tests run
    their sweeps of hundreds of notebooks through a few (tests/conftest.py, ``warm_runners``).

    Args:
        job_dir: The runner's own writable folder (created empty by the caller).
        template: The prepared database folder every notebook copies.
        limits: The sandbox's limits (``deadline_s`` counts from the runner's start).
        use_bwrap: None = use bubblewrap when available.
        warm_everything: Warm up for every notebook; else for those of the first call (a
            later notebook imports what they did not need, as in any kernel).
        embeddings: The embeddings file the runner preloads (None: the one grading prepared).
    """

    def __init__(
        self,
        job_dir: Path,
        template: Path,
        limits: Limits,
        use_bwrap: bool | None = None,
        warm_everything: bool = False,
        embeddings: Path | None = None,
    ):
        self.job_dir, self.template, self.limits = Path(job_dir), Path(template), limits
        self.use_bwrap, self.warm_everything = use_bwrap, warm_everything
        self.embeddings = embeddings
        self._sandbox: Sandbox | None = None
        self._runner: _Runner | None = None
        # bubblewrap's --die-with-parent fires when the THREAD that started it ends (prctl(2),
        # PR_SET_PDEATHSIG), not the process: a runner started from a pool's thread and used
        # later from another was killed when the first thread exited. Sandboxes start from
        # this runner's own thread, which lives until close().
        self._starter: ThreadPoolExecutor | None = None

    def _start(self, jobs: list) -> bool:
        self.close()
        groups = None if self.warm_everything else _warm_up_for(source for source, _ in jobs)
        self._sandbox = Sandbox(
            self.job_dir,
            self.template,
            self.limits,
            self.use_bwrap,
            warm_up=groups,
            embeddings=self.embeddings,
        )
        self._starter = ThreadPoolExecutor(1, thread_name_prefix="warm-runner")
        self._starter.submit(self._sandbox.__enter__).result()
        self._runner = _Runner(self._sandbox)
        ready = self._runner.next(120)
        return bool(ready) and ready.get("event") == "ready"

    def _alive(self) -> bool:
        sandbox = self._sandbox
        return sandbox is not None and sandbox.process.poll() is None and not sandbox.killed_because

    def run(
        self,
        jobs: list[tuple[Source, Answers | dict[str, str] | None]],
        timeout_cell: float,
        timeout_notebook: float,
        hidden_tests: bool = False,
        collect_embeddings: bool = False,
        collect_value_checks: bool = False,
    ) -> list[NotebookRun]:
        """Run notebooks one after the other, each in a fresh process with a fresh copy of the
        database; a runner that dies (killed by a limit, or by the submission) is replaced for
        the notebooks still to run: one notebook's crash does not cost the others. Arguments
        as :func:`run_notebooks`, and ``collect_value_checks``: a run that collects embeddings
        runs its value checks too, so their texts are collected (only the tests' own file of
        the notebook sweeps asks it, tests/conftest.py; grading never does: its shared file
        holds nothing a value check embeds)."""
        runs: list[NotebookRun] = []
        per_notebook = {"timeout_cell": timeout_cell, "timeout_notebook": timeout_notebook}
        if collect_embeddings:
            per_notebook["collect_embeddings"] = True
            per_notebook["collect_value_checks"] = collect_value_checks
        todo = list(jobs)
        while todo:
            if not self._alive() and not self._start(todo):
                runs += [NotebookRun(reason="the grading runner did not start") for _ in todo]
                return runs
            source, answers = todo.pop(0)
            cells = assemble(source, answers, hidden_tests)
            runs.append(_run_one(self._runner, source, cells, per_notebook))
        return runs

    def close(self) -> None:
        """Stop the runner and everything it started."""
        if self._sandbox is not None:
            self._sandbox.__exit__(None, None, None)
        if self._starter is not None:
            self._starter.shutdown(wait=False)
        self._sandbox = self._runner = self._starter = None

    def __enter__(self) -> WarmRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_notebooks(
    jobs: list[tuple[Source, Answers | dict[str, str] | None]],
    job_dir: Path,
    template: Path,
    limits: Limits,
    timeout_cell: float,
    timeout_notebook: float,
    use_bwrap: bool | None = None,
    hidden_tests: bool = False,
    collect_embeddings: bool = False,
) -> list[NotebookRun]:
    """Run notebooks one after the other in ONE sandbox (a notebook may come several times,
    with different answers), each in a fresh process with a fresh copy of the database. A
    sandbox that dies (killed by a limit, or by the submission) is replaced for the notebooks
    still to run: one notebook's crash does not cost the others.

    Args:
        jobs: ``(notebook, answers)`` pairs; answers are an :class:`Answers` (added cells
            included) or solution cells by grade_id; None = the reference.
        hidden_tests: Keep the hidden tests in the grade cells (how stock nbgrader scores);
            ``workshop grade`` never does: its hidden checks are the value probes.
        collect_embeddings: Return what each run embedded (:mod:`grader.caches`).

    Returns:
        One :class:`NotebookRun` per job, in order.
    """
    with WarmRunner(job_dir, template, limits, use_bwrap) as runner:
        return runner.run(jobs, timeout_cell, timeout_notebook, hidden_tests, collect_embeddings)


def run_submission(
    sources: list[Source],
    answers: dict[str, Answers | dict[str, str] | None],
    job_dir: Path,
    template: Path,
    limits: Limits,
    timeout_cell: float,
    timeout_notebook: float,
    use_bwrap: bool | None = None,
) -> dict[str, NotebookRun]:
    """Run a submission's notebooks in one sandbox; notebooks it lacks are not run.

    Args:
        answers: Per notebook name, what the submission holds (None = the reference).
    """
    jobs = [(source, answers[source.name]) for source in sources if source.name in answers]
    runs = run_notebooks(jobs, job_dir, template, limits, timeout_cell, timeout_notebook, use_bwrap)
    return {source.name: run for (source, _), run in zip(jobs, runs)}


def prepare_template(folder: Path) -> Path:
    """A prepared embedded database folder to copy for every run (built once)."""
    import agent_harness

    folder = Path(folder)
    if folder.exists() and not (folder / "harness.db").exists():
        shutil.rmtree(folder, ignore_errors=True)
    harness = agent_harness.connect(backend="embedded", data_dir=folder)
    harness.close()
    return folder
