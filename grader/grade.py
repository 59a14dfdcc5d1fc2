"""``workshop grade``: grade a batch of submissions, in parallel, one sandbox per submission.

For every student the notebook that runs is rebuilt from the instructor's source: the released
version of every cell (hidden tests removed) with only the solution cells taken from the
submission, matched by ``grade_id``. Deleted, reordered, retyped or edited check cells change
nothing. The runner executes the notebooks in the submission's sandbox (see
:mod:`grader.sandbox`), then evaluates the probes (see :mod:`grader.probes`); the grader compares
their plain values with the reference values of the instructor's solution, in its own process.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.collect import Submission, collect
from grader.probes import Probe, probes_for, same
from grader.release import ROOT, release_notebook
from grader.results import GradeRow
from grader.sandbox import Limits, Sandbox

__all__ = [
    "GradingError",
    "Source",
    "NotebookRun",
    "load_sources",
    "cells_to_run",
    "run_submission",
    "score_notebook",
    "grade_batch",
]

HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", re.S)


class GradingError(RuntimeError):
    """The batch cannot be graded (the message says why and what to do)."""


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


@dataclass
class Source:
    """One instructor notebook and what grading needs from it."""

    name: str
    notebook: nbformat.NotebookNode
    released: nbformat.NotebookNode
    grade_cells: list[tuple[str, float]]
    probes: dict[str, list[Probe]]
    hidden_lines: set[str]


def load_sources(folder: Path | None = None) -> list[Source]:
    """The instructor's notebooks (``solutions/`` by default), in order."""
    folder = Path(folder or ROOT / "solutions")
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise GradingError(f"no instructor notebooks (NN_name.ipynb) in {folder}")
    sources = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        grade_cells = [
            (_meta(c)["grade_id"], float(_meta(c).get("points", 0)))
            for c in nb.cells
            if c.cell_type == "code" and _meta(c).get("grade")
        ]
        hidden = {
            line.strip()
            for c in nb.cells
            for region in HIDDEN.findall(c.source)
            for line in region.splitlines()
            if len(line.strip()) > 3
        }
        sources.append(
            Source(path.stem, nb, release_notebook(nb), grade_cells, probes_for(path.stem), hidden)
        )
    return sources


def _student_cells(submission_path: Path | None) -> dict[str, str]:
    """The student's solution cells by grade_id ({} for a missing or broken file)."""
    if submission_path is None:
        return {}
    try:
        nb = nbformat.read(submission_path, as_version=4)
    except Exception:  # unreadable JSON, wrong format: every answer is missing
        return {}
    found = {}
    for cell in nb.get("cells", []):
        meta = _meta(cell)
        source = cell.get("source")
        if isinstance(source, list):
            source = "".join(str(s) for s in source)
        if (
            meta.get("solution")
            and isinstance(meta.get("grade_id"), str)
            and isinstance(source, str)
        ):
            found.setdefault(meta["grade_id"], source)
    return found


def cells_to_run(source: Source, answers: dict[str, str] | None) -> list[dict]:
    """The code cells to execute: the released notebook with the answers swapped in.

    Args:
        source: The instructor notebook.
        answers: The student's solution cells by grade_id; None = the instructor's solutions
            (the reference run).
    """
    cells = []
    for released, original in zip(source.released.cells, source.notebook.cells):
        if released.cell_type != "code":
            continue
        meta = _meta(original)
        text = released.source
        if meta.get("solution"):
            grade_id = meta.get("grade_id")
            text = original.source if answers is None else answers.get(grade_id, released.source)
        cells.append(
            {"source": text, "grade_id": meta.get("grade_id") if meta.get("grade") else None}
        )
    return cells


@dataclass
class NotebookRun:
    """What happened when one notebook ran."""

    status: str = "crashed"  # ok, timeout, crashed
    reason: str = ""
    errors: dict[int, list[str]] = field(default_factory=dict)
    #: cells stopped by a limit: index -> "timeout" or "memory"
    limit_hits: dict[int, str] = field(default_factory=dict)
    executed: set[int] = field(default_factory=set)
    probe_values: list = field(default_factory=list)


class _Runner:
    """Talks to one sandboxed runner process (lines in, events out)."""

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox
        self.events: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.sandbox.process.stdout:
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
            self.sandbox.process.stdin.write(json.dumps(command) + "\n")
            self.sandbox.process.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def next(self, timeout: float) -> dict | None:
        try:
            return self.events.get(timeout=max(0.1, timeout))
        except queue.Empty:
            return {"event": "stalled"}


def _run_one(runner: _Runner, source: Source, cells: list[dict], limits: dict) -> NotebookRun:
    run = NotebookRun()
    if not runner.send({"op": "run", "notebook": source.name, "cells": cells, **limits}):
        run.reason = runner.sandbox.killed_because or "the sandbox stopped"
        return run
    probes = [p for grade_id, _ in source.grade_cells for p in source.probes.get(grade_id, [])]
    wait = limits["timeout_notebook"] + 30
    while True:
        event = runner.next(wait)
        if event is None or event.get("event") == "stalled":
            run.status = "crashed"
            run.reason = runner.sandbox.killed_because or "the kernel stopped answering"
            if "longer than" in run.reason:
                run.status = "timeout"
            return run
        kind = event.get("event")
        index = event.get("index")
        if kind == "cell_end" and isinstance(index, int) and 0 <= index < len(cells):
            run.executed.add(index)
            error = event.get("error")
            if isinstance(error, list) and len(error) == 2:
                run.errors[index] = [str(error[0])[:200], str(error[1])[:2000]]
                if event.get("timed_out"):
                    run.limit_hits[index] = "timeout"
                elif run.errors[index][0] == "MemoryError":
                    run.limit_hits[index] = "memory"
        elif kind == "cells_done":
            runner.send({"op": "probes", "probes": [{"code": p.code} for p in probes]})
        elif kind == "probe_end" and isinstance(index, int):
            run.probe_values.append((index, event.get("value")))
        elif kind == "notebook_done":
            run.status = (
                event.get("status") if event.get("status") in ("ok", "timeout") else "crashed"
            )
            run.reason = str(event.get("reason", ""))[:300]
            if run.status == "crashed" and runner.sandbox.killed_because:
                run.reason = runner.sandbox.killed_because
            return run


def run_submission(
    sources: list[Source],
    answers: dict[str, dict[str, str] | None],
    job_dir: Path,
    template: Path,
    limits: Limits,
    timeout_cell: float,
    timeout_notebook: float,
    use_bwrap: bool | None = None,
) -> dict[str, NotebookRun]:
    """Run a submission's notebooks in one sandbox; notebooks it lacks are not run.

    Args:
        answers: Per notebook name, the solution cells by grade_id (None = the reference).
    """
    runs: dict[str, NotebookRun] = {}
    per_notebook = {"timeout_cell": timeout_cell, "timeout_notebook": timeout_notebook}
    todo = [source for source in sources if source.name in answers]
    while todo:
        # A sandbox that dies (killed by a limit, or by the submission) is replaced for the
        # notebooks still to run: one notebook's crash does not cost the others.
        with Sandbox(job_dir, template, limits, use_bwrap) as sandbox:
            runner = _Runner(sandbox)
            ready = runner.next(120)
            if not ready or ready.get("event") != "ready":
                for source in todo:
                    runs[source.name] = NotebookRun(reason="the grading runner did not start")
                return runs
            while todo:
                source = todo.pop(0)
                cells = cells_to_run(source, answers[source.name])
                runs[source.name] = _run_one(runner, source, cells, per_notebook)
                if sandbox.process.poll() is not None or sandbox.killed_because:
                    break
    return runs


def score_notebook(
    student: str, source: Source, run: NotebookRun | None, reference: list
) -> list[GradeRow]:
    """Score each grade cell: its visible checks ran clean AND its probes equal the reference."""
    if run is None:
        return [
            GradeRow(student, source.name, gid, 0.0, pts, "missing", "notebook not submitted")
            for gid, pts in source.grade_cells
        ]
    cells = cells_to_run(source, {})
    position = {c["grade_id"]: i for i, c in enumerate(cells) if c["grade_id"]}
    values = dict(run.probe_values)
    expected = dict(reference)
    stopped = run.status if run.status in ("timeout", "crashed") else "crashed"
    rows, probe_index, previous = [], 0, -1
    for grade_id, points in source.grade_cells:
        index = position[grade_id]
        probes = source.probes.get(grade_id, [])
        first_probe = probe_index
        probe_index += len(probes)
        status, message = _verdict(run, index, previous)
        if status == "ok":
            for offset, probe in enumerate(probes):
                value = values.get(first_probe + offset, _MISSING)
                if value is _MISSING:
                    reason = run.reason or "the run stopped"
                    status, message = stopped, f"value checks did not finish: {reason}"
                    break
                if not same(value, expected.get(first_probe + offset)):
                    status, message = "failed", f"value check '{probe.name}': {probe.message}"
                    break
        earned = points if status == "ok" else 0.0
        rows.append(GradeRow(student, source.name, grade_id, earned, points, status, message))
        previous = index
    return rows


_MISSING = object()


def _verdict(run: NotebookRun, index: int, previous: int) -> tuple[str, str]:
    """Status and message of the grade cell at ``index`` from the run alone (before probes)."""
    if index not in run.executed and index not in run.errors:
        stopped = run.status if run.status in ("timeout", "crashed") else "crashed"
        return stopped, run.reason or "the run stopped before this cell"
    if index not in run.errors:
        return "ok", ""
    ename, evalue = run.errors[index]
    hits = [(i, why) for i, why in sorted(run.limit_hits.items()) if i <= index]
    if hits:
        cell, why = hits[-1]
        if why == "timeout":
            return "timeout", (
                f"code cell {cell + 1} exceeded the time limit and was interrupted; "
                f"then this check failed: {ename}: {evalue}"
            )
        return "crashed", (
            f"code cell {cell + 1} ran out of memory; then this check failed: {ename}: {evalue}"
        )
    message = f"{ename}: {evalue}"
    earlier = [i for i in run.errors if previous < i < index]
    if earlier:
        first = run.errors[earlier[0]]
        message += f" (an earlier cell, code cell {earlier[0] + 1}, raised {first[0]}: {first[1]})"
    return "failed", message


# --- the batch --------------------------------------------------------------------------------
def _digest(sources: list[Source]) -> str:
    digest = hashlib.sha256()
    for source in sources:
        digest.update(nbformat.writes(source.notebook).encode())
        digest.update(repr(source.probes).encode())
    import agent_harness

    for path in sorted(Path(agent_harness.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())  # the library the reference ran against
    return digest.hexdigest()[:16]


def _reference(sources, out: Path, template: Path, limits: Limits, settings: dict) -> dict:
    """The probe values of the instructor's solutions (cached in RESULTS/.reference.json)."""
    cache = out / ".reference.json"
    key = _digest(sources)
    if cache.exists():
        try:
            saved = json.loads(cache.read_text(encoding="utf-8"))
            if saved.get("key") == key:
                return {
                    name: [tuple(v) for v in values] for name, values in saved["values"].items()
                }
        except (ValueError, KeyError):
            pass
    with tempfile.TemporaryDirectory(prefix="reference-", dir=out) as job:
        runs = run_submission(
            sources, {s.name: None for s in sources}, Path(job), template, limits, **settings
        )
    problems = []
    for source in sources:
        run = runs[source.name]
        rows = score_notebook("reference", source, run, run.probe_values)
        problems += [
            f"{r.notebook}/{r.grade_id}: {r.status} {r.message}" for r in rows if r.status != "ok"
        ]
        missing = sum(len(source.probes.get(g, [])) for g, _ in source.grade_cells) - len(
            run.probe_values
        )
        if missing:
            problems.append(f"{source.name}: {missing} probe(s) gave no value")
    if problems:
        raise GradingError(
            "the instructor's solutions do not pass their own checks here, so nothing can be "
            "graded; fix the environment or the solutions first:\n  " + "\n  ".join(problems[:10])
        )
    values = {name: run.probe_values for name, run in runs.items()}
    cache.write_text(json.dumps({"key": key, "values": values}), encoding="utf-8")
    return values


def grade_batch(
    submissions: Path,
    out: Path,
    workers: int | None = None,
    timeout_cell: float = 60.0,
    timeout_notebook: float = 300.0,
    force: bool = False,
    limits: Limits | None = None,
    source_dir: Path | None = None,
    use_bwrap: bool | None = None,
    progress: Callable[[int], object] | None = None,
    on_total: Callable[[int], object] | None = None,
) -> list[GradeRow]:
    """Grade every submission under ``submissions`` into ``out``; returns all rows.

    Writes ``out/grades.csv``, ``out/feedback/<student>.html`` and remembers what it graded
    (``out/.graded.json``) so a second run grades only new or changed submissions.
    """
    from grader.autograde import prepare_template
    from grader.report import (
        feedback_filename,
        read_grades_csv,
        write_feedback,
        write_grades_csv,
    )

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sources = load_sources(source_dir)
    names = [s.name for s in sources]
    found = collect(Path(submissions), names, out / "unpacked")
    _write_problems(found, out / "problems.txt")
    ledger_path = out / ".graded.json"
    ledger = json.loads(ledger_path.read_text()) if ledger_path.exists() and not force else {}
    previous = [] if force else read_grades_csv(out / "grades.csv")
    todo = [s for s in found if ledger.get(s.student) != s.fingerprint()]
    if on_total:
        on_total(len(todo))
    rows_by_student: dict[str, list[GradeRow]] = {}
    for row in previous:
        if row.student not in {s.student for s in todo}:
            rows_by_student.setdefault(row.student, []).append(row)
    if not todo:
        return [r for s in sorted(rows_by_student) for r in rows_by_student[s]]

    template = out / ".template"
    if not (template / "harness.db").exists():
        shutil.rmtree(template, ignore_errors=True)
        prepare_template(template)
    limits = limits or Limits(deadline_s=timeout_notebook * len(sources) + 60)
    settings = {
        "timeout_cell": timeout_cell,
        "timeout_notebook": timeout_notebook,
        "use_bwrap": use_bwrap,
    }
    reference = _reference(sources, out, template, limits, settings)
    hidden = set().union(*(s.hidden_lines for s in sources))
    lock = threading.Lock()

    def grade_one(submission: Submission) -> list[GradeRow]:
        answers = {name: _student_cells(path) for name, path in submission.notebooks.items()}
        job = Path(tempfile.mkdtemp(prefix=f"job-{submission.student}-", dir=out))
        try:
            runs = run_submission(sources, answers, job, template, limits, **settings)
        finally:
            shutil.rmtree(job, ignore_errors=True)
        rows = []
        for source in sources:
            rows += score_notebook(
                submission.student, source, runs.get(source.name), reference[source.name]
            )
        return rows

    workers = max(1, workers or os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(grade_one, s): s for s in todo}
        for future in as_completed(futures):
            submission = futures[future]
            try:
                rows = future.result()
            except Exception as e:  # a grader bug must not stop the batch
                rows = [
                    GradeRow(
                        submission.student, src.name, gid, 0.0, pts, "crashed", f"grader error: {e}"
                    )
                    for src in sources
                    for gid, pts in src.grade_cells
                ]
            with lock:
                rows_by_student[submission.student] = rows
                everything = [r for s in sorted(rows_by_student) for r in rows_by_student[s]]
                write_grades_csv(everything, out / "grades.csv")
                write_feedback(
                    rows,
                    out / "feedback" / feedback_filename(submission.student),
                    title=f"Workshop feedback: {submission.student}",
                    hidden_lines=hidden,
                )
                ledger[submission.student] = submission.fingerprint()
                tmp = ledger_path.with_suffix(".tmp")
                tmp.write_text(json.dumps(ledger, indent=1), encoding="utf-8")
                os.replace(tmp, ledger_path)
            if progress:
                progress(1)
    return [r for s in sorted(rows_by_student) for r in rows_by_student[s]]


def _write_problems(found: list[Submission], path: Path) -> None:
    """What collecting found odd (unmatched files, bad zips), one line per problem."""
    lines = [f"{s.student}: {problem}" for s in found for problem in s.problems]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
